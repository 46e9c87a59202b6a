package diff

import (
	"context"
	"strconv"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// strippedCaller is a stripped build whose main calls one unnamed helper
// at helper: a loop of loopLen blocks adding step, or (loopLen 0) a
// straight line loading step.
func strippedCaller(t *testing.T, helper uint64, loopLen int, step string) *binSide {
	t.Helper()
	main := ports.Function{FunctionRange: ports.FunctionRange{Start: 0x1100, End: 0x1110}, InstructionCount: 3,
		Instructions: []ports.Instruction{{Address: 0x1100, Mnemonic: "mov", Operands: "edi, 0x7", Flow: ports.FlowNext},
			{Address: 0x1105, Mnemonic: "call", Operands: "0x" + hexOf(helper), Flow: ports.FlowCall, Target: helper, HasTarget: true},
			{Address: 0x110a, Mnemonic: "ret", Flow: ports.FlowReturn}},
		Blocks: []ports.BasicBlock{{Start: 0x1100, End: 0x110b, Instructions: 3}}}
	var ins []ports.Instruction
	var blocks []ports.BasicBlock
	at := helper
	if loopLen == 0 {
		for range 6 {
			ins = append(ins, ports.Instruction{Address: at, Mnemonic: "mov", Operands: "eax, " + step, Flow: ports.FlowNext})
			at += 5
		}
		ins = append(ins, ports.Instruction{Address: at, Mnemonic: "ret", Flow: ports.FlowReturn})
		blocks = []ports.BasicBlock{{Start: helper, End: at + 1, Instructions: len(ins)}}
	} else {
		for k := range loopLen {
			start := at
			ins = append(ins, ports.Instruction{Address: at, Mnemonic: "add", Operands: "eax, " + step, Flow: ports.FlowNext},
				ports.Instruction{Address: at + 3, Mnemonic: "cmp", Operands: "eax, edi", Flow: ports.FlowNext},
				ports.Instruction{Address: at + 5, Mnemonic: "jl", Operands: "0x" + hexOf(helper), Flow: ports.FlowBranch, Target: helper, HasTarget: true})
			at += 7
			succ := []ports.Edge{{Target: helper, Kind: "branch"}, {Target: at, Kind: "fallthrough"}}
			if k == 0 {
				succ = succ[1:]
			}
			blocks = append(blocks, ports.BasicBlock{Start: start, End: at, Instructions: 3, Successors: succ})
		}
		ins = append(ins, ports.Instruction{Address: at, Mnemonic: "ret", Flow: ports.FlowReturn})
		blocks = append(blocks, ports.BasicBlock{Start: at, End: at + 1, Instructions: 1})
	}
	fn := ports.Function{FunctionRange: ports.FunctionRange{Start: helper, End: at + 1}, Instructions: ins, InstructionCount: len(ins), Blocks: blocks}
	b := &fakeBinary{
		procs: []ports.Procedure{{Address: 0x1100, Name: "main", Source: "entry"}, {Address: helper, Source: "discovered"}},
		names: []ports.Name{{Address: 0x1100, Name: "main", Kind: "function"}},
		fns:   map[uint64]ports.Function{0x1100: main, helper: fn},
		refs:  []ports.Reference{{From: 0x1105, To: helper, Kind: ports.RefCall}},
	}
	s := &binSide{path: "/nonexistent", byAddr: map[uint64]int{}}
	if err := s.read(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return s
}

func hexOf(v uint64) string { return strconv.FormatUint(v, 16) }

// TestCallOfRemovedForAddedUnnamedFunction: between two stripped builds,
// main called a helper that was removed (sub_1200) and now calls one that
// was added (sub_1300). main's calls changed: before, both helpers were
// compared as "sub", and an agent read main's calls as unchanged while
// compare_binaries listed sub_1200 removed and sub_1300 added.
func TestCallOfRemovedForAddedUnnamedFunction(t *testing.T) {
	is := is.New(t)
	l, r := strippedCaller(t, 0x1200, 3, "0x3"), strippedCaller(t, 0x1300, 0, "0x51")
	m := newMatcher(l, r, false)
	_, err := m.run(context.Background())
	is.NoErr(err)
	is.Equal(len(m.matches), 1) // main only: the helpers are removed and added
	o := compareOptions{calleeName: m.calleeName, symbol: m.symbol, unnamed: m.unnamed}
	d := compareFacts(l.funcs[0], r.funcs[0], o)
	is.Equal(l.funcs[0].Name, "main")
	is.Equal(d.Dimensions["calls"].Status, "changed")
	is.Equal(d.Dimensions["calls"].Removed, []string{"sub_1200"})
	is.Equal(d.Dimensions["calls"].Added, []string{"sub_1300"})
	is.Equal(d.Dimensions["instructions"].Status, "changed")
}
