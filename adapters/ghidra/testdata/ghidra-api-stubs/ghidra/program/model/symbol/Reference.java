// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

import ghidra.program.model.address.Address;

public interface Reference extends Comparable<Reference> {
    public Address getToAddress();

    public RefType getReferenceType();

    public boolean isEntryPointReference();
}
