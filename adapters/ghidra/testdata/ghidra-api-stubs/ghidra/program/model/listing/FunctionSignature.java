// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

public interface FunctionSignature {
    public String getPrototypeString();
}
