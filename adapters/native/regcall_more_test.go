package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// Programs for the shapes regcall.go follows beyond "mov reg, [S] ...
// call reg": copies of the register, jumps through it (tail calls), the
// GOT register of 32-bit PIC, imports that do not return, and gcc's
// .cold parts.
const (
	// mingw-w64 gcc -O2: the slot is held in ebx (rsi on x86-64) and
	// called twice; the last call is a tail call, "mov eax, ebx ... jmp
	// eax" (mov rax, rsi; jmp rax).
	regTailWin = `#include <windows.h>
__attribute__((noinline)) BOOL WINAPI closethree(HANDLE a) {
	CloseHandle(a);
	CloseHandle(a);
	return CloseHandle(a);
}
int main(int argc, char **argv) { (void)argv; return closethree((HANDLE)(INT_PTR)argc); }
`
	// i686-linux-gnu-gcc -O2 -fPIC -fno-plt: each function loads the
	// slot through the GOT register the thunk set ("mov esi, [eax-0x4]");
	// exit's slot through a pointer whose noreturn the asm hides, called
	// in a loop and tail-called at the end ("mov eax, edi; ... jmp eax");
	// coldcall's unlikely path (coldcall.cold) calls the register its
	// parent loaded.
	regPIC32 = `#include <unistd.h>
#include <stdlib.h>
__attribute__((noinline)) int closeall(int *fds, int n) {
	int (*f)(int) = close;
	__asm__("" : "+r"(f));
	int k = 0;
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0 && f(fds[i]) == 0)
			k++;
	if (k > 3)
		f(fds[0]);
	return k;
}
__attribute__((noinline)) void bye(int *fds, int n) {
	void (*q)(int) = exit;
	__asm__("" : "+r"(q));
	for (int i = 0; i < n; i++)
		if (fds[i] < 0)
			q(i);
	q(n);
}
__attribute__((cold, noinline)) void oops(void) { write(2, "x", 1); }
__attribute__((noinline)) int coldcall(int *fds, int n) {
	int (*f)(int) = close;
	__asm__("" : "+r"(f));
	int k = 0;
	for (int i = 0; i < n; i++)
		k += f(fds[i]);
	if (__builtin_expect(k < 0, 0)) {
		oops();
		f(fds[0]);
		f(fds[1]);
	}
	return k;
}
int main(int argc, char **argv) { int fds[4] = {-1, -1, -1, -1}; (void)argv; bye(fds, argc); coldcall(fds, argc); return closeall(fds, argc); }
`
)

// odInsn is one instruction objdump shows: its address, mnemonic (without
// rex.W, notrack or bnd), operands and the address its comment names.
type odInsn struct {
	at, next uint64
	op, args string
	comment  uint64
}

var reODInsn = regexp.MustCompile(`^\s*([0-9a-f]+):\s+(?:(?:rex\.W|notrack|bnd)\s+)*([a-z0-9.]+)\s*([^#<]*?)\s*(?:<[^>]*>)?\s*(?:#\s*([0-9a-f]+).*)?$`)

// objdumpFn lists the instructions of function fn in path, each with the
// address of the next.
func objdumpFn(t *testing.T, objdump, path, fn string) []odInsn {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "-M", "intel", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	_, body, ok := strings.Cut(string(out), "<"+fn+">:\n")
	if !ok {
		t.Fatalf("objdump shows no %s", fn)
	}
	body, _, _ = strings.Cut(body, "\n\n")
	var list []odInsn
	for _, line := range strings.Split(body, "\n") {
		m := reODInsn.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		at, _ := strconv.ParseUint(m[1], 16, 64)
		c, _ := strconv.ParseUint(m[4], 16, 64)
		if n := len(list); n > 0 {
			list[n-1].next = at
		}
		list = append(list, odInsn{at: at, op: m[2], args: strings.TrimSpace(m[3]), comment: c})
	}
	if len(list) == 0 {
		t.Fatalf("objdump: %s has no instructions", fn)
	}
	return list
}

var reGPR = regexp.MustCompile(`^(?:[re]?[abcd]x|[re]?[sd]i|[re]?bp|r[0-9]+)$`)

// regTransfers returns the "call reg" and "jmp reg" of list.
func regTransfers(list []odInsn, op string) []odInsn {
	var out []odInsn
	for _, in := range list {
		if in.op == op && reGPR.MatchString(in.args) {
			out = append(out, in)
		}
	}
	return out
}

// refFrom returns the reference of kind from at, failing when there is
// not exactly one.
func refFrom(t *testing.T, a *native.Analysis, at uint64, kind string) ports.Reference {
	t.Helper()
	refs, err := a.ReferencesFrom(t.Context(), at, at+1)
	if err != nil {
		t.Fatal(err)
	}
	refs = slices.DeleteFunc(refs, func(r ports.Reference) bool { return r.Kind != kind })
	if len(refs) != 1 {
		t.Fatalf("%s references from %#x: %+v", kind, at, refs)
	}
	return refs[0]
}

// wantSlotRef checks that the call or jump at is resolved to slot, as one
// through the slot is: to the slot, marked as the slot's, and listed among
// the references to it.
func wantSlotRef(t *testing.T, a *native.Analysis, at uint64, kind string, slot uint64) {
	t.Helper()
	if r := refFrom(t, a, at, kind); r.Unresolved || r.To != slot || r.Slot != slot {
		t.Errorf("%s at %#x: %+v, want one to the slot %#x", kind, at, r, slot)
	}
	to, err := a.ReferencesTo(t.Context(), slot, slot+1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(to, func(r ports.Reference) bool { return r.Kind == kind && r.From == at }) {
		t.Errorf("references to %#x miss the %s at %#x: %+v", slot, kind, at, to)
	}
}

// wantOpen checks that the call or jump at stays unresolved, with no slot.
func wantOpen(t *testing.T, a *native.Analysis, at uint64, kind string) {
	t.Helper()
	if r := refFrom(t, a, at, kind); !r.Unresolved || r.Slot != 0 {
		t.Errorf("%s at %#x: %+v, want it unresolved with no slot", kind, at, r)
	}
}

// blockEndingAt returns the block of procedure fn that ends at end.
func blockEndingAt(t *testing.T, a *native.Analysis, fn, end uint64) ports.BasicBlock {
	t.Helper()
	f, err := a.Function(t.Context(), ports.FunctionRequest{Address: fn})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.Blocks {
		if b.End == end {
			return b
		}
	}
	t.Fatalf("procedure %#x has no block ending at %#x: %+v", fn, end, f.Blocks)
	return ports.BasicBlock{}
}

// blockHolding returns the block of procedure fn that holds at.
func blockHolding(t *testing.T, a *native.Analysis, fn, at uint64) ports.BasicBlock {
	t.Helper()
	f, err := a.Function(t.Context(), ports.FunctionRequest{Address: fn})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range f.Blocks {
		if b.Start <= at && at < b.End {
			return b
		}
	}
	t.Fatalf("procedure %#x has no block holding %#x: %+v", fn, at, f.Blocks)
	return ports.BasicBlock{}
}

func buildProgram(t *testing.T, cc, pkg, name, src string, flags ...string) string {
	t.Helper()
	needToolPkg(t, cc, pkg)
	dir := t.TempDir()
	in, bin := filepath.Join(dir, name), filepath.Join(dir, "p")
	if strings.Contains(cc, "mingw") {
		bin += ".exe"
	}
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	runTool(t, cc, append(append([]string{}, flags...), "-o", bin, in)...)
	return bin
}

func importAt(t *testing.T, a *native.Analysis, slot uint64) string {
	t.Helper()
	names, err := a.Names(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n.Address == slot && n.Kind == "import" {
			return n.Name
		}
	}
	return ""
}

// TestRegisterTailCalls: mingw-w64's gcc -O2 keeps CloseHandle's slot in
// a callee-saved register, calls it, and ends with a tail call through a
// copy of it ("mov eax, ebx; ...; pop ebx; jmp eax"). The copy holds the
// slot and the jump is a tail call of the import, as "jmp [S]" is: a jump
// reference to the slot, marked as the slot's, and the tail-call edge to
// the slot in the procedure's blocks.
func TestRegisterTailCalls(t *testing.T) {
	for _, c := range []struct{ name, cc, pkg, objdump, fn string }{
		{"mingw-i686", "i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", "i686-w64-mingw32-objdump", "_closethree@4"},
		{"mingw-x86_64", "x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64", "x86_64-w64-mingw32-objdump", "closethree"},
	} {
		t.Run(c.name, func(t *testing.T) {
			needToolPkg(t, c.objdump, "binutils")
			bin := buildProgram(t, c.cc, c.pkg, "p.c", regTailWin, "-O2")
			list := objdumpFn(t, c.objdump, bin, c.fn)
			jumps := regTransfers(list, "jmp")
			if len(jumps) != 1 {
				t.Fatalf("objdump shows %d register jumps in %s", len(jumps), c.fn)
			}
			// The register jumped through is a copy of the one loaded
			// from the slot.
			held, copied := map[string]uint64{}, false
			var slot uint64
			for _, in := range list {
				dst, src, _ := strings.Cut(in.args, ",")
				switch {
				case in.op == "mov" && strings.Contains(src, "PTR") && (strings.Contains(src, "ds:") || in.comment != 0):
					s := in.comment
					if i := strings.Index(src, "ds:0x"); i >= 0 {
						s, _ = strconv.ParseUint(src[i+5:], 16, 64)
					}
					held[dst] = s
				case in.op == "mov" && reGPR.MatchString(src) && held[src] != 0:
					slot, copied = held[src], dst == jumps[0].args
				}
			}
			if !copied || slot == 0 {
				t.Fatalf("objdump: %s jumps through %s, not a copy of a register loaded from a slot", c.fn, jumps[0].args)
			}
			a := openNative(t, bin)
			if name := importAt(t, a, slot); name != "CloseHandle" {
				t.Fatalf("the copied register holds %#x (%q), not CloseHandle's slot", slot, name)
			}
			wantSlotRef(t, a, jumps[0].at, ports.RefJump, slot)
			for _, call := range regTransfers(list, "call") {
				wantSlotRef(t, a, call.at, ports.RefCall, slot)
			}
			b := blockEndingAt(t, a, list[0].at, jumps[0].next)
			if want := []ports.Edge{{Kind: ports.EdgeTailCall, Target: slot}}; !slices.Equal(b.Successors, want) {
				t.Errorf("the block of the jump at %#x: successors %+v, want %+v", jumps[0].at, b.Successors, want)
			}
		})
	}
}

var (
	reODAddImm  = regexp.MustCompile(`^([a-z]+),0x([0-9a-f]+)$`)
	reODGOTLoad = regexp.MustCompile(`^([a-z]+),DWORD PTR \[([a-z]+)([+-])0x([0-9a-f]+)\]$`)
)

// gotLoads returns the registers fn loads from GOT slots through its GOT
// register, with the slots: objdump shows the thunk's call, "add reg,
// imm" (the register then holds the call's return address + imm, the
// GOT) and "mov reg2, [reg+disp]".
func gotLoads(t *testing.T, list []odInsn) map[string]uint64 {
	t.Helper()
	got := map[string]uint64{}
	out := map[string]uint64{}
	for k, in := range list {
		if in.op == "call" && k+1 < len(list) && list[k+1].op == "add" {
			if m := reODAddImm.FindStringSubmatch(list[k+1].args); m != nil {
				imm, _ := strconv.ParseUint(m[2], 16, 64)
				got[m[1]] = in.next + imm
			}
		}
		if m := reODGOTLoad.FindStringSubmatch(in.args); in.op == "mov" && m != nil && got[m[2]] != 0 {
			d, _ := strconv.ParseUint(m[4], 16, 64)
			if m[3] == "-" {
				d = -d
			}
			out[m[1]] = uint64(uint32(got[m[2]] + d))
		}
	}
	return out
}

// TestRegisterCallsPIC32: i686 gcc -O2 -fPIC -fno-plt loads an import's
// GOT slot through the GOT register the thunk set ("mov esi, [eax-0x4]")
// and calls the register: each call is a call of the import. exit's slot
// held so (its noreturn hidden from gcc) is called in a loop, each call
// ending its block with no successor as "call [S]" of exit does, and
// tail-called through a copy ("mov eax, edi; ... jmp eax"). coldcall's
// unlikely path, coldcall.cold (a part of coldcall), calls the register
// coldcall loaded: the part is entered with its parent's registers.
func TestRegisterCallsPIC32(t *testing.T) {
	needToolPkg(t, "objdump", "binutils")
	bin := buildProgram(t, "i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "p.c", regPIC32, "-O2", "-fPIC", "-fno-plt")
	a := openNative(t, bin)

	list := objdumpFn(t, "objdump", bin, "closeall")
	loads := gotLoads(t, list)
	calls := regTransfers(list, "call")
	if len(calls) < 2 {
		t.Fatalf("objdump shows %d register calls in closeall", len(calls))
	}
	for _, c := range calls {
		slot := loads[c.args]
		if name := importAt(t, a, slot); name != "close" {
			t.Fatalf("objdump: closeall's %s at %#x holds %#x (%q), not close's GOT slot", c.args, c.at, slot, name)
		}
		wantSlotRef(t, a, c.at, ports.RefCall, slot)
		if b := blockHolding(t, a, list[0].at, c.at); b.End == c.next && !slices.ContainsFunc(b.Successors, func(e ports.Edge) bool { return e.Kind == ports.EdgeFallthrough }) {
			t.Errorf("close's call at %#x ends its block: %+v", c.at, b)
		}
	}

	list = objdumpFn(t, "objdump", bin, "bye")
	loads = gotLoads(t, list)
	calls, jumps := regTransfers(list, "call"), regTransfers(list, "jmp")
	if len(calls) != 1 || len(jumps) != 1 {
		t.Fatalf("objdump shows %d register calls and %d register jumps in bye", len(calls), len(jumps))
	}
	slot := loads[calls[0].args]
	if name := importAt(t, a, slot); name != "exit" {
		t.Fatalf("objdump: bye's %s holds %#x (%q), not exit's GOT slot", calls[0].args, slot, name)
	}
	wantSlotRef(t, a, calls[0].at, ports.RefCall, slot)
	if b := blockEndingAt(t, a, list[0].at, calls[0].next); len(b.Successors) != 0 {
		t.Errorf("exit's call at %#x: successors %+v, want none", calls[0].at, b.Successors)
	}
	wantSlotRef(t, a, jumps[0].at, ports.RefJump, slot)
	if b := blockEndingAt(t, a, list[0].at, jumps[0].next); !slices.Equal(b.Successors, []ports.Edge{{Kind: ports.EdgeTailCall, Target: slot}}) {
		t.Errorf("the tail call at %#x: successors %+v", jumps[0].at, b.Successors)
	}

	parent := objdumpFn(t, "objdump", bin, "coldcall")
	loads = gotLoads(t, parent)
	cold := objdumpFn(t, "objdump", bin, "coldcall.cold")
	parts, err := a.ProcedureParts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(parts, func(p ports.ProcedurePart) bool { return p.Start == cold[0].at && p.Procedure == parent[0].at }) {
		t.Fatalf("coldcall.cold at %#x is not a part of coldcall: %+v", cold[0].at, parts)
	}
	calls = regTransfers(cold, "call")
	if len(calls) == 0 {
		t.Fatal("objdump shows no register call in coldcall.cold")
	}
	for _, c := range calls {
		slot := loads[c.args]
		if name := importAt(t, a, slot); name != "close" {
			t.Fatalf("objdump: coldcall.cold's %s is loaded by coldcall from %#x (%q), not close's slot", c.args, slot, name)
		}
		wantSlotRef(t, a, c.at, ports.RefCall, slot)
	}
}

// TestRegisterCallsNotFollowed holds the rules to their limits on
// hand-written code (testdata/regcall): a copy of a register that holds
// close's slot on one path and dup's on the other, called and jumped
// through, stays unresolved, as does a call through a register holding
// exit's slot on one path only, which keeps its block's fallthrough; a
// cold part's call through a register its parent loads from two slots
// stays unresolved; and on 32-bit PIC a load at close@GOT from a register
// that is not the GOT register (an argument) is no load of the slot.
// Their twins, one slot on both paths and the load through the GOT
// register, resolve, as does a function whose only transfer through the
// register is a jump (tailonly).
func TestRegisterCallsNotFollowed(t *testing.T) {
	t.Run("amd64", func(t *testing.T) {
		needToolPkg(t, "objdump", "binutils")
		src, err := os.ReadFile(filepath.Join("testdata", "regcall", "copies_amd64.s"))
		if err != nil {
			t.Fatal(err)
		}
		bin := buildProgram(t, "gcc", "gcc", "p.s", string(src))
		a := openNative(t, bin)
		for _, fn := range []string{"mixcopy", "onecopy"} {
			list := objdumpFn(t, "objdump", bin, fn)
			slots := map[uint64]bool{}
			for _, in := range list {
				if in.op == "mov" && in.comment != 0 {
					slots[in.comment] = true
				}
			}
			calls, jumps := regTransfers(list, "call"), regTransfers(list, "jmp")
			if len(calls) != 1 || len(jumps) != 1 || !slices.ContainsFunc(list, func(in odInsn) bool { return in.op == "mov" && in.args == "rax,rbx" }) {
				t.Fatalf("objdump: %s has %d register calls, %d register jumps, or no copy of rbx", fn, len(calls), len(jumps))
			}
			if fn == "mixcopy" {
				if len(slots) != 2 {
					t.Fatalf("objdump: mixcopy loads %v, not two slots", slots)
				}
				wantOpen(t, a, calls[0].at, ports.RefCall)
				wantOpen(t, a, jumps[0].at, ports.RefJump)
				continue
			}
			if len(slots) != 1 {
				t.Fatalf("objdump: onecopy loads %v, not one slot", slots)
			}
			for slot := range slots {
				wantSlotRef(t, a, calls[0].at, ports.RefCall, slot)
				wantSlotRef(t, a, jumps[0].at, ports.RefJump, slot)
			}
		}
		// A jump through a register loaded from a slot, with no call.
		list := objdumpFn(t, "objdump", bin, "tailonly")
		if jumps := regTransfers(list, "jmp"); len(jumps) != 1 || list[0].comment == 0 {
			t.Fatalf("objdump: tailonly: %+v", list)
		} else {
			wantSlotRef(t, a, jumps[0].at, ports.RefJump, list[0].comment)
		}
		list = objdumpFn(t, "objdump", bin, "exitmixed")
		calls := regTransfers(list, "call")
		if len(calls) != 1 {
			t.Fatalf("objdump: exitmixed has %d register calls", len(calls))
		}
		wantOpen(t, a, calls[0].at, ports.RefCall)
		if b := blockHolding(t, a, list[0].at, calls[0].at); b.End == calls[0].next {
			t.Errorf("exitmixed's call at %#x ends its block: %+v", calls[0].at, b)
		}
		// The call right after a load that another path jumps past: the
		// load before it does not decide (loadedSlot's shortcut), every
		// path does.
		list = objdumpFn(t, "objdump", bin, "joinadjacent")
		if calls = regTransfers(list, "call"); len(calls) != 1 {
			t.Fatalf("objdump: joinadjacent has %d register calls", len(calls))
		}
		wantOpen(t, a, calls[0].at, ports.RefCall)
		list = objdumpFn(t, "objdump", bin, "joinsame")
		calls = regTransfers(list, "call")
		at := slices.IndexFunc(list, func(in odInsn) bool { return len(calls) == 1 && in.at == calls[0].at })
		if at < 1 || list[at-1].comment == 0 || list[3].comment != list[at-1].comment {
			t.Fatalf("objdump: joinsame: %+v", list)
		}
		wantSlotRef(t, a, calls[0].at, ports.RefCall, list[at-1].comment)
		parent, cold := objdumpFn(t, "objdump", bin, "coldneg"), objdumpFn(t, "objdump", bin, "coldneg.cold")
		parts, err := a.ProcedureParts(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(parts, func(p ports.ProcedurePart) bool { return p.Start == cold[0].at && p.Procedure == parent[0].at }) {
			t.Fatalf("coldneg.cold at %#x is not a part of coldneg: %+v", cold[0].at, parts)
		}
		calls = regTransfers(cold, "call")
		if len(calls) != 1 {
			t.Fatalf("objdump: coldneg.cold has %d register calls", len(calls))
		}
		wantOpen(t, a, calls[0].at, ports.RefCall)
	})
	t.Run("386", func(t *testing.T) {
		needToolPkg(t, "objdump", "binutils")
		src, err := os.ReadFile(filepath.Join("testdata", "regcall", "got_386.s"))
		if err != nil {
			t.Fatal(err)
		}
		bin := buildProgram(t, "i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "p.s", string(src))
		a := openNative(t, bin)
		for _, fn := range []string{"gotneg", "gotpos"} {
			list := objdumpFn(t, "objdump", bin, fn)
			calls := regTransfers(list, "call")
			if len(calls) != 2 {
				t.Fatalf("objdump: %s has %d register calls", fn, len(calls))
			}
			slot := gotLoads(t, list)[calls[0].args]
			if fn == "gotneg" {
				if slot != 0 {
					t.Fatalf("objdump: gotneg loads %s through the GOT register", calls[0].args)
				}
				for _, c := range calls {
					wantOpen(t, a, c.at, ports.RefCall)
				}
				continue
			}
			if name := importAt(t, a, slot); name != "close" {
				t.Fatalf("objdump: gotpos's %s holds %#x (%q), not close's GOT slot", calls[0].args, slot, name)
			}
			for _, c := range calls {
				wantSlotRef(t, a, c.at, ports.RefCall, slot)
			}
		}
	})
}

// TestRegisterCallsThroughMoves: a register holding close's slot copied
// by xchg (both encodings), by lea of the register alone ("lea rax,
// [rbx]", "lea rcx, [rbx+0x0]") or by an adjacent push and pop ("push
// rbx; pop rax") makes the call through the copy a call of close, on
// x86-64 and on 32-bit PIC (testdata/regcall/moves_*.s). The register
// xchg gave the other value, a lea that adds to the register, lea and
// xchg of 32-bit registers on x86-64 (the address cut to its low half),
// and a pop that a path pushing something else also reaches stay
// unresolved.
func TestRegisterCallsThroughMoves(t *testing.T) {
	want := map[string][]bool{ // each function's register calls in order: resolved to the slot or not
		"viaxchg":   {true, false},
		"viaxchgax": {true, false},
		"vialea":    {true, true, false},
		"viapush":   {true},
		"pushjoin":  {false},
		"narrow":    {false, false}, // x86-64 only
	}
	for _, c := range []struct{ arch, cc, pkg, file string }{
		{"amd64", "gcc", "gcc", "moves_amd64.s"},
		{"386", "i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "moves_386.s"},
	} {
		t.Run(c.arch, func(t *testing.T) {
			needToolPkg(t, "objdump", "binutils")
			src, err := os.ReadFile(filepath.Join("testdata", "regcall", c.file))
			if err != nil {
				t.Fatal(err)
			}
			bin := buildProgram(t, c.cc, c.pkg, "p.s", string(src))
			a := openNative(t, bin)
			for fn, resolved := range want {
				if fn == "narrow" && c.arch == "386" {
					continue
				}
				list := objdumpFn(t, "objdump", bin, fn)
				var slot uint64
				if c.arch == "386" {
					for _, s := range gotLoads(t, list) {
						slot = s
					}
				} else if k := slices.IndexFunc(list, func(in odInsn) bool { return in.op == "mov" && in.comment != 0 }); k >= 0 {
					slot = list[k].comment
				}
				if name := importAt(t, a, slot); name != "close" {
					t.Fatalf("objdump: %s loads %#x (%q), not close's slot", fn, slot, name)
				}
				calls := regTransfers(list, "call")
				if len(calls) != len(resolved) {
					t.Fatalf("objdump: %s has %d register calls, want %d", fn, len(calls), len(resolved))
				}
				for i, call := range calls {
					if prev := list[slices.IndexFunc(list, func(in odInsn) bool { return in.at == call.at })-1]; prev.op == "mov" && strings.HasPrefix(prev.args, call.args+",") {
						t.Fatalf("objdump: %s's call at %#x directly follows a load", fn, call.at)
					}
					if resolved[i] {
						wantSlotRef(t, a, call.at, ports.RefCall, slot)
					} else {
						wantOpen(t, a, call.at, ports.RefCall)
					}
				}
			}
		})
	}
}

// TestRegisterCallsProgramPointers: "mov rax, [rip+fp]; call rax" names
// the program's pointer fp as the call's slot (unresolved: the program
// may change it), as "call [rip+fp]" does, in straight-line code; where
// another path, which loads another pointer or an import's slot, jumps
// to the call, the load before it does not speak for that path and the
// call names no slot.
func TestRegisterCallsProgramPointers(t *testing.T) {
	needToolPkg(t, "objdump", "binutils")
	src, err := os.ReadFile(filepath.Join("testdata", "regcall", "pointers_amd64.s"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildProgram(t, "gcc", "gcc", "p.s", string(src))
	a := openNative(t, bin)
	for _, fn := range []string{"fpline", "fpjoin", "fpimport"} {
		list := objdumpFn(t, "objdump", bin, fn)
		calls := regTransfers(list, "call")
		k := slices.IndexFunc(list, func(in odInsn) bool { return len(calls) == 1 && in.at == calls[0].at })
		if k < 1 || list[k-1].op != "mov" || list[k-1].comment == 0 {
			t.Fatalf("objdump: %s: no load right before one register call: %+v", fn, list)
		}
		if fn != "fpline" {
			wantOpen(t, a, calls[0].at, ports.RefCall)
			continue
		}
		if r := refFrom(t, a, calls[0].at, ports.RefCall); !r.Unresolved || r.Slot != list[k-1].comment {
			t.Errorf("fpline's call at %#x: %+v, want it unresolved through %#x", calls[0].at, r, list[k-1].comment)
		}
	}
}
