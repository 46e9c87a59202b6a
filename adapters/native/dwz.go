package native

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Supplementary debug files (dwz): Debian's -dbgsym packages and Fedora's
// debuginfo are processed by dwz -m, which moves the debug entries and
// strings that several files share into one supplementary file. The debug
// file (or an unstripped target processed alike) names it in
// .gnu_debugaltlink (a path, relative to the naming file's directory or
// absolute, a NUL and the supplementary file's build ID) or, written by
// dwz --dwarf-5, in .debug_sup (DWARF 5's standard form: version, a flag,
// the path, the checksum's length and the checksum), and refers into it
// with DW_FORM_GNU_ref_alt and DW_FORM_GNU_strp_alt (DW_FORM_ref_sup4,
// ref_sup8 and strp_sup), which debug/dwarf reads as bare offsets.
//
// The supplementary file is found when the target is opened: at the
// link's path (beside the naming file, symlinks resolved first, or the
// absolute path, also under each of Options.DebugFileDirectories), then by
// its build ID under each of them (DIR/.build-id/xx/rest.debug), and it is
// taken only when its own build ID (its GNU build-ID note, or the checksum
// of its .debug_sup) equals the one the link names. When the DWARF is
// loaded, the two files' sections are joined into one set that debug/dwarf
// reads as a single file (mergeSupplementary): the supplementary file's
// units follow the debug file's, its strings follow the debug file's, and
// every reference between them is rewritten in place into the plain form
// (a section offset), so that a name, a type chain that crosses the two
// files, an abstract origin or a specification reads as it would without
// dwz. Only the sections debug/dwarf reads of a unit's entries are joined;
// the supplementary file's line tables (which list only file names) are
// not read.

// maxAltLink bounds the .gnu_debugaltlink and .debug_sup sections read.
const maxAltLink = 8 << 10

// supFile is the supplementary debug file whose entries and strings the
// DWARF in use refers to.
type supFile struct {
	path    string
	sha256  string
	foundBy string // "altlink" or "build-id"
	file    *os.File
	img     *elfImage
}

// altLink is what the DWARF's owner says of its supplementary file.
type altLink struct {
	name   string // the path as written
	id     []byte // the build ID (checksum) it must have
	dwarf5 bool   // named by .debug_sup
}

// readAltLink reads f's .gnu_debugaltlink, else its .debug_sup; ok is
// false when it has neither (or one that cannot be read: then why says so).
func readAltLink(src source, f *elf.File) (link altLink, why string, ok bool) {
	if s := f.Section(".gnu_debugaltlink"); s != nil && s.Type != elf.SHT_NOBITS {
		b, err := altLinkSection(src, f, s)
		if err != nil {
			return link, "its .gnu_debugaltlink section cannot be read", false
		}
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return link, "its .gnu_debugaltlink section names no path", false
		}
		return altLink{name: string(b[:i]), id: b[i+1:]}, "", true
	}
	if s := f.Section(".debug_sup"); s != nil && s.Type != elf.SHT_NOBITS {
		b, err := altLinkSection(src, f, s)
		if err != nil {
			return link, "its .debug_sup section cannot be read", false
		}
		name, id, sup, good := parseDebugSup(b, f.ByteOrder)
		switch {
		case !good:
			return link, "its .debug_sup section is malformed", false
		case sup:
			return link, "", false // it is a supplementary file itself
		}
		return altLink{name: name, id: id, dwarf5: true}, "", true
	}
	return link, "", false
}

// altLinkSection is a section's contents, refused above maxAltLink.
func altLinkSection(src source, f *elf.File, s *elf.Section) ([]byte, error) {
	if s.Size > maxAltLink || s.FileSize > maxAltLink {
		return nil, fmt.Errorf("section %s: %d bytes", s.Name, s.Size)
	}
	if s.Flags&elf.SHF_COMPRESSED == 0 && !src.contains(s.Offset, s.Size) {
		return nil, fmt.Errorf("section %s: beyond the end of the file", s.Name)
	}
	return sectionData(src, f, s)
}

// parseDebugSup reads a .debug_sup section: version 5, is_supplementary,
// the file name, the checksum's length (ULEB128) and the checksum.
func parseDebugSup(b []byte, bo binary.ByteOrder) (name string, checksum []byte, supplementary, ok bool) {
	if len(b) < 4 || bo.Uint16(b) != 5 || b[2] > 1 {
		return "", nil, false, false
	}
	supplementary = b[2] == 1
	rest := b[3:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return "", nil, false, false
	}
	name, rest = string(rest[:i]), rest[i+1:]
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) {
		return "", nil, false, false
	}
	return name, bytes.Clone(rest[k : k+int(n)]), supplementary, true
}

// supBuildID is a supplementary file's identity: its GNU build ID, or the
// checksum its .debug_sup declares (dwz --dwarf-5 writes no note).
func supBuildID(src source, f *elf.File) []byte {
	if id := elfBuildID(src, f); id != nil {
		return id
	}
	if s := f.Section(".debug_sup"); s != nil && s.Type != elf.SHT_NOBITS {
		if b, err := altLinkSection(src, f, s); err == nil {
			if _, sum, sup, ok := parseDebugSup(b, f.ByteOrder); ok && sup && len(sum) > 0 {
				return sum
			}
		}
	}
	return nil
}

// searchSupplementary finds the supplementary file the DWARF in use names
// (the debug file's, or the target's own) and attaches it as a.sup; a
// candidate refused, or none found, is said in a.debugNotes. Like the
// debug-file search it is off when Options.DebugFileDirectories is empty.
func (a *Analysis) searchSupplementary(ctx context.Context, path string) {
	e, ok := a.img.(*elfImage)
	if !ok || len(a.opts.DebugFileDirectories) == 0 && a.opts.Debuginfod == nil || ctx.Err() != nil {
		return
	}
	owner, ownerPath := e, path
	if d := a.debug; d != nil && d.dwarf && d.img != nil {
		owner, ownerPath = d.img, d.path
	} else {
		own := false
		func() {
			defer func() { _ = recover() }()
			own = hasDWARF(e.f)
		}()
		if !own {
			return
		}
	}
	var (
		link    altLink
		why     string
		hasLink bool
	)
	func() {
		defer func() { _ = recover() }()
		link, why, hasLink = readAltLink(owner.src, owner.f)
	}()
	what := "The DWARF of " + ownerPath
	if why != "" {
		a.debugNotes = append(a.debugNotes, fmt.Sprintf("%s names a supplementary (dwz) file, but %s; what dwz moved there is missing.", what, why))
		return
	}
	if !hasLink {
		return
	}
	if len(link.id) == 0 || len(link.id) > maxBuildID {
		a.debugNotes = append(a.debugNotes, fmt.Sprintf("%s names the supplementary (dwz) file %q without a build ID to check it against; it was not looked for, and what dwz moved there is missing.", what, link.name))
		return
	}
	h := hex.EncodeToString(link.id)
	var cands []debugCandidate
	if len(a.opts.DebugFileDirectories) > 0 && link.name != "" && !strings.ContainsRune(link.name, 0) {
		if filepath.IsAbs(link.name) {
			cands = append(cands, debugCandidate{filepath.Clean(link.name), "altlink"})
			for _, root := range a.opts.DebugFileDirectories {
				cands = append(cands, debugCandidate{filepath.Join(root, link.name), "altlink"})
			}
		} else if abs, err := filepath.Abs(ownerPath); err == nil {
			// Fedora's .build-id entries are symlinks, and the link is
			// relative to where the debug file really is.
			if real, err := filepath.EvalSymlinks(abs); err == nil && filepath.Dir(real) != filepath.Dir(abs) {
				cands = append(cands, debugCandidate{filepath.Join(filepath.Dir(real), link.name), "altlink"})
			}
			cands = append(cands, debugCandidate{filepath.Join(filepath.Dir(abs), link.name), "altlink"})
		}
	}
	if len(h) > 2 {
		for _, root := range a.opts.DebugFileDirectories {
			cands = append(cands, debugCandidate{filepath.Join(root, ".build-id", h[:2], h[2:]+".debug"), "build-id"})
		}
	}
	self, err := os.Stat(ownerPath)
	if owner != e {
		self, err = a.debug.file.Stat() // a fetched debug file's path may be its URL
	}
	if err != nil {
		return
	}
	seen := map[string]bool{}
	refused := false
	for _, c := range cands {
		if ctx.Err() != nil {
			return
		}
		if seen[c.path] {
			continue
		}
		seen[c.path] = true
		s, note := trySupFile(ctx, c, self, owner, link.id)
		if note != "" {
			a.debugNotes = append(a.debugNotes, note)
			refused = true
		}
		if s != nil {
			a.sup = s
			return
		}
	}
	// debuginfod.go: servers are asked by the link's build ID, as gdb asks
	// them for a dwz file.
	if a.opts.Debuginfod != nil && len(link.id) >= 2 {
		a.fetchByBuildID(ctx, self, link.id, "supplementary (dwz) file", func(c debugCandidate, f *os.File, size int64) (func(string), string) {
			s, note := checkSupFile(ctx, c, f, size, owner, link.id)
			if s == nil {
				return nil, note
			}
			return func(path string) { s.path, a.sup = path, s }, ""
		})
		return // found, or fetchByBuildID said why not
	}
	if refused {
		return // each refusal said why
	}
	a.debugNotes = append(a.debugNotes, fmt.Sprintf("%s names the supplementary (dwz) file %q with build ID %s, which was not found (looked beside it and under %s); the names, types and parameters dwz moved there are missing.",
		what, link.name, h, strings.Join(a.opts.DebugFileDirectories, ":")))
}

// trySupFile opens and checks one candidate for the supplementary file.
func trySupFile(ctx context.Context, c debugCandidate, self os.FileInfo, owner *elfImage, id []byte) (_ *supFile, note string) {
	f, fst, note := c.open(self)
	if f == nil {
		return nil, note
	}
	s, note := checkSupFile(ctx, c, f, fst.Size(), owner, id)
	if s == nil {
		f.Close()
	}
	return s, note
}

// checkSupFile checks the size bytes of candidate f (a local file, or one
// fetched from a debuginfod server) as the supplementary file of owner's
// DWARF: an ELF file of its machine, with DWARF, whose build ID is id. The
// caller closes f when it is refused.
func checkSupFile(ctx context.Context, c debugCandidate, f *os.File, size int64, owner *elfImage, id []byte) (*supFile, string) {
	refuse := func(why string) (*supFile, string) {
		return nil, fmt.Sprintf("Supplementary (dwz) file %s (found by %s) was not used: %s; the names, types and parameters dwz moved there are missing.", c.path, c.foundBy, why)
	}
	src := source{r: f, size: size, format: "elf"}
	var (
		got []byte
		dw  bool
	)
	img := readELFCandidate(src, func(img *elfImage) {
		got = supBuildID(src, img.f)
		dw = hasDWARF(img.f)
	})
	if img == nil {
		return refuse("it is not a readable ELF file")
	}
	if img.f.Machine != owner.f.Machine || img.f.Class != owner.f.Class || img.f.ByteOrder != owner.f.ByteOrder {
		return refuse(fmt.Sprintf("it is built for %s %s, the debug information for %s %s", img.f.Class, img.f.Machine, owner.f.Class, owner.f.Machine))
	}
	if !bytes.Equal(got, id) {
		theirs := "none"
		if got != nil {
			theirs = hex.EncodeToString(got)
		}
		return refuse(fmt.Sprintf("its build ID %s differs from the %s the link names", theirs, hex.EncodeToString(id)))
	}
	if !dw {
		return refuse("it has no DWARF")
	}
	sum, _, err := digestFile(ctx, f, size, false)
	if err != nil {
		return refuse("it cannot be read (" + err.Error() + ")")
	}
	return &supFile{path: c.path, sha256: sum, foundBy: c.foundBy, file: f, img: img}, ""
}

// supSections are the supplementary file's sections the join takes.
var supSections = map[string]bool{"abbrev": true, "info": true, "str": true, "line_str": true}

// sections reads the supplementary file's sections that the join takes,
// refusing more than room bytes of them.
func (s *supFile) sections(room uint64) (map[string][]byte, error) {
	f := s.img.f
	var total uint64
	var secs []*elf.Section
	for _, sec := range f.Sections {
		suffix, z := dwarfSuffix(sec.Name)
		if !supSections[suffix] || sec.Type == elf.SHT_NOBITS {
			continue
		}
		size := sec.Size
		if z {
			size = zdebugSize(s.img.src, sec)
		}
		total += min(size, maxDWARFBytes+1)
		secs = append(secs, sec)
	}
	if total > room {
		return nil, fmt.Errorf("its %d bytes of DWARF exceed what is left of the bound on debug information (%d bytes)", total, room)
	}
	out := map[string][]byte{}
	for _, sec := range secs {
		suffix, _ := dwarfSuffix(sec.Name)
		if _, dup := out[suffix]; dup {
			continue
		}
		b, err := sectionData(s.img.src, f, sec)
		if err != nil {
			return nil, err
		}
		out[suffix] = b
	}
	if len(out["info"]) == 0 || len(out["abbrev"]) == 0 {
		return nil, fmt.Errorf("it has no .debug_info or .debug_abbrev")
	}
	return out, nil
}

// supProfile is the supplementary file's record in the profile.
func (s *supFile) profile() map[string]any {
	return map[string]any{"path": s.path, "sha256": s.sha256, "found_by": s.foundBy}
}

func (s *supFile) close() {
	if s != nil && s.file != nil {
		s.file.Close()
	}
}

// refusal is the limitation that says why the supplementary file's DWARF
// was not joined.
func (s *supFile) refusal(why string) string {
	return fmt.Sprintf("Supplementary (dwz) file %s (found by %s) was not used: %s; the names, types and parameters dwz moved there are missing.", s.path, s.foundBy, why)
}
