// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.address;

public interface AddressFactory {
    public AddressSpace getDefaultAddressSpace();

    public AddressSpace getAddressSpace(String name);
}
