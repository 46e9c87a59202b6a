// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import ghidra.program.model.address.Address;
import ghidra.program.model.data.DataType;
import ghidra.program.model.symbol.Namespace;

public interface Function extends Namespace {
    public Address getEntryPoint();

    public DataType getReturnType();

    public FunctionSignature getSignature();

    public Parameter[] getParameters();

    public Variable[] getLocalVariables();

    public boolean hasVarArgs();

    public String getCallingConventionName();

    public boolean isThunk();

    public Function getThunkedFunction(boolean recursive);

    @Override
    public boolean isExternal();
}
