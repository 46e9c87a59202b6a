// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.block;

import ghidra.program.model.address.AddressSetView;
import ghidra.util.exception.CancelledException;
import ghidra.util.task.TaskMonitor;

public class SimpleBlockModel implements CodeBlockModel {
    @Override
    public CodeBlockIterator getCodeBlocksContaining(AddressSetView addrSet, TaskMonitor monitor)
            throws CancelledException {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
