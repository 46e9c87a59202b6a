// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

import ghidra.program.model.address.Address;

public interface SymbolTable {
    public SymbolIterator getAllSymbols(boolean includeDynamicSymbols);

    public Symbol getPrimarySymbol(Address addr);
}
