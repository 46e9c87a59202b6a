// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.pcode;

import ghidra.program.model.listing.Function;

public class HighFunction extends PcodeSyntaxTree {
    public Function getFunction() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public FunctionPrototype getFunctionPrototype() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public JumpTable[] getJumpTables() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
