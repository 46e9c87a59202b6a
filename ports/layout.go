package ports

import (
	"context"
	"io"
)

// LayoutReader reads the structure an executable image declares in its
// headers (sections, segments, symbols, relocations, dynamic linkage) and
// the mitigations inferred from them; it reads code only where headers
// cannot tell (a static program's canary and FORTIFY_SOURCE). It is
// offered by a Provider, not by an open Analysis: it needs no provider
// session. Implementations must be safe for concurrent use, must not keep
// r after returning, and return ErrUnsupported for formats or machines
// they do not read and *FormatError for corrupt input.
type LayoutReader interface {
	ReadLayout(ctx context.Context, r io.ReaderAt, size int64) (*Layout, error)
}

// TargetLayoutReader is an optional extension of an Analysis: the layout
// of its own target's bytes (the caller has checked their SHA-256), read
// with what the analysis already knows instead of analysing the file a
// second time (a stripped static program's main and signature-library
// names). The result must equal its provider's ReadLayout of the same
// bytes; the rules of LayoutReader apply, and r is read as there.
type TargetLayoutReader interface {
	ReadTargetLayout(ctx context.Context, r io.ReaderAt, size int64) (*Layout, error)
}

// Layout is the raw header structure of one image. Values are as the file
// declares them; core turns them into Evidence. Every range the reader
// reports lies inside the file unless a Diagnostic says otherwise.
type Layout struct {
	Format    string // "elf"
	Machine   string // "EM_X86_64"
	Bits      int    // 32 or 64
	ByteOrder string // "little" or "big"
	ImageType string // ET_EXEC, ET_DYN, ET_REL, ET_CORE or ET_<n>
	Entry     uint64

	Sections    []LayoutSection
	Segments    []LayoutSegment
	Symbols     []LayoutSymbol
	Relocations []LayoutRelocation
	// Packed are SHT_RELR sections, decoded to the addresses they relocate.
	Packed []LayoutPackedRelocations

	Needed       []LayoutName // DT_NEEDED
	Interpreters []LayoutName // PT_INTERP contents
	SOName       *LayoutName  // DT_SONAME
	RunPaths     []LayoutName // DT_RPATH and DT_RUNPATH
	Dynamic      LayoutDynamic

	// Diagnostics are problems found while reading that did not stop it.
	Diagnostics []string
}

// LayoutName is a name as raw bytes with where they were read. Known is
// false when the name could not be read; UnknownReason says why.
type LayoutName struct {
	Bytes         []byte
	Table         string // the string table's section name ("" for PT_INTERP)
	Offset        uint64 // offset within the table (or the file, for PT_INTERP)
	Known         bool
	UnknownReason string
}

// LayoutSection is one section header.
type LayoutSection struct {
	Index      int
	Name       LayoutName
	Type       string   // SHT_PROGBITS, ... or SHT_<n>
	Flags      []string // SHF_ALLOC, SHF_WRITE, ...
	Address    uint64
	Offset     uint64
	Size       uint64 // sh_size
	FileSize   uint64 // bytes present in the file (0 for SHT_NOBITS or out-of-file sections)
	Link       uint32
	Info       uint32
	Align      uint64
	EntrySize  uint64
	InFile     bool // the file range [Offset, Offset+FileSize) lies inside the file
	Compressed bool
}

// LayoutSegment is one program header.
type LayoutSegment struct {
	Index                int
	Type                 string // PT_LOAD, ... or PT_<n>
	Offset, FileSize     uint64
	VirtAddr, PhysAddr   uint64
	MemSize, Align       uint64
	Read, Write, Execute bool
	InFile               bool
	SectionIndexesMapped []int // sections whose address range lies inside the segment
}

// LayoutSymbol is one entry of .symtab or .dynsym.
type LayoutSymbol struct {
	Table        string // "symtab" or "dynsym"
	Index        int    // index in its table
	Name         LayoutName
	Value, Size  uint64
	Type         string // STT_FUNC, ...
	Binding      string // STB_GLOBAL, ...
	Visibility   string // STV_DEFAULT, ...
	SectionIndex uint16 // st_shndx
	Section      string // the section's name, "" for special indexes
	Version      string // GNU symbol version of a dynamic symbol, "" when none
}

// LayoutRelocation is one REL or RELA entry.
type LayoutRelocation struct {
	Section     string // the relocation section (".rela.dyn", ...)
	Index       int
	Offset      uint64 // r_offset
	Type        string // R_X86_64_*, or R_<n>
	SymbolIndex uint32
	Symbol      *LayoutName // the symbol's name, nil for index 0
	Addend      int64
	HasAddend   bool
}

// LayoutPackedRelocations is one SHT_RELR section.
type LayoutPackedRelocations struct {
	Section   string
	Offset    uint64
	Size      uint64
	Entries   int
	Addresses []uint64
}

// LayoutDynamic holds the dynamic-section facts mitigations are inferred from.
type LayoutDynamic struct {
	Present bool
	BindNow bool // DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW
	PIEFlag bool // DF_1_PIE
	TextRel bool // DT_TEXTREL or DF_TEXTREL
	GOT     []LayoutRange
	PLT     []LayoutRange
	// StackCanary: in a dynamic image, a symbol named __stack_chk_fail or
	// __stack_chk_guard; in a static one (libc defines both whatever the
	// program was built with), the program's own code is seen to use the
	// canary. StackCanaryUnknown is set when that could not be told;
	// StackCanaryLimit says what limits the answer ("" when nothing does).
	StackCanary        bool
	StackCanaryUnknown bool
	StackCanaryLimit   string
	// Fortified are the checked functions of glibc's _FORTIFY_SOURCE
	// (__*_chk, sorted, at most a bound the limit names) the program uses:
	// in a dynamic image, those it imports; in a static one, those the
	// program's own code calls directly. FortifyUnknown and FortifyLimit
	// are as for the canary.
	Fortified      []string
	FortifyUnknown bool
	FortifyLimit   string
	GNUStack       *LayoutSegment
	GNURelro       *LayoutSegment
}

// LayoutRange is a named address range.
type LayoutRange struct {
	Name    string
	Address uint64
	Size    uint64
}
