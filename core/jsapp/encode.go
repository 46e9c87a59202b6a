package jsapp

import (
	"runtime"
	"sync"

	"rea/core"
)

// canonicalArray encodes items as one canonical JSON array, the bytes
// core.CanonicalJSON gives for the slice, with the items split across
// GOMAXPROCS goroutines in contiguous runs: the output does not depend on
// the number of goroutines.
func canonicalArray[T any](items []T) (core.SealedJSON, error) {
	if len(items) == 0 {
		return core.SealedJSON("[]"), nil
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
	n := 2
	for w, p := range parts {
		if errs[w] != nil {
			return nil, errs[w]
		}
		n += len(p) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	first := true
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, p...)
	}
	return append(out, ']'), nil
}
