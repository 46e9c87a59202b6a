package native

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"rea/ports"
)

// Scanning the string regions on every core. The regions are first cut
// into pieces, one per window (strings_window.go) or per region whose
// literals are split, exactly where one scan reading window after window
// would cut them: a window's cut depends only on the bytes around its end,
// so planning reads those alone. The pieces are then scanned in parallel,
// each into its own list, and the lists are joined in piece order, so the
// result is the same whatever the core count.

// strPiece is one unit of scanning work.
type strPiece struct {
	region int    // index in the regions
	pos, n uint64 // the bytes [pos, pos+n) of the region
	refs   []litRef
	lit    bool // split the region's literals by refs (the piece is the whole region)
}

// planWindows appends the pieces of the n bytes of region ri at off, cut as
// windows cuts them, and reports how many cuts were forced.
func planWindows(ctx context.Context, src source, off, n uint64, ri int, pieces []strPiece) ([]strPiece, int, error) {
	forced := 0
	size := min(n, scanWindow)
	for pos := uint64(0); pos < n; {
		if err := ctx.Err(); err != nil {
			return nil, forced, err
		}
		wlen := min(n-pos, size)
		cut := wlen
		if pos+wlen < n {
			c, err := windowCut(src, off+pos, int(wlen))
			if err != nil {
				return nil, forced, err
			}
			if c > 0 {
				cut = uint64(c)
			} else {
				forced++
			}
		}
		pieces = append(pieces, strPiece{region: ri, pos: pos, n: cut})
		pos += cut
	}
	return pieces, forced, nil
}

// windowCut is safeCut of the wlen bytes at off, reading from the end of
// the window only as far back as the search goes: a tail first, then the
// whole second half.
func windowCut(src source, off uint64, wlen int) (int, error) {
	lo := max(wlen-4096, 0)
	for {
		lo = max(lo, wlen/2-1, 0)
		tail := make([]byte, wlen-lo)
		if err := readFull(src, off+uint64(lo), tail); err != nil {
			return 0, err
		}
		for i := wlen - 2; i > wlen/2 && i-2 >= lo; i-- {
			if safeAt(tail, i-lo) {
				return i, nil
			}
		}
		if lo <= max(wlen/2-1, 0) {
			return 0, nil
		}
		lo = 0 // the whole second half
	}
}

// scanPieces scans the pieces on up to GOMAXPROCS goroutines and joins
// their strings in piece order, appending them to out. The lists are
// charged to ch as they are found.
func scanPieces(ctx context.Context, src source, regions []region, pieces []strPiece, opts Options, out []strRec, ch *charge) ([]strRec, error) {
	if len(pieces) == 0 {
		return out, nil
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([][]strRec, len(pieces))
	var next atomic.Int64
	var mu sync.Mutex // guards ch, found and failed
	found := int64(len(out))
	var failed error // the first error, which stops the other pieces
	workers := min(runtime.GOMAXPROCS(0), len(pieces))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			var scratch []strRec
			for {
				k := int(next.Add(1) - 1)
				if k >= len(pieces) || ctx.Err() != nil {
					return
				}
				p := pieces[k]
				var err error
				scratch, err = scanPiece(ctx, src, regions, p, opts, &buf, scratch[:0])
				if err == nil {
					results[k] = slices.Clone(scratch)
					mu.Lock()
					found += int64(len(scratch))
					err = ch.to(recBytes * found)
					mu.Unlock()
				}
				if err != nil {
					mu.Lock()
					if failed == nil {
						failed = err
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, failed
	}
	out = slices.Grow(out, int(found)-len(out))
	for k := range results {
		out = append(out, results[k]...)
		results[k] = nil
	}
	return out, nil
}

// scanPiece appends the strings of piece p to out, with their offsets from
// the region's start; *buf is the window buffer the caller reuses.
func scanPiece(ctx context.Context, src source, regions []region, p strPiece, opts Options, buf *[]byte, out []strRec) ([]strRec, error) {
	r := regions[p.region]
	r.index = int32(p.region)
	if p.lit {
		data, err := src.view(r.off, p.n)
		if err != nil {
			return nil, err
		}
		return scanLiterals(ctx, data, r, opts, p.refs, out)
	}
	if r.userString {
		// A .NET user string: exactly the region, in UTF-16.
		if p.pos == 0 && int(r.size/2) >= opts.MinStringChars {
			out = append(out, strRec{off: 0, n: int(r.size), region: r.index, wide: true})
		}
		return out, nil
	}
	if uint64(cap(*buf)) < p.n {
		*buf = make([]byte, p.n)
	}
	data := (*buf)[:p.n]
	if err := readFull(src, r.off+p.pos, data); err != nil {
		return nil, err
	}
	base := len(out)
	out, err := scanBytes(ctx, data, r, opts, out)
	if err != nil {
		return nil, err
	}
	for i := base; i < len(out); i++ {
		out[i].off += p.pos
	}
	return out, nil
}

// planRegions cuts the regions into pieces and lists what the scan will
// leave out.
func planRegions(ctx context.Context, src source, regions []region, refs []litRef) (pieces []strPiece, limits []string, err error) {
	for i, r := range regions {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		ports.Observe(ctx, "strings", fmt.Sprintf("section %d of %d (%s)", i+1, len(regions), r.name))
		n := src.clamp(r.off, r.size)
		if n == 0 {
			continue
		}
		in := refsIn(refs, r.addr, n)
		if len(in) > 0 && n <= maxLiteralRegion {
			pieces = append(pieces, strPiece{region: i, n: n, refs: in, lit: true})
			continue
		}
		if len(in) > 0 {
			limits = append(limits, fmt.Sprintf("strings: section %s (%d bytes) is over %d bytes: its Go/Rust literals were not split by their %d references (plain runs are listed)", r.name, n, maxLiteralRegion, len(in)))
		}
		var forced int
		if pieces, forced, err = planWindows(ctx, src, r.off, n, i, pieces); err != nil {
			return nil, nil, err
		}
		if forced > 0 {
			limits = append(limits, fmt.Sprintf("strings: section %s has %d runs of text of over %d bytes: each is listed in pieces of at most %d bytes", r.name, forced, scanWindow/2, scanWindow))
		}
	}
	return pieces, limits, nil
}
