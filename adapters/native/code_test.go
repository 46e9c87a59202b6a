package native_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

func procedureNamed(t *testing.T, a *native.Analysis, name string) ports.Procedure {
	t.Helper()
	procs, err := a.Procedures(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(procs, func(p ports.Procedure) bool { return p.Name == name })
	if i < 0 {
		t.Fatalf("no procedure %s", name)
	}
	return procs[i]
}

// TestJumpTable: the dense switch of dispatch is recovered as a jump table,
// at -O0 and -O2, with and without CET; every case is an edge and none is
// unresolved.
func TestJumpTable(t *testing.T) {
	codeFixtures()
	for _, name := range append([]string{"code-O0", "code-O2", "code-cet"}, clangCode...) {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a := openAnalysis(t, fixturePath(t, name))
			p := procedureNamed(t, a, "dispatch")
			f, err := a.Function(context.Background(), ports.FunctionRequest{Address: p.Address})
			is.NoErr(err)
			var cases []uint64
			for _, b := range f.Blocks {
				for _, e := range b.Successors {
					is.True(e.Kind != ports.EdgeUnresolved || !strings.HasSuffix(name, "code-O0")) // optimised builds tail-call through the pointer table
					if e.Kind == ports.EdgeJumpTable {
						cases = append(cases, e.Target)
						is.True(e.Target >= f.Start && e.Target < f.End) // cases are inside dispatch
					}
				}
			}
			slices.Sort(cases)
			cases = slices.Compact(cases)
			is.True(len(cases) >= 8) // nine cases, some may share a block
			refs, err := a.ReferencesFrom(context.Background(), f.Start, f.End)
			is.NoErr(err)
			jumps := 0
			for _, r := range refs {
				if r.Kind == ports.RefJump && !r.Unresolved && slices.Contains(cases, r.To) {
					jumps++
				}
			}
			is.True(jumps >= len(cases))
		})
	}
}

// TestReferences checks calls, string references, callers through
// ReferencesTo, and an unresolved indirect call reported with its operand.
func TestReferences(t *testing.T) {
	codeFixtures()
	is := is.New(t)
	ctx := context.Background()
	a := openAnalysis(t, fixturePath(t, "code-O0"))
	strs, err := a.Strings(ctx)
	is.NoErr(err)
	i := slices.IndexFunc(strs, func(s ports.String) bool { return s.Value == "rea-code-fixture: alpha handler reached" })
	is.True(i >= 0)
	s := strs[i]
	to, err := a.ReferencesTo(ctx, s.Address, s.Address+uint64(s.ByteLength))
	is.NoErr(err)
	is.Equal(len(to), 1)
	alpha := procedureNamed(t, a, "handler_alpha")
	rs, err := a.FunctionRanges(ctx)
	is.NoErr(err)
	k := slices.IndexFunc(rs, func(r ports.FunctionRange) bool { return r.Start == alpha.Address })
	is.True(to[0].From >= rs[k].Start && to[0].From < rs[k].End) // the string is referenced by handler_alpha
	is.Equal(to[0].Kind, ports.RefAddress)

	callers, err := a.ReferencesTo(ctx, alpha.Address, alpha.Address+1)
	is.NoErr(err)
	is.Equal(len(callers), 1)
	is.Equal(callers[0].Kind, ports.RefCall)
	dispatch := procedureNamed(t, a, "dispatch")
	is.True(callers[0].From > dispatch.Address && callers[0].From < dispatch.Address+dispatch.Size)

	out, err := a.ReferencesFrom(ctx, dispatch.Address, dispatch.Address+dispatch.Size)
	is.NoErr(err)
	unresolved := slices.IndexFunc(out, func(r ports.Reference) bool { return r.Unresolved && r.Kind == ports.RefCall })
	is.True(unresolved >= 0) // table[...](3, 4)
	is.True(out[unresolved].Operand != "")
	is.Equal(out[unresolved].To, uint64(0))
	is.True(slices.IsSortedFunc(out, func(a, b ports.Reference) int { return int(a.From>>1) - int(b.From>>1) }))
}

// TestDisassembleText pins the Intel rendering of known instructions.
func TestDisassembleText(t *testing.T) {
	codeFixtures()
	is := is.New(t)
	a := openAnalysis(t, fixturePath(t, "code-cet"))
	main := procedureNamed(t, a, "main")
	d, err := a.Disassemble(context.Background(), ports.DisassembleRequest{Address: main.Address, MaxInstructions: 3})
	is.NoErr(err)
	is.Equal(d.Syntax, "intel")
	is.Equal(len(d.Instructions), 3)
	is.True(d.Truncated)
	first := d.Instructions[0]
	is.Equal(first.Mnemonic, "endbr64")
	is.Equal(first.Bytes, []byte{0xf3, 0x0f, 0x1e, 0xfa})
	f, err := a.Function(context.Background(), ports.FunctionRequest{Address: procedureNamed(t, a, "handler_alpha").Address})
	is.NoErr(err)
	var lea string
	calls := 0
	for _, in := range f.Instructions {
		switch in.Mnemonic {
		case "lea":
			lea = in.Text
		case "call":
			if strings.HasSuffix(in.Text, "<puts@plt>") && in.Flow == ports.FlowCall && in.HasTarget {
				calls++
			}
		}
	}
	is.True(strings.HasPrefix(lea, "lea rdi, [rip+0x") && strings.Contains(lea, "# 0x"))
	is.Equal(calls, 1) // call 0x... <puts@plt>
}

// TestSignatureFromDWARF derives parameters and their registers, from gcc's
// DWARF and clang's DWARF 5 and 4.
func TestSignatureFromDWARF(t *testing.T) {
	codeFixtures()
	for _, name := range []string{"code-O0-g", "clang-code-O0-g", "clang-code-O2-g", "clang-code-O2-g4"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a := openAnalysis(t, fixturePath(t, name))
			sig, err := a.Signature(context.Background(), procedureNamed(t, a, "dispatch").Address)
			is.NoErr(err)
			is.Equal(sig.CallingConvention, "sysv-amd64")
			is.Equal(sig.ReturnType, "int")
			is.Equal(sig.Parameters, []ports.Parameter{{Name: "c", Type: "int", Location: "rdi"}, {Name: "arg", Type: "const char *", Location: "rsi"}})
		})
	}
	is := is.New(t)
	a := openAnalysis(t, fixturePath(t, "code-O0"))
	_, err := a.Signature(context.Background(), procedureNamed(t, a, "dispatch").Address)
	is.True(errors.Is(err, ports.ErrNotFound)) // no debug information
}

// TestSignatureThroughAbstractOrigin: the entry of an inlined function's
// out-of-line copy names neither it, its result nor its parameters; it
// refers to the abstract entry (DW_AT_abstract_origin), and a C++ method's
// to its declaration in the class (DW_AT_specification), gcc's destructor
// through both. The signature is read through them, with symbols and from
// debug information alone.
func TestSignatureThroughAbstractOrigin(t *testing.T) {
	scaled := func(long string) []ports.Parameter {
		return []ports.Parameter{{Name: "v", Type: long, Location: "rdi"}, {Name: "tag", Type: "const char *", Location: "rsi"}}
	}
	this := func(typ string) []ports.Parameter {
		return []ports.Parameter{{Name: "this", Type: typ, Location: "rdi"}}
	}
	for _, tc := range []struct {
		fixture, fn, ret string
		params           []ports.Parameter
	}{
		{"inl-O2-g", "scaled", "long int", scaled("long int")},
		{"clang-inl-O2-g", "scaled", "long", scaled("long")},
		{"clang-inl-O2-g4", "scaled", "long", scaled("long")},
		{"vtable-g", "_ZNK2Sq4areaEv", "int", this("const struct Sq *const")},
		{"vtable-g", "_ZN2SqD0Ev", "void", this("struct Sq *const")},
		{"clang-vtable-g", "_ZNK2Sq4areaEv", "int", this("const struct Sq *")},
	} {
		for _, fixture := range []string{tc.fixture, tc.fixture + "-dwarf"} {
			if fixtures[fixture] == nil {
				continue
			}
			t.Run(fixture+"/"+tc.fn, func(t *testing.T) {
				is := is.New(t)
				a := openAnalysis(t, fixturePath(t, fixture))
				sig, err := a.Signature(context.Background(), procedureNamed(t, a, tc.fn).Address)
				is.NoErr(err)
				is.Equal(sig.ReturnType, tc.ret)
				is.Equal(sig.Parameters, tc.params)
			})
		}
	}
}

// TestSignatureGoRegisterABI places a Go function's parameters by Go's
// register ABI: a string in two integer registers, a slice in three, an
// interface and a two-field struct in two, a complex number in two float
// registers, an array of one element as its element and of two on the
// stack, a slice that no longer fits on the stack while a later int still
// takes a register, and an empty struct receiver in none. The registers
// are those the compiler's own location lists give (checked by hand with
// readelf --debug-dump=loc).
func TestSignatureGoRegisterABI(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    map[string][]ports.Parameter
	}{
		{"go-params-amd64", map[string][]ports.Parameter{
			"main.text": {{Name: "s", Type: "string", Location: "rax,rbx"}, {Name: "n", Type: "int", Location: "rcx"}, {Name: "b", Type: "[]uint8", Location: "rdi,rsi,r8"}},
			"main.mixed": {{Name: "err", Type: "error", Location: "rax,rbx"}, {Name: "x", Type: "float64", Location: "xmm0"},
				{Name: "p", Type: "main.pair", Location: "rcx,rdi"}, {Name: "c", Type: "complex128", Location: "xmm1,xmm2"},
				{Name: "one", Type: "[1]int", Location: "rsi"}, {Name: "two", Type: "[2]int", Location: "stack"},
				{Name: "e", Type: "interface {}", Location: "r8,r9"}, {Name: "m", Type: "map[string]int", Location: "r10"}},
			"main.spill": {{Name: "a", Type: "int", Location: "rax"}, {Name: "b", Type: "int", Location: "rbx"}, {Name: "c", Type: "int", Location: "rcx"},
				{Name: "d", Type: "int", Location: "rdi"}, {Name: "e", Type: "int", Location: "rsi"}, {Name: "f", Type: "int", Location: "r8"},
				{Name: "g", Type: "int", Location: "r9"}, {Name: "s", Type: "[]uint8", Location: "stack"}, {Name: "x", Type: "int", Location: "r10"}},
			"main.other": {{Name: "fn", Type: "func()", Location: "rax"}, {Name: "ch", Type: "chan int", Location: "rbx"},
				{Name: "up", Type: "unsafe.Pointer", Location: "rcx"}, {Name: "ok", Type: "bool", Location: "rdi"},
				{Name: "i8", Type: "int8", Location: "rsi"}, {Name: "f32", Type: "float32", Location: "xmm0"}, {Name: "ps", Type: "*string", Location: "r8"}},
			"main.empty.tag": {{Name: "h", Type: "main.empty", Location: "none"}, {Name: "s", Type: "string", Location: "rax,rbx"}},
		}},
		{"go-params-arm64", map[string][]ports.Parameter{
			"main.text": {{Name: "s", Type: "string", Location: "x0,x1"}, {Name: "n", Type: "int", Location: "x2"}, {Name: "b", Type: "[]uint8", Location: "x3,x4,x5"}},
		}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			a := openAnalysis(t, fixturePath(t, tc.fixture))
			for name, want := range tc.want {
				sig, err := a.Signature(context.Background(), procedureNamed(t, a, name).Address)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if sig.CallingConvention != "go-abiinternal" || !reflect.DeepEqual(sig.Parameters, want) {
					t.Errorf("%s: %s %+v\nwant %+v", name, sig.CallingConvention, sig.Parameters, want)
				}
			}
		})
	}
}

// TestCodeBadInput: typed errors for addresses outside code, for a start
// that is not a procedure, and for architectures without a decoder; a
// self-referential jump and undecodable bytes stay bounded.
func TestCodeBadInput(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := openAnalysis(t, fixturePath(t, "c"))
	_, err := a.Disassemble(ctx, ports.DisassembleRequest{Address: 0xdeadbeef0000})
	is.True(errors.Is(err, ports.ErrNotFound))
	_, err = a.Function(ctx, ports.FunctionRequest{Address: 1})
	is.True(errors.Is(err, ports.ErrNotFound))
	_, err = a.ReadBytes(ctx, 0xdeadbeef0000, 16)
	is.True(errors.Is(err, ports.ErrNotFound))
	refs, err := a.ReferencesFrom(ctx, 5, 1) // an empty range
	is.NoErr(err)
	is.Equal(len(refs), 0)

	// The same file claiming to be PowerPC: lists work, decoding does not.
	data, err := os.ReadFile(fixturePath(t, "c"))
	is.NoErr(err)
	binary.LittleEndian.PutUint16(data[18:], uint16(elf.EM_PPC64))
	ppc, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	is.NoErr(err)
	defer ppc.Close(ctx)
	procs, err := ppc.Procedures(ctx)
	is.NoErr(err)
	is.True(len(procs) > 0)
	_, err = ppc.Function(ctx, ports.FunctionRequest{Address: procs[0].Address})
	is.True(errors.Is(err, ports.ErrUnsupported))
	_, err = ppc.Disassemble(ctx, ports.DisassembleRequest{Address: procs[0].Address})
	is.True(errors.Is(err, ports.ErrUnsupported))

	// main's code overwritten with "jmp $" and then garbage.
	main := procedureNamed(t, a, "main")
	segs, err := a.Segments(ctx)
	is.NoErr(err)
	var off uint64
	for _, s := range segs {
		if main.Address >= s.Start && main.Address < s.Start+s.Size {
			off = s.FileOffset + main.Address - s.Start
		}
	}
	data, err = os.ReadFile(fixturePath(t, "c"))
	is.NoErr(err)
	copy(data[off:], []byte{0xeb, 0xfe, 0x0f, 0xff, 0xff, 0xff, 0xd6, 0x62, 0x62, 0xc4})
	bad, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	is.NoErr(err)
	defer bad.Close(ctx)
	f, err := bad.Function(ctx, ports.FunctionRequest{Address: main.Address})
	is.NoErr(err)
	is.Equal(f.Blocks[0].Successors, []ports.Edge{{Kind: ports.EdgeJump, Target: main.Address}}) // jmp $ is a loop on its own block
	is.True(slices.ContainsFunc(f.Instructions, func(in ports.Instruction) bool { return in.Invalid }))

	// main followed by zeros: decoding stays bounded by main's range.
	// (An ELF file keeps its section headers at the end, so the cut file
	// keeps them, past a gap of zeros.)
	holed := bytes.Clone(data)
	clear(holed[off+3 : off+0x400])
	cut, err := native.NewAnalysis(bytes.NewReader(holed), int64(len(holed)))
	is.NoErr(err)
	defer cut.Close(ctx)
	if _, err := cut.Procedures(ctx); err == nil {
		f, err := cut.Function(ctx, ports.FunctionRequest{Address: main.Address})
		is.True(err == nil || errors.Is(err, ports.ErrNotFound) || errors.Is(err, ports.ErrMalformed))
		is.True(f.InstructionCount <= int(f.End-f.Start))
	}
}

// TestCodeConcurrentAndCancelled: concurrent first calls share one
// computation; a cancelled one is not cached.
func TestCodeConcurrentAndCancelled(t *testing.T) {
	is := is.New(t)
	a := openAnalysis(t, ls)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := a.FunctionRanges(cancelled)
	is.True(errors.Is(err, context.Canceled))
	var wg sync.WaitGroup
	results := make([][]ports.FunctionRange, 8)
	for k := range results {
		wg.Go(func() {
			r, err := a.FunctionRanges(context.Background())
			if err != nil {
				t.Error(err)
			}
			results[k] = r
		})
	}
	wg.Wait()
	for _, r := range results[1:] {
		is.Equal(r, results[0])
	}
	is.True(len(results[0]) > 300)
}

// TestGoDataReferences: main.main reads the global main.marker, through
// ADRP+LDR on AArch64 (ELF and Mach-O) and RIP-relative addressing on
// x86-64 (PE).
func TestGoDataReferences(t *testing.T) {
	for _, name := range []string{"go-linux-arm64", "go-darwin-arm64", "go-windows-amd64"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			a := openAnalysis(t, fixturePath(t, name))
			names, err := a.Names(ctx)
			is.NoErr(err)
			i := slices.IndexFunc(names, func(n ports.Name) bool { return n.Name == "main.marker" || n.Name == "_main.marker" })
			is.True(i >= 0)
			main := procedureNamed(t, a, "main.main")
			refs, err := a.ReferencesTo(ctx, names[i].Address, names[i].Address+16)
			is.NoErr(err)
			is.True(slices.ContainsFunc(refs, func(r ports.Reference) bool {
				return r.From >= main.Address && r.From < main.Address+max(main.Size, 0x400) && r.Kind == ports.RefRead
			})) // main.main reads main.marker
		})
	}
}
