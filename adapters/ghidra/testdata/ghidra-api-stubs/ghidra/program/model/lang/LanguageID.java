// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.lang;

public class LanguageID implements Comparable<LanguageID> {
    public String getIdAsString() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public int compareTo(LanguageID o) {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
