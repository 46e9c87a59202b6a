package process

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// callSiteAnalysis decodes a fixed list of instructions and counts the
// instructions it was asked to decode.
type callSiteAnalysis struct {
	ports.Analysis
	insns   []ports.Instruction
	decoded *int
}

func (a callSiteAnalysis) Disassemble(_ context.Context, req ports.DisassembleRequest) (ports.Disassembly, error) {
	out := ports.Disassembly{}
	for _, in := range a.insns {
		if in.Address >= req.Address && (req.End <= req.Address || in.Address < req.End) && len(out.Instructions) < req.MaxInstructions {
			out.Instructions = append(out.Instructions, in)
		}
	}
	*a.decoded += len(out.Instructions)
	return out, nil
}

// A hit's call_site is the call instruction ending at its return address,
// also when the call is its procedure's last instruction; none where the
// instruction ending there is no call, where none ends there, or where the
// caller is in a library (whose link-time address may well be one of the
// program's call ends). A procedure is decoded once for all its hits.
func TestTraceCallSites(t *testing.T) {
	is := is.New(t)
	insn := func(at uint64, n int, flow ports.Flow) ports.Instruction {
		return ports.Instruction{Address: at, Bytes: make([]byte, n), Flow: flow}
	}
	decoded := 0
	a := callSiteAnalysis{decoded: &decoded, insns: []ports.Instruction{
		insn(0x1000, 1, ports.FlowNext), insn(0x1001, 5, ports.FlowCall), // ends at 0x1006
		insn(0x1006, 2, ports.FlowCall), insn(0x1008, 3, ports.FlowNext), // 0x1008; 0x100b is no call's end
		insn(0x100b, 6, ports.FlowCall), // the procedure's last: 0x1011
		insn(0x1011, 5, ports.FlowCall), // in a procedure of unknown size
	}}
	idx := &procIndex{procs: []ports.Procedure{{Address: 0x1000, Name: "main", Size: 0x11}, {Address: 0x1011, Name: "tail"}}}
	res := &ports.TraceResult{Modules: []ports.TraceModule{{Name: ""}}}
	for i, c := range []uint64{0x1006, 0x1008, 0x100b, 0x1007, 0x1011, 0x1016, 0x1006, 0x1008, 0x1006} {
		res.Hits = append(res.Hits, ports.TraceHit{Sequence: i, Caller: c})
	}
	res.Hits = append(res.Hits, ports.TraceHit{Caller: 0x1006, CallerModule: "libc.so.6"}, ports.TraceHit{})
	cs := newCallSites(a, idx)
	cs.resolve(context.Background(), res)
	out, _ := traceProjection(idx, res, "", "", nil, nil, cs)
	var got []any
	for _, h := range out.Hits {
		if h.CallSite == nil {
			got = append(got, nil)
		} else {
			got = append(got, *h.CallSite)
		}
	}
	is.Equal(got, []any{"0x1001", "0x1006", nil, nil, "0x100b", "0x1011", "0x1001", "0x1006", "0x1001", nil, nil})
	is.Equal(decoded, 5+1) // main once, tail's one call up to its return address
	// Past the budget of decoded instructions, call sites are unknown.
	cs = newCallSites(a, idx)
	cs.budget, decoded = 3, 0
	is.Equal(*cs.find(context.Background(), 0x1006), "0x1001")
	is.Equal(cs.find(context.Background(), 0x1011), nil) // main decoded up to 0x100b only
	is.Equal(decoded, 3)
	out, _ = traceProjection(idx, res, "", "", nil, nil, nil)
	is.Equal(out.Hits[0].CallSite, nil) // an analysis that does not disassemble
}

// A call a tail call entered returns past its tail caller's call, but no
// call instruction entered it: its call_site is null and tail_call_from
// names the hit that jumped to it, while caller and caller_procedure stay
// where it returns. Before, leaf, tail-called by mid, was given main's
// `call mid` as its call site.
func TestTraceTailCalledHasNoCallSite(t *testing.T) {
	is := is.New(t)
	decoded := 0
	a := callSiteAnalysis{decoded: &decoded, insns: []ports.Instruction{
		{Address: 0x1000, Bytes: make([]byte, 1), Flow: ports.FlowNext}, {Address: 0x1001, Bytes: make([]byte, 5), Flow: ports.FlowCall},
	}}
	idx := &procIndex{procs: []ports.Procedure{{Address: 0x1000, Name: "main", Size: 0x10}, {Address: 0x2000, Name: "mid", Size: 0x10},
		{Address: 0x3000, Name: "leaf", Size: 0x10}}}
	res := &ports.TraceResult{Modules: []ports.TraceModule{{Name: ""}}, Breakpoints: []ports.TraceResolved{{Address: 0x2000}, {Address: 0x3000}},
		Hits: []ports.TraceHit{{Sequence: 0, Breakpoint: 0, Address: 0x2000, Caller: 0x1006},
			{Sequence: 1, Breakpoint: 1, Address: 0x3000, Caller: 0x1006, TailCall: true, TailCallFrom: 0}}}
	cs := newCallSites(a, idx)
	cs.resolve(context.Background(), res)
	out, _ := traceProjection(idx, res, "", "", nil, nil, cs)
	mid, leaf := out.Hits[0], out.Hits[1]
	is.Equal(*mid.CallSite, "0x1001")
	is.Equal(mid.TailCallFrom, nil)
	is.Equal(leaf.CallSite, nil)
	is.True(leaf.TailCallFrom != nil && *leaf.TailCallFrom == 0)
	is.Equal(*leaf.Caller, "0x1006")
	is.Equal(*leaf.CallerProcedure.Name, "main")
}
