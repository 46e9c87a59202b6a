package ports

import "context"

// Document is one analysable unit inside a target (an ELF file has one; a
// universal Mach-O has one per slice).
type Document struct {
	Name         string
	Format       string
	Architecture string
	Entry        uint64
	HasEntry     bool
	// Static: a program no dynamic loader loads (ELF: no PT_INTERP, no
	// DT_NEEDED; ET_EXEC, or a static PIE): its C library's start-up code
	// applies its relocations, IFUNCs' (IRELATIVE) included.
	Static bool
}

// Permissions of a segment or section.
type Permissions struct {
	Read, Write, Execute bool
}

// Segment is a mapped region: an ELF/PE/Mach-O section (Kind "section") or a
// loadable program segment (Kind "segment").
type Segment struct {
	Name       string
	Kind       string // "section" or "segment"
	Start      uint64 // virtual address
	Size       uint64 // size in memory
	FileOffset uint64
	FileSize   uint64 // bytes present in the file (0 for NOBITS/BSS)
	Perms      Permissions
}

// Holding returns the smallest of segs that maps addr, or nil. A segment
// at address 0 that grants no access (an unallocated section, Mach-O's
// __PAGEZERO) maps nothing.
func Holding(segs []Segment, addr uint64) *Segment {
	var best *Segment
	for k := range segs {
		s := &segs[k]
		if addr >= s.Start && addr-s.Start < s.Size && (s.Start != 0 || s.Perms.Read || s.Perms.Execute) {
			if best == nil || s.Size < best.Size {
				best = s
			}
		}
	}
	return best
}

// Procedure is a function start known to the engine.
type Procedure struct {
	Address uint64
	Name    string // "" when the engine has no name
	Size    uint64 // 0 when unknown
	// Source says how the start was found: symbol, dynamic-symbol, plt, entry,
	// dwarf, eh-frame, pdata, function-starts, call-target, export,
	// libc-start-main (main, as the entry point passes it to the C library),
	// crt-start (__libc_start_main, as a static program's C library _start
	// calls it), crt-exit (a PE program's main, WinMain or wmain, whose
	// return value its C runtime's start code passes to exit),
	// library (a procedure without a symbol whose bytes equal a function of
	// a signature library, a C library archive: the name is that function's).
	Source   string
	External bool // an import stub or external function
	Thunk    bool // a PLT stub or jump thunk
	// IFunc: the code is a GNU indirect function's resolver (an ELF
	// STT_GNU_IFUNC symbol's value), which the dynamic loader (a static
	// program's C library start-up code: Document.Static) runs to choose
	// the implementation that calls of the name reach.
	IFunc       bool
	ThunkTarget string // name of what the thunk jumps to, when known
}

// Name is a label at an address.
type Name struct {
	Address uint64
	Name    string
	Kind    string // function, object, import, label, section
	// Library is the file an import comes from when the image names it
	// exactly: a PE import descriptor's DLL, a Mach-O two-level library
	// ordinal's dylib, an ELF version need's file. "" otherwise: an
	// unversioned ELF import names no file, and is not guessed.
	Library string
	// Size is the bytes a function or object covers when the image says
	// (an ELF symbol's st_size), 0 otherwise.
	Size uint64
}

// String is a string literal found in the target's bytes.
type String struct {
	Address    uint64
	FileOffset uint64
	Value      string // decoded UTF-8
	Charset    string // "ascii" or "utf-16le"
	ByteLength int    // bytes occupied in the file, terminator excluded
	Truncated  bool   // Value was cut at the engine's maximum string length
	Section    string
}

// DocumentLister reports the documents of an analysis.
type DocumentLister interface {
	Documents(ctx context.Context) ([]Document, error)
}

// The lists of SegmentLister, ProcedureLister and NameLister (and
// EarlyProcedureLister's) may be shared: an engine may hand every caller the
// same slice it keeps, so callers must not modify it (copy it before sorting
// or editing). Document and string lists belong to the caller.

// SegmentLister reports sections and segments, in file order. The slice is
// shared; callers must not modify it.
type SegmentLister interface {
	Segments(ctx context.Context) ([]Segment, error)
}

// ProcedureLister reports every known procedure, sorted by address, each
// address once. The slice is shared; callers must not modify it.
type ProcedureLister interface {
	Procedures(ctx context.Context) ([]Procedure, error)
}

// NameLister reports every label, sorted by address then name. The slice
// is shared; callers must not modify it.
type NameLister interface {
	Names(ctx context.Context) ([]Name, error)
}

// StringLister reports every string found, sorted by address.
type StringLister interface {
	Strings(ctx context.Context) ([]String, error)
}

// StripReporter is implemented by an analysis that tells which of its own
// names and debug information the target's file keeps, read from the file
// itself (a separate debug file the engine found does not count): whether
// it was stripped. The answer is the same for every call on one analysis.
type StripReporter interface {
	Stripping(ctx context.Context) (Stripping, error)
}

// Stripping is StripReporter's answer.
type Stripping struct {
	// StaticSymbols: the file keeps a symbol table beyond its dynamic
	// symbols and exports (ELF .symtab, Mach-O local symbols, PE COFF
	// symbols). A file without one is stripped, as file(1) says it.
	StaticSymbols bool
	DebugInfo     bool // the file keeps debug information (DWARF's .debug_info)
	// DebugLink is the separate debug file the target names, as it names
	// it (an ELF .gnu_debuglink, the PDB path of a PE's CodeView record),
	// "" when it names none. Named only: the provider need not have found
	// or read it.
	DebugLink string
}

// LimitationReporter is implemented by an analysis whose lists were cut by
// the engine's own bounds (a symbol table declaring more entries than the
// engine reads, say): each sentence names the bound and what was left out,
// so a cut is never silent. Core adds them to the results about the target.
// The answer is the same for every call on one analysis.
type LimitationReporter interface {
	Limitations(ctx context.Context) ([]string, error)
}

// StringPager is an optional extension of a StringLister that hands out a
// page of the same list, and the list's length, without building the whole
// list: a large binary holds millions of strings. Page returns
// Strings()[offset:offset+limit] (clipped to the list; empty past its end)
// and len(Strings()).
type StringPager interface {
	StringsPage(ctx context.Context, offset, limit int) ([]String, int, error)
}

// EarlyProcedureLister is an optional extension of a ProcedureLister for an
// engine whose complete list needs whole-file work that can take long on a
// large target (function discovery by decoding the code), which it may run
// in the background from Open. EarlyProcedures answers without waiting for
// that work: the procedures known from the target's tables (symbols,
// exports, unwind and similar tables), sorted by address, each address
// once, every one of them also in Procedures' list at the same address.
//
// Complete says that the list is Procedures' complete list (the engine then
// waited for it). Both the list and Complete are a function of the target's
// bytes, the engine's version and its profile only: never of timing, of the
// number of cores, of a cache, or of what was called before, so that a
// result built on them is reproducible. Typically an engine answers
// complete on a small target and from its tables on a large one.
//
// While Procedures waits for background work it reports the work's progress
// through the caller's context (Observe), and returns the context's error
// when the caller gives up; the work goes on for later callers.
type EarlyProcedureLister interface {
	EarlyProcedures(ctx context.Context) (EarlyProcedures, error)
}

// EarlyProcedures is EarlyProcedureLister's answer.
type EarlyProcedures struct {
	Procedures []Procedure // shared: callers must not modify it
	// Complete: Procedures is the ProcedureLister's whole list.
	Complete bool
}
