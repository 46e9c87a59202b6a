// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import java.util.Iterator;

public interface InstructionIterator extends Iterator<Instruction>, Iterable<Instruction> {
}
