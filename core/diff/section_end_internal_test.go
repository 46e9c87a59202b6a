package diff

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// segBinary is a fakeBinary that also lists its sections.
type segBinary struct {
	*fakeBinary
	segs []ports.Segment
}

func (b *segBinary) Segments(context.Context) ([]ports.Segment, error) { return b.segs, nil }

// strippedTMC is a stripped build of tmc, flush and peek as gcc -O2 links
// them. tmc reads the address one past .data (crt's deregister_tm_clones
// reads __TMC_END__ there), flush reads stdout, peek reads an unnamed
// .bss variable of the program's in v1 and stdout in v2. Only the dynamic
// symbol stdout names anything. In v1 .bss starts 0x18 past .data's end, so
// nothing names the address tmc reads; in v2 the copy-relocated stdout is
// at .bss's start, which is .data's end, and names it. With symbols the
// linker's markers name .data's end as well.
func strippedTMC(t *testing.T, v2, symbols bool) *binSide {
	t.Helper()
	data, bss, stdout, static := ports.Segment{Name: ".data", Kind: "section", Start: 0x40b8, Size: 0x10}, ports.Segment{Name: ".bss", Kind: "section", Start: 0x40e0, Size: 0x100}, uint64(0x40e0), uint64(0x4140)
	if v2 {
		data.Start, bss.Start, stdout = 0x40b0, 0x40c0, 0x40c0
	}
	end := data.Start + data.Size
	for _, g := range []*ports.Segment{&data, &bss} {
		g.Perms = ports.Permissions{Read: true, Write: true}
	}
	names := []ports.Name{{Address: stdout, Name: "stdout@GLIBC_2.2.5"}, {Address: stdout, Name: "stdout"}}
	src := "dynamic"
	if symbols {
		src = "symbol"
		names = append(names, ports.Name{Address: end, Name: "__TMC_END__"}, ports.Name{Address: end, Name: "_edata"}, ports.Name{Address: static, Name: "counter"})
	}
	peek := static
	if v2 {
		peek = stdout
	}
	one := func(at uint64) ports.Function {
		ins := []ports.Instruction{{Address: at, Mnemonic: "lea", Operands: "rdi, [rip+0x2f00]", Flow: ports.FlowNext},
			{Address: at + 7, Mnemonic: "ret", Flow: ports.FlowReturn}}
		return ports.Function{FunctionRange: ports.FunctionRange{Start: at, End: at + 8}, Instructions: ins, InstructionCount: len(ins),
			Blocks: []ports.BasicBlock{{Start: at, End: at + 8, Instructions: len(ins)}}}
	}
	b := &segBinary{fakeBinary: &fakeBinary{
		procs: []ports.Procedure{{Address: 0x1100, Source: src}, {Address: 0x1200, Source: src}, {Address: 0x1300, Source: src}},
		names: names,
		fns:   map[uint64]ports.Function{0x1100: one(0x1100), 0x1200: one(0x1200), 0x1300: one(0x1300)},
		refs: []ports.Reference{{From: 0x1100, To: end, Kind: ports.RefRead}, {From: 0x1200, To: stdout, Kind: ports.RefRead},
			{From: 0x1300, To: peek, Kind: ports.RefRead}},
	}, segs: []ports.Segment{data, bss}}
	s := &binSide{path: "/nonexistent", byAddr: map[uint64]int{}}
	if err := s.read(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReferenceToSectionEndInAStrippedBuild: in two stripped builds that
// only moved data, tmc's read of .data's end is unchanged though only v2
// names the address (stdout, put there by the linker). Before, an agent saw
// crt's deregister_tm_clones and register_tm_clones as changed,
// "references added: stdout". peek, which reads a .bss variable of the
// program's in v1 and stdout in v2, still shows stdout added. The same holds
// for v1 with symbols against v2 stripped, and the other way round.
func TestReferenceToSectionEndInAStrippedBuild(t *testing.T) {
	is := is.New(t)
	for _, symbols := range []bool{false, true} {
		l, r := strippedTMC(t, false, symbols), strippedTMC(t, true, false)
		for _, swap := range []bool{false, true} {
			a, b := l, r
			if swap {
				a, b = r, l
			}
			m := newMatcher(a, b, false)
			_, err := m.run(context.Background())
			is.NoErr(err)
			omitted := 0
			o := compareOptions{calleeName: m.calleeName, symbol: m.symbol, unnamed: m.unnamed, omittedRefs: &omitted}
			for i := range 2 {
				d := compareFacts(a.funcs[i], b.funcs[i], o)
				is.Equal(d.Dimensions["references"].Status, "unchanged") // tmc and flush
			}
			d := compareFacts(a.funcs[2], b.funcs[2], o)
			is.Equal(d.Dimensions["references"].Status, "changed") // peek
			if swap {
				is.Equal(d.Dimensions["references"].Removed, []string{"stdout"})
			} else {
				is.Equal(d.Dimensions["references"].Added, []string{"stdout"})
			}
		}
	}
}

// TestSectionEndGap: an address that ends .data and starts .bss is held
// (the first .bss variable of the program's may be there); one past .data
// before alignment padding is not.
func TestSectionEndGap(t *testing.T) {
	is := is.New(t)
	is.Equal(strippedTMC(t, true, false).sectionEnd(0x40c0), sectionEnd{Name: ".data", Gap: false})
	is.Equal(strippedTMC(t, false, false).sectionEnd(0x40c8), sectionEnd{Name: ".data", Gap: true})
	is.Equal(strippedTMC(t, false, false).sectionEnd(0x40c0), sectionEnd{})
}
