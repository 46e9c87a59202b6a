// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

public abstract class RefType {
    public boolean isData() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isRead() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isWrite() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isFlow() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isCall() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isJump() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isConditional() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isComputed() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isTerminal() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public final boolean isFallthrough() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
