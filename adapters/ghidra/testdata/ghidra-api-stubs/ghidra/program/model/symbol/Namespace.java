// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

import ghidra.program.model.address.AddressSetView;

public interface Namespace {
    public String getName();

    public String getName(boolean includeNamespacePath);

    public boolean isExternal();

    public AddressSetView getBody();
}
