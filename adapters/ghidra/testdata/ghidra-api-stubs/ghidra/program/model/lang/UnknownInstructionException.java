// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.lang;

import ghidra.util.exception.UsrException;

public class UnknownInstructionException extends UsrException {
}
