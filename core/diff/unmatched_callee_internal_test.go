package diff

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// helperCode is an unnamed helper's code: a loop of loopLen blocks adding
// step, or (loopLen 0) a straight line loading step.
type helperCode struct {
	loopLen int
	step    string
}

func (h helperCode) at(helper uint64) ports.Function {
	var ins []ports.Instruction
	var blocks []ports.BasicBlock
	at := helper
	if h.loopLen == 0 {
		for range 6 {
			ins = append(ins, ports.Instruction{Address: at, Mnemonic: "mov", Operands: "eax, " + h.step, Flow: ports.FlowNext})
			at += 5
		}
		ins = append(ins, ports.Instruction{Address: at, Mnemonic: "ret", Flow: ports.FlowReturn})
		blocks = []ports.BasicBlock{{Start: helper, End: at + 1, Instructions: len(ins)}}
	} else {
		for k := range h.loopLen {
			start := at
			ins = append(ins, ports.Instruction{Address: at, Mnemonic: "add", Operands: "eax, " + h.step, Flow: ports.FlowNext},
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
	return ports.Function{FunctionRange: ports.FunctionRange{Start: helper, End: at + 1}, Instructions: ins, InstructionCount: len(ins), Blocks: blocks}
}

// strippedCaller is a stripped build whose main calls the unnamed helper
// at called, among helpers.
func strippedCaller(t *testing.T, called uint64, helpers map[uint64]helperCode) *binSide {
	t.Helper()
	main := ports.Function{FunctionRange: ports.FunctionRange{Start: 0x1100, End: 0x1110}, InstructionCount: 3,
		Instructions: []ports.Instruction{{Address: 0x1100, Mnemonic: "mov", Operands: "edi, 0x7", Flow: ports.FlowNext},
			{Address: 0x1105, Mnemonic: "call", Operands: "0x" + hexOf(called), Flow: ports.FlowCall, Target: called, HasTarget: true},
			{Address: 0x110a, Mnemonic: "ret", Flow: ports.FlowReturn}},
		Blocks: []ports.BasicBlock{{Start: 0x1100, End: 0x110b, Instructions: 3}}}
	b := &fakeBinary{
		procs: []ports.Procedure{{Address: 0x1100, Name: "main", Source: "entry"}},
		names: []ports.Name{{Address: 0x1100, Name: "main", Kind: "function"}},
		fns:   map[uint64]ports.Function{0x1100: main},
		refs:  []ports.Reference{{From: 0x1105, To: called, Kind: ports.RefCall}},
	}
	for _, a := range slices.Sorted(maps.Keys(helpers)) {
		b.procs = append(b.procs, ports.Procedure{Address: a, Source: "discovered"})
		b.fns[a] = helpers[a].at(a)
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
	l := strippedCaller(t, 0x1200, map[uint64]helperCode{0x1200: {3, "0x3"}})
	r := strippedCaller(t, 0x1300, map[uint64]helperCode{0x1300: {0, "0x51"}})
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

// TestCallOfAddedFunctionAtAMatchedOnesAddress: matched functions are
// compared under their left names, so an added unnamed function at the
// address a matched one has on the left is marked as the right's. The
// left main calls the helper at 0x1200; the right one moved it to 0x1300
// (unchanged) and calls an added helper at 0x1200 instead.
func TestCallOfAddedFunctionAtAMatchedOnesAddress(t *testing.T) {
	is := is.New(t)
	moved := helperCode{3, "0x3"}
	l := strippedCaller(t, 0x1200, map[uint64]helperCode{0x1200: moved})
	r := strippedCaller(t, 0x1200, map[uint64]helperCode{0x1200: {0, "0x51"}, 0x1300: moved})
	m := newMatcher(l, r, false)
	_, err := m.run(context.Background())
	is.NoErr(err)
	is.Equal(len(m.matches), 2)             // main, and the moved helper
	is.Equal(m.matches[1].Basis, basisHash) // the moved helper
	is.Equal(r.funcs[m.matches[1].R].Address, uint64(0x1300))
	o := compareOptions{calleeName: m.calleeName, symbol: m.symbol, unnamed: m.unnamed}
	d := compareFacts(l.funcs[0], r.funcs[0], o)
	is.Equal(d.Dimensions["calls"].Status, "changed")
	is.Equal(d.Dimensions["calls"].Removed, []string{"sub_1200"})
	is.Equal(d.Dimensions["calls"].Added, []string{"sub_1200 (right)"})
}

type quietProgress struct{}

func (quietProgress) Observe(string, string) {}
func (quietProgress) Finish(string, string)  {}

// TestRenamedFunctionListed: an identical function renamed (compute_total
// in one build, sum_pair in the next, matched by its instructions) is
// listed in renamed. Before, the concise comparison, which lists no
// unchanged function, named it nowhere: an agent saw neither name.
func TestRenamedFunctionListed(t *testing.T) {
	is := is.New(t)
	named := func(name string, helper uint64) *binSide {
		b := &fakeBinary{
			procs: []ports.Procedure{{Address: helper, Name: name, Source: "symbol"}, {Address: 0x1600, Name: "kept", Source: "symbol"}},
			names: []ports.Name{{Address: helper, Name: name, Kind: "function"}, {Address: 0x1600, Name: "kept", Kind: "function"}},
			fns:   map[uint64]ports.Function{helper: helperCode{3, "0x3"}.at(helper), 0x1600: helperCode{0, "0x5"}.at(0x1600)},
		}
		s := &binSide{path: "/nonexistent", byAddr: map[uint64]int{}}
		is.NoErr(s.read(context.Background(), b))
		return s
	}
	c := &core.Call{Op: opCompareBinaries(), CallOptions: core.CallOptions{Progress: quietProgress{}}}
	res, err := compareSides(context.Background(), c, named("compute_total", 0x1200), named("sum_pair", 0x1300), false)
	is.NoErr(err)
	is.Equal(res.Summary.Unchanged, 2)
	is.Equal(len(res.Added)+len(res.Removed), 0)
	is.Equal(res.Renamed, []CompareBinariesResultRenamedItem{{Left: CompareBinariesResultChangedItemLeft{Name: "compute_total", Address: "0x1200"},
		Right: CompareBinariesResultChangedItemLeft{Name: "sum_pair", Address: "0x1300"}}})
	is.Equal(conciseOf(res).Renamed, res.Renamed) // concise keeps it
}

// TestIdenticalTwinsAllMatch: four identical unnamed functions in both
// builds (ls has such twins: sort comparators) tie in every structural
// round, which pairs one of them a round; after the last round the one
// left on each side is the only one of its code, and matches by its hash.
// Before, /usr/bin/ls against /usr/bin/dir (the same code, one byte of
// .data apart) reported sub_aee0 removed and sub_aee0 added.
func TestIdenticalTwinsAllMatch(t *testing.T) {
	is := is.New(t)
	twin := helperCode{0, "0x51"}
	helpers := map[uint64]helperCode{0x1200: {3, "0x3"}, 0x1300: twin, 0x1400: twin, 0x1500: twin, 0x1600: twin}
	l, r := strippedCaller(t, 0x1200, helpers), strippedCaller(t, 0x1200, helpers)
	m := newMatcher(l, r, false)
	_, err := m.run(context.Background())
	is.NoErr(err)
	ls, rs := m.unmatched()
	is.Equal(len(ls)+len(rs), 0) // nothing removed or added
	for _, x := range m.matches {
		is.Equal(l.funcs[x.L].Address, r.funcs[x.R].Address) // each with its own copy
	}
}
