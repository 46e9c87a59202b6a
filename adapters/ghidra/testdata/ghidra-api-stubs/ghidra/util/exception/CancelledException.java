// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.util.exception;

public class CancelledException extends UsrException {
}
