// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

public final class FlowType extends RefType {
    @Override
    public boolean isCall() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public boolean isComputed() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public boolean isConditional() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public boolean isFlow() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public boolean isJump() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public boolean isTerminal() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
