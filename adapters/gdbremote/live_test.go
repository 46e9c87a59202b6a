package gdbremote_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

func firstArgs(hits []ports.TraceHit, name string) []uint64 {
	var out []uint64
	for _, h := range hits {
		if h.Name == name {
			out = append(out, h.Arguments[0].Value)
		}
	}
	return out
}

func TestTraceCFixture(t *testing.T) {
	needServer(t)
	cases := []struct {
		name  string
		flags []string
		strip bool
	}{
		{"pie", []string{"-pie", "-fPIE"}, false},
		{"pie-stripped", []string{"-pie", "-fPIE"}, true},
		{"no-pie", []string{"-no-pie", "-fno-pie"}, false},
		{"no-pie-stripped", []string{"-no-pie", "-fno-pie"}, true},
		{"static", []string{"-static"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			bin := buildC(t, "calls.c", "calls", tc.flags...)
			target, fact := symbol(t, bin, "target"), symbol(t, bin, "fact")
			if tc.strip {
				bin = stripped(t, bin)
			}
			id := runID(t)
			defer noneLeft(t, id)
			tr := gdbremote.New(nil)
			debugTap(t, tr)
			res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
				Launch:      &ports.TraceLaunch{Path: bin, Args: []string{"3"}},
				Breakpoints: []ports.TraceBreakpoint{{Address: target, Name: "target"}, {Address: fact, Name: "fact"}},
				RunID:       id,
				MaxDuration: 5 * time.Second,
			})
			is.NoErr(err)
			is.Equal(res.Coverage.StopReason, ports.TraceStopExited)
			is.True(res.Exit != nil && res.Exit.Code != nil)
			is.Equal(*res.Exit.Code, 3)
			is.Equal(firstArgs(res.Hits, "target"), []uint64{1, 2, 3, 4, 5})
			is.Equal(firstArgs(res.Hits, "fact"), []uint64{5, 4, 3, 2, 1})
			for _, h := range res.Hits {
				is.True(h.Returned)
				switch h.Name {
				case "target":
					a := h.Arguments
					is.Equal(h.Arguments[1].Value, a[0].Value+1)
					is.Equal(h.ReturnValue, a[0].Value*100+a[1].Value*10+a[2].Value)
					is.Equal(h.CallerModule, bin)
				case "fact":
					want := uint64(1)
					for i := uint64(2); i <= h.Arguments[0].Value; i++ {
						want *= i
					}
					is.Equal(h.ReturnValue, want)
				}
			}
			// Recursion: the innermost call returns first.
			var facts []ports.TraceHit
			for _, h := range res.Hits {
				if h.Name == "fact" {
					facts = append(facts, h)
				}
			}
			for i := 1; i < len(facts); i++ {
				is.True(facts[i].ReturnSequence < facts[i-1].ReturnSequence)
				is.Equal(facts[i].ReturnAddress, facts[1].ReturnAddress) // the recursive call site
			}
			is.Equal(res.Coverage.ReturnsMissing, 0)
			is.Equal(len(res.Coverage.Threads), 1)
			is.Equal(res.Lineage.Status, ports.LineageVerified)
			bias := res.Modules[0].LoadBias
			if tc.name == "pie" || tc.name == "pie-stripped" {
				is.True(bias != 0)
			} else {
				is.Equal(bias, uint64(0))
			}
			is.Equal(res.Breakpoints[0].RuntimeAddress, target+bias)
		})
	}
}

func traceOne(t *testing.T, bin string, bps []ports.TraceBreakpoint, conv ports.CallingConvention) (*ports.TraceResult, error) {
	t.Helper()
	id := runID(t)
	t.Cleanup(func() { noneLeft(t, id) })
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	return tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: bps,
		Convention:  conv,
		RunID:       id,
		MaxDuration: 20 * time.Second,
	})
}

func TestTraceThreads(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "threads.c", "threads", "-pthread")
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}}, "")
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	got := firstArgs(res.Hits, "target")
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	is.Equal(got, []uint64{10, 11, 12, 13})
	for _, h := range res.Hits {
		is.True(h.Returned)
		is.Equal(h.ReturnValue, h.Arguments[0].Value*3+7)
		is.True(h.ThreadID != res.ProcessID) // worker threads, not the main one
	}
	is.Equal(len(res.Coverage.Threads), 4)
}

func TestTraceFork(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "forks.c", "forks")
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}}, "")
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	// The child's call (2) is not traced; it survived its copy of the
	// breakpoint and exited 7, which the parent passes on.
	is.Equal(firstArgs(res.Hits, "target"), []uint64{1, 3})
	is.Equal(res.Hits[1].Arguments[1].Value, uint64(7))
	is.Equal(len(res.Coverage.ForksNotFollowed), 1)
	is.True(res.Coverage.ForksNotFollowed[0] != res.ProcessID)
	is.True(strings.Contains(strings.Join(res.Coverage.Notes, "\n"), "forked child"))
}

func TestTraceGo(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := filepath.Join(t.TempDir(), "goprog")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/goprog/main.go")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "main.Target"), Name: "main.Target"}}, ports.ConventionGo)
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	is.Equal(res.Convention, ports.ConventionGo)
	is.Equal(firstArgs(res.Hits, "main.Target"), []uint64{1, 2, 3})
	for _, h := range res.Hits {
		is.Equal(h.Arguments[0].Name, "rax")
		is.Equal(h.Arguments[1].Value, h.Arguments[0].Value+1) // rbx
		is.Equal(h.Arguments[2].Value, h.Arguments[0].Value+2) // rcx
		is.True(h.Returned)
		is.Equal(h.ReturnValue, h.Arguments[0].Value*100+h.Arguments[1].Value*10+h.Arguments[2].Value)
	}
}

// A string argument is read at the call, up to its NUL and at most
// ports.MaxTraceString bytes, a page at a time: a null pointer is
// unreadable, text running into an unmapped page is what was readable.
func TestTraceStrings(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "texts.c", "texts")
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "show"), Name: "show", Strings: []string{argRegister(t)}}}, "")
	is.NoErr(err)
	is.Equal(len(res.Hits), 5)
	var got []ports.TraceString
	for _, h := range res.Hits {
		is.Equal(len(h.Strings), 1)
		got = append(got, h.Strings[0])
	}
	reg := argRegister(t)
	is.Equal(got[0], ports.TraceString{Register: reg, Text: []byte("world")})
	is.Equal(got[1], ports.TraceString{Register: reg, Unreadable: true})
	is.Equal(got[2], ports.TraceString{Register: reg, Text: []byte(strings.Repeat("a", ports.MaxTraceString)), Truncated: true})
	is.Equal(got[3], ports.TraceString{Register: reg, Text: []byte("\xff\xfeok")})
	is.Equal(got[4], ports.TraceString{Register: reg, Text: []byte("end"), Truncated: true})
}

// A format cut at the bytes a trace reads (ports.MaxTraceString) may hold
// conversions past the cut: the %s before it is read, and the hit gives no
// variadic list, which would claim to be every argument.
func TestTraceFormatTruncated(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "formats.c", "formats")
	reg := argRegister(t)
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "shout"), Name: "shout", Strings: []string{reg}, Format: reg}}, "")
	is.NoErr(err)
	is.Equal(len(res.Hits), 1)
	h := res.Hits[0]
	is.True(h.Strings[0].Truncated)
	is.Equal(len(h.Strings), 2)
	is.Equal(string(h.Strings[1].Text), "first")
	is.Equal(h.Variadic, nil)
}

// argRegister is the first integer argument register of the host's C
// convention.
func argRegister(t *testing.T) string {
	switch runtime.GOARCH {
	case "amd64":
		return "rdi"
	case "arm64":
		return "x0"
	}
	t.Skip("no C convention known for " + runtime.GOARCH)
	return ""
}

// Go's string and []byte arguments are read at the call by their length
// register, at most ports.MaxTraceString bytes, with no NUL ending them: a
// word, a slice holding a NUL and a byte that is not UTF-8, empty ones (a
// nil pointer, and a slice cut to nothing), 300 bytes cut at 256, and a
// wild pointer (unreadable).
func TestTraceGoStrings(t *testing.T) {
	needServer(t)
	is := is.New(t)
	var s, b ports.TraceSpan
	switch runtime.GOARCH {
	case "amd64":
		s, b = ports.TraceSpan{Pointer: "rax", Length: "rbx"}, ports.TraceSpan{Pointer: "rcx", Length: "rdi"}
	case "arm64":
		s, b = ports.TraceSpan{Pointer: "x0", Length: "x1"}, ports.TraceSpan{Pointer: "x2", Length: "x3"}
	default:
		t.Skip("no Go register ABI known for " + runtime.GOARCH)
	}
	bin := filepath.Join(t.TempDir(), "gotexts")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/gotexts/main.go")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: symbol(t, bin, "main.Show"), Name: "main.Show", Spans: []ports.TraceSpan{s, b}}}, ports.ConventionGo)
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 0)
	is.Equal(len(res.Hits), 5)
	long := func(c string) []byte { return []byte(strings.Repeat(c, ports.MaxTraceString)) }
	want := [][2]ports.TraceString{
		{{Register: s.Pointer, Text: []byte("hello")}, {Register: b.Pointer, Text: []byte("bytes\x00\xff")}},
		{{Register: s.Pointer}, {Register: b.Pointer}},
		{{Register: s.Pointer, Text: long("a"), Truncated: true}, {Register: b.Pointer}},
		{{Register: s.Pointer, Text: []byte("x")}, {Register: b.Pointer, Text: long("b"), Truncated: true}},
		{{Register: s.Pointer, Unreadable: true}, {Register: b.Pointer}},
	}
	for i, h := range res.Hits {
		is.Equal(len(h.Strings), 2)
		for k := range 2 {
			if got := h.Strings[k]; !reflect.DeepEqual(got, want[i][k]) {
				t.Errorf("call %d, span %d: %+v, want %+v", i, k, got, want[i][k])
			}
		}
	}
}

// Two breakpoints at one address (a procedure named twice, by name and by
// address) record each call once per breakpoint, and every one of those
// hits returns: the return ends both. Before, the return ended only the
// innermost pending hit and the other was counted missing. fact recurses,
// so the hits of one activation must not take another's return.
func TestTraceSameAddressTwice(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "calls.c", "calls", "-no-pie", "-fno-pie")
	target, fact := symbol(t, bin, "target"), symbol(t, bin, "fact")
	id := runID(t)
	defer noneLeft(t, id)
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch: &ports.TraceLaunch{Path: bin, Args: []string{"3"}},
		Breakpoints: []ports.TraceBreakpoint{{Address: target, Name: "target"}, {Address: target, Name: "0xtarget"},
			{Address: fact, Name: "fact"}, {Address: fact, Name: "0xfact"}},
		RunID:       id,
		MaxDuration: 5 * time.Second,
	})
	is.NoErr(err)
	is.Equal(firstArgs(res.Hits, "target"), firstArgs(res.Hits, "0xtarget"))
	is.Equal(firstArgs(res.Hits, "fact"), []uint64{5, 4, 3, 2, 1})
	is.Equal(firstArgs(res.Hits, "0xfact"), []uint64{5, 4, 3, 2, 1})
	is.Equal(res.Coverage.ReturnsMissing, 0)
	for _, h := range res.Hits {
		is.True(h.Returned)
		if h.Name == "fact" || h.Name == "0xfact" {
			want := uint64(1)
			for i := uint64(2); i <= h.Arguments[0].Value; i++ {
				want *= i
			}
			is.Equal(h.ReturnValue, want) // its own activation's return
		}
	}
}
