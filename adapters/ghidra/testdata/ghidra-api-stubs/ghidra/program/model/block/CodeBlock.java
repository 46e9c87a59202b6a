// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.block;

import ghidra.program.model.address.AddressSetView;
import ghidra.util.exception.CancelledException;
import ghidra.util.task.TaskMonitor;

public interface CodeBlock extends AddressSetView {
    public CodeBlockReferenceIterator getDestinations(TaskMonitor monitor) throws CancelledException;
}
