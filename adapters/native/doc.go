// Package native is rea's built-in analysis provider, "rea-native": a pure Go
// reader of ELF, PE and Mach-O files over the standard library's debug/elf,
// debug/pe, debug/macho and debug/dwarf. It needs no external engine, so it is
// always available.
//
// An [Analysis] lists documents, segments, procedures, names and strings (the
// ports.DocumentLister, SegmentLister, ProcedureLister, NameLister and
// StringLister capabilities). Each list is computed once, on first use, and
// cached; an Analysis is safe for concurrent use. Searching, paging and
// address lookup over these lists belong to core, not here.
//
// Code analysis (code.go and its neighbours) adds the ports.Disassembler,
// FunctionAnalyzer, CrossReferencer, ByteReader and SignatureReader
// capabilities: x86 and x86-64 (Intel syntax, endbr special-cased) and AArch64
// (GNU syntax) disassembly, function discovery on stripped binaries (call
// targets, .eh_frame FDEs, .pdata, LC_FUNCTION_STARTS, Go .gopclntab, then
// boundary-checked jump and pointer targets), basic blocks with jump tables
// or explicit unresolved edges, and references through RIP-relative and
// ADRP addressing, plus procedure starts stored in data (function tables,
// vtables, init arrays: ports.RefPointer, from the slot; pointers.go). Discovered functions also appear in Procedures. Whole-file
// discovery runs once, lazily, and is cancellable. It does not decompile.
//
// Value flow (valueflow*.go) adds ports.ValueFlowAnalyzer for x86-64 and
// AArch64: per-instruction defined and used locations, reaching definitions
// over the basic blocks, def-use edges, effects and parameters inferred under
// the target's calling convention (SysV, Microsoft x64, AAPCS64, or Go's
// register ABI for Go programs), bounded in instructions, rounds, work and
// state size.
//
// What the lists hold:
//
//   - Documents: one per analysable unit. A universal (fat) Mach-O has one
//     document per slice, named "<file>#<arch>" with Format "mach-o"; every
//     other list describes the first slice only, with offsets in the whole
//     file. NewAnalysis, which knows no file name, names documents "image".
//   - Segments: the section header table in file order (ELF sections without
//     the null section, PE sections, Mach-O sections named "__SEG,__sect").
//     An ELF file without sections reports its PT_LOAD program headers as
//     segments named "LOAD#0", "LOAD#1", ..., each followed by the PT_NOTE
//     headers whose bytes it holds, named "NOTE#k" (the k-th PT_NOTE) as
//     the string scan locates a string in one (elf.go withNotes).
//   - Procedures: function symbols (ELF .symtab and .dynsym, PE COFF symbols,
//     Mach-O N_SECT symbols in code sections), the entry point, PE exports and
//     x64/arm64 .pdata starts, Mach-O LC_FUNCTION_STARTS, and import stubs:
//     ELF x86/x86-64 PLT entries named as objdump names them ("printf@plt")
//     and Mach-O symbol stubs (named after the imported symbol, also with
//     Source "plt"). DWARF subprograms are used only when an ELF file has no
//     .symtab. One procedure per address; of several names, a global symbol
//     wins, then the shortest name, then code-point order; the entry point
//     keeps Source "entry" and is named "entry" only when no symbol names it.
//     Without a symbol named main, an ELF program's main is the address its
//     entry point passes to __libc_start_main (glibc's _start on x86-64,
//     i386 and AArch64, PIE or not, and musl's through _start_c:
//     entry_main.go), named "main" with Source "libc-start-main". A static
//     program's _start (glibc's and musl's on the three) is
//     recognised by its exact shape (entry_shape.go), and what it calls is
//     named "__libc_start_main" with Source "crt-start". A Mach-O
//     program's LC_MAIN entry that no symbol names takes the name the
//     export trie gives it, else "_main", and a _main the trie exports
//     elsewhere is named there (entry_macho.go; not a Go program's, which
//     its pclntab names). A stripped Go PE program's pclntab is found in
//     .rdata (entry_gope.go). An ELF IRELATIVE relocation's resolver is a
//     procedure marked IFunc (Source "irelative" when no other table
//     names it), so a stripped or static program's IFUNC resolvers are
//     marked as a symbol table's STT_GNU_IFUNC marks them.
//     A PE program without a main symbol gets main (WinMain, wmain,
//     wWinMain; _main and _WinMain@16 on i386) with Source "crt-exit": the
//     procedure whose return value the C runtime's start code (mingw-w64's
//     __tmainCRTStartup, MSVC's __scrt_common_main_seh) passes to exit
//     (imported, or a static runtime's exit stub), followed through
//     registers and memory words from the entry point (entry_pe.go, and
//     entry_pe_aarch64.go for ARM64 images); in a
//     mingw-w64 GUI program, the WinMain the runtime's own main calls too.
//     A procedure with no symbol name whose bytes equal
//     a function of a signature library (Options.SignatureLibraries: ar
//     archives and ELF objects, libraries.go) over the function's whole
//     length, relocated bits masked, with at least 16 fixed bytes and its
//     calls landing on procedures of the names the object's relocations
//     give (or unnamed), takes that function's name (of its aliases, one
//     with a C library prototype first, then an exported one before a
//     hidden one) with Source "library"; a function of fewer fixed bytes
//     (glibc's qsort, a tail jump to qsort_r) names a procedure of its
//     exact length only when each of its calls lands on a procedure named
//     as it expects (rounds, each reading the names given before);
//     bytes several names equal name nothing (counted). Matching runs at
//     open over the procedures known before discovery (symbols, entry,
//     .eh_frame, init arrays), so every list holds the same names, and
//     again when discovery completes over the procedures it found (no
//     symbol, FDE or table entry: their names are in the complete list,
//     not among the Names labels).
//     ARM Thumb addresses have bit 0 cleared.
//   - Names: every symbol label (function, object, label), import stubs and
//     import slots whose address is known (kind import), sorted by address
//     then name; one name per address and name. An ELF symbol's size is
//     the name's Size.
//   - Strings: ASCII and UTF-16LE runs in allocated, non-executable sections
//     that have file data (for an ELF file without sections, the non-executable
//     PT_LOAD segments, a string in a PT_NOTE's notes located in NOTE#k, the
//     k-th PT_NOTE program header, counted as LOAD#n counts PT_LOAD); PE sections that are code or discardable and Mach-O
//     code, zero-fill and debug sections are not scanned. Sections are read
//     through the file in 4 MiB windows cut where no run can cross, so
//     memory follows the strings found, not the section
//     size; the list is charged to the call's memory budget (ports.Reserve)
//     and held until Close.
//     Go and Rust binaries (recognised by their sections or build markers)
//     keep literals back to back without terminators; there each literal
//     whose start and length the program gives (string headers in data,
//     RELATIVE relocations applied; x86-64 LEA and AArch64 ADRP+ADD loads
//     with the length moved beside them; Rust's 2*len+1 fmt form) is one
//     string with its exact address and length, line breaks included, and
//     the remaining text is split at every referenced address
//     (strings_lit.go, strings_code.go, strings_split.go). A Value is cut at
//     MaxStringBytes; ByteLength is always the whole literal.
//
// Relocatable objects (ET_REL: gcc -c output, kernel modules, archive
// members; elf_rel.go) are read as a linker would place them: every
// SHF_ALLOC section at a synthetic address from 0x10000 in header order,
// aligned to max(sh_addralign, 16) (at most 2 MiB), written into the
// parsed section headers so that every list maps addresses alike; a
// symbol at its section's address plus its value; the undefined (and
// common) symbols 8 bytes each in an EXTERNAL segment after the last
// section, listed as names of kind import; and the relocations of the
// allocated sections (x86-64, i386 and AArch64 code and data references,
// GOT-relative ones at the symbol itself) applied to a private copy of
// their bytes, which every read of the file sees, so calls name their
// callees and imports. The object's DWARF is relocated against the same
// layout. A limitation says the addresses are synthetic and counts the
// relocations not applied; a layout past 2^40 is not made (the sections
// stay at 0). Linked files are read as before.
//
// Separate debug files (debugfile.go): an ELF target opened by path that
// has no .symtab or no DWARF looks, under each of
// Options.DebugFileDirectories (none by default; cmd/rea passes
// DefaultDebugFileDirectories, /usr/lib/debug, or REA_DEBUG_FILE_DIRECTORIES),
// for its debug file as gdb does: DIR/.build-id/xx/rest.debug by build ID,
// and by .gnu_debuglink beside the target, in its .debug subdirectory and
// DIR/<target's directory>/. A candidate is used only when its build ID
// equals the target's (or, without one, its CRC-32 equals the debuglink's);
// a refused one is a limitation. It supplies only what the target lacks:
// its .symtab, read as the target's own would be (its code sections are
// NOBITS, so bytes still come from the target), and its DWARF, the one
// load signatures, source lines and value flow share. The profile's
// debug_file parameter names it (path, sha256, found_by, used_for), and so
// does the warm cache key. The file is untrusted input like the target.
// DWARF processed by dwz (dwz.go, dwz_merge.go) names a supplementary file
// in .gnu_debugaltlink or .debug_sup; it is found beside the file naming it
// or by its build ID under the same directories, taken only when its build
// ID (or .debug_sup checksum) is the link's, and joined with the debug
// file's DWARF into one set debug/dwarf reads (its references and strings
// rewritten in place into plain forms), so names, types and parameters read
// as without dwz; the profile's debug_file gains "supplementary" (path,
// sha256, found_by), as does the cache key.
// With Options.Debuginfod (debuginfod.go; cmd/rea sets it when
// DEBUGINFOD_URLS names servers), a debug file or supplementary file not
// found locally is fetched by build ID from each server in turn
// (GET <url>/buildid/<id>/debuginfo), into a temporary file checked as a
// local candidate is and only then renamed into the cache
// (<cache>/<id>/debuginfo), found_by "debuginfod"; its timeout, time and
// size bounds are elfutils' settings.
// A Mach-O target without __debug_info takes its DWARF, when the search is
// on (Options.DebugFileDirectories non-empty, although the bundle is not
// under a root), from the dSYM beside it (dsym.go:
// <path>.dSYM/Contents/Resources/DWARF/<name>, or the slice of a universal
// one) or beside its application bundle (Foo.app.dSYM) whose LC_UUID
// equals the target's, found_by "dsym", else from a dSYM bundle directly
// under a debug directory, found_by "dsym-directory", and its symbols
// when the target declares fewer (stripped).
//
// Signature libraries (libraries.go, arfile.go, libpattern.go,
// libmatch.go): Options.SignatureLibraries names ar archives (System V/GNU
// and BSD names; a thin archive is refused), ELF relocatable objects and
// GNU ld scripts naming them, for any ELF target, and Installed adds the
// C library archives of the target's machine (InstalledLibraries: libc.a
// and libm.a in Debian's multiarch or cross directory) for a statically
// linked one (no PT_INTERP, no DT_NEEDED); nil: none. cmd/rea passes
// Installed unless REA_SIGNATURE_LIBRARIES lists paths ("" is off). The
// profile's signature_libraries parameter names each library used (path,
// sha256, matched) and the ambiguous count, and so does the warm cache
// key; a limitation says what was named and what was not, and why. The
// libraries are untrusted input like the target. With Options.CacheDir,
// the open's match is kept in the store (libcache.go), keyed by the
// target's SHA-256 and each library file's identity (device, inode, size,
// modification and change times), with the SHA-256 the profile names: a
// second open reads it and neither reads nor hashes the libraries.
//
// Errors: input that is not ELF, PE or Mach-O (or is a directory) wraps
// ports.ErrUnsupported; malformed input is a *ports.FormatError (matching
// ports.ErrMalformed) carrying the file's size; when the file ends early it
// is Truncated and names the first header structure past the end and its
// offset (truncation.go); a missing file wraps fs.ErrNotExist; a list after
// Close wraps fs.ErrClosed; a cancelled context wraps ctx.Err().
//
// Malformed input never panics: parsing and every access to parsed data is
// recovered into a *ports.FormatError, and sizes are checked against the file
// size before anything is read. Optional tables (PLT relocations, PE imports,
// exports and .pdata, Mach-O function starts and indirect symbols, DWARF)
// that cannot be read are skipped; the rest of the list is still reported.
//
// native imports only the standard library and rea/ports; it never imports
// rea/core or another adapter.
package native
