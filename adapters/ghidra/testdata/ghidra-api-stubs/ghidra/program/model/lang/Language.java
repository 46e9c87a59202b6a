// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.lang;

public interface Language {
    public int getInstructionAlignment();
}
