package jsapp

import (
	"runtime"
	"slices"

	"rea/core"
)

// canonicalArray and sealMembers encode the large parts of a result once,
// with the kernel's encoders: an array encoded on every core and kept as
// its runs (core.CanonicalArray), and an object with an ID whose large
// members are referenced, not copied (core.SealObject). Sealing the
// Evidence writes them as they are.
func canonicalArray[T any](items []T) (core.Canonical, error) { return core.CanonicalArray(items) }

func sealMembers(obj map[string]any, idKey, prefix string) (core.Canonical, string, error) {
	return core.SealObject(obj, idKey, prefix)
}

// lazyRows encodes n rows as one canonical array, each row built by row(i)
// on the core that writes it (core.CanonicalArray's runs), so the rows of
// the large tables are neither built on one core nor held all at once.
// row must only read what it shares.
func lazyRows(n int, row func(i int) any) (core.Canonical, error) {
	c, _, err := lazyAppend(n, func(dst []byte, i int) ([]byte, error) { return core.AppendCanonical(dst, row(i)) })
	return c, err
}

// lazyAppend is lazyRows for rows that write their own canonical form; it
// also returns the bytes the rows took.
func lazyAppend(n int, row func(dst []byte, i int) ([]byte, error)) (core.Canonical, int, error) {
	// Each core writes a run of about per rows into one buffer: sized from
	// a few rows written first, the buffer is not grown (a large buffer
	// grown is copied and its bytes charged to the collector again).
	workers := max(1, min(runtime.GOMAXPROCS(0), n/64)) // as core.CanonicalArray splits
	per := (n + workers - 1) / workers
	hint := 0
	if n > 0 {
		var sample []byte
		rows := 0
		for i := 0; i < n; i += max(1, n/8) {
			out, err := row(sample, i)
			if err != nil {
				return core.Canonical{}, 0, err
			}
			sample, rows = out[:0], rows+1
			hint += len(out) + 1
		}
		hint = hint/rows*per + hint/rows*per/8 + 1024
	}
	items := make([]lazyRow, n)
	refs := make([]*lazyRow, n)
	for i := range items {
		items[i] = lazyRow{row: row, i: i, hint: hint}
		refs[i] = &items[i]
	}
	c, err := core.CanonicalArray(refs)
	size := 0
	for i := range items {
		if items[i].err != nil {
			return c, 0, items[i].err
		}
		size += items[i].size + 1
	}
	return c, size, err
}

// lazyRow is one row of lazyAppend; err is what encoding it met (rea's own
// values always encode, and a worker must not panic where the call's
// recovery cannot catch it).
type lazyRow struct {
	row  func(dst []byte, i int) ([]byte, error)
	i    int
	hint int // the expected bytes of a run
	size int // the bytes written
	err  error
}

// AppendCanonicalJSON implements core.CanonicalAppender.
func (r *lazyRow) AppendCanonicalJSON(dst []byte) []byte {
	// dst is a run of several MB: sized to the hint at first, then, past
	// it, doubled (append grows large slices by a quarter, copying them
	// about five times).
	if cap(dst)-len(dst) < 4<<10 {
		dst = slices.Grow(dst, max(len(dst), 16<<10, r.hint-len(dst)))
	}
	out, err := r.row(dst, r.i)
	if err != nil {
		r.err = err
		return dst
	}
	r.size = len(out) - len(dst)
	return out
}

// MarshalJSON writes the same text, for encoders other than rea's.
func (r *lazyRow) MarshalJSON() ([]byte, error) { return r.row(nil, r.i) }
