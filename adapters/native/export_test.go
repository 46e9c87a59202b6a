package native

import (
	"context"
	"debug/dwarf"
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
// SourceAt does (panics recovered into a FormatError, as readLines has
// them), and returns its lookup.
func SourceLinesFrom(ctx context.Context, d *dwarf.Data, infoSize uint64, line []byte) (lookup func(uint64) (ports.SourceLocation, bool), err error) {
	defer recoverInto("dwarf", "source lines", &err)
	idx, err := buildLines(ctx, d, infoSize, line)
	if err != nil {
		return nil, err
	}
	return func(addr uint64) (loc ports.SourceLocation, ok bool) {
		defer func() {
			if r := recover(); r != nil {
				panic(fmt.Sprintf("lookup 0x%x: %v", addr, r)) // a lookup has nothing to recover into
			}
		}()
		return idx.lookup(addr)
	}, nil
}
