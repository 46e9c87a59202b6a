package process

import (
	"strings"
	"testing"

	"rea/core"
)

// TraceNativeCallsResult tells its canonical length, a bound close above
// it, so that sealing a trace of 10,000 hits makes its buffer once;
// BenchmarkTraceNativeCallsPage shows the allocations. Before, it did not
// implement core.CanonicalSizer and the buffer grew by copies.
func TestTraceResultCanonicalSize(t *testing.T) {
	s := func(v string) *string { return &v }
	proc := &TraceProcedure{Address: "0x1149", Name: s("main")}
	loop := TraceHit{Name: "puts@plt", Address: "0x1030", Procedure: proc, Caller: s("0x1161"), CallSite: s("0x115c"),
		CallerProcedure: proc, Returned: true, ReturnValue: s("0x3"),
		Arguments: []TraceArgument{{Register: "rdi", Value: "0x2004", Parameter: s("s"), String: &TraceString{Text: s("hello")}}}}
	rich := loop
	rich.CallerModule, rich.ReturnBits, rich.TailCallFrom = s("/usr/lib/x86_64-linux-gnu/libc.so.6"), s("0x4004000000000000"), new(int)
	rich.Arguments = []TraceArgument{
		{Register: "rdi", Value: "0x7ffd1234", Parameter: s("buf"), String: &TraceString{Text: s(strings.Repeat(`\x01"\n`, 60)), Truncated: true},
			StringAtReturn: &TraceString{Text: s(strings.Repeat("a\\b", 80))}, Stack: s("sp+0x18"), StackThread: new(int)},
		{Register: "rsi", Value: "0x4010", PointsTo: &TracePointee{Address: "0x4010", Section: ".data", Name: s("scratch+0x8"), Procedure: proc}},
		{Register: "rdx", Value: "0x55d0", Heap: true, Mapping: &TraceMapping{File: s("/dev/zero"), Offset: "0x10"}, TLS: s("tp-0x80"), TLSThread: new(int)},
		{Register: "xmm0", Value: "2.5", Bits: s("0x4004000000000000"), ValueAtReturn: s("0x2a")},
	}
	for _, c := range []struct {
		name string
		hits []TraceHit
	}{{"no hits", nil}, {"a loop", repeat(loop, 10000)}, {"rich hits", repeat(rich, 500)}} {
		r := &TraceNativeCallsResult{Program: TraceProgram{SHA256: strings.Repeat("ab", 32)}, Convention: "sysv", Architecture: "x86-64",
			Breakpoints: []TraceBreakpoint{{Name: "puts@plt", Address: "0x1030", Procedure: proc, ParametersSource: s("libc-prototype"),
				Parameters: []TraceParameter{{Name: s("s"), Type: s("const char *"), Register: s("rdi")}}}},
			Hits: c.hits, Coverage: TraceCoverage{StopReason: "exited", Notes: []string{"a note"}}, Exit: &TraceExit{Code: new(int)}}
		var sizer core.CanonicalSizer = r
		b, err := core.CanonicalJSON(r)
		if err != nil {
			t.Fatal(err)
		}
		got := sizer.CanonicalSize()
		t.Logf("%s: canonical %d bytes, estimate %d", c.name, len(b), got)
		if got < len(b) || (len(b) > 1<<20 && got > len(b)*3/2) {
			t.Errorf("%s: CanonicalSize %d for %d canonical bytes: want a bound at most half again above", c.name, got, len(b))
		}
	}
}

func repeat(h TraceHit, n int) []TraceHit {
	out := make([]TraceHit, n)
	for i := range out {
		out[i] = h
		out[i].Sequence = i * 7919
	}
	return out
}
