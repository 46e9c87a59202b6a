package gdbremote_test

import (
	"context"
	"debug/elf"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// scanBreakpoints traces fmtscan.c's sscanf (glibc's __isoc99_ or
// __isoc23_ form, whichever bin imports) with its text and format in
// str and format, and wprintf with its wide format in wformat.
func scanBreakpoints(t *testing.T, bin, str, format, wformat string) []ports.TraceBreakpoint {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(syms, func(s elf.ImportedSymbol) bool { return strings.HasSuffix(s.Name, "_sscanf") })
	if i < 0 {
		t.Fatalf("%s imports no sscanf: %v", bin, syms)
	}
	return []ports.TraceBreakpoint{
		{Symbol: syms[i].Name, Name: "sscanf", Strings: []string{str, format}, Format: format, Scan: true},
		{Symbol: "wprintf", Name: "wprintf", Format: wformat, WideFormat: true},
	}
}

// checkScan reads fmtscan.c's calls: each sscanf pointer is placed where
// the program made it (the locals on the main thread's stack, the heap
// buffer in the heap), in a register or a stack slot alike, what the
// assigned conversions stored is read at the return (41 and "word"; 1 to
// 6 and "tail"; %n's count is no assignment), and wprintf's wide format
// is decoded and its conversions' arguments read (%ls's text).
func checkScan(t *testing.T, res *ports.TraceResult) {
	t.Helper()
	is := is.New(t)
	is.Equal(*res.Exit.Code, 0)
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
	texts := func(ts []ports.TraceString) []string {
		var out []string
		for _, s := range ts {
			out = append(out, string(s.Text))
		}
		return out
	}
	for _, h := range res.Hits {
		t.Logf("%s sp %#x: %s; strings %q; stored at the return %q", h.Name, h.StackPointer, variadic(h), texts(h.Strings), texts(h.ReturnStrings))
		for _, r := range h.Stored {
			t.Logf("  stored through %s: %d", r.Name, int32(r.Value))
		}
	}
	stack := func(h ports.TraceHit) string { return fmt.Sprintf("stack %d %#x", h.ThreadID, h.StackPointer) }
	first, second, w := res.Hits[0], res.Hits[1], res.Hits[2]
	is.Equal(first.Name, "sscanf")
	is.Equal(len(first.Variadic), 3) // %d %s %n: %*d takes none
	is.Equal(first.Variadic[0].Name+" "+first.Variadic[1].Name+" "+first.Variadic[2].Name, "%d %s %n")
	is.Equal(first.Variadic[0].Type, "int *")
	is.Equal(where(arg(first, 0)), stack(first)) // &a
	is.Equal(where(arg(first, 1)), "heap")       // heap
	is.Equal(where(arg(first, 2)), stack(first)) // &n
	is.Equal(int32(first.ReturnValue), int32(2))
	is.Equal(len(first.Stored), 1) // a's; %n's is no assignment
	is.Equal(first.Stored[0].Name, first.Variadic[0].Location)
	is.Equal(first.Stored[0].Value, uint64(41))
	is.Equal(texts(first.ReturnStrings), []string{"word"})

	is.Equal(len(second.Variadic), 7)
	is.True(strings.HasPrefix(second.Variadic[6].Location, "[")) // the heap buffer's pointer: a stack slot
	is.Equal(where(arg(second, 6)), "heap")
	is.Equal(len(second.Stored), 6)
	for k, r := range second.Stored {
		is.Equal(where(arg(second, k)), stack(second))
		is.Equal(r.Value, uint64(k+1))
	}
	is.Equal(texts(second.ReturnStrings), []string{"tail"})

	is.Equal(w.Name, "wprintf")
	is.Equal(variadic(w) != "", true)
	is.Equal(len(w.Variadic), 2)
	is.Equal(w.Variadic[0].Name+" "+w.Variadic[1].Name, "%d %ls")
	is.Equal(arg(w, 0).Value, uint64(41))
	is.Equal(texts(w.Strings), []string{"%d %ls\n", "wide"})
}

// A native trace of sscanf places its pointers and reads what it stored,
// and decodes wprintf's wide format.
func TestTraceScanf(t *testing.T) {
	needServer(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the argument registers named are x86-64's")
	}
	bin := buildC(t, "fmtscan.c", "fmtscan")
	id := runID(t)
	defer noneLeft(t, id)
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: scanBreakpoints(t, bin, "rdi", "rsi", "rdi"),
		RunID:       id,
		MaxDuration: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkScan(t, res)
}

// Under QEMU's user-mode emulator the same: on i386 every pointer is a
// stack slot, on AArch64 the second sscanf's last past x7.
func TestEmulatedTraceScanf(t *testing.T) {
	for _, lane := range []struct{ arch, str, format, wformat string }{{"arm64", "x0", "x1", "x0"}, {"x86", "[esp+4]", "[esp+8]", "[esp+4]"}} {
		t.Run(lane.arch, func(t *testing.T) {
			needEmulation(t, lane.arch)
			bin := buildFor(t, lane.arch, "fmtscan.c", "fmtscan")
			res, err := traceEmulated(t, bin, nil, scanBreakpoints(t, bin, lane.str, lane.format, lane.wformat))
			if err != nil {
				t.Fatal(err)
			}
			checkScan(t, res)
		})
	}
}
