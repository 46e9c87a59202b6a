package portstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// RunLayout checks a ports.LayoutReader against its contract on sample, an
// image it reads: the layout is well formed (format, machine, bits, byte
// order; every section and segment range marked InFile lies inside the
// file; indexes are in order; mapped section indexes exist); concurrent
// readers get the same layout; truncated and garbage images give a layout
// or an error matching ports.ErrUnsupported or ports.ErrMalformed, never a
// panic or another error; a cancelled context fails with context.Canceled;
// and sample is not modified.
func RunLayout(t *testing.T, lr ports.LayoutReader, sample []byte) {
	t.Helper()
	ctx := t.Context()
	orig := bytes.Clone(sample)
	read := func(ctx context.Context, b []byte) (l *ports.Layout, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("ReadLayout panicked on %d bytes: %v", len(b), r)
			}
		}()
		return lr.ReadLayout(ctx, bytes.NewReader(b), int64(len(b)))
	}

	var want *ports.Layout
	t.Run("Sample", func(t *testing.T) {
		is := is.New(t)
		l, err := read(ctx, sample)
		is.NoErr(err)
		is.True(l != nil)
		is.NoErr(checkLayout(l, int64(len(sample))))
		is.True(bytes.Equal(sample, orig)) // the reader modified its input
		want = l
	})
	if want == nil {
		return
	}

	t.Run("Concurrent", func(t *testing.T) {
		is := is.New(t)
		const workers = 4
		got := make([]*ports.Layout, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i := range workers {
			wg.Go(func() { got[i], errs[i] = read(ctx, sample) })
		}
		wg.Wait()
		for i := range workers {
			is.NoErr(errs[i])
			is.True(reflect.DeepEqual(got[i], want)) // concurrent layouts equal the sequential one
		}
	})

	t.Run("Hostile", func(t *testing.T) {
		for _, in := range hostileImages(sample) {
			t.Run(in.name, func(t *testing.T) {
				is := is.New(t)
				l, err := read(ctx, in.b)
				if err != nil {
					if !isAny(err, ports.ErrUnsupported, ports.ErrMalformed) {
						t.Fatalf("ReadLayout: %v, want a layout, ErrUnsupported or ErrMalformed", err)
					}
					return
				}
				is.True(l != nil)
				is.NoErr(checkLayout(l, int64(len(in.b))))
			})
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		is := is.New(t)
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := read(cancelled, sample)
		is.True(errors.Is(err, context.Canceled)) // a cancelled context fails ReadLayout
	})
}

type image struct {
	name string
	b    []byte
}

// hostileImages are truncations, corruptions and garbage derived from a
// valid sample.
func hostileImages(sample []byte) []image {
	out := []image{{"empty", nil}, {"zeros", make([]byte, 4096)}, {"ones", bytes.Repeat([]byte{0xff}, 4096)}}
	for _, n := range []int{1, 4, 16, 52, 64, 128, len(sample) / 2, len(sample) - 1} {
		if n > 0 && n < len(sample) {
			out = append(out, image{fmt.Sprintf("prefix-%d", n), sample[:n:n]})
		}
	}
	// Flip bytes in the header, where counts, offsets and sizes live.
	for _, at := range []int{4, 5, 16, 18, 24, 32, 40, 48, 58, 60, 62} {
		if at < len(sample) {
			b := bytes.Clone(sample)
			b[at] ^= 0xff
			out = append(out, image{fmt.Sprintf("flip-%d", at), b})
		}
	}
	// A pseudo-random image with the sample's first bytes (its magic).
	b := make([]byte, 2048)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	copy(b, sample[:min(8, len(sample))])
	return append(out, image{"random", b})
}

var byteOrders = map[string]bool{"little": true, "big": true}

// checkLayout checks the shape of a layout read from a file of size bytes.
func checkLayout(l *ports.Layout, size int64) error {
	switch {
	case l.Format == "":
		return errors.New("layout: empty format")
	case l.Machine == "":
		return errors.New("layout: empty machine")
	case l.Bits != 32 && l.Bits != 64:
		return fmt.Errorf("layout: %d bits", l.Bits)
	case !byteOrders[l.ByteOrder]:
		return fmt.Errorf("layout: byte order %q", l.ByteOrder)
	}
	inside := func(off, n uint64) bool { return off+n >= off && off+n <= uint64(max(size, 0)) }
	for i, s := range l.Sections {
		if i > 0 && s.Index <= l.Sections[i-1].Index {
			return fmt.Errorf("layout: section %d has index %d after %d", i, s.Index, l.Sections[i-1].Index)
		}
		if s.InFile && !inside(s.Offset, s.FileSize) {
			return fmt.Errorf("layout: section %d: in file but [0x%x, +0x%x) exceeds %d bytes", s.Index, s.Offset, s.FileSize, size)
		}
	}
	indexes := map[int]bool{}
	for _, s := range l.Sections {
		indexes[s.Index] = true
	}
	for i, s := range l.Segments {
		if i > 0 && s.Index <= l.Segments[i-1].Index {
			return fmt.Errorf("layout: segment %d has index %d after %d", i, s.Index, l.Segments[i-1].Index)
		}
		if s.InFile && !inside(s.Offset, s.FileSize) {
			return fmt.Errorf("layout: segment %d: in file but [0x%x, +0x%x) exceeds %d bytes", s.Index, s.Offset, s.FileSize, size)
		}
		for _, x := range s.SectionIndexesMapped {
			if !indexes[x] {
				return fmt.Errorf("layout: segment %d maps section %d, which is not listed", s.Index, x)
			}
		}
	}
	for i, s := range l.Symbols {
		if s.Table == "" {
			return fmt.Errorf("layout: symbol %d: no table", i)
		}
	}
	return nil
}

// runTargetLayout checks that an Analysis of target offering
// ports.TargetLayoutReader reads the layout of its own bytes b as the
// provider's ReadLayout does (the contract: what the analysis knows may
// save work, never change the layout); it skips when the analysis does not
// offer it.
func runTargetLayout(t *testing.T, p ports.Provider, lr ports.LayoutReader, target ports.Target, b []byte) {
	is := is.New(t)
	ctx := t.Context()
	a, err := p.Open(ctx, target)
	is.NoErr(err)
	defer a.Close(context.WithoutCancel(ctx))
	tl, ok := a.(ports.TargetLayoutReader)
	if !ok {
		t.Skip("the analysis does not read its target's layout")
	}
	want, err := lr.ReadLayout(ctx, bytes.NewReader(b), int64(len(b)))
	is.NoErr(err)
	got, err := tl.ReadTargetLayout(ctx, bytes.NewReader(b), int64(len(b)))
	is.NoErr(err)
	is.True(reflect.DeepEqual(got, want)) // the open target's layout equals the provider's
}
