package native

import (
	"context"
	"errors"
	"fmt"
	"io"

	"rea/ports"
)

// Scanning string regions in bounded windows. A region is read through the
// file (never viewed through the mapping, whose pages would stay resident)
// window by window into one buffer per scanning goroutine (at most
// GOMAXPROCS, strings_par.go), so a huge or sparse .rodata, __cstring or
// .rdata costs a window per core, not the section: memory follows the
// strings found.

// scanWindow is the bytes read at a time; a window ends at the last place
// in its second half where no ASCII or UTF-16LE run can cross (safeCut), so
// windowing changes nothing in the list. A window without one (2 MiB of
// unbroken text) is cut at its end and the runs crossing it are split (a
// limitation).
const scanWindow = 4 << 20

// maxLiteralRegion bounds the regions whose Go or Rust literals are split by
// their references (which needs the region's bytes at once); a larger
// region is scanned in windows like any other and the split is reported as
// left out.
const maxLiteralRegion = 512 << 20

// windows calls fn with successive windows of the n bytes at off, each
// starting where the last was cut, and reports how many were cut where a
// run might cross. overlap (for a marker search) repeats the last overlap
// bytes of one window at the start of the next instead of cutting where no
// run crosses.
func windows(ctx context.Context, src source, off, n uint64, overlap int, fn func(pos uint64, data []byte) error) (forced int, err error) {
	buf := make([]byte, min(n, scanWindow))
	for pos := uint64(0); pos < n; {
		if err := ctx.Err(); err != nil {
			return forced, err
		}
		w := buf[:min(n-pos, uint64(len(buf)))]
		if err := readFull(src, off+pos, w); err != nil {
			return forced, err
		}
		cut := len(w)
		if pos+uint64(len(w)) < n {
			if overlap > 0 {
				cut = max(len(w)-overlap, 1)
			} else if c := safeCut(w); c > 0 {
				cut = c
			} else {
				forced++
			}
		}
		data := w
		if overlap == 0 {
			data = w[:cut]
		}
		if err := fn(pos, data); err != nil {
			return forced, err
		}
		pos += uint64(cut)
	}
	return forced, nil
}

// safeCut is the index i in the second half of w, as late as possible,
// where no run found by scanBytes holds bytes on both sides: w[i-1] and
// w[i] are not both ASCII text, no UTF-16LE character (a Latin-1 byte then
// a zero byte) starts at i-1, and no two characters sit at i-2 and i. It
// is 0 when there is none. Windows cut there find exactly what one scan of
// the whole region finds.
func safeCut(w []byte) int {
	for i := len(w) - 2; i > len(w)/2; i-- {
		if safeAt(w, i) {
			return i
		}
	}
	return 0
}

// safeAt reports whether no run crosses between w[i-1] and w[i]; 2 <= i
// and i+1 < len(w).
func safeAt(w []byte, i int) bool {
	a, b := w[i-1], w[i]
	switch {
	case asciiByte[a] && asciiByte[b]:
		return false
	case b == 0 && isLatin(a):
		return false
	case a == 0 && isLatin(w[i-2]) && isLatin(b) && w[i+1] == 0:
		return false
	}
	return true
}

// readFull reads len(b) bytes at off.
func readFull(src source, off uint64, b []byte) error {
	if !src.contains(off, uint64(len(b))) {
		return &ports.FormatError{Format: src.format, Offset: int64(min(off, 1<<62)),
			Msg: fmt.Sprintf("%d bytes extend beyond the end of the file (%d bytes)", len(b), src.size)}
	}
	m, err := src.r.ReadAt(b, int64(off))
	if m == len(b) {
		src.over.apply(b, off)
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}
