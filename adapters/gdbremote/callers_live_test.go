package gdbremote_test

import (
	"context"
	"debug/elf"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// A function the C library calls back (qsort's comparator, a thread's start
// routine) has its caller placed in libc: the library's path and the
// link-time address there, inside one of its loadable segments, not a
// runtime address taken for one of the program's. The libraries are read
// for it although no breakpoint needs one.
func TestTraceCallerInLibrary(t *testing.T) {
	// qsort, in libc, makes the tracer list the libraries before the
	// program runs; the callers are then placed in that list.
	bps := func(bin string) []ports.TraceBreakpoint {
		return []ports.TraceBreakpoint{{Address: symbol(t, bin, "cmp"), Name: "cmp"}, {Address: symbol(t, bin, "worker"), Name: "worker"},
			{Symbol: "qsort", Name: "qsort"}}
	}
	for _, lane := range []string{"host", "x86", "arm64"} {
		t.Run(lane, func(t *testing.T) {
			var bin string
			var res *ports.TraceResult
			var err error
			if lane == "host" {
				needServer(t)
				bin = buildC(t, "callbacks.c", "callbacks", "-pthread")
				id := runID(t)
				defer noneLeft(t, id)
				tr := gdbremote.New(nil)
				debugTap(t, tr)
				res, err = tr.TraceCalls(context.Background(), ports.TraceRequest{
					Launch:      &ports.TraceLaunch{Path: bin},
					Breakpoints: bps(bin),
					RunID:       id, MaxDuration: 10 * time.Second,
				})
			} else {
				needEmulation(t, lane)
				bin = buildFor(t, lane, "callbacks.c", "callbacks", "-pthread")
				res, err = traceEmulated(t, bin, nil, bps(bin))
			}
			is := is.New(t)
			is.NoErr(err)
			is.Equal(res.Exit != nil && res.Exit.Code != nil && *res.Exit.Code == 0, true)
			names := map[string]int{}
			for _, h := range res.Hits {
				names[h.Name]++
				is.True(h.Returned)
				if h.Name == "qsort" {
					is.Equal(h.CallerModule, bin) // worker calls it
					continue
				}
				is.True(strings.HasPrefix(filepath.Base(h.CallerModule), "libc.so")) // qsort's or start_thread's
				is.True(h.Caller != h.ReturnAddress)                                 // libc is loaded away from 0
				f, err := elf.Open(h.CallerModule)
				is.NoErr(err)
				inside := false
				for _, p := range f.Progs {
					inside = inside || p.Type == elf.PT_LOAD && h.Caller >= p.Vaddr && h.Caller < p.Vaddr+p.Memsz
				}
				f.Close()
				is.True(inside) // a link-time address of libc
			}
			is.Equal(names["worker"], 1)
			is.Equal(names["qsort"], 1)
			is.True(names["cmp"] >= 2)
		})
	}
}
