package native_test

import (
	"context"
	hexenc "encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// pic32Source is a 32-bit PIE's worth of data references: a string handed
// to a call, a static counter, an array indexed off the GOT register, a
// table of string pointers, and calls to imports.
const pic32Source = `#include <stdio.h>
#include <string.h>
static const char *const names[] = {"alpha", "beta", "gamma", "delta"};
static int counter;
int table[8] = {1, 2, 3};
int greet(const char *who, int n) { char buf[64]; snprintf(buf, sizeof buf, "hi %s %d", who, n); puts(buf); counter++; return (int)strlen(buf); }
const char *name(int i) { return names[i & 3]; }
int sum(int i) { return table[i & 7] + counter; }
const char *callpop(void);
const char *callpop_eax(void);
int main(int argc, char **argv) {
	printf("%s %s %s\n", name(argc), callpop(), callpop_eax());
	return greet(argc > 1 ? argv[1] : "world", argc) + sum(argc) > 100;
}
`

// pic32Asm computes the GOT without a thunk, by "call next; pop reg": in
// ebx as older gcc did, and in eax as clang does on i386.
const pic32Asm = `	.text
	.globl	callpop
	.type	callpop, @function
callpop:
	pushl	%ebx
	call	.L1
.L1:
	popl	%ebx
	addl	$_GLOBAL_OFFSET_TABLE_+[.-.L1], %ebx
	leal	popmsg@GOTOFF(%ebx), %eax
	popl	%ebx
	ret
	.size	callpop, .-callpop
	.globl	callpop_eax
	.type	callpop_eax, @function
callpop_eax:
	calll	.L0$pb
.L0$pb:
	popl	%eax
.Ltmp0:
	addl	$_GLOBAL_OFFSET_TABLE_+(.Ltmp0-.L0$pb), %eax
	leal	popmsg2@GOTOFF(%eax), %eax
	ret
	.size	callpop_eax, .-callpop_eax
	.section	.rodata
popmsg:	.string	"call pop message"
popmsg2:	.string	"call pop eax message"
	.section	.note.GNU-stack,"",@progbits
`

// buildPIC32 builds the fixture with the cross gcc (Debian's
// gcc-i686-linux-gnu) and -Wl,-q, which keeps the relocations objdump -dr
// shows at each instruction; strip, when set, also makes a stripped copy,
// which is returned beside the original.
func buildPIC32(t *testing.T, strip bool, flags ...string) (built, analysed string) {
	t.Helper()
	const cc = "i686-linux-gnu-gcc"
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("%s is not installed (Debian package gcc-i686-linux-gnu)", cc)
	}
	needTool(t, "i686-linux-gnu-objdump")
	dir := t.TempDir()
	src, asm, exe := filepath.Join(dir, "p.c"), filepath.Join(dir, "callpop.S"), filepath.Join(dir, "p32")
	if err := os.WriteFile(src, []byte(pic32Source), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(asm, []byte(pic32Asm), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"-fPIE", "-pie", "-Wl,-q"}, flags...), "-o", exe, src, asm)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	if !strip {
		return exe, exe
	}
	needTool(t, "i686-linux-gnu-strip")
	stripped := exe + "-stripped"
	if b, err := exec.Command("i686-linux-gnu-strip", "-o", stripped, exe).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, b)
	}
	return exe, stripped
}

// gotRef is a GOT-relative operand objdump shows: the instruction, the
// relocation and the address it names (the GOT plus the displacement the
// relocation filled).
type gotRef struct {
	insn   uint64
	reloc  string
	target uint64
	call   bool // an indirect call through the operand (call *disp(%reg))
}

// gotOperands reads objdump -dr of a -Wl,-q build: every R_386_GOTOFF,
// R_386_GOT32 and R_386_GOT32X operand with the instruction it is in. The
// target is _GLOBAL_OFFSET_TABLE_ plus the 32-bit displacement at the
// relocation's offset, which is what the relocation resolved to.
func gotOperands(t *testing.T, path string) []gotRef {
	t.Helper()
	out, err := exec.Command("i686-linux-gnu-objdump", "-dr", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := gotSymbol(t, path)
	// An instruction line: address, bytes and text; objdump continues a
	// long instruction's bytes on a line without text.
	insnLine := regexp.MustCompile(`^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*(?:\t(.*))?$`)
	relocLine := regexp.MustCompile(`^\s*([0-9a-f]+): (R_386_GOTOFF|R_386_GOT32X|R_386_GOT32)\s`)
	var refs []gotRef
	var insn uint64
	var text string
	bytesAt := map[uint64][]byte{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := insnLine.FindStringSubmatch(line); m != nil {
			addr, _ := strconv.ParseUint(m[1], 16, 64)
			b, err := hexenc.DecodeString(strings.ReplaceAll(strings.TrimSpace(m[2]), " ", ""))
			if err != nil {
				t.Fatalf("objdump line %q: %v", line, err)
			}
			if m[3] == "" && len(bytesAt[insn]) > 0 {
				bytesAt[insn] = append(bytesAt[insn], b...)
				continue
			}
			insn, text, bytesAt[addr] = addr, m[3], b
			continue
		}
		m := relocLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		off, _ := strconv.ParseUint(m[1], 16, 64)
		b := bytesAt[insn]
		k := int(off - insn)
		if off < insn || k+4 > len(b) {
			t.Fatalf("relocation at 0x%x outside the instruction at 0x%x (% x)", off, insn, b)
		}
		disp := int32(uint32(b[k]) | uint32(b[k+1])<<8 | uint32(b[k+2])<<16 | uint32(b[k+3])<<24)
		r := gotRef{insn: insn, reloc: m[2], target: uint64(uint32(got + uint64(int64(disp)))), call: strings.Contains(text, "call")}
		if m[2] != "R_386_GOTOFF" && !(len(b) > 1 && (b[0] == 0x8b || b[0] == 0xff || b[0] == 0x8d)) {
			continue // relaxed into a direct call or an immediate: no GOT operand left
		}
		refs = append(refs, r)
	}
	return refs
}

// gotSymbol is the address of _GLOBAL_OFFSET_TABLE_, from nm.
func gotSymbol(t *testing.T, path string) uint64 {
	t.Helper()
	out, err := exec.Command("i686-linux-gnu-nm", path).Output()
	if err != nil {
		t.Skipf("i686-linux-gnu-nm: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "_GLOBAL_OFFSET_TABLE_" {
			v, _ := strconv.ParseUint(f[0], 16, 64)
			return v
		}
	}
	t.Fatal("no _GLOBAL_OFFSET_TABLE_ in nm's output")
	return 0
}

// TestPIC32ReferencesMatchRelocations holds rea's references in 32-bit x86
// PIEs to the relocations the linker kept (-Wl,-q): every GOTOFF operand
// is a reference from its instruction to the address it resolves to, and
// every GOT32(X) operand one to its GOT slot (through which a -fno-plt
// call is a resolved call to the import), at -O0, -O1 and -O2, stripped
// (the thunk known by its bytes), with -fno-plt and with the call/pop
// form written in assembly.
func TestPIC32ReferencesMatchRelocations(t *testing.T) {
	cases := []struct {
		name  string
		strip bool
		flags []string
	}{
		{"O0", false, []string{"-O0"}},
		{"O1", false, []string{"-O1", "-g"}},
		{"O2", false, []string{"-O2"}},
		{"O2-stripped", true, []string{"-O2"}},
		{"O2-noplt", false, []string{"-O2", "-fno-plt"}},
		{"O0-noplt-stripped", true, []string{"-O0", "-fno-plt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			built, path := buildPIC32(t, c.strip, c.flags...)
			matchGOTOperands(t, built, path, strings.Contains(c.name, "noplt"))
		})
	}
}

// TestPIC32ReferencesMatchRelocationsOf runs the comparison on the 32-bit
// -Wl,-q builds listed in REA_PIC32_Q (separated by the path list
// separator), for checking larger programs by hand.
func TestPIC32ReferencesMatchRelocationsOf(t *testing.T) {
	list := os.Getenv("REA_PIC32_Q")
	if list == "" {
		t.Skip("REA_PIC32_Q names no -Wl,-q builds")
	}
	needTool(t, "i686-linux-gnu-objdump")
	for _, path := range filepath.SplitList(list) {
		t.Run(filepath.Base(path), func(t *testing.T) { matchGOTOperands(t, path, path, false) })
	}
}

// matchGOTOperands compares the references of analysed (built, or a
// stripped copy of it) with the GOT operands of built's relocations; with
// noplt, calls through GOT slots must be resolved calls, at least three.
func matchGOTOperands(t *testing.T, built, path string, noplt bool) {
	t.Helper()
	{
		{
			want := gotOperands(t, built)
			if len(want) < 8 {
				t.Fatalf("only %d GOT operands in objdump's listing", len(want))
			}
			a := openAnalysis(t, path)
			ctx := context.Background()
			refs, err := a.ReferencesFrom(ctx, 0, 1<<32)
			if err != nil {
				t.Fatal(err)
			}
			type key struct{ from, to uint64 }
			have := map[key][]ports.Reference{}
			for _, r := range refs {
				to := r.To
				if r.Unresolved || to == 0 {
					to = r.Slot
				}
				have[key{r.From, to}] = append(have[key{r.From, to}], r)
			}
			calls, missing := 0, 0
			for _, w := range want {
				rs := have[key{w.insn, w.target}]
				if len(rs) == 0 {
					t.Errorf("%s at 0x%x: no reference to 0x%x", w.reloc, w.insn, w.target)
					missing++
					continue
				}
				if !w.call || !noplt {
					continue
				}
				resolved := false
				for _, r := range rs {
					resolved = resolved || (r.Kind == ports.RefCall && !r.Unresolved && r.To == w.target)
				}
				if !resolved {
					t.Errorf("call through the GOT slot 0x%x at 0x%x is not a resolved call: %+v", w.target, w.insn, rs)
				}
				calls++
			}
			if noplt && calls < 3 {
				t.Errorf("%d calls through GOT slots, want at least snprintf, puts and strlen", calls)
			}
			t.Logf("%d GOT operands, %d missing, %d calls through slots", len(want), missing, calls)
		}
	}
}

// BenchmarkPIC32Library discovers a 32-bit x86 shared library (gcc's PIC,
// nearly every function computing its GOT; REA_PIC32_LIB, by default the
// cross libc of Debian's libc6-i386-cross) and indexes its references.
func BenchmarkPIC32Library(b *testing.B) {
	path := os.Getenv("REA_PIC32_LIB")
	if path == "" {
		path = "/usr/i686-linux-gnu/lib/libc.so.6"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s: %v", path, err)
	}
	ctx := context.Background()
	for b.Loop() {
		a, err := native.OpenFile(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Discovery(ctx); err != nil {
			b.Fatal(err)
		}
		refs, err := a.ReferencesFrom(ctx, 0, 1<<32)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(refs)), "refs")
		a.Close(ctx)
	}
}

// TestPIC32DeterministicAcrossCores: the register tracking is per sweep,
// so a 32-bit PIC library (Debian's cross libc, when installed) and a
// stripped PIE give the same procedures, ranges and references on one
// core and on several.
func TestPIC32DeterministicAcrossCores(t *testing.T) {
	targets := map[string]string{}
	if _, err := exec.LookPath("i686-linux-gnu-gcc"); err == nil {
		_, stripped := buildPIC32(t, true, "-O2")
		targets["O2-stripped"] = stripped
	}
	if lib := "/usr/i686-linux-gnu/lib/libc.so.6"; !testing.Short() {
		if _, err := os.Stat(lib); err == nil {
			targets["libc-i386"] = lib
		}
	}
	if len(targets) == 0 {
		t.Skip("neither i686-linux-gnu-gcc nor the i386 cross libc is installed")
	}
	many := max(4, runtime.NumCPU())
	for name, path := range targets {
		t.Run(name, func(t *testing.T) {
			prev := runtime.GOMAXPROCS(1)
			one, st := codeDigest(t, path, true)
			runtime.GOMAXPROCS(many)
			all, _ := codeDigest(t, path, true)
			runtime.GOMAXPROCS(prev)
			if st.Functions == 0 || !st.Complete || one != all {
				t.Errorf("%d functions, complete %v; digest on one core %s, on %d %s", st.Functions, st.Complete, one, many, all)
			}
		})
	}
}
