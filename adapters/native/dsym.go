package native

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// dSYM bundles: macOS keeps a program's DWARF apart from it, in
// Foo.dSYM/Contents/Resources/DWARF/Foo beside Foo (dsymutil's output: a
// Mach-O of type MH_DSYM carrying the program's LC_UUID, its symbol table
// and a __DWARF segment; a universal program gets a universal dSYM). A
// Mach-O target opened by path (the first slice of a universal one, the
// slice rea analyses) without __debug_info of its own looks there, beside
// the path it was given and beside the file a symbolic link leads to, then
// beside the application or framework bundle holding it (Foo.app.dSYM, as
// Xcode writes it), and takes the file, or the slice of a universal one,
// whose LC_UUID equals the target's; anything else found there is refused
// and said in the limitations, as debugfile.go does for ELF. Last it tries
// the dSYM bundles directly under each debug directory (a store of dSYMs:
// searchDSYMDirectories). The search is on when
// Options.DebugFileDirectories is non-empty although the bundle sits beside
// the target, not under a root: a library user who turned the search off
// gets none. Its DWARF is used (signatures, source lines and value flow's
// arities, through dwarfLoad), and so is its symbol table when it declares
// more symbols than the target's (a stripped target: strip keeps little
// more than __mh_execute_header and the imports of an executable).
// The dSYM is untrusted input: parsed under recover with the target's
// bounds, its DWARF charged to the memory budget as the target's is.

// lcUUID is the Mach-O load command that holds a 16-byte UUID.
const lcUUID = 0x1b

// machoUUID is m's LC_UUID, or nil.
func machoUUID(m *machoImage) (id []byte) {
	defer func() {
		if recover() != nil {
			id = nil
		}
	}()
	for _, l := range m.f.Loads {
		raw := l.Raw()
		if len(raw) >= 24 && m.f.ByteOrder.Uint32(raw) == lcUUID {
			return bytes.Clone(raw[8:24])
		}
	}
	return nil
}

// machoHasDWARF reports whether m carries a non-empty __debug_info.
func machoHasDWARF(m *machoImage) bool {
	s := m.f.Section("__debug_info")
	return s != nil && s.Size > 0 && s.Offset != 0
}

// uuidText writes a UUID as Apple's tools do.
func uuidText(id []byte) string {
	if len(id) != 16 {
		return hex.EncodeToString(id)
	}
	h := fmt.Sprintf("%X", id)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// searchDSYM attaches the target's dSYM to a (a.debug), noting a refused
// one in a.debugNotes. It does nothing when the search is off, the target
// is not Mach-O or has DWARF of its own.
func (a *Analysis) searchDSYM(ctx context.Context, path string) {
	m := machoOf(a.img)
	if m == nil || len(a.opts.DebugFileDirectories) == 0 {
		return
	}
	has := true
	func() {
		defer func() { _ = recover() }()
		has = machoHasDWARF(m)
	}()
	if has {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	target, err := os.Stat(path)
	if err != nil {
		return
	}
	paths := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		paths = append(paths, real)
	}
	id := machoUUID(m)
	var cands []debugCandidate
	for _, p := range paths {
		cands = append(cands, debugCandidate{dsymDWARF(p+".dSYM", p), "dsym"})
		if b := bundleOf(p); b != "" {
			cands = append(cands, debugCandidate{dsymDWARF(b+".dSYM", p), "dsym"})
		}
	}
	for _, c := range cands {
		if ctx.Err() != nil {
			return
		}
		if id == nil {
			if _, err := os.Stat(c.path); err == nil {
				a.debugNotes = append(a.debugNotes, c.refusal("the target has no LC_UUID to match it against"))
			}
			continue
		}
		d, note := tryDSYM(ctx, c, target, m, id)
		if note != "" {
			a.debugNotes = append(a.debugNotes, note)
		}
		if d != nil {
			a.takeDSYM(d, m)
			return
		}
	}
	if id != nil {
		a.searchDSYMDirectories(ctx, paths[0], target, m, id)
	}
}

// dsymDWARF is the DWARF file in the dSYM bundle at bundle for the program
// at program: named after the program's file.
func dsymDWARF(bundle, program string) string {
	return filepath.Join(bundle, "Contents", "Resources", "DWARF", filepath.Base(program))
}

// bundleOf is the application or framework bundle holding a program
// (Foo.app for Foo.app/Contents/MacOS/Foo, Bar.framework for
// Bar.framework/Versions/A/Bar), whose dSYM Xcode writes beside the
// bundle (Foo.app.dSYM); "" when the program is in none.
func bundleOf(program string) string {
	for dir := filepath.Dir(program); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if ext := filepath.Ext(dir); ext == ".app" || ext == ".framework" || ext == ".bundle" || ext == ".appex" {
			return dir
		}
	}
	return ""
}

// maxDSYMStore bounds the dSYM bundles tried under one debug directory.
const maxDSYMStore = 64

// searchDSYMDirectories looks for the target's dSYM among the bundles
// directly under each debug directory (a store of dSYMs, as an analyst
// gathers them), found_by "dsym-directory": the one named after the
// program (Foo.dSYM, Foo.app.dSYM, any *.dSYM whose DWARF file bears the
// program's name) whose UUID matches. A store keeps other builds' dSYMs
// by design, so their refusals are said only when none matched.
func (a *Analysis) searchDSYMDirectories(ctx context.Context, program string, target os.FileInfo, m *machoImage, id []byte) {
	var refused []string
	for _, dir := range a.opts.DebugFileDirectories {
		bundles, _ := filepath.Glob(filepath.Join(dir, "*.dSYM"))
		if len(bundles) > maxDSYMStore {
			refused = append(refused, fmt.Sprintf("%s holds %d dSYM bundles; rea tries at most %d (in name order)", dir, len(bundles), maxDSYMStore))
			bundles = bundles[:maxDSYMStore]
		}
		for _, b := range bundles {
			c := debugCandidate{dsymDWARF(b, program), "dsym-directory"}
			if _, err := os.Stat(c.path); err != nil || ctx.Err() != nil {
				continue
			}
			d, note := tryDSYM(ctx, c, target, m, id)
			if d == nil {
				if note != "" {
					refused = append(refused, note)
				}
				continue
			}
			a.takeDSYM(d, m)
			return
		}
	}
	a.debugNotes = append(a.debugNotes, refused...)
}

// takeDSYM attaches an accepted dSYM to the target. A stripped target
// declares fewer symbols than its dSYM, which keeps the linked program's
// whole table: the dSYM's join the target's (a name both hold is listed
// once).
func (a *Analysis) takeDSYM(d *debugFile, m *machoImage) {
	d.symtab = d.mach.tables.symtab && (!m.tables.symtab || m.tables.nsyms < d.mach.tables.nsyms)
	a.debug, m.dbg = d, d
}

// tryDSYM opens and checks one dSYM candidate: the file, or the slice of a
// universal one, whose LC_UUID is id.
func tryDSYM(ctx context.Context, c debugCandidate, target os.FileInfo, m *machoImage, id []byte) (_ *debugFile, note string) {
	f, fst, note := c.open(target)
	if f == nil {
		return nil, note
	}
	refuse := func(why string) (*debugFile, string) { return nil, c.refusal(why) }
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	src := source{r: f, size: fst.Size()}
	var slices []*machoImage
	func() {
		defer func() {
			if recover() != nil {
				slices = nil
			}
		}()
		var magic [8]byte
		n, _ := f.ReadAt(magic[:], 0)
		switch src.format = detect(magic[:n]); src.format {
		case "mach-o":
			if im, err := newMachO(src); err == nil {
				slices = []*machoImage{im.(*machoImage)}
			}
		case "mach-o-universal":
			if im, err := newFat(src); err == nil {
				slices = im.(*fatImage).slices
			}
		}
	}()
	if len(slices) == 0 {
		return refuse("it is not a readable Mach-O file")
	}
	var got *machoImage
	var others []string
	for _, s := range slices {
		sid := machoUUID(s)
		if bytes.Equal(sid, id) {
			got = s
			break
		}
		if sid == nil {
			others = append(others, "none")
		} else {
			others = append(others, uuidText(sid))
		}
	}
	if got == nil {
		what := "its UUID %s differs"
		if len(others) > 1 {
			what = "its slices' UUIDs %s differ"
		}
		return refuse(fmt.Sprintf(what+" from the target's %s", strings.Join(others, ", "), uuidText(id)))
	}
	if got.f.Cpu != m.f.Cpu {
		return refuse(fmt.Sprintf("it is built for %s, the target for %s", machoArch(got.f.Cpu), machoArch(m.f.Cpu)))
	}
	has := false
	func() {
		defer func() { _ = recover() }()
		has = machoHasDWARF(got)
	}()
	if !has {
		return refuse("it matches the target but has no DWARF")
	}
	sum, _, err := digestFile(ctx, f, fst.Size(), false)
	if err != nil {
		return refuse("it cannot be read (" + err.Error() + ")")
	}
	keep = true
	return &debugFile{path: c.path, sha256: sum, foundBy: c.foundBy, file: f, mach: got, dwarf: true}, ""
}
