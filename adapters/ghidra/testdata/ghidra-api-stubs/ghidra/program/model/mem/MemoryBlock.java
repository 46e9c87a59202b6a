// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.mem;

import java.io.Serializable;
import java.util.List;
import ghidra.program.model.address.Address;

public interface MemoryBlock extends Serializable, Comparable<MemoryBlock> {
    public boolean contains(Address addr);

    public Address getStart();

    public Address getEnd();

    public String getName();

    public boolean isRead();

    public boolean isWrite();

    public boolean isExecute();

    public int getBytes(Address addr, byte[] b) throws MemoryAccessException;

    public boolean isInitialized();

    public boolean isOverlay();

    public List<MemoryBlockSourceInfo> getSourceInfos();
}
