// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.pcode;

import ghidra.program.model.data.DataType;
import ghidra.program.model.listing.VariableStorage;

public class HighSymbol {
    public String getName() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public DataType getDataType() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public VariableStorage getStorage() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
