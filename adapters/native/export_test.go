package native

import (
	"context"
	"debug/dwarf"
	"errors"
	"fmt"

	"rea/ports"
)

// DecodeFunctionStarts exposes the LC_FUNCTION_STARTS decoder: the Go
// linker writes no such command, so no fixture exercises it.
var DecodeFunctionStarts = decodeFunctionStarts

// HoldDiscovery returns opts with background discovery held until release
// is closed, so a test can see queries before discovery completes.
func HoldDiscovery(opts Options, release <-chan struct{}) *Options {
	opts.hold = release
	return &opts
}

// EarlyCodeBytes is the code size above which EarlyProcedures answers from
// the tables.
const EarlyCodeBytes = earlyCodeBytes

// DiscoveryStarted says whether whole-file discovery has been started.
func DiscoveryStarted(a *Analysis) bool {
	a.bg.Lock()
	defer a.bg.Unlock()
	return a.job != nil
}

// DiscoveryDone reports whether a's background discovery ran to its end.
func DiscoveryDone(a *Analysis) bool {
	a.bg.Lock()
	j := a.job
	a.bg.Unlock()
	if j == nil {
		return false
	}
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// WaitDiscovery waits for a's background discovery to end, without asking
// for its result.
func WaitDiscovery(a *Analysis) {
	a.bg.Lock()
	j := a.job
	a.bg.Unlock()
	if j != nil {
		<-j.done
	}
}

// SourceLinesFrom builds the source-line index of raw DWARF sections as
// SourceAt does (panics recovered into a FormatError, as readLines and a
// unit's decoding have them), decodes every unit, and returns its lookup.
func SourceLinesFrom(ctx context.Context, d *dwarf.Data, infoSize uint64, line []byte) (lookup func(uint64) (ports.SourceLocation, bool), err error) {
	defer recoverInto("dwarf", "source lines", &err)
	idx, err := newLineIndex(ctx, "dwarf", d, infoSize, line, 0)
	if err != nil {
		return nil, err
	}
	if idx.none != "" {
		return nil, &ports.FormatError{Format: "dwarf", Offset: -1, Msg: idx.none}
	}
	for u := range idx.units {
		if _, err := idx.unit(ctx, int32(u)); err != nil {
			return nil, err
		}
	}
	return func(addr uint64) (loc ports.SourceLocation, ok bool) {
		defer func() {
			if r := recover(); r != nil {
				panic(fmt.Sprintf("lookup 0x%x: %v", addr, r)) // a lookup has nothing to recover into
			}
		}()
		loc, ok, err := idx.lookup(ctx, addr)
		if err != nil {
			var fe *ports.FormatError
			if !errors.As(err, &fe) {
				panic(fmt.Sprintf("lookup 0x%x: untyped error %T: %v", addr, err, err))
			}
		}
		return loc, ok
	}, nil
}

// SourceUnits reports how many compilation units with a line table the
// source-line index knows and how many it holds decoded.
func SourceUnits(a *Analysis) (decoded, units int) {
	idx, ok := a.lines.peek()
	if !ok {
		return 0, 0
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	return len(idx.cache), len(idx.units)
}

// LimitSourceCache lowers the bytes of decoded units the analysis keeps
// (the index is read first, by a lookup of addr).
func LimitSourceCache(ctx context.Context, a *Analysis, addr uint64, n int64) {
	_, _ = a.SourceAt(ctx, addr)
	if idx, ok := a.lines.peek(); ok {
		idx.mu.Lock()
		idx.budget = n
		idx.mu.Unlock()
	}
}

// SharedDWARF reports whether signatures and source lines read one
// *dwarf.Data and one decompressed .debug_line (both computed first).
func SharedDWARF(a *Analysis) bool {
	sigs, ok1 := a.sigs.peek()
	lines, ok2 := a.lines.peek()
	l := a.dwarf(context.Background())
	return ok1 && ok2 && sigs.d != nil && sigs.d == lines.d && lines.d == l.d &&
		len(lines.sec) > 0 && &lines.sec[0] == &l.line[0]
}
