// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.address;

public interface Address extends Comparable<Address> {
    public Address next();

    public long getOffset();

    public AddressSpace getAddressSpace();

    public long subtract(Address addr);

    public Address add(long displacement) throws AddressOutOfBoundsException;

    public boolean isMemoryAddress();
}
