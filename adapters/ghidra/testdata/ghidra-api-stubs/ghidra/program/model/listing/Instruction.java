// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import ghidra.program.model.address.Address;
import ghidra.program.model.symbol.FlowType;

public interface Instruction extends CodeUnit {
    public String getDefaultOperandRepresentation(int operandIndex);

    public Address[] getFlows();

    public FlowType getFlowType();
}
