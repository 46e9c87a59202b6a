// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.util;

import java.util.Iterator;
import ghidra.program.model.listing.Data;
import ghidra.program.model.listing.DataIterator;
import ghidra.program.model.listing.Program;

public class DefinedStringIterator implements DataIterator {
    public static DefinedStringIterator forProgram(Program program) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public boolean hasNext() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public Data next() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    @Override
    public Iterator<Data> iterator() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
