// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.flatapi;

import ghidra.program.model.listing.Program;
import ghidra.util.task.TaskMonitor;

public class FlatProgramAPI {
    protected Program currentProgram;
    protected TaskMonitor monitor;
}
