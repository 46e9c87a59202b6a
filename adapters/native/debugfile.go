package native

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Separate debug files, found as gdb finds them: distributions strip their
// binaries and ship the symbols and DWARF in a file of their own (Debian's
// -dbg and -dbgsym packages: /usr/lib/debug/.build-id/ab/cdef....debug).
// A target opened by path that lacks a .symtab or DWARF looks for one under
// each of Options.DebugFileDirectories,
//
//   - by build ID (.note.gnu.build-id): DIR/.build-id/xx/rest.debug;
//   - by .gnu_debuglink (a file name and the CRC-32 of that file): next to
//     the target, in its .debug subdirectory, and DIR/<target's
//     directory>/name;
//
// and takes the first candidate whose build ID equals the target's (or,
// when the target has none, whose CRC-32 equals the debuglink's). A
// candidate that exists but is refused (another build, another machine,
// not ELF, nothing to offer) is said in the analysis's limitations. The
// debug file is untrusted input like the target: it is read through a
// bounded source, parsed under recover, and its DWARF and symbol strings
// are charged to the memory budget as the target's are.

// DefaultDebugFileDirectories is gdb's default debug-file-directory, where
// Debian and most distributions install separate debug files. cmd/rea
// passes it unless REA_DEBUG_FILE_DIRECTORIES says otherwise.
var DefaultDebugFileDirectories = []string{"/usr/lib/debug"}

// EnvDebugFileDirectories names the setting cmd/rea reads: a
// colon-separated list of absolute directories; empty turns the search off.
const EnvDebugFileDirectories = "REA_DEBUG_FILE_DIRECTORIES"

// ParseDebugFileDirectories reads EnvDebugFileDirectories: unset
// (set false) is DefaultDebugFileDirectories, "" is none (no search), and
// every other entry must be an absolute path (empty entries are skipped).
func ParseDebugFileDirectories(v string, set bool) ([]string, error) {
	if !set {
		return slices.Clone(DefaultDebugFileDirectories), nil
	}
	var out []string
	for _, d := range strings.Split(v, ":") {
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("%s: %q is not an absolute directory", EnvDebugFileDirectories, d)
		}
		out = append(out, filepath.Clean(d))
	}
	return out, nil
}

const (
	// maxNoteBytes bounds the note sections read for a build ID.
	maxNoteBytes = 64 << 10
	// maxBuildID bounds a build ID (GNU ld writes 16 or 20 bytes).
	maxBuildID = 64
	// maxDebugLink bounds the .gnu_debuglink section (a file name, padding
	// and a CRC).
	maxDebugLink = 4096
)

// debugFile is the separate debug file an analysis uses.
type debugFile struct {
	path    string
	sha256  string
	foundBy string // "build-id", "debuglink", "dsym" or "dsym-directory"
	file    *os.File
	img     *elfImage   // code sections are NOBITS: bytes come from the target
	mach    *machoImage // a dSYM's slice (dsym.go) instead of img
	symtab  bool        // the target has no .symtab: symbols come from here
	dwarf   bool        // the target has no DWARF: DWARF comes from here
}

// used names what the debug file supplies, for the profile.
func (d *debugFile) used() []string {
	var out []string
	if d.symtab {
		out = append(out, "symbols")
	}
	if d.dwarf {
		out = append(out, "dwarf")
	}
	return out
}

// hasDWARF reports whether f carries DWARF debug information in the file.
func hasDWARF(f *elf.File) bool {
	for _, s := range f.Sections {
		if suffix, _ := dwarfSuffix(s.Name); suffix == "info" && s.Type != elf.SHT_NOBITS && s.Size > 0 {
			return true
		}
	}
	return false
}

// hasSymtab reports whether f has a symbol table with entries in the file.
func hasSymtab(f *elf.File) bool {
	s := f.SectionByType(elf.SHT_SYMTAB)
	return s != nil && s.Size > 0
}

// elfBuildID is the GNU build ID of an ELF file (NT_GNU_BUILD_ID in a note
// section, or a PT_NOTE segment of a file without sections), or nil.
func elfBuildID(src source, f *elf.File) []byte {
	var spans [][2]uint64
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOTE {
			spans = append(spans, [2]uint64{s.Offset, s.Size})
		}
	}
	if len(f.Sections) == 0 {
		for _, p := range f.Progs {
			if p.Type == elf.PT_NOTE {
				spans = append(spans, [2]uint64{p.Off, p.Filesz})
			}
		}
	}
	// A note named by several headers is read once (a hostile file named
	// the same 24 bytes in each of 30,000 PT_NOTEs: a read each).
	read := make(map[[2]uint64]bool, min(len(spans), 64))
	for _, sp := range spans {
		if sp[1] > maxNoteBytes || !src.contains(sp[0], sp[1]) || read[sp] {
			continue
		}
		read[sp] = true
		b, err := src.read(sp[0], sp[1])
		if err != nil {
			continue
		}
		if id := noteBuildID(b, f.ByteOrder); id != nil {
			return id
		}
	}
	return nil
}

// noteBuildID finds the "GNU" note of type 3 (NT_GNU_BUILD_ID) in b.
func noteBuildID(b []byte, bo interface{ Uint32([]byte) uint32 }) []byte {
	for len(b) >= 12 {
		namesz, descsz, typ := uint64(bo.Uint32(b)), uint64(bo.Uint32(b[4:])), bo.Uint32(b[8:])
		nameEnd := 12 + (namesz+3)&^3
		descEnd := nameEnd + (descsz+3)&^3
		if namesz > uint64(len(b)) || descsz > uint64(len(b)) || descEnd > uint64(len(b)) || nameEnd+descsz > uint64(len(b)) {
			return nil
		}
		if typ == 3 && namesz == 4 && string(b[12:16]) == "GNU\x00" {
			if descsz < 2 || descsz > maxBuildID {
				return nil
			}
			return bytes.Clone(b[nameEnd : nameEnd+descsz])
		}
		b = b[descEnd:]
	}
	return nil
}

// debugLink is the file name and CRC-32 .gnu_debuglink names, ok false
// when the section is absent or malformed.
func debugLink(src source, f *elf.File) (name string, crc uint32, ok bool) {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Type == elf.SHT_NOBITS || s.Size < 8 || s.Size > maxDebugLink || !src.contains(s.Offset, s.Size) {
		return "", 0, false
	}
	b, err := src.read(s.Offset, s.Size)
	if err != nil {
		return "", 0, false
	}
	i := bytes.IndexByte(b, 0)
	if i <= 0 {
		return "", 0, false
	}
	at := (i + 1 + 3) &^ 3
	if at+4 > len(b) {
		return "", 0, false
	}
	return string(b[:i]), f.ByteOrder.Uint32(b[at:]), true
}

// debugCandidate is one path the search looks at.
type debugCandidate struct {
	path, foundBy string
}

// findDebugFile looks for a separate debug file of the ELF target at path
// and attaches the first one accepted to a (a.debug), noting refused ones
// in a.debugNotes; a Mach-O target's dSYM is found by searchDSYM
// (dsym.go). It does nothing when the search is off, the target is
// neither ELF nor Mach-O, or it has what a debug file would supply. Its only error is
// ctx's: a search cut short would make the analysis depend on when.
func (a *Analysis) findDebugFile(ctx context.Context, path string) error {
	a.searchDebugFile(ctx, path)
	a.searchSupplementary(ctx, path)
	a.searchDSYM(ctx, path)
	if err := ctx.Err(); err != nil {
		if a.debug != nil {
			a.debug.file.Close()
		}
		a.sup.close()
		return err
	}
	return nil
}

func (a *Analysis) searchDebugFile(ctx context.Context, path string) {
	e, ok := a.img.(*elfImage)
	if !ok || len(a.opts.DebugFileDirectories) == 0 && a.opts.Debuginfod == nil {
		return
	}
	var wantSym, wantDWARF bool
	func() {
		defer func() { _ = recover() }()
		wantSym, wantDWARF = !hasSymtab(e.f), !hasDWARF(e.f)
	}()
	if !wantSym && !wantDWARF {
		return
	}
	var id []byte
	var link string
	var crc uint32
	var hasLink bool
	func() {
		defer func() { _ = recover() }()
		id = elfBuildID(e.src, e.f)
		link, crc, hasLink = debugLink(e.src, e.f)
	}()
	if id == nil && !hasLink {
		return
	}
	var cands []debugCandidate
	if len(a.opts.DebugFileDirectories) == 0 {
		hasLink = false // no local search: only debuginfod asks, by build ID
	}
	if id != nil {
		h := hex.EncodeToString(id)
		for _, dir := range a.opts.DebugFileDirectories {
			cands = append(cands, debugCandidate{filepath.Join(dir, ".build-id", h[:2], h[2:]+".debug"), "build-id"})
		}
	}
	if hasLink {
		if link == "." || link == ".." || strings.ContainsAny(link, "/\\") || len(link) > 255 {
			a.debugNotes = append(a.debugNotes, fmt.Sprintf("The .gnu_debuglink section names %q, which is not a plain file name; it was not looked for.", link))
		} else {
			abs, err := filepath.Abs(path)
			if err == nil {
				dirs := []string{filepath.Dir(abs)}
				if real, err := filepath.EvalSymlinks(abs); err == nil && filepath.Dir(real) != dirs[0] {
					dirs = append([]string{filepath.Dir(real)}, dirs...)
				}
				for _, d := range dirs {
					cands = append(cands, debugCandidate{filepath.Join(d, link), "debuglink"}, debugCandidate{filepath.Join(d, ".debug", link), "debuglink"})
				}
				for _, root := range a.opts.DebugFileDirectories {
					for _, d := range dirs {
						cands = append(cands, debugCandidate{filepath.Join(root, d, link), "debuglink"})
					}
				}
			}
		}
	}
	target, err := os.Stat(path)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, c := range cands {
		if ctx.Err() != nil {
			return
		}
		if seen[c.path] {
			continue
		}
		seen[c.path] = true
		d, note := tryDebugFile(ctx, c, target, e, id, crc)
		if note != "" {
			a.debugNotes = append(a.debugNotes, note)
		}
		if d != nil && a.useDebugFile(e, d, c, wantSym, wantDWARF) {
			return
		}
	}
	// debuginfod.go: servers are asked only when no local file was taken,
	// and only by build ID (a debuglink's CRC-32 names no file to ask for).
	if id != nil && a.opts.Debuginfod != nil && ctx.Err() == nil {
		if d, c := a.fetchDebugFile(ctx, target, e, id); d != nil {
			a.useDebugFile(e, d, c, wantSym, wantDWARF)
		}
	}
}

// useDebugFile attaches the accepted debug file d when it has what the
// target lacks, and closes it (with a note) when it has not.
func (a *Analysis) useDebugFile(e *elfImage, d *debugFile, c debugCandidate, wantSym, wantDWARF bool) bool {
	d.symtab = wantSym && hasSymtab(d.img.f)
	d.dwarf = wantDWARF && hasDWARF(d.img.f)
	if !d.symtab && !d.dwarf {
		a.debugNotes = append(a.debugNotes, fmt.Sprintf("Debug file %s (found by %s) matches the target but has no symbol table or DWARF it lacks; it was not used.", c.path, c.foundBy))
		d.file.Close()
		return false
	}
	a.debug, e.dbg = d, d
	return true
}

// refusal is the limitation that says why c was not used.
func (c debugCandidate) refusal(why string) string {
	return fmt.Sprintf("Debug file %s (found by %s) was not used: %s.", c.path, c.foundBy, why)
}

// open opens the candidate: nil and no note when it does not exist or is
// the target itself, nil and a note when it is refused. A file that is not
// regular is not opened (a FIFO would block the open).
func (c debugCandidate) open(target os.FileInfo) (*os.File, os.FileInfo, string) {
	st, err := os.Stat(c.path)
	if err != nil || os.SameFile(st, target) {
		return nil, nil, ""
	}
	if !st.Mode().IsRegular() {
		return nil, nil, c.refusal("it is not a regular file")
	}
	f, err := os.Open(c.path)
	if err != nil {
		return nil, nil, c.refusal("it cannot be opened")
	}
	fst, err := f.Stat()
	if err != nil || !os.SameFile(fst, st) {
		f.Close()
		return nil, nil, c.refusal("it changed while it was opened")
	}
	return f, fst, ""
}

// readELFCandidate reads a candidate file (a debug file, a supplementary
// one) as ELF and runs then on it, under recover: nil when it is not ELF,
// cannot be read or panics the reader (then is not called, or its work is
// dropped with the image).
func readELFCandidate(src source, then func(*elfImage)) (img *elfImage) {
	defer func() {
		if recover() != nil {
			img = nil
		}
	}()
	var magic [4]byte
	if n, _ := src.r.ReadAt(magic[:], 0); n != 4 || string(magic[:]) != "\x7fELF" {
		return nil
	}
	im, err := newELF(src)
	if err != nil {
		return nil
	}
	img = im.(*elfImage)
	if then != nil {
		then(img)
	}
	return img
}

// tryDebugFile opens and checks one candidate. A candidate that does not
// exist, or is the target itself, is passed over silently; one that exists
// but is refused comes back as a note.
func tryDebugFile(ctx context.Context, c debugCandidate, target os.FileInfo, e *elfImage, id []byte, crc uint32) (_ *debugFile, note string) {
	f, fst, note := c.open(target)
	if f == nil {
		return nil, note
	}
	d, note := checkDebugFile(ctx, c, f, fst.Size(), e, id, crc)
	if d == nil {
		f.Close()
	}
	return d, note
}

// checkDebugFile checks the size bytes of candidate f (a local file, or
// one fetched from a debuginfod server) against the target e: an ELF file
// of its machine whose build ID is id (with no id, whose CRC-32 is crc).
// The caller closes f when it is refused.
func checkDebugFile(ctx context.Context, c debugCandidate, f *os.File, size int64, e *elfImage, id []byte, crc uint32) (*debugFile, string) {
	refuse := func(why string) (*debugFile, string) { return nil, c.refusal(why) }
	src := source{r: f, size: size, format: "elf"}
	img := readELFCandidate(src, nil)
	if img == nil {
		return refuse("it is not a readable ELF file")
	}
	if img.f.Machine != e.f.Machine || img.f.Class != e.f.Class || img.f.ByteOrder != e.f.ByteOrder {
		return refuse(fmt.Sprintf("it is built for %s %s, the target for %s %s", img.f.Class, img.f.Machine, e.f.Class, e.f.Machine))
	}
	var got []byte
	func() {
		defer func() { _ = recover() }()
		got = elfBuildID(src, img.f)
	}()
	if id != nil && !bytes.Equal(got, id) {
		theirs := "none"
		if got != nil {
			theirs = hex.EncodeToString(got)
		}
		return refuse(fmt.Sprintf("its build ID %s differs from the target's %s", theirs, hex.EncodeToString(id)))
	}
	sum, sumCRC, err := digestFile(ctx, f, size, id == nil)
	if err != nil {
		return refuse("it cannot be read (" + err.Error() + ")")
	}
	if id == nil && sumCRC != crc {
		return refuse(fmt.Sprintf("its CRC-32 %08x differs from the %08x the target's .gnu_debuglink gives", sumCRC, crc))
	}
	return &debugFile{path: c.path, sha256: sum, foundBy: c.foundBy, file: f, img: img}, ""
}

// digestFile is the SHA-256 (hex) and, when withCRC, the CRC-32 (IEEE, as
// .gnu_debuglink holds it) of the size bytes of f, read in 1 MiB blocks.
func digestFile(ctx context.Context, f io.ReaderAt, size int64, withCRC bool) (string, uint32, error) {
	h := sha256.New()
	c := crc32.NewIEEE()
	if !withCRC {
		c = nil
	}
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		if err := ctx.Err(); err != nil {
			return "", 0, err
		}
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		h.Write(buf[:n])
		if c != nil {
			c.Write(buf[:n])
		}
		off += int64(n)
		if err != nil && !(errors.Is(err, io.EOF) && off == size) {
			return "", 0, err
		}
		if n == 0 {
			return "", 0, io.ErrUnexpectedEOF
		}
	}
	var sum32 uint32
	if c != nil {
		sum32 = c.Sum32()
	}
	return hex.EncodeToString(h.Sum(nil)), sum32, nil
}

// addSymbols adds the debug file's .symtab (a dSYM's LC_SYMTAB) to set as
// the target's own would be added. A table that cannot be read is a limitation, not a
// failure of the target's lists: what it held is dropped whole.
func (d *debugFile) addSymbols(ctx context.Context, set *symbolSet) error {
	if d == nil || !d.symtab {
		return nil
	}
	tmp := &symbolSet{kept: set.kept, cut: set.cut}
	err := func() (err error) {
		if d.mach != nil { // a dSYM's (dsym.go)
			defer recoverInto("mach-o", "dSYM symbols", &err)
			return d.mach.readSymbols(ctx, tmp, map[uint32]string{}, map[uint32]uint8{})
		}
		defer recoverInto("elf", "debug file symbols", &err)
		return d.img.readSymbols(ctx, tmp, elf.SHT_SYMTAB, "symbol", nil, nil)
	}()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		set.limit(fmt.Sprintf("The symbol table of debug file %s cannot be read (%v); its symbols are missing.", d.path, err))
		return nil
	}
	set.procs = append(set.procs, tmp.procs...)
	set.labels = append(set.labels, tmp.labels...)
	set.kept, set.cut = tmp.kept, tmp.cut
	for _, l := range tmp.limits {
		set.limit(l)
	}
	return nil
}

// symtabEntries is the entries the debug file's .symtab declares, for
// sizing the lists, or 0.
func (d *debugFile) symtabEntries(entSize uint64) uint64 {
	if d == nil || !d.symtab {
		return 0
	}
	if s := d.img.f.SectionByType(elf.SHT_SYMTAB); s != nil {
		return s.Size / entSize
	}
	return 0
}

// debugProfile is the profile's record of the debug file, or nil.
// The supplementary (dwz) file its DWARF names is "supplementary" there,
// also when that DWARF is the target's own (then it is the only member).
func (a *Analysis) debugProfile() map[string]any {
	d := a.debug
	var out map[string]any
	if d != nil {
		out = map[string]any{"path": d.path, "sha256": d.sha256, "found_by": d.foundBy, "used_for": d.used()}
	}
	if a.sup != nil {
		if out == nil {
			out = map[string]any{}
		}
		out["supplementary"] = a.sup.profile()
	}
	return out
}

// debugKey is the debug file's part of the warm cache key: "" without one,
// so that the key of a target without a debug file is what it always was.
func (a *Analysis) debugKey() string {
	var k string
	if d := a.debug; d != nil {
		k = fmt.Sprintf(" debug_file=%q sha256=%s found_by=%s used_for=%s", d.path, d.sha256, d.foundBy, strings.Join(d.used(), ","))
	}
	if s := a.sup; s != nil {
		k += fmt.Sprintf(" supplementary=%q sha256=%s found_by=%s", s.path, s.sha256, s.foundBy)
	}
	return k
}
