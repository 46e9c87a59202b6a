// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.decompiler;

import ghidra.program.model.listing.Function;
import ghidra.program.model.pcode.HighFunction;

public class DecompileResults {
    public boolean decompileCompleted() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public Function getFunction() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isTimedOut() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isCancelled() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean failedToStart() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public boolean isValid() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public String getErrorMessage() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public HighFunction getHighFunction() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public DecompiledFunction getDecompiledFunction() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
