// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.pcode;

import ghidra.program.model.data.DataType;

public class FunctionPrototype {
    public int getNumParams() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public HighSymbol getParam(int i) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public DataType getReturnType() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isVarArg() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public String getModelName() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
