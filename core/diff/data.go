package diff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"rea/ports"
)

// A build can change behaviour without changing a function's code: a
// constant in .data, a table in .rodata, a string. compare_binaries
// therefore also compares the binaries' strings and the digests of their
// data sections (loaded, not executable, with bytes in the file, and not
// loader or unwind metadata, which follow the code's layout).

// maxDataSectionBytes bounds the bytes hashed per binary; a larger binary's
// remaining sections are not compared (a limitation says so).
const maxDataSectionBytes = 256 << 20

// layoutSection reports sections whose bytes follow the code's layout or the
// loader's needs rather than the program's data.
func layoutSection(name string) bool {
	for _, p := range []string{".note", ".gnu", ".dyn", ".rela", ".rel.", ".got", ".plt", ".eh_frame", ".gcc_except_table",
		".interp", ".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors", ".data.rel.ro", ".tm_clone_table",
		".pdata", ".xdata", ".reloc", ".idata", ".edata", ".debug", "__LINKEDIT", "__la_symbol_ptr", "__got", "__unwind_info", "__eh_frame"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// readData digests the data sections of s's file.
func (s *binSide) readData(ctx context.Context, a ports.Analysis) error {
	sl, ok := a.(ports.SegmentLister)
	if !ok {
		return nil
	}
	segs, err := sl.Segments(ctx)
	if err != nil {
		if errors.Is(err, ports.ErrUnsupported) {
			return nil
		}
		return err
	}
	s.segs = segs
	f, err := os.Open(s.path)
	if err != nil {
		return nil // the analysis read it; a file gone since is a missing fact, not a failure
	}
	defer f.Close()
	s.data = map[string]string{}
	budget := int64(maxDataSectionBytes)
	for _, g := range segs {
		// Start 0: not loaded (.symtab, .strtab, .comment), which names
		// the source files, not the program's data.
		if g.Kind != "section" || g.Name == "" || g.Start == 0 || g.Perms.Execute || g.FileSize == 0 || layoutSection(g.Name) {
			continue
		}
		if _, dup := s.data[g.Name]; dup {
			continue
		}
		if budget -= int64(g.FileSize); budget < 0 {
			s.lim = append(s.lim, "Data sections beyond the first 256 MiB were not compared.")
			break
		}
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, int64(g.FileOffset), int64(g.FileSize))); err != nil {
			return err
		}
		s.data[g.Name] = hex.EncodeToString(h.Sum(nil))
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// compareData compares the two sides' strings and data sections; what
// could not be compared is a limitation.
func compareData(l, r *binSide) (CompareBinariesResultData, []string) {
	out := CompareBinariesResultData{Strings: CompareBinariesResultDataStrings{Added: []string{}, Removed: []string{}}, SectionsChanged: []string{}}
	var lim []string
	if l.strs != nil && r.strs != nil {
		added, removed := onlyIn(l.strs, r.strs)
		a, omitted := capList(added, 0)
		d, omitted := capList(removed, omitted)
		out.Strings = CompareBinariesResultDataStrings{Added: a, Removed: d, Omitted: omitted}
	} else {
		lim = append(lim, "The provider lists no strings for one binary: data.strings was not compared.")
	}
	if l.data != nil && r.data != nil {
		for name, ld := range l.data {
			if rd, ok := r.data[name]; ok && rd != ld {
				out.SectionsChanged = append(out.SectionsChanged, name)
			}
		}
		slices.Sort(out.SectionsChanged)
	} else {
		lim = append(lim, "The provider lists no sections for one binary: data.sections_changed was not compared.")
	}
	return out, lim
}

// onlyIn returns the values only r holds and those only l holds, each
// once and sorted (empty, not nil, when there are none).
func onlyIn(l, r []string) (added, removed []string) {
	lc, rc := counts(l), counts(r)
	added, removed = []string{}, []string{}
	for k := range rc {
		if lc[k] == 0 {
			added = append(added, k)
		}
	}
	for k := range lc {
		if rc[k] == 0 {
			removed = append(removed, k)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}
