// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.app.util;

import ghidra.program.model.listing.Instruction;

// Ghidra's class is concrete; it is abstract here so that the stub need not
// implement Instruction. The bridge never constructs one.
public abstract class PseudoInstruction implements Instruction {
}
