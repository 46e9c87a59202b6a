// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.mem;

import java.util.Optional;
import ghidra.program.database.mem.FileBytes;

public interface MemoryBlockSourceInfo {
    long getLength();

    Optional<FileBytes> getFileBytes();

    long getFileBytesOffset();
}
