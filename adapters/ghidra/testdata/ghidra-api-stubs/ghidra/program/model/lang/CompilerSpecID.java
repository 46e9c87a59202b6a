// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.lang;

public final class CompilerSpecID implements Comparable<CompilerSpecID> {
    public String getIdAsString() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public int compareTo(CompilerSpecID o) {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
