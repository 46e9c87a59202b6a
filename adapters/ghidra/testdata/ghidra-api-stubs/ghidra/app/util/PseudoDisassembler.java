// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.util;

import ghidra.program.model.address.Address;
import ghidra.program.model.lang.InsufficientBytesException;
import ghidra.program.model.lang.UnknownContextException;
import ghidra.program.model.lang.UnknownInstructionException;
import ghidra.program.model.listing.Program;

public class PseudoDisassembler {
    public PseudoDisassembler(Program program) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public PseudoInstruction disassemble(Address addr) throws InsufficientBytesException,
            UnknownInstructionException, UnknownContextException {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
