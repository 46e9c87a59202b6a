package native_test

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
	"rea/ports/portstest"
)

// relSource has a static helper called from its own section, functions in
// a second section (.text.other) called from .text and calling back into
// it, a string and an imported printf.
const relSource = `#include <stdio.h>
__attribute__((noinline)) static int helper(int x) { return x * 3 + 1; }
__attribute__((noinline)) int twice(int x) { return helper(x) + helper(x + 1); }
__attribute__((noinline, section(".text.other"))) int other(int x) { return twice(x) ^ 5; }
__attribute__((noinline, section(".text.other"))) static int other2(int x) { return x - 7; }
int main(int c, char **v) { printf("rel %d %s\n", other(c) + other2(c), v[0]); return 0; }
`

// modSource is shaped like a kernel module: code in .text, .init.text
// and .exit.text, an export table (__ksymtab, pointers relocated by
// R_X86_64_64), .modinfo, and calls of kernel functions it does not define.
const modSource = `extern int printk(const char *fmt, ...);
extern void *kmalloc(unsigned long n, unsigned flags);
static int counter;
__attribute__((noinline)) int demo_work(int x) { counter += x; return printk("demo work %d\n", counter); }
static const char __kstrtab_demo_work[] __attribute__((section("__ksymtab_strings"), used)) = "demo_work";
void *const __ksymtab_demo_work[2] __attribute__((section("__ksymtab"), used)) = { (void *)demo_work, (void *)__kstrtab_demo_work };
__attribute__((section(".init.text"))) int init_module(void) { return demo_work(1) + (kmalloc(8, 0x400) != 0); }
__attribute__((section(".exit.text"))) void cleanup_module(void) { printk("demo bye\n"); }
static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) = "license=GPL";
`

// buildObject compiles src with cc and args (plus -c) in a temporary
// directory, skipping when cc is not installed.
func buildObject(t *testing.T, cc, src string, args ...string) string {
	t.Helper()
	needTool(t, cc)
	dir := t.TempDir()
	c, o := filepath.Join(dir, "rel.c"), filepath.Join(dir, "rel.o")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append(slices.Clone(args), "-c", "-o", o, c)
	if b, err := exec.Command(cc, argv...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, argv, err, b)
	}
	return o
}

// objView is what a test reads of an object through the analysis.
type objView struct {
	a       *native.Analysis
	segs    map[string]ports.Segment // by section name
	procs   map[string]uint64        // procedure addresses by name
	imports map[string]uint64        // import names' addresses
}

func viewObject(t *testing.T, path string) objView {
	t.Helper()
	is := is.New(t)
	ctx := context.Background()
	a := openAnalysis(t, path)
	v := objView{a: a, segs: map[string]ports.Segment{}, procs: map[string]uint64{}, imports: map[string]uint64{}}
	segs, err := a.Segments(ctx)
	is.NoErr(err)
	for _, s := range segs {
		v.segs[s.Name] = s
	}
	procs, err := a.Procedures(ctx)
	is.NoErr(err)
	for _, p := range procs {
		v.procs[p.Name] = p.Address
	}
	names, err := a.Names(ctx)
	is.NoErr(err)
	for _, n := range names {
		if n.Kind == "import" {
			v.imports[n.Name] = n.Address
		}
	}
	lims, err := a.Limitations(ctx)
	is.NoErr(err)
	if !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "synthetic") }) {
		t.Errorf("no limitation says the addresses are synthetic: %q", lims)
	}
	return v
}

// checkLayout holds every allocated section of the object to its own
// range, at or above 0x10000, aligned as its header asks (at least 16),
// in header order, without overlaps; and every function symbol nm lists
// (T, t) to a procedure at its section's address plus its value.
func checkLayout(t *testing.T, path, nm string, v objView) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var prevEnd uint64
	for i, s := range f.Sections {
		if i == 0 || s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		seg, ok := v.segs[s.Name]
		if !ok {
			t.Fatalf("section %s is not a segment", s.Name)
		}
		align := max(s.Addralign, 16)
		if seg.Start < 0x10000 || seg.Start%align != 0 || seg.Start < prevEnd || seg.Size != s.Size {
			t.Errorf("section %s at %#x+%#x (align %d) after %#x", s.Name, seg.Start, seg.Size, align, prevEnd)
		}
		prevEnd = seg.Start + seg.Size
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nm, "--defined-only", path).Output()
	if err != nil {
		t.Fatalf("%s: %v", nm, err)
	}
	funcs := 0
	for _, line := range strings.Split(string(out), "\n") {
		fs := strings.Fields(line)
		if len(fs) != 3 || (fs[1] != "T" && fs[1] != "t") {
			continue
		}
		val, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(syms, func(s elf.Symbol) bool { return s.Name == fs[2] && s.Value == val })
		if i < 0 {
			t.Fatalf("%s: no symbol table entry", fs[2])
		}
		sec := f.Sections[syms[i].Section].Name
		want := v.segs[sec].Start + val
		if got, ok := v.procs[fs[2]]; !ok || got != want {
			t.Errorf("%s (%s+%#x): procedure at %#x (listed %v), want %#x", fs[2], sec, val, got, ok, want)
		}
		funcs++
	}
	if funcs < 3 {
		t.Fatalf("nm lists %d functions:\n%s", funcs, out)
	}
}

// objdumpCalls parses objdump -dr: each call or jump (x86 call and jmp,
// AArch64 bl and b) whose target a relocation names, as its section, the
// instruction's offset in it and the symbol (section symbols are left
// out).
type relCall struct {
	section string
	off     uint64
	sym     string
}

var (
	reSection = regexp.MustCompile(`^Disassembly of section (\S+):$`)
	reInsn    = regexp.MustCompile(`^\s+([0-9a-f]+):\s+(?:[0-9a-f]{2,8} )+\s*(\S+)`)
	reReloc   = regexp.MustCompile(`^\s+([0-9a-f]+): (R_\S+)\s+([^+\-\s]+)`)
)

func objdumpCalls(t *testing.T, objdump, path string) []relCall {
	t.Helper()
	out, err := exec.Command(objdump, "-dr", path).Output()
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	var calls []relCall
	sec, last, lastMn := "", uint64(0), ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := reSection.FindStringSubmatch(line); m != nil {
			sec = m[1]
			continue
		}
		if m := reReloc.FindStringSubmatch(line); m != nil {
			if slices.Contains([]string{"call", "jmp", "bl", "b"}, lastMn) && !strings.HasPrefix(m[3], ".") {
				calls = append(calls, relCall{sec, last, m[3]})
			}
			continue
		}
		if m := reInsn.FindStringSubmatch(line); m != nil {
			last, _ = strconv.ParseUint(m[1], 16, 64)
			lastMn = m[2]
		}
	}
	return calls
}

// checkCalls holds every call or jump objdump shows a relocation for to a
// call or jump, in the analysis, to the procedure or import the relocation
// names; every direct call in the object to a procedure start or an import
// (and, with local, more of them than the relocated ones: the calls within
// a section); and the references to each import named to list its call
// sites.
func checkCalls(t *testing.T, v objView, calls []relCall, wantImports []string, local bool) {
	t.Helper()
	is := is.New(t)
	ctx := context.Background()
	if len(calls) < 3 {
		t.Fatalf("objdump shows %d relocated calls", len(calls))
	}
	sites := map[string][]uint64{}
	for _, c := range calls {
		at := v.segs[c.section].Start + c.off
		want, ok := v.procs[c.sym]
		if imp, isImp := v.imports[c.sym]; isImp {
			want, ok = imp, true
			sites[c.sym] = append(sites[c.sym], at)
		}
		if !ok {
			t.Errorf("call at %s+%#x to %s: no procedure or import of that name", c.section, c.off, c.sym)
			continue
		}
		refs, err := v.a.ReferencesFrom(ctx, at, at+1)
		is.NoErr(err)
		if !slices.ContainsFunc(refs, func(r ports.Reference) bool {
			return (r.Kind == ports.RefCall || r.Kind == ports.RefJump) && r.To == want
		}) {
			t.Errorf("call at %#x (%s+%#x) to %s (%#x): references %+v", at, c.section, c.off, c.sym, want, refs)
		}
	}
	starts := map[uint64]bool{}
	for _, a := range v.procs {
		starts[a] = true
	}
	for _, a := range v.imports {
		starts[a] = true
	}
	ranges, err := v.a.FunctionRanges(ctx)
	is.NoErr(err)
	direct := 0
	for _, r := range ranges {
		fn, err := v.a.Function(ctx, ports.FunctionRequest{Address: r.Start})
		is.NoErr(err)
		for _, in := range fn.Instructions {
			if in.Flow == ports.FlowCall && in.HasTarget {
				direct++
				if !starts[in.Target] {
					t.Errorf("%s at %#x calls %#x, neither a procedure nor an import", in.Text, in.Address, in.Target)
				}
			}
		}
	}
	if local && direct <= len(calls) {
		t.Errorf("%d direct calls, want more than the %d relocated ones (a call within a section has no relocation)", direct, len(calls))
	}
	for _, name := range wantImports {
		at, ok := v.imports[name]
		if !ok {
			t.Errorf("%s is not an import name", name)
			continue
		}
		refs, err := v.a.ReferencesTo(ctx, at, at+1)
		is.NoErr(err)
		var from []uint64
		for _, r := range refs {
			if r.Kind == ports.RefCall || r.Kind == ports.RefJump {
				from = append(from, r.From)
			}
		}
		slices.Sort(from)
		want := slices.Sorted(slices.Values(sites[name]))
		if len(want) == 0 || !slices.Equal(from, want) {
			t.Errorf("calls of %s from %#x, want %#x", name, from, want)
		}
	}
}

// checkStringRef holds the object's string s to a reference from the
// procedure named in (through the relocated lea or adrp+add).
func checkStringRef(t *testing.T, v objView, s, in string) {
	t.Helper()
	is := is.New(t)
	ctx := context.Background()
	strs, err := v.a.Strings(ctx)
	is.NoErr(err)
	i := slices.IndexFunc(strs, func(x ports.String) bool { return x.Value == s })
	if i < 0 {
		t.Fatalf("no string %q", s)
	}
	refs, err := v.a.ReferencesTo(ctx, strs[i].Address, strs[i].Address+1)
	is.NoErr(err)
	ranges, err := v.a.FunctionRanges(ctx)
	is.NoErr(err)
	r := ranges[slices.IndexFunc(ranges, func(r ports.FunctionRange) bool { return r.Start == v.procs[in] })]
	if !slices.ContainsFunc(refs, func(x ports.Reference) bool { return x.From >= r.Start && x.From < r.End }) {
		t.Errorf("string %q at %#x: references %+v, none from %s [%#x, %#x)", s, strs[i].Address, refs, in, r.Start, r.End)
	}
}

// TestRelocatableX86_64 reads a gcc -c object as a linker would place it
// (see elf_rel.go).
func TestRelocatableX86_64(t *testing.T) {
	needTool(t, "objdump")
	needTool(t, "nm")
	path := buildObject(t, "gcc", relSource, "-O1")
	v := viewObject(t, path)
	checkLayout(t, path, "nm", v)
	checkCalls(t, v, objdumpCalls(t, "objdump", path), []string{"printf"}, true)
	checkStringRef(t, v, "rel %d %s\n", "main")
	for _, name := range []string{"helper", "twice", "other", "other2", "main"} {
		if _, ok := v.procs[name]; !ok {
			t.Errorf("no procedure %s", name)
		}
	}
}

// TestRelocatableAArch64 is TestRelocatableX86_64 for an AArch64 object:
// bl through CALL26, the string through ADRP and ADD.
func TestRelocatableAArch64(t *testing.T) {
	needTool(t, "aarch64-linux-gnu-objdump")
	needTool(t, "aarch64-linux-gnu-nm")
	path := buildObject(t, "aarch64-linux-gnu-gcc", relSource, "-O1")
	v := viewObject(t, path)
	checkLayout(t, path, "aarch64-linux-gnu-nm", v)
	checkCalls(t, v, objdumpCalls(t, "aarch64-linux-gnu-objdump", path), []string{"printf"}, true)
	checkStringRef(t, v, "rel %d %s\n", "main")
}

// TestRelocatableI386 is TestRelocatableX86_64 for i386 objects, whose
// SHT_REL relocations keep their addends in the bytes: R_386_PC32 and
// R_386_32 without PIC; with it, the string reached off the GOT register
// (R_386_GOTPC, R_386_GOTOFF).
func TestRelocatableI386(t *testing.T) {
	needTool(t, "i686-linux-gnu-objdump")
	needTool(t, "i686-linux-gnu-nm")
	for _, pic := range []string{"-fno-pic", "-fpie"} {
		t.Run(pic, func(t *testing.T) {
			path := buildObject(t, "i686-linux-gnu-gcc", relSource, "-O1", pic)
			v := viewObject(t, path)
			checkLayout(t, path, "i686-linux-gnu-nm", v)
			checkCalls(t, v, objdumpCalls(t, "i686-linux-gnu-objdump", path), []string{"printf"}, true)
			checkStringRef(t, v, "rel %d %s\n", "main")
		})
	}
}

// TestRelocatableModule reads an object shaped like a kernel module: its
// many sections apart, its init and exit code calling kernel functions it
// imports, its export table holding the exported function's address.
func TestRelocatableModule(t *testing.T) {
	needTool(t, "objdump")
	needTool(t, "nm")
	is := is.New(t)
	path := buildObject(t, "gcc", modSource, "-O2", "-fno-pic", "-mcmodel=kernel", "-mno-red-zone", "-fno-asynchronous-unwind-tables")
	v := viewObject(t, path)
	checkLayout(t, path, "nm", v)
	for _, s := range []string{".text", ".init.text", ".exit.text", "__ksymtab", "__ksymtab_strings", ".modinfo", ".bss"} {
		if _, ok := v.segs[s]; !ok {
			t.Errorf("no segment %s", s)
		}
	}
	checkCalls(t, v, objdumpCalls(t, "objdump", path), []string{"printk", "kmalloc"}, false)
	b, err := v.a.ReadBytes(context.Background(), v.segs["__ksymtab"].Start, 16)
	is.NoErr(err)
	is.Equal(le64(b), v.procs["demo_work"])                  // the export's R_X86_64_64
	is.Equal(le64(b[8:]), v.segs["__ksymtab_strings"].Start) // its name
	checkStringRef(t, v, "demo work %d\n", "demo_work")      // an R_X86_64_32S
}

func le64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// TestRelocatableHostile reads objects whose headers and relocations lie:
// nothing panics, nothing is allocated in proportion to the sizes
// declared, and what is not applied is a limitation.
func TestRelocatableHostile(t *testing.T) {
	path := buildObject(t, "gcc", relSource, "-O1")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	shoff := le64(orig[0x28:])
	index := func(name string) int {
		return slices.IndexFunc(f.Sections, func(s *elf.Section) bool { return s.Name == name })
	}
	// field returns the offset of a section header's field (Elf64_Shdr).
	field := func(sec string, at uint64) int { return int(shoff) + index(sec)*64 + int(at) }
	put := func(b []byte, off int, v uint64, n int) {
		for i := range n {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	rela := f.Section(".rela.text")
	if rela == nil {
		t.Fatal("no .rela.text")
	}
	for _, c := range []struct {
		name   string
		mutate func(b []byte)
		note   string // a limitation that must be reported ("" for none)
	}{
		{"align 2^63", func(b []byte) { put(b, field(".text", 48), 1<<63, 8) }, "synthetic"},
		{"bss of 2^62 bytes", func(b []byte) { put(b, field(".bss", 32), 1<<62, 8) }, "does not fit"},
		{"text past the file", func(b []byte) { put(b, field(".text", 32), 1<<30, 8) }, "synthetic"},
		{"text at the file's end", func(b []byte) { put(b, field(".text", 24), uint64(len(orig)-2), 8) }, "synthetic"},
		{"relocation offsets past the section", func(b []byte) {
			for i := uint64(0); i < rela.Size; i += 24 {
				put(b, int(rela.Offset+i), 1<<40+i, 8)
			}
		}, "not applied"},
		{"symbol indexes out of range", func(b []byte) {
			for i := uint64(0); i < rela.Size; i += 24 {
				put(b, int(rela.Offset+i+12), 0xfffffff0, 4)
			}
		}, "not applied"},
		{"relocations of a section not loaded", func(b []byte) { put(b, field(".rela.text", 44), uint64(index(".comment")), 4) }, "synthetic"},
		{"relocations of no section", func(b []byte) { put(b, field(".rela.text", 44), 0xffffffff, 4) }, "synthetic"},
		{"relocations past the file", func(b []byte) { put(b, field(".rela.text", 32), 1<<50, 8) }, "not applied"},
		{"symbol table of a broken size", func(b []byte) { put(b, field(".symtab", 32), 25, 8) }, ""},
		{"every section at one offset", func(b []byte) {
			for i := 1; i < len(f.Sections); i++ {
				put(b, int(shoff)+i*64+24, uint64(f.Sections[index(".text")].Offset), 8)
			}
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			data := slices.Clone(orig)
			c.mutate(data)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			listAll(t, data)
			a, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				is.True(typed(err))
				return
			}
			defer a.Close(context.Background())
			ctx := context.Background()
			if ranges, err := a.FunctionRanges(ctx); err == nil {
				for _, r := range ranges {
					_, _ = a.Function(ctx, ports.FunctionRequest{Address: r.Start})
					_, _ = a.ReferencesFrom(ctx, r.Start, r.End)
				}
			}
			lims, err := a.Limitations(ctx)
			if err != nil {
				is.True(typed(err)) // a symbol table that cannot be read fails the lists
			}
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("%d bytes allocated for a %d-byte file", grew, len(data))
			}
			if c.note != "" && !slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, c.note) }) {
				t.Errorf("no limitation says %q: %q", c.note, lims)
			}
		})
	}
}

// TestRelocatableChargesItsSections: the relocated copy of an object's
// sections is charged to the opening call's memory account until Close,
// and a budget too small for it refuses the open.
func TestRelocatableChargesItsSections(t *testing.T) {
	is := is.New(t)
	path := buildObject(t, "gcc", relSource, "-O1")
	acc := &portstest.MemoryAccount{Max: 1 << 30}
	ctx := ports.WithMemory(context.Background(), acc)
	a, err := native.OpenFile(ctx, path)
	is.NoErr(err)
	is.True(acc.Charged("the relocated sections") > 0)
	is.NoErr(a.Close(ctx))
	is.Equal(acc.InUse(), int64(0))

	tiny := &portstest.MemoryAccount{Max: 16}
	_, err = native.OpenFile(ports.WithMemory(context.Background(), tiny), path)
	var le *ports.LimitError
	is.True(errors.As(err, &le)) // refused by the budget
}

// TestRelocatableDWARF: an object's DWARF is relocated against the same
// layout, so each function's signature and source line are found at its
// procedure (a low_pc of 0 would be no procedure's).
func TestRelocatableDWARF(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := buildObject(t, "gcc", relSource, "-O1", "-g")
	v := viewObject(t, path)
	for name, line := range map[string]int{"helper": 2, "twice": 3, "other": 4, "other2": 5, "main": 6} {
		at, ok := v.procs[name]
		is.True(ok)
		sig, err := v.a.Signature(ctx, at)
		if err != nil || sig.Source != "dwarf" || sig.ReturnType != "int" {
			t.Errorf("%s at %#x: signature %+v, %v", name, at, sig, err)
		}
		loc, err := v.a.SourceAt(ctx, at)
		if err != nil || loc.Line != line || loc.Function != name || !strings.HasSuffix(loc.File, "rel.c") {
			t.Errorf("%s at %#x: source %+v, %v; want rel.c:%d", name, at, loc, err, line)
		}
	}
}
