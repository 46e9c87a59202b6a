// Compile-only declaration of Ghidra 12.1's public API (see README.md).
package ghidra.program.model.listing;

import ghidra.program.model.address.Address;
import ghidra.program.model.address.AddressFactory;
import ghidra.program.model.lang.CompilerSpec;
import ghidra.program.model.lang.Language;
import ghidra.program.model.lang.LanguageID;
import ghidra.program.model.mem.Memory;
import ghidra.program.model.symbol.ReferenceManager;
import ghidra.program.model.symbol.SymbolTable;

public interface Program {
    // Declared in DomainObject, which Program extends through DataTypeManagerDomainObject.
    public String getName();

    public Listing getListing();

    public FunctionManager getFunctionManager();

    public SymbolTable getSymbolTable();

    public Memory getMemory();

    public ReferenceManager getReferenceManager();

    public String getExecutableSHA256();

    public Language getLanguage();

    public CompilerSpec getCompilerSpec();

    public LanguageID getLanguageID();

    public AddressFactory getAddressFactory();

    public Address getImageBase();
}
