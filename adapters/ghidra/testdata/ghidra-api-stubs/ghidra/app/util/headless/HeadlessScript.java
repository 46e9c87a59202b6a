// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.util.headless;

import ghidra.app.script.GhidraScript;
import ghidra.app.script.ImproperUseException;

public abstract class HeadlessScript extends GhidraScript {
    public boolean analysisTimeoutOccurred() throws ImproperUseException {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
