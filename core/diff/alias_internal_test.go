package diff

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// tmcBinary is one build of two functions: tmc reads the address one past
// .data (crt's deregister_tm_clones reads __TMC_END__ there), and flush
// reads stdout. With copyFirst the linker put the copy-relocated stdout at
// the start of .bss, where __TMC_END__, _edata and __bss_start also are (as
// gcc placed it in a build that only moved data); otherwise stdout is
// further on and the address holds only the linker's markers.
func tmcBinary(t *testing.T, copyFirst bool, other string) *binSide {
	t.Helper()
	end, stdout := uint64(0x40c8), uint64(0x40e0)
	names := []ports.Name{{Address: end, Name: "__bss_start"}, {Address: end, Name: "__TMC_END__"}, {Address: end, Name: "_edata"}}
	if copyFirst {
		end, stdout = 0x40c0, 0x40c0
		names = []ports.Name{{Address: end, Name: "__bss_start"}, {Address: end, Name: "__TMC_END__"}, {Address: end, Name: "_edata"}}
	}
	names = append(names, ports.Name{Address: stdout, Name: "stdout@GLIBC_2.2.5"}, ports.Name{Address: stdout, Name: "stdout"},
		ports.Name{Address: 0x4200, Name: other})
	one := func(at uint64) ports.Function {
		ins := []ports.Instruction{{Address: at, Mnemonic: "lea", Operands: "rdi, [rip+0x2f00]", Flow: ports.FlowNext},
			{Address: at + 7, Mnemonic: "ret", Flow: ports.FlowReturn}}
		return ports.Function{FunctionRange: ports.FunctionRange{Start: at, End: at + 8}, Instructions: ins, InstructionCount: len(ins),
			Blocks: []ports.BasicBlock{{Start: at, End: at + 8, Instructions: len(ins)}}}
	}
	b := &fakeBinary{
		procs: []ports.Procedure{{Address: 0x1100, Name: "tmc", Source: "symbol"}, {Address: 0x1200, Name: "flush", Source: "symbol"},
			{Address: 0x1300, Name: "peek", Source: "symbol"}},
		names: names,
		fns:   map[uint64]ports.Function{0x1100: one(0x1100), 0x1200: one(0x1200), 0x1300: one(0x1300)},
		refs: []ports.Reference{{From: 0x1100, To: end, Kind: ports.RefRead}, {From: 0x1200, To: stdout, Kind: ports.RefRead},
			{From: 0x1300, To: 0x4200, Kind: ports.RefRead}},
	}
	s := &binSide{path: "/nonexistent", byAddr: map[uint64]int{}}
	if err := s.read(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReferenceToAnAddressOfSeveralNames: a build whose linker put stdout
// where __TMC_END__ and _edata are changes no function's references:
// tmc still reads __TMC_END__ (before, an agent saw "references: removed
// _edata, added stdout" on crt's deregister_tm_clones and
// register_tm_clones), flush still reads stdout. A read of a different
// object still shows.
func TestReferenceToAnAddressOfSeveralNames(t *testing.T) {
	is := is.New(t)
	l, r := tmcBinary(t, false, "counter"), tmcBinary(t, true, "total")
	for i, name := range []string{"tmc", "flush"} {
		is.Equal(l.funcs[i].Name, name)
		d := compareFacts(l.funcs[i], r.funcs[i], compareOptions{})
		is.Equal(d.Dimensions["references"].Status, "unchanged") // name
	}
	d := compareFacts(l.funcs[2], r.funcs[2], compareOptions{})
	is.Equal(d.Dimensions["references"].Removed, []string{"counter"})
	is.Equal(d.Dimensions["references"].Added, []string{"total"})
	// And the other way round.
	d = compareFacts(r.funcs[0], l.funcs[0], compareOptions{})
	is.Equal(d.Dimensions["references"].Status, "unchanged")
}
