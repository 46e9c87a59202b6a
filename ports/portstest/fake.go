package portstest

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"
	"sync/atomic"

	"rea/ports"
)

// Fake is a working in-memory provider. Its analyses return the configured
// lists as they are (Run expects them sorted as rea/ports documents), honour
// context cancellation and fail after Close. Configure a Fake before its
// first use and do not change it afterwards; it is then safe for concurrent
// use.
type Fake struct {
	ID      string   // default "fake"
	Version string   // default "0.0.0"
	Formats []string // target formats supported; empty means every format

	// Documents defaults to one document named after the target's file with
	// the target's format and architecture.
	Documents  []ports.Document
	Segments   []ports.Segment
	Procedures []ports.Procedure
	Names      []ports.Name
	Strings    []ports.String
	// EarlyProcedures, when set, is what the analysis's
	// ports.EarlyProcedureLister answers (not complete), as an engine
	// that discovers more procedures on a large target does; unset, it
	// answers Procedures, complete.
	EarlyProcedures []ports.Procedure
}

var _ ports.Provider = (*Fake)(nil)

// NewFake returns a Fake holding a small, consistent x86-64 ELF program:
// two sections, three procedures (one a PLT stub), their names and two
// strings.
func NewFake() *Fake {
	return &Fake{
		Segments: []ports.Segment{
			{Name: ".text", Kind: "section", Start: 0x1000, Size: 0x100, FileOffset: 0x1000, FileSize: 0x100,
				Perms: ports.Permissions{Read: true, Execute: true}},
			{Name: ".rodata", Kind: "section", Start: 0x2000, Size: 0x40, FileOffset: 0x2000, FileSize: 0x40,
				Perms: ports.Permissions{Read: true}},
		},
		Procedures: []ports.Procedure{
			{Address: 0x1000, Name: "puts@plt", Size: 0x10, Source: "plt", External: true, Thunk: true, ThunkTarget: "puts"},
			{Address: 0x1010, Name: "_start", Size: 0x20, Source: "entry"},
			{Address: 0x1030, Name: "main", Size: 0x40, Source: "symbol"},
		},
		Names: []ports.Name{
			{Address: 0x1000, Name: "puts@plt", Kind: "import"},
			{Address: 0x1010, Name: "_start", Kind: "function"},
			{Address: 0x1030, Name: "main", Kind: "function"},
			{Address: 0x2000, Name: "greeting", Kind: "object"},
		},
		Strings: []ports.String{
			{Address: 0x2000, FileOffset: 0x2000, Value: "hello, world", Charset: "ascii", ByteLength: 12, Section: ".rodata"},
			{Address: 0x2010, FileOffset: 0x2010, Value: "wide", Charset: "utf-16le", ByteLength: 8, Section: ".rodata"},
		},
	}
}

func (f *Fake) id() string { return cmp.Or(f.ID, "fake") }

// Info identifies the fake.
func (f *Fake) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: f.id(), Name: "in-memory fake " + f.id(), Version: cmp.Or(f.Version, "0.0.0")}
}

// Availability is always available.
func (f *Fake) Availability(context.Context) ports.Availability {
	return ports.Availability{Available: true}
}

// Support accepts targets whose format is in Formats, or any target when
// Formats is empty.
func (f *Fake) Support(_ context.Context, t ports.Target) ports.Support {
	if len(f.Formats) == 0 || slices.Contains(f.Formats, t.Format) {
		return ports.Support{Supported: true}
	}
	return ports.Support{Code: "target_format_unsupported", Reason: fmt.Sprintf("%s supports %v, not %q", f.id(), f.Formats, t.Format)}
}

// Open returns a FakeAnalysis over copies of the configured lists.
func (f *Fake) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: open: %w", f.id(), err)
	}
	if s := f.Support(ctx, t); !s.Supported {
		return nil, fmt.Errorf("%s: open: %s: %w", f.id(), s.Reason, ports.ErrUnsupported)
	}
	docs := slices.Clone(f.Documents)
	if docs == nil {
		docs = []ports.Document{{Name: docName(t.Path), Format: cmp.Or(t.Format, "unknown"), Architecture: t.Architecture}}
	}
	return (&FakeAnalysis{
		id:         f.id(),
		version:    cmp.Or(f.Version, "0.0.0"),
		documents:  docs,
		segments:   slices.Clone(f.Segments),
		procedures: slices.Clone(f.Procedures),
		early:      slices.Clone(f.EarlyProcedures),
		names:      slices.Clone(f.Names),
		strings:    slices.Clone(f.Strings),
	}).keep(), nil
}

// FakeAnalysis is an open analysis of a Fake. It implements every lister.
type FakeAnalysis struct {
	id, version string
	documents   []ports.Document
	segments    []ports.Segment
	procedures  []ports.Procedure
	early       []ports.Procedure
	names       []ports.Name
	strings     []ports.String
	closes      atomic.Int32
	// pristine holds copies of the shared lists, to tell whether a caller
	// modified one (ModifiedLists).
	pristine *FakeAnalysis
}

// keep records copies of the shared lists as handed out at the open.
func (a *FakeAnalysis) keep() *FakeAnalysis {
	a.pristine = &FakeAnalysis{segments: slices.Clone(a.segments), procedures: slices.Clone(a.procedures),
		early: slices.Clone(a.early), names: slices.Clone(a.names)}
	return a
}

// ModifiedLists names the shared lists (segments, procedures, early
// procedures, names) that differ from what the analysis handed out at its
// open: a caller wrote into a slice that ports declares shared.
func (a *FakeAnalysis) ModifiedLists() []string {
	var out []string
	if p := a.pristine; p != nil {
		if !slices.Equal(p.segments, a.segments) {
			out = append(out, "segments")
		}
		if !slices.Equal(p.procedures, a.procedures) {
			out = append(out, "procedures")
		}
		if !slices.Equal(p.early, a.early) {
			out = append(out, "early procedures")
		}
		if !slices.Equal(p.names, a.names) {
			out = append(out, "names")
		}
	}
	return out
}

var (
	modifiedMu sync.Mutex
	modified   []string
)

// ModifiedSharedLists names every shared list that a caller modified, found
// when its analysis was closed, across every fake analysis of the test
// binary so far: a test that runs operations on fakes checks it is empty.
func ModifiedSharedLists() []string {
	modifiedMu.Lock()
	defer modifiedMu.Unlock()
	return slices.Clone(modified)
}

var (
	_ ports.Analysis        = (*FakeAnalysis)(nil)
	_ ports.DocumentLister  = (*FakeAnalysis)(nil)
	_ ports.SegmentLister   = (*FakeAnalysis)(nil)
	_ ports.ProcedureLister = (*FakeAnalysis)(nil)
	_ ports.NameLister      = (*FakeAnalysis)(nil)
	_ ports.StringLister    = (*FakeAnalysis)(nil)

	_ ports.EarlyProcedureLister = (*FakeAnalysis)(nil)
)

// Version is the fake's version.
func (a *FakeAnalysis) Version() string { return a.version }

// Profile has no parameters.
func (a *FakeAnalysis) Profile() ports.Profile {
	return ports.Profile{SchemaVersion: 1, Parameters: map[string]any{}}
}

// Close marks the analysis closed; later lists fail. It is safe to call twice.
func (a *FakeAnalysis) Close(context.Context) error {
	if a.closes.Add(1) == 1 {
		if m := a.ModifiedLists(); len(m) > 0 {
			modifiedMu.Lock()
			for _, l := range m {
				modified = append(modified, a.id+": "+l)
			}
			modifiedMu.Unlock()
		}
	}
	return nil
}

// Closed reports whether Close was called, so tests can check that callers
// release what they open.
func (a *FakeAnalysis) Closed() bool { return a.closes.Load() > 0 }

// Documents returns the configured documents.
func (a *FakeAnalysis) Documents(ctx context.Context) ([]ports.Document, error) {
	return fakeList(ctx, a, "documents", a.documents)
}

// Segments returns the configured segments.
func (a *FakeAnalysis) Segments(ctx context.Context) ([]ports.Segment, error) {
	return sharedList(ctx, a, "segments", a.segments)
}

// Procedures returns the configured procedures.
func (a *FakeAnalysis) Procedures(ctx context.Context) ([]ports.Procedure, error) {
	return sharedList(ctx, a, "procedures", a.procedures)
}

// EarlyProcedures returns the configured early procedures, or the
// procedures, complete, when none are configured.
func (a *FakeAnalysis) EarlyProcedures(ctx context.Context) (ports.EarlyProcedures, error) {
	if a.early == nil {
		procs, err := a.Procedures(ctx)
		return ports.EarlyProcedures{Procedures: procs, Complete: true}, err
	}
	procs, err := sharedList(ctx, a, "early procedures", a.early)
	return ports.EarlyProcedures{Procedures: procs}, err
}

// Names returns the configured names.
func (a *FakeAnalysis) Names(ctx context.Context) ([]ports.Name, error) {
	return sharedList(ctx, a, "names", a.names)
}

// Strings returns the configured strings.
func (a *FakeAnalysis) Strings(ctx context.Context) ([]ports.String, error) {
	return fakeList(ctx, a, "strings", a.strings)
}

// sharedList hands out the fake's own slice, as an engine may for the lists
// the ports declare shared (ports.ProcedureLister): a caller that modifies
// one changes what every later call sees, which the tests catch.
func sharedList[T any](ctx context.Context, a *FakeAnalysis, op string, v []T) ([]T, error) {
	if _, err := fakeList(ctx, a, op, []T(nil)); err != nil {
		return nil, err
	}
	return slices.Clip(v), nil
}

func fakeList[T any](ctx context.Context, a *FakeAnalysis, op string, v []T) ([]T, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", a.id, op, err)
	}
	if a.Closed() {
		return nil, fmt.Errorf("%s: %s: analysis closed: %w", a.id, op, fs.ErrClosed)
	}
	return slices.Clone(v), nil
}

// docName names the default document after the target's file.
func docName(p string) string {
	if b := path.Base(p); b != "." && b != "/" {
		return b
	}
	return "target"
}
