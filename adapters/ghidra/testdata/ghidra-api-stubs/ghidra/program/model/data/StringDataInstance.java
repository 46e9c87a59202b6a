// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.data;

import ghidra.program.model.listing.Data;

public class StringDataInstance {
    public static StringDataInstance getStringDataInstance(Data data) {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public String getCharsetName() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public String getStringValue() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
