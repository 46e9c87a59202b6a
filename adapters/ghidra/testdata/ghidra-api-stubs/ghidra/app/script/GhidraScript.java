// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.script;

import ghidra.program.flatapi.FlatProgramAPI;

public abstract class GhidraScript extends FlatProgramAPI {
    protected abstract void run() throws Exception;

    public String[] getScriptArgs() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
