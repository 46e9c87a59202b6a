package native_test

import (
	"bufio"
	"bytes"
	"context"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"

	"rea/ports"
)

// .NET assemblies built by mono's C# compiler (mcs) from testdata/clr,
// compared with ikdasm, mono's IL disassembler.

var registerCIL sync.Once

// registerCILFixtures adds the assemblies built by mcs from
// testdata/clr/app.cs to the fixtures, once.
func registerCILFixtures() {
	for n, f := range map[string][]string{"cil": {"-optimize+"}, "cil-debug": {"-optimize-"}, "cil-x64": {"-optimize+", "-platform:x64"},
		"cil-lib": {"-optimize+", "-target:library"}} {
		fixtures[n] = &fixture{tools: []string{"mcs"}, build: func(ctx context.Context) (string, error) {
			out := filepath.Join(fixtureDir, n+".exe")
			_, err := run(ctx, "", nil, "mcs", append(append([]string{}, f...), "-out:"+out, filepath.Join("testdata", "clr", "app.cs"))...)
			return out, err
		}}
	}
}

// cilFixture builds one of them, skipping without mcs.
func cilFixture(t *testing.T, name string) string {
	t.Helper()
	registerCIL.Do(registerCILFixtures)
	if _, ok := fixtures[name]; !ok {
		t.Fatalf("no CIL fixture %q", name)
	}
	needToolPkg(t, "mcs", "mono-devel")
	return fixturePath(t, name)
}

func needToolPkg(t *testing.T, tool, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s is not installed: apt install %s", tool, pkg)
	}
}

// ilMethod is one method as ikdasm prints it.
type ilMethod struct {
	size     int
	insns    []ilInsn
	handlers []string // as CILMethod.Handlers writes them
	eh       ilEH
}

// ilEH follows ikdasm's nested .try, catch, finally, fault and filter
// blocks through a method: a block starts at the next instruction and
// ends where the next instruction (or the code) starts.
type ilEH struct {
	open    []*ilRegion
	done    []*ilRegion
	tries   map[int]*ilRegion // the last try closed at each depth
	pending []*int            // offsets waiting for the next instruction
}

type ilRegion struct {
	try                bool
	kind               string // catch T, finally, fault, filter
	start, end, filter int
	tryStart, tryEnd   *int
}

// line takes a line that is not an instruction.
func (e *ilEH) line(s string) {
	s = strings.TrimSpace(s)
	push := func(r *ilRegion) {
		r.start, r.end, r.filter = -1, -1, -1
		e.open = append(e.open, r)
		e.pending = append(e.pending, &r.start)
	}
	pop := func() *ilRegion {
		if len(e.open) == 0 {
			return &ilRegion{}
		}
		r := e.open[len(e.open)-1]
		e.open = e.open[:len(e.open)-1]
		e.pending = append(e.pending, &r.end)
		return r
	}
	switch {
	case s == ".try":
		push(&ilRegion{try: true})
	case strings.HasPrefix(s, "catch "), s == "finally", s == "fault", s == "filter":
		push(&ilRegion{kind: s})
		if t := e.tries[len(e.open)-1]; t != nil {
			r := e.open[len(e.open)-1]
			r.tryStart, r.tryEnd = &t.start, &t.end
		}
		e.done = append(e.done, e.open[len(e.open)-1])
	case strings.Contains(s, "// end .try"):
		r := pop()
		if e.tries == nil {
			e.tries = map[int]*ilRegion{}
		}
		e.tries[len(e.open)] = r
	case strings.Contains(s, "// end filter"):
		// the handler follows in a block of its own
		if len(e.open) > 0 {
			r := e.open[len(e.open)-1]
			r.filter, r.start = r.start, -1
			e.pending = append(e.pending, &r.start)
		}
	case strings.Contains(s, "// end handler"):
		pop()
	}
}

// insn takes the offset of an instruction.
func (e *ilEH) insn(off int) {
	for _, p := range e.pending {
		*p = off
	}
	e.pending = e.pending[:0]
}

// clauses writes the method's clauses, its code size ending what is open.
func (e *ilEH) clauses(size int) []string {
	e.insn(size)
	var out []string
	for _, r := range e.done {
		if r.tryStart == nil {
			out = append(out, "handler without a try: "+r.kind)
			continue
		}
		what := r.kind
		if r.filter >= 0 {
			what = fmt.Sprintf("filter IL_%04x", r.filter)
		}
		out = append(out, fmt.Sprintf("try IL_%04x to IL_%04x %s handler IL_%04x to IL_%04x", *r.tryStart, *r.tryEnd, what, r.start, r.end))
	}
	*e = ilEH{}
	return out
}

type ilInsn struct {
	off      int
	mnemonic string
	operand  string // the first line of it
	targets  []int  // branch and switch targets
}

var (
	ilEnd    = regexp.MustCompile(`^\s*\} // end of (method|class) (\S+)`)
	ilSize   = regexp.MustCompile(`// Code size\s+(\d+)`)
	ilInsnRe = regexp.MustCompile(`^\s*IL_([0-9a-f]{4}):\s+(\S+)\s*(.*)$`)
	ilTarget = regexp.MustCompile(`IL_([0-9a-f]{4})`)
)

// ilClassName is the name a .class line declares, without its generic
// parameters or ikdasm's quotes ('<>c__Iterator0').
func ilClassName(line string) string {
	s := strings.TrimSpace(line)
	if i := strings.LastIndex(s, "'"); i > 0 {
		return s[strings.LastIndex(s[:i], "'")+1 : i]
	}
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = s[:i]
	}
	f := strings.Fields(s)
	return f[len(f)-1]
}

// ikdasmMethods runs ikdasm on path and returns its methods with bodies by
// rea's name for them (Namespace.Outer/Inner::Method).
func ikdasmMethods(t *testing.T, path string) map[string]*ilMethod {
	t.Helper()
	needToolPkg(t, "ikdasm", "mono-devel")
	out, err := run(t.Context(), "", nil, "ikdasm", path)
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]*ilMethod{}
	seen := map[string]int{}
	var classes []string
	cur := &ilMethod{size: -1}
	var last *ilInsn
	inSwitch := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), ".class ") && !strings.Contains(line, "extends") {
			classes = append(classes, ilClassName(line))
			continue
		}
		if m := ilSize.FindStringSubmatch(line); m != nil {
			cur.size, _ = strconv.Atoi(m[1])
			continue
		}
		if m := ilInsnRe.FindStringSubmatch(line); m != nil {
			off, _ := strconv.ParseInt(m[1], 16, 32)
			cur.eh.insn(int(off))
			cur.insns = append(cur.insns, ilInsn{off: int(off), mnemonic: m[2], operand: m[3]})
			last = &cur.insns[len(cur.insns)-1]
			inSwitch = m[2] == "switch"
			if !inSwitch && strings.HasPrefix(m[3], "IL_") {
				v, _ := strconv.ParseInt(m[3][3:7], 16, 32)
				last.targets = append(last.targets, int(v))
			}
			continue
		}
		if inSwitch && last != nil {
			for _, m := range ilTarget.FindAllStringSubmatch(line, -1) {
				v, _ := strconv.ParseInt(m[1], 16, 32)
				last.targets = append(last.targets, int(v))
			}
			inSwitch = !strings.Contains(line, ")")
		}
		cur.eh.line(line)
		if m := ilEnd.FindStringSubmatch(line); m != nil {
			switch m[1] {
			case "method":
				_, meth, _ := strings.Cut(m[2], "::")
				meth = strings.ReplaceAll(meth, "'", "") // ikdasm quotes names like '<Main>m__0'
				if cur.size >= 0 {
					cur.handlers = cur.eh.clauses(cur.size)
					methods[overload(seen, strings.Join(classes, "/")+"::"+meth)] = cur
				}
				cur, last = &ilMethod{size: -1}, nil
			case "class":
				if len(classes) > 0 {
					classes = classes[:len(classes)-1]
				}
			}
		}
	}
	if len(methods) == 0 {
		t.Fatalf("ikdasm printed no methods:\n%s", out)
	}
	return methods
}

// overload keys the k-th method of one name (an overload) name#k, the
// first plain name.
func overload(seen map[string]int, name string) string {
	seen[name]++
	if k := seen[name]; k > 1 {
		return name + "#" + strconv.Itoa(k)
	}
	return name
}

// TestCILMscorlibMatchesIkdasm decodes every method of mono's mscorlib
// (24,000 methods, 580,000 instructions: generics, nested types, every
// opcode the compiler emits) and compares each instruction's offset and
// mnemonic with ikdasm's.
func TestCILMscorlibMatchesIkdasm(t *testing.T) {
	const lib = "/usr/lib/mono/4.5/mscorlib.dll"
	if _, err := os.Stat(lib); err != nil {
		t.Skip("mono's mscorlib is not installed: apt install mono-devel")
	}
	methods, insns, bad := 0, 0, 0
	eachIkdasmMethod(t, lib, func(key string, m native.CILMethod, w *ilMethod) {
		methods++
		if len(w.insns) != len(m.Mnemonics) {
			t.Errorf("%s: %d instructions, ikdasm %d", key, len(m.Mnemonics), len(w.insns))
			return
		}
		for i := range m.Mnemonics {
			insns++
			if m.Offsets[i] != w.insns[i].off || m.Mnemonics[i] != w.insns[i].mnemonic {
				bad++
				if bad < 10 {
					t.Errorf("%s+%#x: %s, ikdasm IL_%04x %s", key, m.Offsets[i], m.Mnemonics[i], w.insns[i].off, w.insns[i].mnemonic)
				}
			}
		}
	})
	t.Logf("%d methods, %d instructions, %d differ", methods, insns, bad)
}

// eachIkdasmMethod pairs every method with a body that rea decodes in the
// assembly at path with ikdasm's (by name, overloads in order); a method
// only one side lists fails the test.
func eachIkdasmMethod(t *testing.T, path string, visit func(key string, got native.CILMethod, want *ilMethod)) {
	t.Helper()
	want := ikdasmMethods(t, path)
	got, err := native.CILMethods(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, m := range got {
		key := overload(seen, m.Name)
		w, ok := want[key]
		if !ok {
			t.Errorf("%s: not in ikdasm's output", key)
			continue
		}
		delete(want, key)
		visit(key, m, w)
	}
	for key := range want {
		t.Errorf("%s: in ikdasm's output only", key)
	}
}

// TestCILMethodsMatchIkdasm compares every method with a body, its size
// and every instruction (offset, mnemonic, branch and switch targets,
// string and member operands) with ikdasm's, on optimized and debug
// builds and on an x64 assembly.
func TestCILMethodsMatchIkdasm(t *testing.T) {
	for _, name := range []string{"cil", "cil-debug", "cil-x64", "cil-lib"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			path := cilFixture(t, name)
			want := ikdasmMethods(t, path)
			a := openAnalysis(t, path)
			ctx := t.Context()
			docs, err := a.Documents(ctx)
			is.NoErr(err)
			is.Equal(docs[0].Architecture, "cil")
			procs, err := a.Procedures(ctx)
			is.NoErr(err)
			got := map[string]ports.Procedure{}
			for _, p := range procs {
				got[p.Name] = p
			}
			is.Equal(len(got), len(want)) // one procedure per method with a body
			for mname, m := range want {
				p, ok := got[mname]
				if !ok {
					t.Errorf("%s: no procedure (have %v)", mname, procs)
					continue
				}
				if int(p.Size) != m.size {
					t.Errorf("%s: size %d, ikdasm %d", mname, p.Size, m.size)
				}
				fn, err := a.Function(ctx, ports.FunctionRequest{Address: p.Address, MaxInstructions: 100000})
				is.NoErr(err)
				if len(fn.Instructions) != len(m.insns) {
					t.Errorf("%s: %d instructions, ikdasm %d", mname, len(fn.Instructions), len(m.insns))
					continue
				}
				for i, in := range fn.Instructions {
					w := m.insns[i]
					off := int(in.Address - p.Address)
					if off != w.off || in.Mnemonic != w.mnemonic {
						t.Errorf("%s+%#x: %s, ikdasm IL_%04x %s", mname, off, in.Text, w.off, w.mnemonic)
						continue
					}
					checkOperand(t, mname, p.Address, in, w)
				}
			}
		})
	}
}

// checkOperand compares one instruction's operand with ikdasm's.
func checkOperand(t *testing.T, method string, start uint64, in ports.Instruction, w ilInsn) {
	t.Helper()
	switch {
	case len(w.targets) == 1 && w.mnemonic != "switch":
		if !in.HasTarget || int(in.Target-start) != w.targets[0] {
			t.Errorf("%s IL_%04x %s: target %#x, ikdasm IL_%04x", method, w.off, w.mnemonic, in.Target-start, w.targets[0])
		}
	case w.mnemonic == "switch":
		var got []int
		for _, f := range strings.Split(strings.Trim(in.Operands, "()"), ", ") {
			v, _ := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 64)
			got = append(got, int(v-start))
		}
		if !slices.Equal(got, w.targets) {
			t.Errorf("%s IL_%04x switch: %v, ikdasm %v", method, w.off, got, w.targets)
		}
	case w.mnemonic == "ldstr" && strings.HasPrefix(w.operand, `"`):
		if in.Operands != w.operand {
			t.Errorf("%s IL_%04x ldstr %s, ikdasm %s", method, w.off, in.Operands, w.operand)
		}
	case w.mnemonic == "call" || w.mnemonic == "callvirt" || w.mnemonic == "newobj" || w.mnemonic == "ldfld" || w.mnemonic == "stfld" ||
		w.mnemonic == "ldsfld" || w.mnemonic == "stsfld" || w.mnemonic == "ldftn":
		// ikdasm adds the signature and generic arguments: rea's name is
		// the member's, which ikdasm's holds.
		plain := strings.ReplaceAll(regexp.MustCompile(`<[^<>]*>`).ReplaceAllString(w.operand, ""), "'", "")
		// rea's operand adds the parameter types, which ikdasm may wrap
		// onto further lines: the member's name is compared.
		name, _, _ := strings.Cut(regexp.MustCompile(`<[^<>]*>`).ReplaceAllString(in.Operands, ""), "(")
		if !strings.Contains(plain, name) || in.Operands == "" {
			t.Errorf("%s IL_%04x %s %q, not in ikdasm's %q", method, w.off, w.mnemonic, in.Operands, w.operand)
		}
	}
}

// TestCILReferences checks what an agent asks of an assembly: the callees
// of Main (its own methods, a P/Invoke import of libc, mscorlib's
// members as imports), the code using a user string, a switch's jump
// table and the entry point.
func TestCILReferences(t *testing.T) {
	is := is.New(t)
	path := cilFixture(t, "cil")
	a := openAnalysis(t, path)
	ctx := t.Context()
	procs, err := a.Procedures(ctx)
	is.NoErr(err)
	byName := map[string]ports.Procedure{}
	for _, p := range procs {
		byName[p.Name] = p
	}
	docs, err := a.Documents(ctx)
	is.NoErr(err)
	is.True(docs[0].HasEntry)
	is.Equal(docs[0].Entry, byName["Rea.Fixture.Program::Main"].Address) // the managed entry point, not the native stub

	names, err := a.Names(ctx)
	is.NoErr(err)
	imports := map[uint64]ports.Name{}
	for _, n := range names {
		if n.Kind == "import" {
			imports[n.Address] = n
		}
	}
	main := byName["Rea.Fixture.Program::Main"]
	refs, err := a.ReferencesFrom(ctx, main.Address, main.Address+main.Size)
	is.NoErr(err)
	calls := map[string]bool{}
	for _, r := range refs {
		if r.Kind != ports.RefCall {
			continue
		}
		if n, ok := imports[r.To]; ok {
			calls[n.Library+"!"+n.Name] = true
		}
		for _, p := range procs {
			if p.Address == r.To {
				calls[p.Name] = true
			}
		}
	}
	for _, want := range []string{"Rea.Fixture.Program::Classify", "Rea.Fixture.Program::First", "Rea.Fixture.Program::Guarded",
		"Rea.Fixture.Circle/Builder::Build", "libc!getpid", "libc!strlen", "mscorlib!System.Console::WriteLine",
		"mscorlib!System.Collections.Generic.List`1::Add"} {
		if !calls[want] {
			t.Errorf("Main's calls lack %s: %v", want, calls)
		}
	}

	strs, err := a.Strings(ctx)
	is.NoErr(err)
	var parsed, unicode uint64
	for _, s := range strs {
		switch s.Value {
		case "parsed":
			parsed = s.Address
		case "h\u00e9llo w\u00f6rld \u2713":
			unicode = s.Address
		}
	}
	is.True(unicode != 0) // a user string beyond ASCII
	is.True(parsed != 0)
	to, err := a.ReferencesTo(ctx, parsed, parsed+1)
	is.NoErr(err)
	g := byName["Rea.Fixture.Program::Guarded"]
	is.Equal(len(to), 1)
	is.True(to[0].From >= g.Address && to[0].From < g.Address+g.Size) // ldstr "parsed" in Guarded's finally

	c := byName["Rea.Fixture.Program::Classify"]
	fn, err := a.Function(ctx, ports.FunctionRequest{Address: c.Address})
	is.NoErr(err)
	table := 0
	for _, b := range fn.Blocks {
		for _, e := range b.Successors {
			if e.Kind == ports.EdgeJumpTable {
				table++
			}
		}
	}
	is.Equal(table, 5) // switch (n) with cases 0 to 4

	// a static field: read and written by Circle's constructor (Count++)
	var count uint64
	for _, n := range names {
		if n.Name == "Rea.Fixture.Circle::Count" && n.Kind == "object" {
			count = n.Address
		}
	}
	is.True(count != 0)
	to, err = a.ReferencesTo(ctx, count, count+1)
	is.NoErr(err)
	kinds := map[string]int{}
	for _, r := range to {
		kinds[r.Kind]++
	}
	is.Equal(kinds, map[string]int{ports.RefRead: 1, ports.RefWrite: 1})

	// signatures from the metadata: names, types, argument slots
	for _, tc := range []struct {
		method, ret string
		params      []ports.Parameter
	}{
		{"Rea.Fixture.Program::Guarded", "int32", []ports.Parameter{{Name: "s", Type: "string", Location: "arg.0"}}},
		{"Rea.Fixture.Circle::Area", "float64", []ports.Parameter{{Name: "this", Type: "Rea.Fixture.Circle", Location: "arg.0"}}},
		{"Rea.Fixture.Program::First", "!!0", []ports.Parameter{{Name: "xs", Type: "[mscorlib]System.Collections.Generic.List`1<!!0>", Location: "arg.0"}}},
		{"Rea.Fixture.Point::.ctor", "void", []ports.Parameter{{Name: "this", Type: "Rea.Fixture.Point", Location: "arg.0"},
			{Name: "x", Type: "int32", Location: "arg.1"}, {Name: "y", Type: "int32", Location: "arg.2"}}},
		{"Rea.Fixture.Program::Main", "int32", []ports.Parameter{{Name: "args", Type: "string[]", Location: "arg.0"}}},
	} {
		sig, err := a.Signature(ctx, byName[tc.method].Address)
		is.NoErr(err)
		is.Equal(sig.Source, "cil-metadata")
		is.Equal(sig.ReturnType, tc.ret)
		is.Equal(sig.Parameters, tc.params)
	}
}

// FuzzCIL opens mutated assemblies and decodes every method: no panic,
// only typed errors.
func FuzzCIL(f *testing.F) {
	if path, err := buildCILSeed(f); err == nil {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, n := range []int{512, 1024, 2048} {
			f.Add(data[:min(len(data), n)])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		listAll(t, data)
		a, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		defer a.Close(context.Background())
		ctx := context.Background()
		procs, err := a.Procedures(ctx)
		if err != nil {
			return
		}
		for _, p := range procs[:min(len(procs), 16)] {
			// A method whose body a truncated file lacks is not found.
			if _, err := a.Function(ctx, ports.FunctionRequest{Address: p.Address}); err != nil && !typed(err) && !errors.Is(err, ports.ErrNotFound) {
				t.Fatalf("function: untyped error %T: %v", err, err)
			}
			if _, err := a.Signature(ctx, p.Address); err != nil && !typed(err) && !errors.Is(err, ports.ErrNotFound) {
				t.Fatalf("signature: untyped error %T: %v", err, err)
			}
		}
		if _, err := a.WriteDisassembly(ctx, io.Discard, ""); err != nil && !typed(err) {
			t.Fatalf("disassembly: untyped error %T: %v", err, err)
		}
	})
}

// buildCILSeed builds the CIL fixture for the fuzzer's seeds, when mcs is
// installed.
func buildCILSeed(f *testing.F) (string, error) {
	registerCIL.Do(registerCILFixtures)
	return buildFixture(f.Context(), "cil")
}

// TestCILHandlersMatchIkdasm compares every method's exception clauses
// (protected range, kind, caught type, filter and handler range) with
// ikdasm's nested .try blocks, on the fixtures and on mono's mscorlib.
func TestCILHandlersMatchIkdasm(t *testing.T) {
	paths := map[string]string{"mscorlib": "/usr/lib/mono/4.5/mscorlib.dll"}
	for _, name := range []string{"cil", "cil-debug", "cil-x64", "cil-lib"} {
		paths[name] = ""
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			if path == "" {
				path = cilFixture(t, name)
			} else if _, err := os.Stat(path); err != nil {
				t.Skip("mono's mscorlib is not installed: apt install mono-devel")
			}
			methods, clauses, most, bad := 0, 0, 0, 0
			eachIkdasmMethod(t, path, func(key string, m native.CILMethod, w *ilMethod) {
				methods++
				g, wh := slices.Sorted(slices.Values(m.Handlers)), slices.Sorted(slices.Values(w.handlers))
				clauses, most = clauses+len(wh), max(most, len(wh))
				if !slices.Equal(g, wh) {
					if bad++; bad < 10 {
						t.Errorf("%s: handlers\n%s\nikdasm\n%s", key, strings.Join(g, "\n"), strings.Join(wh, "\n"))
					}
				}
			})
			if bad > 0 {
				t.Errorf("%d methods differ", bad)
			}
			if name == "cil" && clauses < 3 {
				t.Errorf("%d clauses in the fixture: want Guarded's catch and finally and Filtered's filter", clauses)
			}
			t.Logf("%d methods, %d clauses, at most %d in one method", methods, clauses, most)
		})
	}
}

// TestCILExceptionEdges checks the control-flow graph of Guarded
// (try/catch FormatException/finally) and Filtered (a filter and a
// catch): every block of a try range has an exception edge to each of its
// handlers (and to a filter), and a handler's first block says its kind
// and caught type.
func TestCILExceptionEdges(t *testing.T) {
	is := is.New(t)
	a := openAnalysis(t, cilFixture(t, "cil"))
	ctx := t.Context()
	procs, err := a.Procedures(ctx)
	is.NoErr(err)
	byName := map[string]ports.Procedure{}
	for _, p := range procs {
		byName[p.Name] = p
	}
	// graph writes each block as offset [handler catches] -> its
	// exception edges' offsets.
	graph := func(name string) []string {
		p := byName[name]
		fn, err := a.Function(ctx, ports.FunctionRequest{Address: p.Address})
		is.NoErr(err)
		var out []string
		for _, b := range fn.Blocks {
			s := fmt.Sprintf("%#x", b.Start-p.Address)
			if b.Handler != "" {
				s += " " + strings.TrimSpace(b.Handler+" "+b.Catches)
			}
			var to []string
			for _, e := range b.Successors {
				if e.Kind == ports.EdgeException {
					to = append(to, fmt.Sprintf("%#x", e.Target-p.Address))
				}
			}
			out = append(out, s+" -> "+strings.Join(to, " "))
		}
		return out
	}
	is.Equal(graph("Rea.Fixture.Program::Guarded"), []string{
		"0x0 -> 0xc 0x14", // the try: to the catch and to the finally
		"0xc catch [mscorlib]System.FormatException -> 0x14", // the catch, inside the try of the finally
		"0x14 finally -> ",
		"0x1f -> ",
	})
	g := graph("Rea.Fixture.Program::Filtered")
	is.Equal(g[0], "0x0 -> 0xc 0x2b 0x34") // the filter, its handler, the catch
	want := map[string]bool{"0xc filter -> ": true, "0x2b catch -> ": true, "0x34 catch [mscorlib]System.OverflowException -> ": true}
	for _, b := range g {
		delete(want, b)
	}
	is.Equal(len(want), 0) // the filter and both handlers begin blocks
}

// An assembly whose CLR header says it is not IL only (a mixed-mode
// assembly) keeps its native view, and one whose metadata does not parse
// too, each with a limitation saying so: the fixture with its ILONLY flag
// cleared, and with its metadata signature broken.
func TestCILHeaderCases(t *testing.T) {
	path := cilFixture(t, "cil")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := pe.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	offset := func(rva uint32) int {
		for _, s := range f.Sections {
			if rva >= s.VirtualAddress && rva < s.VirtualAddress+s.Size {
				return int(s.Offset + rva - s.VirtualAddress)
			}
		}
		t.Fatalf("rva %#x in no section", rva)
		return 0
	}
	clr := offset(f.OptionalHeader.(*pe.OptionalHeader32).DataDirectory[14].VirtualAddress)
	meta := offset(binary.LittleEndian.Uint32(data[clr+8:]))
	f.Close()
	for _, tc := range []struct {
		name, limit string
		mutate      func(b []byte)
	}{
		{"mixed-mode", "mixed-mode .NET assembly", func(b []byte) { b[clr+16] &^= 1 }},
		{"bad metadata", "whose metadata does not parse", func(b []byte) { copy(b[meta:], "XXXX") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			b := bytes.Clone(data)
			tc.mutate(b)
			a, err := native.NewAnalysis(bytes.NewReader(b), int64(len(b)))
			is.NoErr(err)
			defer a.Close(context.Background())
			docs, err := a.Documents(t.Context())
			is.NoErr(err)
			is.Equal(docs[0].Architecture, "x86") // the PE header's machine
			lims, err := a.Limitations(t.Context())
			is.NoErr(err)
			if !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, tc.limit) }) {
				t.Errorf("limitations %q lack %q", lims, tc.limit)
			}
		})
	}
}
