// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.address;

public class AddressOutOfBoundsException extends RuntimeException {
}
