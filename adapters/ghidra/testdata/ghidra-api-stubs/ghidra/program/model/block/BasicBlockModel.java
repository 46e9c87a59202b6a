// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.block;

import ghidra.program.model.listing.Program;

public class BasicBlockModel extends SimpleBlockModel {
    public BasicBlockModel(Program program) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public BasicBlockModel(Program program, boolean includeExternals) {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
