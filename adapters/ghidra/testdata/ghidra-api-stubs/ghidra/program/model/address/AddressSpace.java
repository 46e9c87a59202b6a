// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.address;

public interface AddressSpace extends Comparable<AddressSpace> {
    String getName();

    Address getAddress(long byteOffset) throws AddressOutOfBoundsException;
}
