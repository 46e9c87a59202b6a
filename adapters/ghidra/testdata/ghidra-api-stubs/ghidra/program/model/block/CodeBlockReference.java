// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.block;

import ghidra.program.model.address.Address;
import ghidra.program.model.symbol.FlowType;

public interface CodeBlockReference {
    public Address getDestinationAddress();

    public FlowType getFlowType();
}
