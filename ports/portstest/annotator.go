package portstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"

	"rea/ports"
)

// RunAnnotator checks a ports.Annotator against its contract, using mapped,
// an address the engine maps, and unmapped, one it does not. It leaves no
// annotation of its own behind at mapped. Kinds the engine answers
// ErrUnsupported for are skipped, but the name and comment kinds must work.
func RunAnnotator(t *testing.T, a ports.Annotator, mapped, unmapped uint64) {
	t.Helper()
	ctx := t.Context()
	call := func(what string, f func() error) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%s panicked: %v", what, r)
			}
		}()
		return f()
	}
	list := func(kind ports.AnnotationKind) ([]ports.Annotation, error) {
		var out []ports.Annotation
		err := call("Annotations", func() (err error) { out, err = a.Annotations(ctx, kind); return })
		return out, err
	}
	at := func(kind ports.AnnotationKind, addr uint64) (string, bool) {
		t.Helper()
		l, err := list(kind)
		if err != nil {
			t.Fatalf("Annotations(%s): %v", kind, err)
		}
		if !sort.SliceIsSorted(l, func(i, j int) bool { return l[i].Address < l[j].Address }) {
			t.Errorf("Annotations(%s) is not sorted by address", kind)
		}
		for i := 1; i < len(l); i++ {
			if l[i].Address == l[i-1].Address {
				t.Errorf("Annotations(%s) lists %#x twice", kind, l[i].Address)
			}
		}
		for _, x := range l {
			if x.Kind != kind {
				t.Errorf("Annotations(%s) lists an annotation of kind %s", kind, x.Kind)
			}
			if x.Address == addr {
				return x.Text, true
			}
		}
		return "", false
	}
	if _, err := list("no-such-kind"); !errors.Is(err, ports.ErrMalformed) {
		t.Errorf("Annotations(unknown kind) = %v, want ErrMalformed", err)
	}
	for _, kind := range ports.AnnotationKinds() {
		if _, err := list(kind); errors.Is(err, ports.ErrUnsupported) {
			if kind == ports.AnnotationName || kind == ports.AnnotationComment {
				t.Errorf("Annotations(%s) is unsupported; names and comments are required", kind)
			}
			continue
		} else if err != nil {
			t.Fatalf("Annotations(%s): %v", kind, err)
		}
		if _, had := at(kind, mapped); had {
			t.Fatalf("Annotations(%s) already has an annotation at %#x; pass an address without one", kind, mapped)
		}
		text := "portstest " + string(kind)
		set := func(x ports.Annotation) error {
			return call("SetAnnotation", func() error { return a.SetAnnotation(ctx, x) })
		}
		if err := set(ports.Annotation{Kind: kind, Address: unmapped, Text: text}); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("SetAnnotation(%s) at unmapped %#x = %v, want ErrNotFound", kind, unmapped, err)
		}
		if kind != ports.AnnotationBookmark {
			if err := set(ports.Annotation{Kind: kind, Address: mapped}); !errors.Is(err, ports.ErrMalformed) {
				t.Errorf("SetAnnotation(%s) with empty text = %v, want ErrMalformed", kind, err)
			}
		}
		if err := set(ports.Annotation{Kind: kind, Address: mapped, Text: "bad\x00text"}); !errors.Is(err, ports.ErrMalformed) {
			t.Errorf("SetAnnotation(%s) with a NUL = %v, want ErrMalformed", kind, err)
		}
		if _, had := at(kind, mapped); had {
			t.Errorf("a refused SetAnnotation(%s) left an annotation at %#x", kind, mapped)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := call("SetAnnotation", func() error {
			return a.SetAnnotation(cctx, ports.Annotation{Kind: kind, Address: mapped, Text: text})
		}); !errors.Is(err, context.Canceled) {
			t.Errorf("SetAnnotation(%s) with a cancelled context = %v, want context.Canceled", kind, err)
		}
		if _, had := at(kind, mapped); had {
			t.Errorf("a cancelled SetAnnotation(%s) left an annotation", kind)
		}
		if err := set(ports.Annotation{Kind: kind, Address: mapped, Text: text}); err != nil {
			t.Fatalf("SetAnnotation(%s): %v", kind, err)
		}
		if got, ok := at(kind, mapped); !ok || got != text {
			t.Errorf("after SetAnnotation(%s), Annotations has %q (present %v), want %q", kind, got, ok, text)
		}
		l, _ := list(kind)
		for i := range l {
			l[i].Text = "changed by the caller"
		}
		if got, _ := at(kind, mapped); got != text {
			t.Errorf("changing a listed annotation changed the engine's (%s)", kind)
		}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = list(kind)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Errorf("concurrent Annotations(%s): %v", kind, err)
			}
		}
		remove := func() error {
			return call("RemoveAnnotation", func() error { return a.RemoveAnnotation(ctx, kind, mapped) })
		}
		if err := remove(); err != nil {
			t.Errorf("RemoveAnnotation(%s): %v", kind, err)
		}
		if _, had := at(kind, mapped); had {
			t.Errorf("RemoveAnnotation(%s) left the annotation", kind)
		}
		if err := remove(); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("RemoveAnnotation(%s) twice = %v, want ErrNotFound the second time", kind, err)
		}
	}
}

// AnnotatorFake is an in-memory ports.Annotator over a set of mapped
// ranges; it keeps every kind. Embed it in a fake Analysis to test rea
// against an engine that stores annotations itself.
type AnnotatorFake struct {
	// Ranges are the mapped [start, end) address ranges.
	Ranges [][2]uint64
	// Unsupported kinds answer ErrUnsupported.
	Unsupported []ports.AnnotationKind
	// MaxText bounds Text in bytes (0: 4096).
	MaxText int

	mu   sync.Mutex
	data map[ports.AnnotationKind]map[uint64]string
}

func (f *AnnotatorFake) check(ctx context.Context, kind ports.AnnotationKind) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !slices.Contains(ports.AnnotationKinds(), kind) {
		return fmt.Errorf("annotation kind %q: %w", kind, ports.ErrMalformed)
	}
	if slices.Contains(f.Unsupported, kind) {
		return fmt.Errorf("annotation kind %s: %w", kind, ports.ErrUnsupported)
	}
	return nil
}

// Annotations implements ports.Annotator.
func (f *AnnotatorFake) Annotations(ctx context.Context, kind ports.AnnotationKind) ([]ports.Annotation, error) {
	if err := f.check(ctx, kind); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []ports.Annotation{}
	for addr, text := range f.data[kind] {
		out = append(out, ports.Annotation{Kind: kind, Address: addr, Text: text})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out, nil
}

// SetAnnotation implements ports.Annotator.
func (f *AnnotatorFake) SetAnnotation(ctx context.Context, a ports.Annotation) error {
	if err := f.check(ctx, a.Kind); err != nil {
		return err
	}
	mapped := false
	for _, r := range f.Ranges {
		mapped = mapped || (a.Address >= r[0] && a.Address < r[1])
	}
	if !mapped {
		return fmt.Errorf("address %#x is not mapped: %w", a.Address, ports.ErrNotFound)
	}
	maxText := f.MaxText
	if maxText <= 0 {
		maxText = 4096
	}
	switch {
	case a.Text == "" && a.Kind != ports.AnnotationBookmark:
		return fmt.Errorf("empty %s: %w", a.Kind, ports.ErrMalformed)
	case len(a.Text) > maxText:
		return fmt.Errorf("%s of %d bytes exceeds %d: %w", a.Kind, len(a.Text), maxText, ports.ErrMalformed)
	case strings.ContainsFunc(a.Text, func(r rune) bool { return r == 0 || (unicode.IsControl(r) && r != '\n' && r != '\t') }):
		return fmt.Errorf("%s holds a control character: %w", a.Kind, ports.ErrMalformed)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		f.data = map[ports.AnnotationKind]map[uint64]string{}
	}
	if f.data[a.Kind] == nil {
		f.data[a.Kind] = map[uint64]string{}
	}
	f.data[a.Kind][a.Address] = a.Text
	return nil
}

// RemoveAnnotation implements ports.Annotator.
func (f *AnnotatorFake) RemoveAnnotation(ctx context.Context, kind ports.AnnotationKind, addr uint64) error {
	if err := f.check(ctx, kind); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.data[kind][addr]; !ok {
		return fmt.Errorf("no %s at %#x: %w", kind, addr, ports.ErrNotFound)
	}
	delete(f.data[kind], addr)
	return nil
}
