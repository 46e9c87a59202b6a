// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.framework;

public class Application {
    public static String getApplicationVersion() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
