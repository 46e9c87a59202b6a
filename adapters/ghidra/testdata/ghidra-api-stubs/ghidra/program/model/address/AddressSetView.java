// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.address;

public interface AddressSetView {
    public boolean contains(Address addr);

    public boolean isEmpty();

    public Address getMinAddress();

    public Address getMaxAddress();

    public long getNumAddresses();
}
