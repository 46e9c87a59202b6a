// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.database.mem;

public class FileBytes {
    public long getFileOffset() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
