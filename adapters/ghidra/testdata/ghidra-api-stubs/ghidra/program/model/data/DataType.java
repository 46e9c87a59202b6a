// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.data;

public interface DataType {
    public String getDisplayName();
}
