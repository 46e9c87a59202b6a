// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.block;

import ghidra.util.exception.CancelledException;

public interface CodeBlockIterator extends Iterable<CodeBlock> {
    public boolean hasNext() throws CancelledException;

    public CodeBlock next() throws CancelledException;
}
