// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.mem;

import ghidra.program.model.address.Address;
import ghidra.program.model.address.AddressSetView;

public interface Memory extends AddressSetView {
    public MemoryBlock getBlock(Address addr);

    public MemoryBlock[] getBlocks();

    public int getBytes(Address addr, byte[] dest) throws MemoryAccessException;
}
