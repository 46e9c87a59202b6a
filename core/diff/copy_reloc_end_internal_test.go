package diff

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// strippedBSS is a stripped build of tmc and say as gcc -O2 links them
// when .bss starts at .data's end: tmc only takes that address (crt's
// "lea rdi, [rip+__TMC_END__]"), say reads the object there. obj is what
// the dynamic symbols name there ("stderr", "stdout"; "" for an unnamed
// variable of the program's).
func strippedBSS(t *testing.T, obj string) *binSide {
	t.Helper()
	return bssBuild(t, obj, false)
}

// bssBuild is strippedBSS, or with symbols the same build whose linker's
// markers (__bss_start, __TMC_END__, _edata) name the address too.
func bssBuild(t *testing.T, obj string, symbols bool) *binSide {
	t.Helper()
	data := ports.Segment{Name: ".data", Kind: "section", Start: 0x4008, Size: 0x18, Perms: ports.Permissions{Read: true, Write: true}}
	bss := ports.Segment{Name: ".bss", Kind: "section", Start: 0x4020, Size: 0x10, Perms: ports.Permissions{Read: true, Write: true}}
	var names []ports.Name
	if obj != "" {
		names = []ports.Name{{Address: 0x4020, Name: obj + "@GLIBC_2.2.5", Kind: "object"}, {Address: 0x4020, Name: obj, Kind: "object"}}
	}
	src := "dynamic"
	if symbols {
		src = "symbol"
		// In address and then name order, as the provider lists them.
		names = append([]ports.Name{{Address: 0x1100, Name: "tmc", Kind: "function"}, {Address: 0x1200, Name: "say", Kind: "function"},
			{Address: 0x4020, Name: "__bss_start"}, {Address: 0x4020, Name: "__TMC_END__"}, {Address: 0x4020, Name: "_edata"}}, names...)
	}
	one := func(at uint64) ports.Function {
		ins := []ports.Instruction{{Address: at, Mnemonic: "lea", Operands: "rdi, [rip+0x2f00]", Flow: ports.FlowNext},
			{Address: at + 7, Mnemonic: "ret", Flow: ports.FlowReturn}}
		return ports.Function{FunctionRange: ports.FunctionRange{Start: at, End: at + 8}, Instructions: ins, InstructionCount: len(ins),
			Blocks: []ports.BasicBlock{{Start: at, End: at + 8, Instructions: len(ins)}}}
	}
	b := &segBinary{fakeBinary: &fakeBinary{
		procs: []ports.Procedure{{Address: 0x1100, Source: src}, {Address: 0x1200, Source: src}},
		names: names,
		fns:   map[uint64]ports.Function{0x1100: one(0x1100), 0x1200: one(0x1200)},
		refs:  []ports.Reference{{From: 0x1100, To: 0x4020, Kind: ports.RefAddress}, {From: 0x1200, To: 0x4020, Kind: ports.RefRead}},
	}, segs: []ports.Segment{data, bss}}
	s := &binSide{path: "/nonexistent", byAddr: map[uint64]int{}}
	if err := s.read(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTakenSectionEndNamedOtherwise: two stripped builds whose .bss starts
// at .data's end with the copy-relocated stderr in one and stdout in the
// other (or an unnamed variable of the program's): tmc, which only takes
// the address, is unchanged, where an agent saw crt's deregister_tm_clones
// and register_tm_clones changed, "references added: stdout, removed:
// stderr". say, which reads stderr in one and stdout in the other, still
// shows the change.
func TestTakenSectionEndNamedOtherwise(t *testing.T) {
	is := is.New(t)
	for _, pair := range [][2]string{{"stderr", "stdout"}, {"", "stdout"}, {"stderr", ""}} {
		a, b := strippedBSS(t, pair[0]), strippedBSS(t, pair[1])
		m := newMatcher(a, b, false)
		_, err := m.run(context.Background())
		is.NoErr(err)
		omitted := 0
		o := compareOptions{calleeName: m.calleeName, symbol: m.symbol, unnamed: m.unnamed, omittedRefs: &omitted}
		d := compareFacts(a.funcs[0], b.funcs[0], o)
		is.Equal(d.Dimensions["references"].Status, "unchanged") // tmc
		d = compareFacts(a.funcs[1], b.funcs[1], o)
		if pair[0] != "" && pair[1] != "" {
			is.Equal(d.Dimensions["references"].Status, "changed") // say
			is.Equal(d.Dimensions["references"].Removed, []string{"stderr"})
			is.Equal(d.Dimensions["references"].Added, []string{"stdout"})
		}
	}
}

// TestReadOfSectionEndWithSymbols: with symbols, the address where .bss
// starts also has the linker's markers, shared by both builds. say, which
// reads stderr in one and stdout in the other, shows the change; before,
// the shared __TMC_END__ paired the two reads and an agent saw no function
// changed. tmc, which only takes the address, stays unchanged.
func TestReadOfSectionEndWithSymbols(t *testing.T) {
	is := is.New(t)
	a, b := bssBuild(t, "stderr", true), bssBuild(t, "stdout", true)
	m := newMatcher(a, b, false)
	_, err := m.run(context.Background())
	is.NoErr(err)
	o := compareOptions{calleeName: m.calleeName, symbol: m.symbol, unnamed: m.unnamed}
	d := compareFacts(a.funcs[0], b.funcs[0], o)
	is.Equal(d.Dimensions["references"].Status, "unchanged") // tmc
	d = compareFacts(a.funcs[1], b.funcs[1], o)
	is.Equal(d.Dimensions["references"].Status, "changed") // say
	is.Equal(d.Dimensions["references"].Removed, []string{"stderr"})
	is.Equal(d.Dimensions["references"].Added, []string{"stdout"})
}

// TestReadOfSectionEndOneSideStripped: one build has symbols, the other is
// stripped; say reads stderr in one and stdout in the other. Both names
// are dynamic symbols (a copy relocation's, versioned stderr@GLIBC_2.2.5
// beside them), which a stripped build gives too, so neither is left out
// as a name only the side with symbols gives: the agent sees "removed
// stderr, added stdout". Before, the side with symbols' name was left out
// and only the stripped side's showed ("added stdout", nothing removed).
func TestReadOfSectionEndOneSideStripped(t *testing.T) {
	is := is.New(t)
	for _, symbols := range []bool{false, true} { // which side has them: left, right
		a, b := bssBuild(t, "stderr", !symbols), bssBuild(t, "stdout", symbols)
		m := newMatcher(a, b, false)
		_, err := m.run(context.Background())
		is.NoErr(err)
		omitted := 0
		o := compareOptions{calleeName: m.calleeName, symbol: m.symbol, unnamed: m.unnamed, omittedRefs: &omitted}
		d := compareFacts(a.funcs[0], b.funcs[0], o)
		is.Equal(d.Dimensions["references"].Status, "unchanged") // tmc
		d = compareFacts(a.funcs[1], b.funcs[1], o)
		is.Equal(d.Dimensions["references"].Status, "changed") // say
		is.Equal(d.Dimensions["references"].Removed, []string{"stderr"})
		is.Equal(d.Dimensions["references"].Added, []string{"stdout"})
		is.Equal(omitted, 0)
	}
}
