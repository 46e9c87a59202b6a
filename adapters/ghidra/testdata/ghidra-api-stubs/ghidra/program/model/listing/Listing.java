// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import ghidra.program.model.address.AddressSetView;

public interface Listing {
    public InstructionIterator getInstructions(boolean forward);

    public InstructionIterator getInstructions(AddressSetView addrSet, boolean forward);
}
