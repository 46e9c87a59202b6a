package jsapp

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"slices"
	"sync"

	"rea/core"
)

// canonicalArray encodes items as one canonical JSON array (the bytes
// core.CanonicalJSON gives for the slice), with the items split across
// GOMAXPROCS goroutines in contiguous runs: the output does not depend on
// the number of goroutines. The array is kept as its runs, so sealing it
// into a larger object copies it once.
func canonicalArray[T any](items []T) (chunkedArray, error) {
	if len(items) == 0 {
		return chunkedArray{}, nil
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(items)/64))
	per := (len(items) + workers - 1) / workers
	parts := make([][]byte, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min(len(items), (w+1)*per)
		if lo >= hi {
			continue
		}
		wg.Go(func() {
			var b []byte
			for i := lo; i < hi; i++ {
				if i > lo {
					b = append(b, ',')
				}
				next, err := core.AppendCanonical(b, items[i])
				if err != nil {
					// A shape the direct encoder does not know: the
					// general path, which may use encoding/json.
					one, err := core.CanonicalJSON(items[i])
					if err != nil {
						errs[w] = err
						return
					}
					next = append(b, one...)
				}
				b = next
			}
			parts[w] = b
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return chunkedArray(parts), nil
}

// chunkedArray is a canonical JSON array held as comma-joined runs of its
// encoded items (empty runs are skipped).
type chunkedArray [][]byte

func (c chunkedArray) write(w func([]byte)) {
	w([]byte{'['})
	first := true
	for _, p := range c {
		if len(p) == 0 {
			continue
		}
		if !first {
			w([]byte{','})
		}
		first = false
		w(p)
	}
	w([]byte{']'})
}

func (c chunkedArray) size() int {
	n := 2
	for _, p := range c {
		n += len(p) + 1
	}
	return n
}

// pieces is the array as a chunked value.
func (c chunkedArray) pieces() chunked {
	out := chunked{}
	c.write(func(b []byte) { out = append(out, b) })
	return out
}

// chunked is a canonical JSON value held as pieces written one after the
// other (a value assembled around chunkedArrays without copying them).
type chunked [][]byte

func (c chunked) size() int {
	n := 0
	for _, p := range c {
		n += len(p)
	}
	return n
}

// bytes joins the array into one canonical value.
func (c chunkedArray) bytes() core.SealedJSON {
	out := make([]byte, 0, c.size())
	c.write(func(b []byte) { out = append(out, b...) })
	return out
}

// sealMembers is core.SealObject for objects with large chunkedArray
// members: the same bytes and ID, hashed as a stream and assembled once,
// so a member is never copied more than once.
func sealMembers(obj map[string]any, idKey, prefix string) (core.SealedJSON, string, error) {
	raw := make(map[string][]byte, len(obj)+1)
	arrays := map[string]chunkedArray{}
	pieces := map[string]chunked{}
	keys := make([]string, 0, len(obj)+1)
	for k, v := range obj {
		if k == idKey {
			continue
		}
		keys = append(keys, k)
		if c, ok := v.(chunkedArray); ok {
			arrays[k] = c
			continue
		}
		if c, ok := v.(chunked); ok {
			pieces[k] = c
			continue
		}
		b, err := core.CanonicalJSON(v)
		if err != nil {
			return nil, "", err
		}
		raw[k] = b
	}
	write := func(keys []string, w func([]byte)) {
		slices.SortFunc(keys, core.CompareKeys)
		w([]byte{'{'})
		for i, k := range keys {
			if i > 0 {
				w([]byte{','})
			}
			w(core.AppendCanonicalString(nil, k))
			w([]byte{':'})
			if c, ok := arrays[k]; ok {
				c.write(w)
			} else if c, ok := pieces[k]; ok {
				for _, p := range c {
					w(p)
				}
			} else {
				w(raw[k])
			}
		}
		w([]byte{'}'})
	}
	h := sha256.New()
	write(keys, func(b []byte) { h.Write(b) })
	id := prefix + hex.EncodeToString(h.Sum(nil))
	raw[idKey] = core.AppendCanonicalString(nil, id)
	n := 2
	for k, b := range raw {
		n += len(k) + 4 + len(b)
	}
	for k, c := range arrays {
		n += len(k) + 4 + c.size()
	}
	for k, c := range pieces {
		n += len(k) + 4 + c.size()
	}
	out := make([]byte, 0, n)
	write(append(keys, idKey), func(b []byte) { out = append(out, b...) })
	return out, id, nil
}
