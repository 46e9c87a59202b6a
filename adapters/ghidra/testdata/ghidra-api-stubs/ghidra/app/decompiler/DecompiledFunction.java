// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.decompiler;

public class DecompiledFunction {
    public String getSignature() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public String getC() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
