// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import ghidra.program.model.address.Address;
import ghidra.program.model.mem.MemBuffer;
import ghidra.program.model.mem.MemoryAccessException;

public interface CodeUnit extends MemBuffer {
    public Address getAddress();

    public String getMnemonicString();

    public int getLength();

    public byte[] getBytes() throws MemoryAccessException;

    public int getNumOperands();
}
