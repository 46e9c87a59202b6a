package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"rea/internal/hugeheap"
	"rea/ports"
)

// image is one parsed file format. Implementations read through the
// Analysis's ReaderAt and never cache results: Analysis caches them.
type image interface {
	format() string
	documents(name string) []ports.Document
	segments(ctx context.Context) ([]ports.Segment, error)
	symbols(ctx context.Context) (*symbolSet, error)
	stringRegions(ctx context.Context) ([]region, error)
}

// region is a span of file bytes that is scanned for strings.
type region struct {
	index int32 // in the list scanned (scanRegions)
	name  string
	addr  uint64
	off   uint64 // absolute file offset
	size  uint64
	// userString marks a .NET user string's characters (pe.go): the
	// region is one UTF-16 string, listed whole rather than scanned.
	userString bool
}

// symbolSet holds what Procedures and Names are derived from.
type symbolSet struct {
	procs  []candidate
	labels []ports.Name
	// limits name the tables cut by the engine's bounds (symtab.go).
	limits []string
	kept   int
	cut    bool
}

// Analysis is one open, parsed binary. It is safe for concurrent use. Lists
// are computed on first use and cached; a list call cut short by its context
// is not cached.
type Analysis struct {
	opts   Options
	src    source
	file   *os.File // nil when created by NewAnalysis
	sha256 string   // hex digest of the file as the opener computed it, or ""
	img    image
	docs   []ports.Document
	closed atomic.Bool

	// debug is the separate debug file in use (debugfile.go), or nil;
	// debugNotes say which candidates were refused.
	debug      *debugFile
	debugNotes []string
	sup        *supFile // the supplementary (dwz) file its DWARF names (dwz.go), or nil
	// lib is what the signature libraries named (libraries.go), or nil.
	lib *libResult

	segs  lazy[[]ports.Segment]
	syms  lazy[*symbolSet]
	procs lazy[[]ports.Procedure]
	names lazy[[]ports.Name]
	strs  lazy[*stringSet]
	// other is the strings list for the shortest length other than the
	// profile's asked for last (strings_min.go).
	other otherStrings

	// Code analysis (code.go): the whole-binary program, the address map
	// and the DWARF signature index.
	mmap lazy[*memMap]

	// Whole-file discovery runs as one background job (background.go).
	early lazy[early]
	bg    sync.Mutex
	job   *discoveryJob
	stop  context.CancelFunc // cancels the job
	fg    gate               // the queries the job gives way to
	sigs  lazy[*sigIndex]
	lines lazy[*lineIndex] // source lines (dwarf_lines.go)
	dw    lazy[*dwarfLoad] // the DWARF both read (dwarf_load.go)

	// held releases the memory reservations of cached lists at Close.
	heldMu sync.Mutex
	held   []func()
}

// hold keeps release until Close (or calls it now when already closed).
func (a *Analysis) hold(release func()) {
	if release == nil {
		return
	}
	a.heldMu.Lock()
	defer a.heldMu.Unlock()
	if a.closed.Load() {
		release()
		return
	}
	a.held = append(a.held, release)
}

// releaseHeld drops the cached lists' reservations.
func (a *Analysis) releaseHeld() {
	a.heldMu.Lock()
	defer a.heldMu.Unlock()
	for _, r := range a.held {
		r()
	}
	a.held = nil
}

var (
	_ ports.Analysis        = (*Analysis)(nil)
	_ ports.DocumentLister  = (*Analysis)(nil)
	_ ports.SegmentLister   = (*Analysis)(nil)
	_ ports.ProcedureLister = (*Analysis)(nil)
	_ ports.NameLister      = (*Analysis)(nil)
	_ ports.StringLister    = (*Analysis)(nil)

	_ ports.Disassembler     = (*Analysis)(nil)
	_ ports.FunctionAnalyzer = (*Analysis)(nil)
	_ ports.CrossReferencer  = (*Analysis)(nil)
	_ ports.ByteReader       = (*Analysis)(nil)
	_ ports.SignatureReader  = (*Analysis)(nil)

	_ ports.LimitationReporter = (*Analysis)(nil)
)

// OpenFile opens and parses the ELF, PE or Mach-O file at path with default
// Options. The caller must Close the result.
func OpenFile(ctx context.Context, path string) (*Analysis, error) {
	return openFile(ctx, path, (*Options)(nil).withDefaults())
}

// NewAnalysis parses the size bytes of r as an ELF, PE or Mach-O file with
// default Options. r must stay readable until the Analysis is closed; Close
// does not close r. Documents are named "image" since no file name is known.
func NewAnalysis(r io.ReaderAt, size int64) (*Analysis, error) {
	return newAnalysis(r, size, "image", (*Options)(nil).withDefaults(), nil)
}

func openFile(ctx context.Context, path string, opts Options) (*Analysis, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("native: open %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("native: open: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("native: open: %w", err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("native: open %s: is a directory: %w", path, ports.ErrUnsupported)
	}
	if tuning.Load() {
		hugeheap.PrepareFor(st.Size()) // the heap's fresh memory in huge pages (hugeheap's doc)
	}
	m := mapFile(f, st.Size())
	a, err := newAnalysis(f, st.Size(), filepath.Base(path), opts, m)
	if err != nil {
		if m != nil {
			m.close()
		}
		f.Close()
		return nil, fmt.Errorf("native: open %s: %w", path, err)
	}
	// A relocatable object's relocated sections (elf_rel.go) are held
	// until Close.
	if n := a.src.over.bytes(); n > 0 {
		if err := a.reserveHeld(ctx, "the relocated sections", n); err != nil {
			if m != nil {
				m.close()
			}
			f.Close()
			return nil, fmt.Errorf("native: open %s: %w", path, err)
		}
	}
	if err := a.findDebugFile(ctx, path); err != nil {
		a.releaseHeld()
		if m != nil {
			m.close()
		}
		f.Close()
		return nil, fmt.Errorf("native: open %s: %w", path, err)
	}
	if err := a.matchLibraries(ctx); err != nil {
		a.releaseHeld()
		if a.debug != nil {
			a.debug.file.Close()
		}
		if m != nil {
			m.close()
		}
		f.Close()
		return nil, fmt.Errorf("native: open %s: %w", path, err)
	}
	a.file = f
	return a, nil
}

func newAnalysis(r io.ReaderAt, size int64, name string, opts Options, m *mapping) (a *Analysis, err error) {
	if size < 0 {
		return nil, fmt.Errorf("negative size %d: %w", size, ports.ErrMalformed)
	}
	src := source{r: r, size: size, m: m}
	var magic [8]byte
	n, _ := r.ReadAt(magic[:], 0)
	kind := detect(magic[:n])
	if kind == "" {
		return nil, fmt.Errorf("unrecognised file format (not elf, pe or mach-o): %w", ports.ErrUnsupported)
	}
	src.format = kind
	defer recoverInto(kind, "parse", &err)
	var img image
	switch kind {
	case "elf":
		img, err = newELF(src)
	case "pe":
		img, err = newPE(src)
	case "mach-o":
		img, err = newMachO(src)
	case "mach-o-universal":
		img, err = newFat(src)
	}
	if err != nil {
		return nil, src.explain(err)
	}
	a = &Analysis{
		opts: opts,
		src:  src,
		img:  img,
		docs: img.documents(name),
	}
	if e, ok := img.(*elfImage); ok {
		e.dwarfOf = a.dwarf
		if e.rel != nil {
			e.link() // a relocatable object's relocations (elf_rel.go)
			a.src = e.src
		}
	}
	return a, nil
}

// detect names the format from the first bytes of a file, or returns "".
func detect(b []byte) string {
	if len(b) >= 2 && string(b[:2]) == "MZ" {
		return "pe"
	}
	if len(b) < 4 {
		return ""
	}
	be := binary.BigEndian.Uint32(b)
	switch {
	case string(b[:4]) == "\x7fELF":
		return "elf"
	case be == 0xfeedface || be == 0xfeedfacf || be == 0xcefaedfe || be == 0xcffaedfe:
		return "mach-o"
	case be == 0xcafebabe && len(b) >= 8 && binary.BigEndian.Uint32(b[4:]) < 32:
		// Java class files share the magic; their second word is a version,
		// far above any real slice count.
		return "mach-o-universal"
	}
	return ""
}

// Version is the provider version that performs the analysis.
func (a *Analysis) Version() string { return Version }

// Profile reports the options that shape the lists.
func (a *Analysis) Profile() ports.Profile {
	p := ports.Profile{
		SchemaVersion: 1,
		Parameters: map[string]any{
			"max_string_bytes": a.opts.MaxStringBytes,
			"min_string_chars": a.opts.MinStringChars,
		},
	}
	// The debug file in use shapes every list: it is named, so that a
	// record built from it differs from one without it.
	if d := a.debugProfile(); d != nil {
		p.Parameters["debug_file"] = d
	}
	// So are the signature libraries that named procedures.
	if l := a.libraryProfile(); l != nil {
		p.Parameters["signature_libraries"] = l
	}
	return p
}

// Close releases the file opened by OpenFile or Provider.Open. It is safe to
// call more than once; lists fail after Close.
func (a *Analysis) Close(context.Context) error {
	if a.closed.Swap(true) {
		return nil
	}
	a.stopDiscovery()
	a.releaseHeld()
	// The cross-reference index belongs to the program; release its
	// reservation once the discovery job has settled and any computation
	// of the index in flight has finished (it holds the locks).
	a.bg.Lock()
	j := a.job
	a.bg.Unlock()
	if j != nil {
		go func() {
			<-j.done
			if j.p != nil {
				j.p.refs.drop(func(ix *refIndex) {
					if ix != nil && ix.held != nil {
						ix.held()
					}
				})
			}
		}()
	}
	if a.src.m != nil {
		a.src.m.close()
	}
	if a.debug != nil {
		a.debug.file.Close()
	}
	a.sup.close()
	if a.file != nil {
		return a.file.Close()
	}
	return nil
}

// Documents reports the analysable units of the file.
func (a *Analysis) Documents(ctx context.Context) ([]ports.Document, error) {
	if err := a.check(ctx, "documents"); err != nil {
		return nil, err
	}
	return slices.Clone(a.docs), nil
}

// Segments reports sections (or, without a section table, loadable
// segments) in file order.
func (a *Analysis) Segments(ctx context.Context) ([]ports.Segment, error) {
	defer a.fg.enter()()
	return list(a, ctx, "segments", &a.segs, func(ctx context.Context) ([]ports.Segment, error) {
		segs, err := a.img.segments(ctx)
		if err != nil {
			return nil, err
		}
		return segs, a.reserveHeld(ctx, "the segments list", listBytes(segs))
	})
}

// Procedures reports every known procedure, sorted by address, one per
// address.
func (a *Analysis) Procedures(ctx context.Context) ([]ports.Procedure, error) {
	// Wait for discovery (background.go) before taking the list's lock, so
	// that every waiter can give up on its own.
	if _, err := a.program(ctx); err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("native: procedures: %w", err)
	}
	return list(a, ctx, "procedures", &a.procs, func(ctx context.Context) ([]ports.Procedure, error) {
		p, err := a.program(ctx) // symbols plus discovered functions (discover.go)
		if err != nil {
			return nil, err
		}
		return p.procs, a.reserveHeld(ctx, "the procedures list", listBytes(p.procs))
	})
}

// Names reports every label, sorted by address then name, without
// duplicates.
func (a *Analysis) Names(ctx context.Context) ([]ports.Name, error) {
	defer a.fg.enter()()
	return list(a, ctx, "names", &a.names, a.sortedNames)
}

// sortedNames computes the Names list; whole-file discovery shares it.
func (a *Analysis) sortedNames(ctx context.Context) ([]ports.Name, error) {
	set, err := a.symbolSet(ctx)
	if err != nil {
		return nil, err
	}
	labels := set.labels
	if a.lib != nil && len(a.lib.labels) > 0 {
		labels = append(slices.Clip(labels), a.lib.labels...) // a copy: the set is shared
	}
	names := sortNames(labels)
	return names, a.reserveHeld(ctx, "the names list", listBytes(names))
}

// Strings reports the ASCII and UTF-16LE strings in data sections, sorted by
// address.
//
// The list is kept in compact form and each call reads the values from the
// file again: the caller owns what it gets and nothing is held twice.
func (a *Analysis) Strings(ctx context.Context) ([]ports.String, error) {
	return a.strings(ctx, "strings", func(set *stringSet) *stringSet { return set })
}

var _ ports.StringPager = (*Analysis)(nil)

// StringsPage reports Strings()[offset:offset+limit] and the list's
// length, reading only the page's values.
func (a *Analysis) StringsPage(ctx context.Context, offset, limit int) ([]ports.String, int, error) {
	total := 0
	out, err := a.strings(ctx, "strings page", pagePick(offset, limit, &total))
	return out, total, err
}

// pagePick picks a list's [offset:offset+limit] (clipped), setting *total
// to the list's length.
func pagePick(offset, limit int, total *int) func(*stringSet) *stringSet {
	return func(set *stringSet) *stringSet {
		*total = len(set.recs)
		lo, hi := min(max(offset, 0), *total), *total
		if limit >= 0 && limit < hi-lo {
			hi = lo + limit
		}
		return &stringSet{regions: set.regions, recs: set.recs[lo:hi]}
	}
}

// strings computes the list once and materializes the part pick selects.
func (a *Analysis) strings(ctx context.Context, op string, pick func(*stringSet) *stringSet) (out []ports.String, err error) {
	return a.stringsOf(ctx, &a.strs, a.opts, op, pick)
}

// stringsOf computes the list of strings of at least opts.MinStringChars
// characters once, in list, and materializes the part pick selects.
func (a *Analysis) stringsOf(ctx context.Context, list *lazy[*stringSet], opts Options, op string, pick func(*stringSet) *stringSet) (out []ports.String, err error) {
	defer a.fg.enter()()
	leave, err := a.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	defer leave()
	set, err := list.get(ctx, func(ctx context.Context) (set *stringSet, err error) {
		defer recoverInto(a.img.format(), op, &err)
		regions, err := a.img.stringRegions(ctx)
		if err != nil {
			return nil, err
		}
		set, err = a.scanStrings(ctx, disjoint(regions), opts)
		if err == nil && set.held != nil {
			set.held = sync.OnceFunc(set.held) // released at Close, or when another list replaces it (strings_min.go)
			a.hold(set.held)
		}
		return set, err
	})
	if err == nil {
		err = func() (err error) {
			defer recoverInto(a.img.format(), op, &err)
			out, err = pick(set).strings(ctx, a.src, a.opts)
			return err
		}()
	}
	if err != nil {
		if a.closed.Load() && !errors.Is(err, ctx.Err()) {
			return nil, fmt.Errorf("native: %s: analysis closed: %w", op, fs.ErrClosed)
		}
		return nil, fmt.Errorf("native: %s: %w", op, classify(a.img.format(), err))
	}
	return out, nil
}

func (a *Analysis) symbolSet(ctx context.Context) (*symbolSet, error) {
	return a.syms.get(ctx, func(ctx context.Context) (set *symbolSet, err error) {
		defer recoverInto(a.img.format(), "symbols", &err)
		if set, err = a.img.symbols(ctx); err != nil {
			return nil, err
		}
		return set, a.reserveHeld(ctx, "the symbol tables", listBytes(set))
	})
}

// check fails when ctx is done or the analysis is closed.
func (a *Analysis) check(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("native: %s: %w", op, err)
	}
	if a.closed.Load() {
		return fmt.Errorf("native: %s: analysis closed: %w", op, fs.ErrClosed)
	}
	return nil
}

// enter checks like check and pins the file's mapping until leave is
// called, so that Close cannot unmap bytes the operation is reading.
func (a *Analysis) enter(ctx context.Context, op string) (leave func(), err error) {
	if err := a.check(ctx, op); err != nil {
		return nil, err
	}
	if a.src.m == nil {
		return func() {}, nil
	}
	if !a.src.m.pin() {
		return nil, fmt.Errorf("native: %s: analysis closed: %w", op, fs.ErrClosed)
	}
	return a.src.m.unpin, nil
}

// list computes a cached list under recover and hands every caller the
// same slice: the lists are shared read-only (ports.ProcedureLister), so a
// warm open of a large target does not copy hundreds of thousands of
// records per call.
func list[T any](a *Analysis, ctx context.Context, op string, l *lazy[[]T], compute func(context.Context) ([]T, error)) ([]T, error) {
	leave, err := a.enter(ctx, op)
	if err != nil {
		return nil, err
	}
	defer leave()
	v, err := l.get(ctx, func(ctx context.Context) (v []T, err error) {
		defer recoverInto(a.img.format(), op, &err)
		return compute(ctx)
	})
	if err != nil {
		if a.closed.Load() && !errors.Is(err, ctx.Err()) {
			return nil, fmt.Errorf("native: %s: analysis closed: %w", op, fs.ErrClosed)
		}
		return nil, fmt.Errorf("native: %s: %w", op, classify(a.img.format(), err))
	}
	return slices.Clip(v), nil // an append by a caller cannot write into the shared array
}

// Limitations names the tables the engine cut at its bounds (symtab.go).
func (a *Analysis) Limitations(ctx context.Context) ([]string, error) {
	if err := a.check(ctx, "limitations"); err != nil {
		return nil, err
	}
	set, err := a.symbolSet(ctx)
	if err != nil {
		return nil, fmt.Errorf("native: limitations: %w", classify(a.img.format(), err))
	}
	out := append(slices.Clone(set.limits), a.debugNotes...)
	if e, ok := a.img.(*elfImage); ok {
		out = append(out, e.rel.limitations()...)
	}
	if l, ok := a.dw.peek(); ok && l != nil && l.supNote != "" {
		out = append(out, l.supNote)
	}
	out = append(out, a.libraryNotes()...)
	if strs, ok := a.strs.peek(); ok && strs != nil {
		out = append(out, strs.limits...)
	}
	return out, nil
}
