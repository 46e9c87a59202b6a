package native

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// flowOf runs the value flow over code at 0x1000 as one procedure.
func flowOf(a arch, sm semantics, cc convention, code []byte) ports.ValueFlow {
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	r := ports.FunctionRange{Start: 0x1000, End: 0x1000 + uint64(len(code))}
	return valueFlowOf(context.Background(), newDecoder(a, mm, source{}), sm, cc, code, r, r.End, 1000, vfTargets{})
}

func params(vf ports.ValueFlow) []string {
	var out []string
	for _, p := range vf.Parameters {
		out = append(out, p.Location)
	}
	return out
}

func hasEdge(vf ports.ValueFlow, def, use uint64, loc string) bool {
	return slices.Contains(vf.DefUses, ports.DefUse{Def: def, Use: use, Location: loc})
}

// TestValueFlowAArch64: add3 as gcc -O0 writes it (arguments spilled to
// the frame and reloaded), a store through a pointer, and a caller that
// keeps its argument in a callee-saved register across a call, assembled
// with llvm-mc.
func TestValueFlowAArch64(t *testing.T) {
	is := is.New(t)
	add3 := []byte{
		0xff, 0x43, 0x00, 0xd1, // sub sp, sp, #16
		0xe0, 0x0f, 0x00, 0xb9, // str w0, [sp, #12]
		0xe1, 0x0b, 0x00, 0xb9, // str w1, [sp, #8]
		0xe2, 0x07, 0x00, 0xb9, // str w2, [sp, #4]
		0xe1, 0x0f, 0x40, 0xb9, // ldr w1, [sp, #12]
		0xe0, 0x0b, 0x40, 0xb9, // ldr w0, [sp, #8]
		0x20, 0x00, 0x00, 0x0b, // add w0, w1, w0
		0xe1, 0x07, 0x40, 0xb9, // ldr w1, [sp, #4]
		0x20, 0x00, 0x00, 0x0b, // add w0, w1, w0
		0xff, 0x43, 0x00, 0x91, // add sp, sp, #16
		0xc0, 0x03, 0x5f, 0xd6, // ret
	}
	vf := flowOf(archARM64, arm64Sem{}, aapcs64, add3)
	is.Equal(vf.CallingConvention, "aapcs64")
	is.Equal(params(vf), []string{"x0", "x1", "x2"})
	is.True(hasEdge(vf, 0x1004, 0x1010, "[sp-4]")) // the spill of x0 ([sp+0xc] past sub sp, sp, #16) reaches its reload
	is.True(hasEdge(vf, 0x1010, 0x1018, "x1"))     // the reload reaches the add
	is.True(hasEdge(vf, 0x1020, 0x1028, "x0"))     // the sum reaches the return
	is.Equal(len(vf.Effects), 1)                   // the return only: spills are not effects
	is.Equal(vf.Effects[0].Definitions, []uint64{0x1020})

	store := []byte{0x01, 0x00, 0x00, 0xb9, 0xc0, 0x03, 0x5f, 0xd6} // str w1, [x0]; ret
	vf = flowOf(archARM64, arm64Sem{}, aapcs64, store)
	is.Equal(params(vf), []string{"x0", "x1"})
	is.Equal(vf.Effects[0].Kind, ports.EffectMemoryWrite)
	is.Equal(vf.Effects[0].Location, "[x0]")
	is.Equal(vf.Effects[0].Value, "w1")

	caller := []byte{
		0xfd, 0x7b, 0xbe, 0xa9, // stp x29, x30, [sp, #-32]!
		0xfd, 0x03, 0x00, 0x91, // mov x29, sp
		0xf3, 0x0b, 0x00, 0xf9, // str x19, [sp, #16]
		0xf3, 0x03, 0x00, 0x2a, // mov w19, w0
		0x62, 0x00, 0x80, 0x52, // mov w2, #3
		0x41, 0x00, 0x80, 0x52, // mov w1, #2
		0xf2, 0xff, 0xff, 0x97, // bl
		0x00, 0x78, 0x1f, 0x53, // lsl w0, w0, #1
		0xf3, 0x0b, 0x40, 0xf9, // ldr x19, [sp, #16]
		0xfd, 0x7b, 0xc2, 0xa8, // ldp x29, x30, [sp], #32
		0xc0, 0x03, 0x5f, 0xd6, // ret
	}
	vf = flowOf(archARM64, arm64Sem{}, aapcs64, caller)
	is.Equal(params(vf), []string{"x0"})            // x0 is copied to x19; the call's x0 comes from the entry too
	is.True(hasEdge(vf, 0x1018, 0x101c, "x0"))      // the call's result reaches the shift
	is.True(hasEdge(vf, 0x1008, 0x1020, "[sp-16]")) // the callee-saved spill ([sp+0x10]) reaches its restore
	is.True(hasEdge(vf, 0x1000, 0x1024, "[sp-32]")) // the pushed frame record reaches the post-indexed pop
	is.True(hasEdge(vf, 0x1000, 0x1024, "[sp-24]")) // both of its words
	var ret ports.ValueFlowEffect
	for _, e := range vf.Effects {
		if e.Kind == ports.EffectReturn {
			ret = e
		}
	}
	is.Equal(ret.Definitions, []uint64{0x101c})
}

// TestValueFlowMicrosoftX64: under the Microsoft convention the arguments
// are rcx, rdx, r8 and r9.
func TestValueFlowMicrosoftX64(t *testing.T) {
	is := is.New(t)
	code := []byte{0x8d, 0x04, 0x11, 0x44, 0x01, 0xc0, 0xc3} // lea eax, [rcx+rdx]; add eax, r8d; ret
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	vf := flowOf(archX8664, &x86Sem{d: newX86(64, mm, source{})}, msX64, code)
	is.Equal(vf.CallingConvention, "ms-x64")
	is.Equal(params(vf), []string{"rcx", "rdx", "r8"})
	vf = flowOf(archX8664, &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64, code)
	is.Equal(params(vf), []string{"rdx", "rcx", "r8"}) // the same code read as SysV, in SysV order
	is.True(hasEdge(vf, 0x1000, 0x1003, "rax"))
	is.True(hasEdge(vf, 0x1003, 0x1006, "rax"))
}

// TestValueFlowTooLarge: a procedure whose blocks times tracked slots
// exceed the solver's bound keeps its register flow, drops memory tracking
// and says so.
func TestValueFlowTooLarge(t *testing.T) {
	is := is.New(t)
	var code []byte
	for k := range 1600 {
		d := uint32(8 * (k + 1))
		// mov [rsp+d], eax; je .+2 (a block per slot)
		code = append(code, 0x89, 0x84, 0x24, byte(d), byte(d>>8), byte(d>>16), byte(d>>24), 0x74, 0x00)
	}
	code = append(code, 0x89, 0xf8, 0xc3) // mov eax, edi; ret
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x10000, fileSize: 0x10000, exec: true}}}
	r := ports.FunctionRange{Start: 0x1000, End: 0x1000 + uint64(len(code))}
	vf := valueFlowOf(context.Background(), newDecoder(archX8664, mm, source{}), &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64,
		code, r, r.End, 100000, vfTargets{})
	is.True(vf.Truncated)
	is.True(slices.Contains(vf.Limitations, "The procedure is too large to track memory; only registers carry def-use edges."))
	is.Equal(params(vf), []string{"rdi"})
	is.Equal(len(vf.Operations), 3202)
	for _, e := range vf.DefUses {
		is.True(e.Location[0] != '[') // no memory edges
	}
}

// TestValueFlowCallArguments: which registers a call passes through from
// the entry, on hand-assembled x86-64 (SysV).
func TestValueFlowCallArguments(t *testing.T) {
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	call := []byte{0xe8, 0, 0, 0, 0}
	cat := func(parts ...[]byte) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	movESI2, movEDX3, movECX1 := []byte{0xbe, 2, 0, 0, 0}, []byte{0xba, 3, 0, 0, 0}, []byte{0xb9, 1, 0, 0, 0}
	ret := []byte{0xc3}
	for _, tc := range []struct {
		name string
		code []byte
		want []string
	}{
		// g(x, 2, 3): rdi is passed through.
		{"pass-through", cat(movESI2, movEDX3, call, ret), []string{"rdi"}},
		// rsi and rcx set with rdx between them unset: rcx may be scratch,
		// so nothing below is taken as passed through.
		{"gap", cat(movESI2, movECX1, call, ret), nil},
		// test edi, edi; je over; mov esi, 1; call: rsi reaches the call
		// from the entry on one path only, so it is no parameter.
		{"one path", cat([]byte{0x85, 0xff, 0x74, 0x05}, []byte{0xbe, 1, 0, 0, 0}, call, ret), []string{"rdi"}},
		// A call alone passes nothing.
		{"bare call", cat(call, ret), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			vf := flowOf(archX8664, &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64, tc.code)
			is.Equal(params(vf), tc.want)
		})
	}
}

var update = flag.Bool("update", false, "rewrite the value-flow golden files in testdata/valueflow")

// TestValueFlowGolden compares the whole value flow of hand-assembled
// procedures with testdata/valueflow/*.json (rewrite with -update and
// review the diff): add3 as gcc -O0 writes it for x86-64, and a caller that
// keeps its argument across a call on AArch64.
func TestValueFlowGolden(t *testing.T) {
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	for _, tc := range []struct {
		name string
		a    arch
		sm   semantics
		cc   convention
		code []byte
	}{
		{"x86-64-add3-O0", archX8664, &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64, []byte{
			0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0x89, 0x75, 0xf8, 0x89, 0x55, 0xf4, 0x8b, 0x55, 0xfc, 0x8b, 0x45, 0xf8,
			0x01, 0xc2, 0x8b, 0x45, 0xf4, 0x01, 0xd0, 0x5d, 0xc3}},
		{"aarch64-caller", archARM64, arm64Sem{}, aapcs64, []byte{
			0xfd, 0x7b, 0xbe, 0xa9, 0xfd, 0x03, 0x00, 0x91, 0xf3, 0x0b, 0x00, 0xf9, 0xf3, 0x03, 0x00, 0x2a, 0x62, 0x00, 0x80, 0x52,
			0x41, 0x00, 0x80, 0x52, 0xf2, 0xff, 0xff, 0x97, 0x00, 0x78, 0x1f, 0x53, 0xf3, 0x0b, 0x40, 0xf9, 0xfd, 0x7b, 0xc2, 0xa8,
			0xc0, 0x03, 0x5f, 0xd6}},
		// 32-bit x86 under cdecl with its frame pointer, then the stack
		// realigned: words named by their places at the entry ([esp+4],
		// the frame pointer's [ebp+0x8]) and from the aligned stack
		// pointer ([(esp-4)&-16-12] below it, written by mov [esp+0x4] and
		// read back after a push and its release).
		{"i686-aligned", archX86, &x86Sem{d: newX86(32, mm, source{})}, cdecl, []byte{
			0x55, 0x89, 0xe5, 0x83, 0xe4, 0xf0, 0x83, 0xec, 0x10, 0x8b, 0x45, 0x08, 0x89, 0x44, 0x24, 0x04,
			0x50, 0xe8, 0xea, 0xff, 0xff, 0xff, 0x83, 0xc4, 0x04, 0x8b, 0x44, 0x24, 0x04, 0xc9, 0xc3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vf := flowOf(tc.a, tc.sm, tc.cc, tc.code)
			got, err := json.MarshalIndent(vf, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "valueflow", tc.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("value flow differs from %s (run with -update and review the diff):\n%s", path, got)
			}
		})
	}
}

// TestValueFlowVEX: VEX forms write their destination without reading it
// (vpmovmskb eax, ymm1 reads no rax), fused multiply-adds read it, and
// vptest writes nothing.
func TestValueFlowVEX(t *testing.T) {
	is := is.New(t)
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	sem := &x86Sem{d: newX86(64, mm, source{})}
	for _, tc := range []struct {
		code       []byte
		defs, uses []string
	}{
		{[]byte{0xc5, 0xfd, 0xd7, 0xc1}, []string{"rax"}, []string{"xmm1"}},                        // vpmovmskb eax, ymm1
		{[]byte{0xc5, 0xfd, 0x74, 0x0f}, []string{"xmm1"}, []string{"xmm0", "rdi", "[rdi]"}},       // vpcmpeqb ymm1, ymm0, [rdi]
		{[]byte{0xc4, 0xe2, 0xf1, 0xb9, 0xc2}, []string{"xmm0"}, []string{"xmm1", "xmm2", "xmm0"}}, // vfmadd231sd xmm0, xmm1, xmm2
		{[]byte{0xc4, 0xe2, 0x7d, 0x17, 0xc1}, nil, []string{"xmm0", "xmm1"}},                      // vptest ymm0, ymm1
	} {
		var in insn
		d := newX86(64, mm, source{})
		d.reset(tc.code, 0x1000)
		d.step(tc.code, 0x1000, &in)
		s := sem.sem(tc.code, 0x1000, &in)
		is.True(!s.opaque)
		is.Equal(s.defs, tc.defs)
		is.Equal(s.uses, tc.uses)
	}
}

// TestPrototypeArity: the C library's prototypes place integers and
// pointers in the integer registers and float and double in the vector
// ones, each class in turn under SysV and AAPCS64 and by position under
// Microsoft x64, and count the stack words past them (cdecl's every one);
// not under Go's conventions. A printf-family one knows where its format
// is (1 + its position).
func TestPrototypeArity(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		cc   convention
		name string
		want calleeArity
		ok   bool
	}{
		{sysvAMD64, "puts@plt", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 1}, true},
		{sysvAMD64, "printf", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 1, variadic: true, format: 1}, true},
		{sysvAMD64, "ldexp", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 1, vecs: 1}, true},
		{aapcs64, "pow@GLIBC_2.29", calleeArity{source: sourcePrototype, known: true, exact: true, vecs: 2}, true},
		{aapcs64, "__snprintf_chk", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 5, variadic: true, format: 5}, true},
		{sysvAMD64, "malloc", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 1}, true},
		{aapcs64, "abort", calleeArity{source: sourcePrototype, known: true, exact: true}, true},
		{sysvAMD64, "no_such_function", calleeArity{}, false},
		{msX64, "puts", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 1}, true},
		{msX64, "printf", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 1, variadic: true, format: 1}, true},
		{msX64, "ldexp", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 2, vecs: 1, intHoles: 1}, true}, // xmm0, edx
		{msX64, "pow", calleeArity{source: sourcePrototype, known: true, exact: true, vecs: 2}, true},
		{msX64, "__snprintf_chk", calleeArity{source: sourcePrototype, known: true, exact: true, ints: 4, variadic: true, words: 1, format: 5}, true}, // the fifth on the stack
		{goAMD64, "puts", calleeArity{}, false},
		{cdecl, "puts", calleeArity{source: sourcePrototype, known: true, exact: true, words: 1}, true},
		{cdecl, "pow", calleeArity{source: sourcePrototype, known: true, exact: true, words: 4}, true}, // two doubles
	} {
		got, ok := tc.cc.prototypeArity(tc.name)
		is.Equal(ok, tc.ok)
		is.Equal(got, tc.want)
	}
}

// TestValueFlowALCount: on x86-64 SysV, al set to a constant just before a
// call of unknown arity counts the vector registers it passes, so the
// caller's own xmm0 passed through is a parameter; a constant that is
// also stored (a flag, not a count) or too large to be one counts nothing.
func TestValueFlowALCount(t *testing.T) {
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	for _, tc := range []struct {
		name string
		code []byte
		want []string
	}{
		{"count", []byte{0x48, 0x8d, 0x3d, 0x00, 0x01, 0x00, 0x00, // lea rdi, [rip+0x100]
			0xb8, 0x01, 0x00, 0x00, 0x00, // mov eax, 1
			0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3}, []string{"xmm0"}}, // call; ret
		{"al", []byte{0xb0, 0x02, 0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3}, []string{"xmm0", "xmm1"}}, // mov al, 2; call; ret
		{"stored", []byte{0xb8, 0x01, 0x00, 0x00, 0x00, // mov eax, 1
			0x89, 0x44, 0x24, 0x08, // mov [rsp+8], eax
			0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3}, nil},
		{"large", []byte{0xb8, 0x01, 0x80, 0x00, 0x00, 0xe8, 0x00, 0x01, 0x00, 0x00, 0xc3}, nil}, // mov eax, 0x8001; call; ret
	} {
		t.Run(tc.name, func(t *testing.T) {
			vf := flowOf(archX8664, &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64, tc.code)
			if got := params(vf); !slices.Equal(got, tc.want) {
				t.Errorf("inferred %v, want %v", got, tc.want)
			}
		})
	}
}

// TestValueFlowMOVHLPS: movhlps moves a high half down to be read (its
// destination's upper half, kept, goes unused), so it reads only its
// source: libc's _IO_str_overflow had a false xmm4 parameter from
// "movhlps xmm4, xmm2; movq r13, xmm4".
func TestValueFlowMOVHLPS(t *testing.T) {
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	code := []byte{0x0f, 0x12, 0xe2, // movhlps xmm4, xmm2
		0x66, 0x48, 0x0f, 0x7e, 0xe0, // movq rax, xmm4
		0xc3} // ret
	vf := flowOf(archX8664, &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64, code)
	if got := params(vf); !slices.Equal(got, []string{"xmm2"}) {
		t.Errorf("inferred %v, want [xmm2]", got)
	}
}
