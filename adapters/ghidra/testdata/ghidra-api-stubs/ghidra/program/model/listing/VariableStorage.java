// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

public class VariableStorage implements Comparable<VariableStorage> {
    @Override
    public String toString() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public int compareTo(VariableStorage o) {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
