// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import ghidra.program.model.data.DataType;

public interface Variable extends Comparable<Variable> {
    public DataType getDataType();

    public String getName();

    public VariableStorage getVariableStorage();
}
