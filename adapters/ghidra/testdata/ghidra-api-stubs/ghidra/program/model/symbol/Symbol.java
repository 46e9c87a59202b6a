// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

import ghidra.program.model.address.Address;

public interface Symbol {
    public Address getAddress();

    public String getName(boolean includeNamespace);

    public SymbolType getSymbolType();

    public boolean isDynamic();

    public boolean isExternal();

    public boolean isPrimary();

    public SourceType getSource();
}
