// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.pcode;

import ghidra.program.model.address.Address;

public class JumpTable {
    public class LoadTable {
        public Address getAddress() {
            throw new UnsupportedOperationException("compile-only stub");
        }

        public int getSize() {
            throw new UnsupportedOperationException("compile-only stub");
        }

        public int getNum() {
            throw new UnsupportedOperationException("compile-only stub");
        }
    }

    public Address getSwitchAddress() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public Address[] getCases() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public Integer[] getLabelValues() {
        throw new UnsupportedOperationException("compile-only stub");
    }

    public LoadTable[] getLoadTables() {
        throw new UnsupportedOperationException("compile-only stub");
    }
}
