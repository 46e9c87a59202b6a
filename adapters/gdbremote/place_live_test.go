package gdbremote_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// placesData writes the file places.c maps (argv[1], offset 4096): a
// name with a space, as the memory map gives it.
func placesData(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "data file.bin")
	if err := os.WriteFile(p, []byte(strings.Repeat("d", 16384)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// where is how a test reads the tracer's place of one argument.
func where(r ports.TraceRegister) string {
	switch {
	case r.Place != nil:
		return "library " + r.Place.Module
	case r.Stack != nil:
		return fmt.Sprintf("stack %d %#x", r.Stack.Thread, r.Stack.StackPointer)
	case r.Heap:
		return "heap"
	case r.Mapping != nil:
		return fmt.Sprintf("mapping %q %#x", r.Mapping.Path, r.Mapping.Offset)
	}
	return ""
}

// checkPlaces reads places.c's writes: the buffer of each (the second
// argument) is placed where the program made it, and the descriptor and
// count (numbers) nowhere. arena says the worker's malloc is expected in a
// thread arena's heap.
func checkPlaces(t *testing.T, res *ports.TraceResult, data string, word uint64) {
	t.Helper()
	is := is.New(t)
	var hits []ports.TraceHit
	for _, h := range res.Hits {
		if h.Name == "write" {
			hits = append(hits, h)
		}
	}
	is.Equal(len(hits), 9)
	buf := func(i int) ports.TraceRegister { return hits[i].Arguments[1] }
	for i, h := range hits {
		t.Logf("write %d thread %d sp %#x buf %#x: %s", i, h.ThreadID, h.StackPointer, buf(i).Value, where(buf(i)))
		is.Equal(where(h.Arguments[0]), "") // the descriptor
		is.Equal(where(h.Arguments[2]), "") // the count
	}
	worker, main := hits[0].ThreadID, hits[2].ThreadID
	is.True(worker != main)
	is.Equal(hits[1].ThreadID, worker)
	for _, i := range []int{3, 4, 5, 6, 7, 8} {
		is.Equal(hits[i].ThreadID, main)
	}
	// The worker's local buffer, from the worker: its own stack, above its
	// stack pointer.
	is.Equal(where(buf(0)), fmt.Sprintf("stack %d %#x", worker, hits[0].StackPointer))
	is.True(buf(0).Value > hits[0].StackPointer && buf(0).Value-hits[0].StackPointer < 0x1000)
	// The worker's malloc: a thread arena's heap.
	is.Equal(where(buf(1)), "heap")
	// The worker's buffer from main: the worker's stack, the worker's
	// stack pointer where it waits (below where its write began).
	s := buf(2).Stack
	is.True(s != nil)
	is.Equal(s.Thread, worker)
	is.True(s.StackPointer < hits[0].StackPointer && buf(2).Value > s.StackPointer)
	is.Equal(buf(2).Value, buf(0).Value)
	// malloc's mmap'd chunk and an anonymous mapping.
	is.True(strings.HasPrefix(where(buf(3)), `mapping "" `))
	is.True(strings.HasPrefix(where(buf(4)), `mapping "" `))
	// The file's mapping: its path and the offset in it.
	is.Equal(where(buf(5)), fmt.Sprintf("mapping %q %#x", data, 4096+5))
	// The brk heap, and main's own stack.
	is.Equal(where(buf(6)), "heap")
	is.Equal(where(buf(7)), fmt.Sprintf("stack %d %#x", main, hits[7].StackPointer))
	// A number in no mapping.
	is.Equal(where(buf(8)), "")
	is.Equal(buf(8).Value, uint64(0x123456789)&(1<<(8*word)-1))
}

// A native trace places the arguments of places.c's writes through the
// process's memory map and the threads' stack pointers.
func TestTracePlaces(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "places.c", "places", "-pthread")
	data := placesData(t)
	id := runID(t)
	defer noneLeft(t, id)
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin, Args: []string{data}},
		Breakpoints: []ports.TraceBreakpoint{{Symbol: "write", Name: "write"}},
		RunID:       id,
		MaxDuration: 20 * time.Second,
	})
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	checkPlaces(t, res, data, 8)
}

// Under QEMU's user-mode emulator the same places are known: the guest's
// mappings from the emulator's map at the guest base (0 for AArch64,
// 0x1000 for i386 under QEMU 7.2), its brk heap from glibc's break.
func TestEmulatedTracePlaces(t *testing.T) {
	for _, lane := range []struct {
		arch string
		word uint64
	}{{"arm64", 8}, {"x86", 4}} {
		for _, build := range []string{"pie", "no-pie"} {
			t.Run(lane.arch+"/"+build, func(t *testing.T) {
				needEmulation(t, lane.arch)
				is := is.New(t)
				flags := []string{"-pthread", "-" + build}
				bin := buildFor(t, lane.arch, "places.c", "places", flags...)
				data := placesData(t)
				res, err := traceEmulated(t, bin, []string{data}, []ports.TraceBreakpoint{{Symbol: "write", Name: "write"}})
				is.NoErr(err)
				is.Equal(*res.Exit.Code, 0)
				checkPlaces(t, res, data, lane.word)
			})
		}
	}
}

// In a Go program a goroutine's stack lies in the Go heap's mappings with
// heap objects: a pointer into either is anonymous memory, never a stack
// (the stack pointer's mapping has no guard page below it) nor the heap
// (the Go heap is not malloc's).
func TestTracePlacesGo(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := filepath.Join(t.TempDir(), "goplaces")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/goplaces/main.go")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "main.Take"), Name: "main.Take"}}, ports.ConventionGo)
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	is.Equal(len(res.Hits), 2)
	for _, h := range res.Hits {
		p := h.Arguments[0]
		t.Logf("Take(%#x) sp %#x: %s", p.Value, h.StackPointer, where(p))
		is.True(strings.HasPrefix(where(p), `mapping "" `))
	}
	is.True(res.Hits[1].Arguments[0].Value > res.Hits[1].StackPointer) // the second is the goroutine's local
}

// fmtData writes the file fmtplaces.c maps (argv[1], offset 4096), whose
// mapped bytes are text.
func fmtData(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fmt data.bin")
	b := append([]byte(strings.Repeat("x", 4096)), "0123456789abcdef\x00"...)
	if err := os.WriteFile(p, append(b, make([]byte, 4096)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fmtBreakpoints traces fmtplaces.c's printf and sprintf with their
// formats in the convention's argument places fmt (printf's) and sprintf's
// (the second).
func fmtBreakpoints(printf, sprintf string) []ports.TraceBreakpoint {
	return []ports.TraceBreakpoint{
		{Symbol: "printf", Name: "printf", Strings: []string{printf}, Format: printf},
		{Symbol: "sprintf", Name: "sprintf", Strings: []string{sprintf}, Format: sprintf},
	}
}

// checkFormatPlaces reads fmtplaces.c's calls: each pointer conversion's
// argument is placed where the program made it (the heap buffer's %s, the
// local's %p, the mapped text's %s), in an argument register or a stack
// slot alike, and a number's is not, an address printed as one (%lx)
// neither.
func checkFormatPlaces(t *testing.T, res *ports.TraceResult, data string) {
	t.Helper()
	is := is.New(t)
	is.Equal(len(res.Hits), 3)
	arg := func(h ports.TraceHit, k int) ports.TraceRegister {
		loc := h.Variadic[k].Location
		for _, r := range h.Arguments {
			if r.Name == loc {
				return r
			}
		}
		t.Fatalf("hit %d: no argument %s", h.Sequence, loc)
		return ports.TraceRegister{}
	}
	for i, h := range res.Hits {
		t.Logf("hit %d %s sp %#x: %s", i, h.Name, h.StackPointer, variadic(h))
		for k := range h.Variadic {
			r := arg(h, k)
			t.Logf("  %s@%s %#x: %s", h.Variadic[k].Name, r.Name, r.Value, where(r))
		}
	}
	main := res.Hits[0].ThreadID
	second := res.Hits[1]
	is.Equal(len(second.Variadic), 11)
	is.Equal(arg(second, 10).Value, arg(second, 7).Value) // %lx: the heap buffer's address, a number
	is.Equal(where(arg(second, 10)), "")
	for _, h := range res.Hits[:2] {
		n := min(len(h.Variadic), 10)
		is.True(n == 3 || n == 10)
		stack := fmt.Sprintf("stack %d %#x", main, h.StackPointer)
		is.Equal(where(arg(h, n-3)), "heap")      // %s
		is.Equal(where(arg(h, n-2)), stack)       // %p
		is.Equal(where(arg(h, n-1)), "")          // %d
		is.Equal(where(arg(h, 0)) == "", n == 10) // the first %d of the second
	}
	is.True(strings.HasPrefix(res.Hits[1].Variadic[7].Location, "[")) // the second's %s: a stack slot
	s := res.Hits[2]
	is.Equal(s.Name, "sprintf")
	is.Equal(len(s.Variadic), 7)
	is.True(strings.HasPrefix(s.Variadic[6].Location, "["))
	is.Equal(where(arg(s, 6)), fmt.Sprintf("mapping %q %#x", data, 4096+5))
	var texts []string
	for _, ts := range s.Strings {
		texts = append(texts, string(ts.Text))
	}
	is.Equal(texts[len(texts)-1], "56789abcdef")
}

// A native trace places printf's and sprintf's pointer conversions'
// arguments, those on the stack (past the sixth argument) too.
func TestTraceFormatPlaces(t *testing.T) {
	needServer(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the argument registers named are x86-64's")
	}
	is := is.New(t)
	bin := buildC(t, "fmtplaces.c", "fmtplaces")
	data := fmtData(t)
	id := runID(t)
	defer noneLeft(t, id)
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin, Args: []string{data}},
		Breakpoints: fmtBreakpoints("rdi", "rsi"),
		RunID:       id,
		MaxDuration: 20 * time.Second,
	})
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	checkFormatPlaces(t, res, data)
}

// Under QEMU's user-mode emulator the same: on i386 every conversion's
// argument is a stack slot ([esp+8]...), on AArch64 the second printf's
// past x7.
func TestEmulatedTraceFormatPlaces(t *testing.T) {
	for _, lane := range []struct{ arch, printf, sprintf string }{{"arm64", "x0", "x1"}, {"x86", "[esp+4]", "[esp+8]"}} {
		t.Run(lane.arch, func(t *testing.T) {
			needEmulation(t, lane.arch)
			is := is.New(t)
			bin := buildFor(t, lane.arch, "fmtplaces.c", "fmtplaces")
			data := fmtData(t)
			res, err := traceEmulated(t, bin, []string{data}, fmtBreakpoints(lane.printf, lane.sprintf))
			is.NoErr(err)
			is.Equal(*res.Exit.Code, 0)
			checkFormatPlaces(t, res, data)
		})
	}
}

// Memory a program reserved itself in the shape of a thread arena's heap
// (fakearena.c) is a mapping, not the heap: it does not begin with glibc's
// heap_info; a real arena's heap (places.c's worker's malloc) still is.
func TestTracePlacesFakeArena(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "fakearena.c", "fakearena")
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "use"), Name: "use"}}, "")
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	is.Equal(len(res.Hits), 1)
	p := res.Hits[0].Arguments[0]
	t.Logf("use(%#x): %s", p.Value, where(p))
	is.Equal(where(p), `mapping "" 0x100`)
}

// A thread's stack without a guard page (guardless.c: guard size 0) is
// known from the thread's own stack pointer, up to its TLS at the top,
// from the thread and from main while the thread waits, whose TLS is
// placed too: natively and under qemu-aarch64.
func TestTracePlacesGuardless(t *testing.T) {
	for _, arch := range []string{"native", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			is := is.New(t)
			var bin string
			var res *ports.TraceResult
			var err error
			if arch == "native" {
				needServer(t)
				bin = buildC(t, "guardless.c", "guardless", "-pthread")
				res, err = traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "use"), Name: "use"}}, "")
			} else {
				needEmulation(t, arch)
				bin = buildFor(t, arch, "guardless.c", "guardless", "-pthread")
				res, err = traceEmulated(t, bin, nil, []ports.TraceBreakpoint{{Address: symbol(t, bin, "use"), Name: "use"}})
			}
			is.NoErr(err)
			is.Equal(*res.Exit.Code, 0)
			is.Equal(len(res.Hits), 3)
			for _, h := range res.Hits {
				t.Logf("use(%#x) thread %d sp %#x: %s", h.Arguments[0].Value, h.ThreadID, h.StackPointer, whereTLS(h.Arguments[0]))
			}
			w, m := res.Hits[0], res.Hits[1]
			is.True(!w.MainThread && m.MainThread)
			is.Equal(where(w.Arguments[0]), fmt.Sprintf("stack %d %#x", w.ThreadID, w.StackPointer))
			other := m.Arguments[0].Stack // the worker's, where it waits
			is.True(other != nil && other.Thread == w.ThreadID && other.StackPointer < w.StackPointer)
			tls := res.Hits[2].Arguments[0].TLS
			is.True(tls != nil && tls.Thread == w.ThreadID)
		})
	}
}

// A mapping replaced at the same address since the map was read
// (replaced.c: one file's mapping, then another's over it) is given as it
// is at the call: the map is read again for a value it would give as a
// mapping from an earlier stop's reading.
func TestTracePlacesReplaced(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "replaced.c", "replaced")
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.bin"), filepath.Join(dir, "second.bin")
	is.NoErr(os.WriteFile(first, make([]byte, 8192), 0o644))
	is.NoErr(os.WriteFile(second, make([]byte, 8192), 0o644))
	id := runID(t)
	defer noneLeft(t, id)
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin, Args: []string{first, second}},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "use"), Name: "use"}},
		RunID:       id,
		MaxDuration: 20 * time.Second,
	})
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	is.Equal(len(res.Hits), 2)
	for _, h := range res.Hits {
		t.Logf("use(%#x): %s", h.Arguments[0].Value, where(h.Arguments[0]))
	}
	is.Equal(res.Hits[0].Arguments[0].Value+1, res.Hits[1].Arguments[0].Value) // the same page
	is.Equal(where(res.Hits[0].Arguments[0]), fmt.Sprintf("mapping %q 0x5", first))
	is.Equal(where(res.Hits[1].Arguments[0]), fmt.Sprintf("mapping %q 0x1006", second))
}
