package portstest

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// The checks are tested from inside the package: Run reports through
// *testing.T, which a test cannot fake, so this is where the suite's ability
// to reject broken results is shown.

func TestCheckInfo(t *testing.T) {
	tests := []struct {
		id   string
		ok   bool
		name string
	}{
		{"rea-native", true, "n"},
		{"ghidra2", true, "n"},
		{"auto", false, "n"},
		{"Native", false, "n"},
		{"1abc", false, "n"},
		{"", false, "n"},
		{"a_b", false, "n"},
		{strings.Repeat("a", 64), true, "n"},
		{strings.Repeat("a", 65), false, "n"},
		{"fine", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			is := is.New(t)
			err := checkInfo(ports.ProviderInfo{ID: tt.id, Name: tt.name})
			is.Equal(err == nil, tt.ok)
		})
	}
}

func TestCheckProfile(t *testing.T) {
	tests := []struct {
		name string
		p    ports.Profile
		ok   bool
	}{
		{"ok", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"n": 3, "s": "x", "l": []any{1.5, true, nil}, "m": map[string]any{"k": "v"}}}, true},
		{"no parameters", ports.Profile{SchemaVersion: 2}, true},
		{"schema 0", ports.Profile{}, false},
		{"struct", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"x": struct{}{}}}, false},
		{"nan", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"x": math.NaN()}}, false},
		{"nested func", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"x": []any{func() {}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(checkProfile(tt.p) == nil, tt.ok)
		})
	}
}

func TestCheckLists(t *testing.T) {
	tests := []struct {
		name  string
		check func() error
		ok    bool
	}{
		{"documents ok", func() error { return checkDocuments([]ports.Document{{Name: "a", Format: "elf"}}) }, true},
		{"documents none", func() error { return checkDocuments(nil) }, false},
		{"documents unnamed", func() error { return checkDocuments([]ports.Document{{Format: "elf"}}) }, false},
		{"documents entry without HasEntry", func() error {
			return checkDocuments([]ports.Document{{Name: "a", Format: "elf", Entry: 4}})
		}, false},

		{"segments ok", func() error {
			return checkSegments([]ports.Segment{{Name: ".bss", Kind: "section", Start: 1, Size: 10}, {Kind: "segment", FileOffset: 10, FileSize: 90}}, 100)
		}, true},
		{"segments kind", func() error { return checkSegments([]ports.Segment{{Kind: "region"}}, 0) }, false},
		{"segments overflow", func() error {
			return checkSegments([]ports.Segment{{Kind: "section", Start: math.MaxUint64, Size: 2}}, 0)
		}, false},
		{"segments beyond file", func() error {
			return checkSegments([]ports.Segment{{Kind: "section", FileOffset: 10, FileSize: 91}}, 100)
		}, false},

		{"procedures ok", func() error {
			return checkProcedures([]ports.Procedure{{Address: 1}, {Address: 2, Thunk: true, ThunkTarget: "x"}})
		}, true},
		{"procedures unsorted", func() error { return checkProcedures([]ports.Procedure{{Address: 2}, {Address: 1}}) }, false},
		{"procedures repeated address", func() error { return checkProcedures([]ports.Procedure{{Address: 2}, {Address: 2}}) }, false},
		{"procedures target without thunk", func() error { return checkProcedures([]ports.Procedure{{Address: 2, ThunkTarget: "x"}}) }, false},

		{"names ok", func() error {
			return checkNames([]ports.Name{{Address: 1, Name: "b", Kind: "function"}, {Address: 1, Name: "c", Kind: "label"}, {Address: 2, Name: "a", Kind: "import"}})
		}, true},
		{"names unsorted by name", func() error {
			return checkNames([]ports.Name{{Address: 1, Name: "c", Kind: "function"}, {Address: 1, Name: "b", Kind: "function"}})
		}, false},
		{"names duplicate", func() error {
			return checkNames([]ports.Name{{Address: 1, Name: "b", Kind: "function"}, {Address: 1, Name: "b", Kind: "object"}})
		}, false},
		{"names kind", func() error { return checkNames([]ports.Name{{Address: 1, Name: "b", Kind: "thing"}}) }, false},
		{"names empty", func() error { return checkNames([]ports.Name{{Address: 1, Kind: "label"}}) }, false},

		{"strings ok", func() error {
			return checkStrings([]ports.String{
				{Address: 1, Value: "abcd", Charset: "ascii", ByteLength: 4},
				{Address: 1, Value: "été", Charset: "utf-16le", ByteLength: 6},
				{Address: 9, Value: "ab", Charset: "ascii", ByteLength: 400, Truncated: true},
			})
		}, true},
		{"strings unsorted", func() error {
			return checkStrings([]ports.String{{Address: 2, Value: "abcd", Charset: "ascii", ByteLength: 4}, {Address: 1, Value: "abcd", Charset: "ascii", ByteLength: 4}})
		}, false},
		{"strings empty value", func() error { return checkStrings([]ports.String{{Charset: "ascii", ByteLength: 4}}) }, false},
		{"strings charset", func() error { return checkStrings([]ports.String{{Value: "abcd", Charset: "latin1", ByteLength: 4}}) }, false},
		{"strings length", func() error { return checkStrings([]ports.String{{Value: "abcd", Charset: "utf-16le", ByteLength: 4}}) }, false},
		{"strings invalid utf-8", func() error { return checkStrings([]ports.String{{Value: "\xff", Charset: "ascii", ByteLength: 1}}) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.check()
			is.Equal(err == nil, tt.ok) // check result
		})
	}
}

// The code checks reject each way a result can break its contract; every
// case starts from the CodeFake's valid data and breaks one thing.
func TestCheckCode(t *testing.T) {
	ctx := t.Context()
	a, err := NewCodeFake().Open(ctx, ports.Target{Format: "elf"})
	if err != nil {
		t.Fatal(err)
	}
	ca := a.(*CodeAnalysis)
	dis, _ := ca.Disassemble(ctx, ports.DisassembleRequest{Address: 0x1030})
	fn, _ := ca.Function(ctx, ports.FunctionRequest{Address: 0x1030})
	from, _ := ca.ReferencesFrom(ctx, 0, math.MaxUint64)
	to, _ := ca.ReferencesTo(ctx, 0, math.MaxUint64)
	vf, _ := ca.ValueFlow(ctx, ports.FunctionRequest{Address: 0x1030})
	lay, _ := NewCodeFake().ReadLayout(ctx, bytes.NewReader(CodeFakeImage()), int64(len(CodeFakeImage())))
	r := codeRanges[2]

	disWith := func(f func(*ports.Disassembly)) func() error {
		return func() error {
			d := dis
			d.Instructions = slices.Clone(d.Instructions)
			f(&d)
			return checkDisassembly(d, ports.DisassembleRequest{Address: 0x1030})
		}
	}
	fnWith := func(f func(*ports.Function)) func() error {
		return func() error {
			g := fn
			g.Instructions, g.Blocks = slices.Clone(g.Instructions), slices.Clone(g.Blocks)
			f(&g)
			return checkFunction(g, r, ports.FunctionRequest{Address: 0x1030})
		}
	}
	vfWith := func(f func(*ports.ValueFlow)) func() error {
		return func() error {
			g := vf
			g.Operations, g.DefUses, g.Effects = slices.Clone(g.Operations), slices.Clone(g.DefUses), slices.Clone(g.Effects)
			f(&g)
			return checkValueFlow(g, r)
		}
	}
	layWith := func(f func(*ports.Layout)) func() error {
		return func() error {
			l := *lay
			l.Sections = slices.Clone(l.Sections)
			f(&l)
			return checkLayout(&l, int64(len(CodeFakeImage())))
		}
	}
	tests := []struct {
		name  string
		check func() error
		ok    bool
	}{
		{"disassembly ok", disWith(func(*ports.Disassembly) {}), true},
		{"disassembly gap", disWith(func(d *ports.Disassembly) { d.Instructions = slices.Delete(d.Instructions, 1, 2) }), false},
		{"disassembly not at the address", disWith(func(d *ports.Disassembly) { d.Instructions = d.Instructions[1:] }), false},
		{"disassembly empty bytes", disWith(func(d *ports.Disassembly) { d.Instructions[8].Bytes = nil }), false},
		{"disassembly target on a return", disWith(func(d *ports.Disassembly) { d.Instructions[8].HasTarget = true }), false},
		{"disassembly bad flow", disWith(func(d *ports.Disassembly) { d.Instructions[0].Flow = "fall" }), false},
		{"disassembly invalid not bad", disWith(func(d *ports.Disassembly) { d.Instructions[0].Invalid = true }), false},
		{"disassembly over the limit", func() error {
			return checkDisassembly(dis, ports.DisassembleRequest{Address: 0x1030, MaxInstructions: 2})
		}, false},
		{"disassembly past the end", func() error {
			return checkDisassembly(dis, ports.DisassembleRequest{Address: 0x1030, End: 0x1032})
		}, false},

		{"ranges ok", func() error { return checkRanges(codeRanges, codeProcs, true) }, true},
		{"ranges fewer than procedures", func() error { return checkRanges(codeRanges[1:], codeProcs, true) }, false},
		{"ranges unsorted", func() error {
			return checkRanges([]ports.FunctionRange{codeRanges[1], codeRanges[0]}, nil, false)
		}, false},
		{"ranges reversed", func() error {
			return checkRanges([]ports.FunctionRange{{Start: 2, End: 1, EndSource: "symbol"}}, nil, false)
		}, false},
		{"ranges no source", func() error { return checkRanges([]ports.FunctionRange{{Start: 1, End: 2}}, nil, false) }, false},
		{"ranges another order", func() error {
			procs := slices.Clone(codeProcs)
			procs[1].Address = 0x1011
			return checkRanges(codeRanges, procs, true)
		}, false},

		{"function ok", fnWith(func(*ports.Function) {}), true},
		{"function other range", fnWith(func(f *ports.Function) { f.End++ }), false},
		{"function instruction outside", fnWith(func(f *ports.Function) { f.Instructions[0].Address = 0x2000 }), false},
		{"function instructions unsorted", fnWith(func(f *ports.Function) {
			f.Instructions[0], f.Instructions[1] = f.Instructions[1], f.Instructions[0]
		}), false},
		{"function count below instructions", fnWith(func(f *ports.Function) { f.InstructionCount = 1 }), false},
		{"function blocks overlap", fnWith(func(f *ports.Function) { f.Blocks[1].Start = 0x1034 }), false},
		{"function block outside", fnWith(func(f *ports.Function) { f.Blocks[2].End = 0x1050 }), false},
		{"function edge kind", fnWith(func(f *ports.Function) { f.Blocks[0].Successors = []ports.Edge{{Kind: "goto", Target: 0x1038}} }), false},
		{"function unresolved with target", fnWith(func(f *ports.Function) {
			f.Blocks[0].Successors = []ports.Edge{{Kind: ports.EdgeUnresolved, Target: 0x1038}}
		}), false},
		{"function block in its part", func() error {
			g := fn
			g.Blocks = append([]ports.BasicBlock{{Start: 0x10, End: 0x14}}, fn.Blocks...)
			return checkFunction(g, r, ports.FunctionRequest{Address: 0x1030}, ports.ProcedurePart{FunctionRange: ports.FunctionRange{Start: 0x10, End: 0x20}, Procedure: r.Start})
		}, true},
		{"function block in another's part", func() error {
			g := fn
			g.Blocks = append([]ports.BasicBlock{{Start: 0x10, End: 0x14}}, fn.Blocks...)
			return checkFunction(g, r, ports.FunctionRequest{Address: 0x1030}, ports.ProcedurePart{FunctionRange: ports.FunctionRange{Start: 0x10, End: 0x20}, Procedure: 0x5000})
		}, false},
		{"function instructions of its part after the range's", func() error {
			g := fn
			g.Instructions = append(slices.Clone(fn.Instructions), ports.Instruction{Address: 0x10, Bytes: []byte{0x90}, Text: "nop", Mnemonic: "nop", Flow: ports.FlowNext})
			g.InstructionCount++
			return checkFunction(g, r, ports.FunctionRequest{Address: 0x1030}, ports.ProcedurePart{FunctionRange: ports.FunctionRange{Start: 0x10, End: 0x20}, Procedure: r.Start})
		}, true},
		{"function instructions of its part before the range's", func() error {
			g := fn
			g.Instructions = append([]ports.Instruction{{Address: 0x10, Bytes: []byte{0x90}, Text: "nop", Mnemonic: "nop", Flow: ports.FlowNext}}, fn.Instructions...)
			g.InstructionCount++
			return checkFunction(g, r, ports.FunctionRequest{Address: 0x1030}, ports.ProcedurePart{FunctionRange: ports.FunctionRange{Start: 0x10, End: 0x20}, Procedure: r.Start})
		}, false},
		{"function instructions of another's part", func() error {
			g := fn
			g.Instructions = append(slices.Clone(fn.Instructions), ports.Instruction{Address: 0x10, Bytes: []byte{0x90}, Text: "nop", Mnemonic: "nop", Flow: ports.FlowNext})
			g.InstructionCount++
			return checkFunction(g, r, ports.FunctionRequest{Address: 0x1030}, ports.ProcedurePart{FunctionRange: ports.FunctionRange{Start: 0x10, End: 0x20}, Procedure: 0x5000})
		}, false},
		{"parts ok", func() error {
			return checkParts([]ports.ProcedurePart{{FunctionRange: ports.FunctionRange{Start: 0x10, End: 0x20}, Procedure: r.Start}}, []ports.FunctionRange{r})
		}, true},
		{"part overlapping a procedure", func() error {
			return checkParts([]ports.ProcedurePart{{FunctionRange: ports.FunctionRange{Start: r.Start - 4, End: r.Start + 4}, Procedure: r.Start}}, []ports.FunctionRange{r})
		}, false},
		{"part of no procedure", func() error {
			return checkParts([]ports.ProcedurePart{{FunctionRange: ports.FunctionRange{Start: 0x10, End: 0x20}, Procedure: 0x5000}}, []ports.FunctionRange{r})
		}, false},
		{"function over the limit", func() error {
			return checkFunction(fn, r, ports.FunctionRequest{Address: 0x1030, MaxInstructions: 1})
		}, false},

		{"references ok", func() error {
			return errors.Join(checkRefsFrom(from, 0, math.MaxUint64), checkRefsTo(to, 0, math.MaxUint64), checkRefsAgree(from, to))
		}, true},
		{"references from unsorted", func() error {
			return checkRefsFrom([]ports.Reference{from[3], from[2]}, 0, math.MaxUint64)
		}, false},
		{"references from outside", func() error { return checkRefsFrom(from, 0x1001, math.MaxUint64) }, false},
		{"references to unsorted", func() error { return checkRefsTo([]ports.Reference{to[1], to[0]}, 0, math.MaxUint64) }, false},
		{"references to unresolved", func() error { return checkRefsTo(from[:1], 0, math.MaxUint64) }, false},
		{"references to outside", func() error { return checkRefsTo(to, 0x1001, math.MaxUint64) }, false},
		{"references kind", func() error {
			return checkRefsFrom([]ports.Reference{{From: 1, To: 2, Kind: "borrow"}}, 0, math.MaxUint64)
		}, false},
		{"references unresolved with target", func() error {
			return checkRefsFrom([]ports.Reference{{From: 1, To: 2, Kind: ports.RefCall, Unresolved: true}}, 0, math.MaxUint64)
		}, false},
		{"references missing from To", func() error { return checkRefsAgree(from, to[1:]) }, false},
		{"references missing from From", func() error { return checkRefsAgree(from[:3], to) }, false},

		{"value flow ok", vfWith(func(*ports.ValueFlow) {}), true},
		{"value flow operations unsorted", vfWith(func(v *ports.ValueFlow) {
			v.Operations[0], v.Operations[1] = v.Operations[1], v.Operations[0]
		}), false},
		{"value flow operation outside", vfWith(func(v *ports.ValueFlow) { v.Operations[8].Address = 0x1050 }), false},
		{"value flow def-use unsorted", vfWith(func(v *ports.ValueFlow) { v.DefUses[0], v.DefUses[1] = v.DefUses[1], v.DefUses[0] }), false},
		{"value flow def-use to nowhere", vfWith(func(v *ports.ValueFlow) { v.DefUses[0].Use = 0x1032 }), false},
		{"value flow effect kind", vfWith(func(v *ports.ValueFlow) { v.Effects[0].Kind = "print" }), false},
		{"value flow effect unsorted", vfWith(func(v *ports.ValueFlow) { v.Effects[0], v.Effects[1] = v.Effects[1], v.Effects[0] }), false},
		{"value flow negative omission", vfWith(func(v *ports.ValueFlow) { v.OmittedEdges = -1 }), false},
		{"value flow parameter", vfWith(func(v *ports.ValueFlow) { v.Parameters = []ports.InferredParameter{{Position: -1}} }), false},
		{"value flow truncated may name more", vfWith(func(v *ports.ValueFlow) { v.Truncated, v.DefUses[0].Use = true, 0x1032 }), true},

		{"layout ok", layWith(func(*ports.Layout) {}), true},
		{"layout bits", layWith(func(l *ports.Layout) { l.Bits = 16 }), false},
		{"layout byte order", layWith(func(l *ports.Layout) { l.ByteOrder = "middle" }), false},
		{"layout section beyond the file", layWith(func(l *ports.Layout) { l.Sections[0].FileSize = 0x1000 }), false},
		{"layout section indexes", layWith(func(l *ports.Layout) { l.Sections[1].Index = 1 }), false},
		{"layout mapped section unknown", layWith(func(l *ports.Layout) {
			l.Segments = []ports.LayoutSegment{{Index: 0, SectionIndexesMapped: []int{9}}}
		}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.check()
			is.Equal(err == nil, tt.ok) // check result
		})
	}
}

func TestCheckEarlyProcedures(t *testing.T) {
	all := []ports.Procedure{{Address: 0x10, Name: "a"}, {Address: 0x20}, {Address: 0x30, Name: "c"}}
	part := ports.EarlyProcedures{Procedures: []ports.Procedure{all[0], all[2]}}
	tests := []struct {
		name          string
		before, after ports.EarlyProcedures
		ok            bool
	}{
		{"tables", part, part, true},
		{"complete", ports.EarlyProcedures{Procedures: all, Complete: true}, ports.EarlyProcedures{Procedures: all, Complete: true}, true},
		{"complete but short", ports.EarlyProcedures{Procedures: part.Procedures, Complete: true}, ports.EarlyProcedures{Procedures: part.Procedures, Complete: true}, false},
		{"changed after the list", part, ports.EarlyProcedures{Procedures: all}, false},
		{"not in the list", ports.EarlyProcedures{Procedures: []ports.Procedure{{Address: 0x18}}}, ports.EarlyProcedures{Procedures: []ports.Procedure{{Address: 0x18}}}, false},
		{"unsorted", ports.EarlyProcedures{Procedures: []ports.Procedure{all[2], all[0]}}, ports.EarlyProcedures{Procedures: []ports.Procedure{all[2], all[0]}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := checkEarlyProcedures(tt.before, tt.after, all)
			is.Equal(err == nil, tt.ok)
		})
	}
}

// An architecture report that contradicts what decoding says is rejected.
func TestCheckArchitectureSupport(t *testing.T) {
	ctx := t.Context()
	a, err := NewCodeFake().Open(ctx, ports.Target{Format: "elf"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := newCodeView(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sup ports.ArchitectureSupport
		ok  bool
	}{
		{ports.ArchitectureSupport{Decodes: true, ValueFlow: true}, true},
		{ports.ArchitectureSupport{Decodes: false}, false},                  // the fake decodes
		{ports.ArchitectureSupport{Decodes: true, ValueFlow: false}, false}, // and models value flow
		{ports.ArchitectureSupport{ValueFlow: true}, false},
	} {
		is := is.New(t)
		err := checkArchitectureSupport(ctx, a, tt.sup, v)
		is.Equal(err == nil, tt.ok)
	}
}

func TestCheckSourceLocation(t *testing.T) {
	tests := []struct {
		name string
		loc  ports.SourceLocation
		ok   bool
	}{
		{"a line", ports.SourceLocation{File: "/src/main.c", Line: 3, Column: 5, Function: "main"}, true},
		{"line 0", ports.SourceLocation{File: "/src/main.c"}, true},
		{"inlined", ports.SourceLocation{File: "/src/main.c", Line: 10, Function: "main",
			Inlined: []ports.InlinedCall{{Function: "say", CallFile: "/src/main.c", CallLine: 4}}}, true},
		{"negative line", ports.SourceLocation{File: "/src/main.c", Line: -1}, false},
		{"negative column", ports.SourceLocation{File: "/src/main.c", Line: 1, Column: -2}, false},
		{"inlined at a negative line", ports.SourceLocation{File: "/src/main.c", Line: 10,
			Inlined: []ports.InlinedCall{{Function: "say", CallLine: -4}}}, false},
	}
	for _, tt := range tests {
		if err := checkSourceLocation(tt.loc); (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
