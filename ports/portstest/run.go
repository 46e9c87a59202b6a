package portstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// Run checks that p honours the contracts of rea/ports on target: a valid
// provider ID; target supported; Open works; every implemented lister
// returns results sorted and unique as its doc comment says, with segments
// that do not overflow and strings with a value and a known charset; every
// implemented code capability (Disassembler, FunctionAnalyzer,
// CrossReferencer, ByteReader, SignatureReader, Decompiler,
// ValueFlowAnalyzer, SourceLocator) returns results that keep its doc comment's promises,
// agrees with the others (function ranges with procedures, instruction
// bytes with ReadBytes, calls with references, ReferencesFrom with
// ReferencesTo), answers ErrNotFound for addresses that name nothing, and
// survives hostile arguments; an EarlyProcedureLister answers the same
// before and after the complete list, within it, and equal to it when it
// says it is complete; the results are the same when called
// concurrently; Close is safe twice and calls fail after it; a cancelled
// context makes Open, or each call on a fresh Analysis, fail with an error
// wrapping context.Canceled; a provider that declares its capabilities
// declares exactly what it implements ([CheckCapabilities]); and a provider
// that is a ports.LayoutReader passes [RunLayout] on the bytes of
// target.Path, when that file can be read, and an Analysis of it that is
// a ports.TargetLayoutReader gives the layout the provider gives.
//
// Run skips when p reports itself unavailable.
func Run(t *testing.T, p ports.Provider, target ports.Target) {
	t.Helper()
	ctx := t.Context()

	t.Run("Info", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(checkInfo(p.Info()))
	})
	if av := p.Availability(ctx); !av.Available {
		t.Skipf("provider %s unavailable (%s): %s", p.Info().ID, av.Code, av.Reason)
	}
	t.Run("Support", func(t *testing.T) {
		is := is.New(t)
		s := p.Support(ctx, target)
		is.True(s.Supported) // the provider must support the conformance target
		is.Equal(s.Code, "")
	})

	if _, ok := p.(ports.CapabilityLister); ok {
		t.Run("Capabilities", func(t *testing.T) {
			a, err := p.Open(ctx, target)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer a.Close(context.WithoutCancel(ctx))
			CheckCapabilities(t, p, a)
		})
	}
	t.Run("Code", func(t *testing.T) { runCode(t, p, target) })
	t.Run("CodeConcurrent", func(t *testing.T) { runCodeConcurrent(t, p, target) })
	t.Run("CodeCancelled", func(t *testing.T) { runCodeCancelled(t, p, target) })
	if lr, ok := p.(ports.LayoutReader); ok {
		t.Run("Layout", func(t *testing.T) {
			b, err := os.ReadFile(target.Path)
			if err != nil {
				t.Skipf("no bytes to read the layout of: %v", err)
			}
			if _, err := lr.ReadLayout(t.Context(), bytes.NewReader(b), int64(len(b))); errors.Is(err, ports.ErrUnsupported) {
				t.Skipf("the layout of this target is not read: %v", err)
			}
			RunLayout(t, lr, b)
			t.Run("OpenTarget", func(t *testing.T) { runTargetLayout(t, p, lr, target, b) })
		})
	}

	t.Run("Lists", func(t *testing.T) {
		is := is.New(t)
		a, err := p.Open(ctx, target)
		is.NoErr(err)
		defer a.Close(context.WithoutCancel(ctx))
		is.True(a.Version() != "")
		is.NoErr(checkProfile(a.Profile()))
		el, early := a.(ports.EarlyProcedureLister)
		var before ports.EarlyProcedures
		if early {
			before, err = el.EarlyProcedures(ctx)
			is.NoErr(err)
		}
		want, err := collect(ctx, a)
		is.NoErr(err)
		if early {
			t.Run("EarlyProcedures", func(t *testing.T) {
				is := is.New(t)
				after, err := el.EarlyProcedures(ctx)
				is.NoErr(err)
				is.NoErr(checkEarlyProcedures(before, after, want.procs))
			})
		}
		if !want.any() {
			t.Error("the analysis implements none of the lister interfaces")
		}
		for _, c := range []struct {
			name  string
			check func() error
		}{
			{"Documents", func() error { return checkDocuments(want.docs) }},
			{"Segments", func() error { return checkSegments(want.segs, target.Size) }},
			{"Procedures", func() error { return checkProcedures(want.procs) }},
			{"Names", func() error { return checkNames(want.names) }},
			{"Strings", func() error { return checkStrings(want.strs) }},
		} {
			t.Run(c.name, func(t *testing.T) {
				is := is.New(t)
				is.NoErr(c.check())
			})
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		is := is.New(t)
		ref, err := p.Open(ctx, target)
		is.NoErr(err)
		defer ref.Close(context.WithoutCancel(ctx))
		want, err := collect(ctx, ref)
		is.NoErr(err)
		a, err := p.Open(ctx, target)
		is.NoErr(err)
		defer a.Close(context.WithoutCancel(ctx))
		const workers = 4
		got := make([]results, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i := range workers {
			wg.Go(func() { got[i], errs[i] = collect(ctx, a) })
		}
		wg.Wait()
		for i := range workers {
			is.NoErr(errs[i])
			is.True(reflect.DeepEqual(got[i], want)) // concurrent lists equal the sequential ones
		}
	})

	t.Run("CloseTwice", func(t *testing.T) {
		is := is.New(t)
		a, err := p.Open(ctx, target)
		is.NoErr(err)
		is.NoErr(a.Close(ctx))
		is.NoErr(a.Close(ctx))
	})

	t.Run("Cancelled", func(t *testing.T) {
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		t.Run("Open", func(t *testing.T) {
			is := is.New(t)
			a, err := p.Open(cancelled, target)
			if err != nil {
				is.True(errors.Is(err, context.Canceled)) // Open failed, but not with context.Canceled
				return
			}
			defer a.Close(ctx)
			err = firstList(cancelled, a)
			is.True(errors.Is(err, context.Canceled)) // Open ignored the cancelled context, so the first list must fail
		})
		for _, l := range listers {
			t.Run(l.name, func(t *testing.T) {
				is := is.New(t)
				a, err := p.Open(ctx, target)
				is.NoErr(err)
				defer a.Close(ctx)
				implemented, err := l.call(cancelled, a)
				if !implemented {
					t.Skipf("%s not implemented", l.name)
				}
				is.True(errors.Is(err, context.Canceled)) // a list on a fresh analysis with a cancelled context
			})
		}
	})
}

// results holds every list an analysis implements.
type results struct {
	docs  []ports.Document
	segs  []ports.Segment
	procs []ports.Procedure
	names []ports.Name
	strs  []ports.String
	has   int // how many listers the analysis implements
}

func (r results) any() bool { return r.has > 0 }

// collect calls every lister a implements.
func collect(ctx context.Context, a ports.Analysis) (r results, err error) {
	if l, ok := a.(ports.DocumentLister); ok {
		r.has++
		if r.docs, err = l.Documents(ctx); err != nil {
			return r, fmt.Errorf("documents: %w", err)
		}
	}
	if l, ok := a.(ports.SegmentLister); ok {
		r.has++
		if r.segs, err = l.Segments(ctx); err != nil {
			return r, fmt.Errorf("segments: %w", err)
		}
	}
	if l, ok := a.(ports.ProcedureLister); ok {
		r.has++
		if r.procs, err = l.Procedures(ctx); err != nil {
			return r, fmt.Errorf("procedures: %w", err)
		}
	}
	if l, ok := a.(ports.NameLister); ok {
		r.has++
		if r.names, err = l.Names(ctx); err != nil {
			return r, fmt.Errorf("names: %w", err)
		}
	}
	if l, ok := a.(ports.StringLister); ok {
		r.has++
		if r.strs, err = l.Strings(ctx); err != nil {
			return r, fmt.Errorf("strings: %w", err)
		}
	}
	return r, nil
}

// listers call one capability each, reporting false when a lacks it.
var listers = []struct {
	name string
	call func(context.Context, ports.Analysis) (bool, error)
}{
	{"Documents", func(ctx context.Context, a ports.Analysis) (bool, error) {
		l, ok := a.(ports.DocumentLister)
		if !ok {
			return false, nil
		}
		_, err := l.Documents(ctx)
		return true, err
	}},
	{"Segments", func(ctx context.Context, a ports.Analysis) (bool, error) {
		l, ok := a.(ports.SegmentLister)
		if !ok {
			return false, nil
		}
		_, err := l.Segments(ctx)
		return true, err
	}},
	{"Procedures", func(ctx context.Context, a ports.Analysis) (bool, error) {
		l, ok := a.(ports.ProcedureLister)
		if !ok {
			return false, nil
		}
		_, err := l.Procedures(ctx)
		return true, err
	}},
	{"Names", func(ctx context.Context, a ports.Analysis) (bool, error) {
		l, ok := a.(ports.NameLister)
		if !ok {
			return false, nil
		}
		_, err := l.Names(ctx)
		return true, err
	}},
	{"Strings", func(ctx context.Context, a ports.Analysis) (bool, error) {
		l, ok := a.(ports.StringLister)
		if !ok {
			return false, nil
		}
		_, err := l.Strings(ctx)
		return true, err
	}},
}

// firstList calls the first lister a implements.
func firstList(ctx context.Context, a ports.Analysis) error {
	for _, l := range listers {
		if ok, err := l.call(ctx, a); ok {
			return err
		}
	}
	return errors.New("no lister implemented")
}
