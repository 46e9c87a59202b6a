// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.decompiler;

import ghidra.program.model.listing.Function;
import ghidra.program.model.listing.Program;
import ghidra.util.task.TaskMonitor;

public class DecompInterface {
    public DecompInterface() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public synchronized boolean openProgram(Program prog) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public synchronized boolean toggleSyntaxTree(boolean val) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public synchronized boolean toggleCCode(boolean val) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public synchronized boolean setOptions(DecompileOptions options) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public synchronized DecompileResults decompileFunction(Function func, int timeoutSecs,
            TaskMonitor monitor) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public void dispose() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
