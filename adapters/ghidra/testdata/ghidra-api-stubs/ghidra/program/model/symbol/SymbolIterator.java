// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

import java.util.Iterator;

public interface SymbolIterator extends Iterator<Symbol>, Iterable<Symbol> {
}
