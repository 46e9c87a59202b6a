// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import ghidra.program.model.address.Address;

public interface FunctionManager {
    public Function getFunctionAt(Address entryPoint);

    public Function getFunctionContaining(Address addr);

    public FunctionIterator getFunctions(boolean forward);

    public FunctionIterator getExternalFunctions();
}
