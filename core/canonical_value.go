package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"runtime"
	"slices"
	"sync"

	"rea/core/internal/jcs"
)

// Canonical is a JSON value in canonical form that CanonicalJSON writes as
// it is, so a large part of a result (an application graph) is encoded once.
// Only rea's encoder (CanonicalArray, SealObject), ParseCanonical (which
// checks the bytes) and UnmarshalJSON (which canonicalizes them) make one:
// no other text reaches sealed Evidence through it. It is held as pieces
// written one after another; the zero value is null.
type Canonical struct{ parts [][]byte }

// ParseCanonical returns b as a Canonical, or an error when b is not one
// JSON value in canonical form. b must not be changed afterwards.
func ParseCanonical(b []byte) (Canonical, error) {
	if out, err := jcs.AppendRaw(nil, b); err != nil || !bytes.Equal(out, b) {
		return Canonical{}, errors.Join(errors.New("canonical json: the text is not one value in canonical form"), err)
	}
	return Canonical{[][]byte{b}}, nil
}

// AppendTo appends the value's text to dst.
func (c Canonical) AppendTo(dst []byte) []byte {
	for _, p := range c.partsOrNull() {
		dst = append(dst, p...)
	}
	return dst
}

// Len is the length of the value's text.
func (c Canonical) Len() (n int) {
	for _, p := range c.partsOrNull() {
		n += len(p)
	}
	return n
}

// MarshalJSON implements json.Marshaler.
func (c Canonical) MarshalJSON() ([]byte, error) { return c.AppendTo(nil), nil }

// UnmarshalJSON implements json.Unmarshaler: it keeps b's canonical form.
func (c *Canonical) UnmarshalJSON(b []byte) error {
	out, err := jcs.AppendRaw(nil, b)
	if err == nil {
		*c = Canonical{[][]byte{out}}
	}
	return err
}

// CanonicalArray encodes items as one canonical JSON array, kept as the
// contiguous runs that GOMAXPROCS goroutines encode (whatever their number,
// the text is the same).
func CanonicalArray[T any](items []T) (Canonical, error) {
	return CanonicalArrayFunc(len(items), func(dst []byte, i int) ([]byte, error) { return appendCanonicalJSON(dst, items[i]) })
}

// CanonicalArrayFunc is CanonicalArray of n items that append their own
// canonical form: item(dst, i) appends the i-th, on the goroutine writing
// its run, and must only read what it shares. A run is kept as pieces: once
// one holds canonicalPiece bytes the next item starts another, so a long
// run is never copied to grow and no allocation is much larger than a piece.
func CanonicalArrayFunc(n int, item func(dst []byte, i int) ([]byte, error)) (Canonical, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/64))
	per := (n + workers - 1) / workers
	runs, errs, out := make([][][]byte, workers), make([]error, workers), Canonical{[][]byte{{'['}}}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min(n, (w+1)*per)
		wg.Go(func() {
			var b []byte
			for i := lo; i < hi && errs[w] == nil; i++ {
				if len(b) >= canonicalPiece {
					runs[w], b = append(runs[w], b), make([]byte, 0, canonicalPiece*5/4)
				}
				if i > 0 {
					b = append(b, ',')
				}
				b, errs[w] = item(b, i)
			}
			runs[w] = append(runs[w], b)
		})
	}
	wg.Wait() // only trailing runs can be empty, so a run after the first starts with its comma
	for _, r := range runs {
		out.parts = append(out.parts, r...)
	}
	out.parts = append(out.parts, []byte{']'})
	return out, errors.Join(errs...)
}

// canonicalPiece is the size a piece of a run reaches before the next
// begins: many items, and allocations the heap reuses rather than fresh pages.
const canonicalPiece = 64 << 10

// SealObject encodes obj with an ID member: idKey is prefix + the digest of
// obj's canonical form without it, and the result is obj's canonical form
// with it. Each value is encoded once; Canonical members are referenced,
// not copied. An empty idKey encodes obj with no ID.
func SealObject(obj map[string]any, idKey, prefix string) (Canonical, string, error) {
	keys := make([]string, 0, len(obj)+1)
	vals := make(map[string]Canonical, len(obj)+1)
	for k, v := range obj {
		if k == idKey {
			continue
		}
		c, ok := v.(Canonical)
		if !ok {
			b, err := CanonicalJSON(v)
			if err != nil {
				return Canonical{}, "", err
			}
			c = Canonical{[][]byte{b}}
		}
		keys, vals[k] = append(keys, k), c
	}
	assemble := func(keys []string) Canonical {
		slices.SortFunc(keys, CompareKeys)
		out := Canonical{[][]byte{{'{'}}}
		for i, k := range keys {
			key := []byte(",")[:min(i, 1)]
			out.parts = append(out.parts, append(AppendCanonicalString(key, k), ':'))
			out.parts = append(out.parts, vals[k].partsOrNull()...)
		}
		out.parts = append(out.parts, []byte{'}'})
		return out
	}
	if idKey == "" {
		return assemble(keys), "", nil
	}
	h := sha256.New()
	for _, p := range assemble(keys).parts {
		h.Write(p)
	}
	id := prefix + hex.EncodeToString(h.Sum(nil))
	vals[idKey] = Canonical{[][]byte{AppendCanonicalString(nil, id)}}
	return assemble(append(keys, idKey)), id, nil
}

func (c Canonical) partsOrNull() [][]byte {
	if c.parts == nil {
		return [][]byte{[]byte("null")}
	}
	return c.parts
}
