// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

public abstract class SymbolType {
    @Override
    public String toString() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
