package gdbremote_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// checkTLS reads tls.c's calls of use(p, off, who): each p is placed in
// the TLS of the thread who names (1 main, 2 the worker) at the offset
// off the program computed from that thread's own pointer, whichever
// thread passed it: errno's address, a __thread variable's, one inside a
// __thread array, and pthread_self's descriptor.
func checkTLS(t *testing.T, res *ports.TraceResult, word uint64) {
	t.Helper()
	is := is.New(t)
	is.Equal(len(res.Hits), 10)
	main, worker := res.Hits[0].ThreadID, res.Hits[4].ThreadID
	is.True(main != worker)
	owner := map[uint64]int{1: main, 2: worker}
	for i, h := range res.Hits {
		p, off, who := h.Arguments[0], h.Arguments[1].Value, h.Arguments[2].Value
		if word == 4 {
			off = uint64(int64(int32(uint32(off))))
		}
		t.Logf("use %d thread %d: %#x off %d who %d: %s", i, h.ThreadID, p.Value, int64(off), who, whereTLS(p))
		is.Equal(whereTLS(p), fmt.Sprintf("tls %d %d", owner[who], int64(off)))
		is.Equal(whereTLS(h.Arguments[1]), "") // the offset, a number
	}
	is.Equal(res.Hits[8].ThreadID, worker) // main's variable, from the worker
	is.Equal(res.Hits[9].ThreadID, main)   // the worker's, from main
}

// whereTLS is where plus a TLS place.
func whereTLS(r ports.TraceRegister) string {
	if r.TLS != nil {
		return fmt.Sprintf("tls %d %d", r.TLS.Thread, r.TLS.Offset)
	}
	return where(r)
}

// tlsBreakpoints traces tls.c's use.
func tlsBreakpoints(t *testing.T, bin string) []ports.TraceBreakpoint {
	return []ports.TraceBreakpoint{{Address: symbol(t, bin, "use"), Name: "use"}}
}

// A native trace places pointers into threads' TLS (gdbserver gives
// fs_base), in a dynamic program (the main thread's TLS in memory the
// loader mapped) and a static one (in the brk heap).
func TestTraceTLS(t *testing.T) {
	for _, build := range []string{"dynamic", "static"} {
		t.Run(build, func(t *testing.T) {
			needServer(t)
			is := is.New(t)
			flags := []string{"-pthread"}
			if build == "static" {
				flags = append(flags, "-static")
			}
			bin := buildC(t, "tls.c", "tls", flags...)
			res, err := traceOne(t, bin, tlsBreakpoints(t, bin), "")
			is.NoErr(err)
			is.Equal(*res.Exit.Code, 0)
			checkTLS(t, res, 8)
		})
	}
}

// Under QEMU's user-mode emulator the same, dynamic and static: the
// AArch64 guest's pointer is QEMU 7.2's TPIDR_EL0 (its system registers),
// the i386 guest's the gs base its stub gives.
func TestEmulatedTraceTLS(t *testing.T) {
	for _, lane := range []struct {
		arch string
		word uint64
	}{{"arm64", 8}, {"x86", 4}} {
		for _, build := range []string{"dynamic", "static"} {
			t.Run(lane.arch+"/"+build, func(t *testing.T) {
				needEmulation(t, lane.arch)
				is := is.New(t)
				flags := []string{"-pthread"}
				if build == "static" {
					flags = append(flags, "-static")
				}
				bin := buildFor(t, lane.arch, "tls.c", "tls", flags...)
				res, err := traceEmulated(t, bin, nil, tlsBreakpoints(t, bin))
				is.NoErr(err)
				is.Equal(*res.Exit.Code, 0)
				checkTLS(t, res, lane.word)
			})
		}
	}
}

// A library dlopen'd before the first traced call (tlsdlopen.c loads
// tlsplugin.c's, with 64 KiB of TLS) is not among the initial modules
// whose blocks make the static TLS: errno is still placed at the
// program's offset, and a worker's local, below the worker's TLS in its
// stack, is on its stack, not taken for TLS.
func TestTraceTLSDlopen(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "tlsdlopen.c", "tlsdlopen", "-pthread", "-ldl")
	plugin := buildC(t, "tlsplugin.c", "libtlsplugin.so", "-shared", "-fPIC")
	id := runID(t)
	defer noneLeft(t, id)
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin, Args: []string{plugin}},
		Breakpoints: tlsBreakpoints(t, bin),
		RunID:       id,
		MaxDuration: 20 * time.Second,
	})
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	is.Equal(len(res.Hits), 2)
	for _, h := range res.Hits {
		t.Logf("use(%#x) thread %d sp %#x: %s", h.Arguments[0].Value, h.ThreadID, h.StackPointer, whereTLS(h.Arguments[0]))
	}
	main, worker := res.Hits[0], res.Hits[1]
	is.Equal(whereTLS(main.Arguments[0]), fmt.Sprintf("tls %d %d", main.ThreadID, int64(main.Arguments[1].Value)))
	is.Equal(whereTLS(worker.Arguments[0]), fmt.Sprintf("stack %d %#x", worker.ThreadID, worker.StackPointer))
}
