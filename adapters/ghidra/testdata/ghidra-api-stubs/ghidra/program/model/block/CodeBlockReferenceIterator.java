// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.block;

import ghidra.util.exception.CancelledException;

public interface CodeBlockReferenceIterator {
    public boolean hasNext() throws CancelledException;

    public CodeBlockReference next() throws CancelledException;
}
