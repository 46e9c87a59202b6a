// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.decompiler;

public class DecompileOptions {
    public DecompileOptions() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public void setDefaultTimeout(int timeout) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public void setMaxPayloadMBytes(int mbytes) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public void setMaxInstructions(int num) {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
