// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.symbol;

public enum SourceType {
    DEFAULT, ANALYSIS, AI, IMPORTED, USER_DEFINED
}
