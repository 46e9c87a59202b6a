package gdbremote

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rea/ports"
)

// The static TLS the initial modules take, as glibc lays their blocks
// out: tls.c's program block (0x74 bytes, 16-aligned) and glibc 2.36's
// libc.so.6 block (0x90 bytes; 8-aligned on x86-64, 16 on AArch64) put
// the program's t at tp-0x80 and errno at tp-0x100 on x86-64 (the libc
// block ends 0x110 below tp), t at tp+0x10 and errno at tp+0x90 on
// AArch64 (after the 16-byte TCB); a block that fits the padding an
// earlier one's alignment left goes there; a first byte off its
// alignment moves the block by it.
func TestTLSUsed(t *testing.T) {
	for _, c := range []struct {
		name     string
		blocks   []tlsBlock
		variant1 bool
		want     uint64
	}{
		{"x86-64 program", []tlsBlock{{0x74, 16, 0}}, false, 0x80},
		{"x86-64 program and libc", []tlsBlock{{0x74, 16, 0}, {0x90, 8, 0}}, false, 0x110},
		{"x86-64 libc only", []tlsBlock{{}, {0x90, 8, 0}}, false, 0x90},
		{"aarch64 program", []tlsBlock{{0x74, 16, 0}}, true, 0x84},
		{"aarch64 program and libc", []tlsBlock{{0x74, 16, 0}, {0x90, 16, 0}}, true, 0x120},
		// 8 bytes 64-aligned leave 56 free below them, which the next
		// 16 bytes take: nothing grows.
		{"variant II gap", []tlsBlock{{8, 64, 0}, {16, 8, 0}}, false, 64},
		{"variant II no fit", []tlsBlock{{8, 64, 0}, {57, 8, 0}}, false, 128},
		// From the TCB's end (16) to 64 is free; the next block fits.
		{"variant I gap", []tlsBlock{{8, 64, 0}, {16, 8, 0}}, true, 72},
		{"variant I no fit", []tlsBlock{{8, 64, 0}, {49, 8, 0}}, true, 121},
		// p_vaddr % p_align == 8: the block starts 8 past an aligned byte
		// (at tp-0x38; at tp+0x28 past the TCB, ending at 0x48).
		{"variant II first byte", []tlsBlock{{0x20, 0x20, 8}}, false, 0x38},
		{"variant I first byte", []tlsBlock{{0x20, 0x20, 8}}, true, 0x48},
	} {
		if got := tlsUsed(c.blocks, c.variant1, 16); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}

// A static program's block as glibc's __libc_setup_tls places it: its size
// rounded up to its alignment below the pointer (x86; tls.c's static
// x86-64 block, 0xe0 bytes 16-aligned, puts t at tp-0xe0), or after the 16-byte TCB
// rounded up to the alignment (AArch64), whatever the first byte's offset.
func TestStaticTLSUsed(t *testing.T) {
	for _, c := range []struct {
		b        tlsBlock
		variant1 bool
		want     uint64
	}{
		{tlsBlock{0xe0, 16, 0}, false, 0xe0},
		{tlsBlock{0xd4, 16, 0}, false, 0xe0},
		{tlsBlock{0x20, 0x20, 8}, false, 0x20},
		{tlsBlock{0xd4, 16, 0}, true, 0xe4},
		{tlsBlock{0x20, 0x40, 8}, true, 0x60},
		{tlsBlock{}, false, 0},
		{tlsBlock{}, true, 16},
	} {
		if got := staticTLSUsed(c.b, c.variant1, 16); got != c.want {
			t.Errorf("%+v variant I %v: %#x, want %#x", c.b, c.variant1, got, c.want)
		}
	}
}

// A value is in a thread's TLS from tp+lo up to, not including, tp+hi;
// a thread whose pointer is unknown (0) or an unknown layout has none.
func TestTLSHolds(t *testing.T) {
	const tp = 0x7ffff7dd1740
	x86 := tlsLayout{lo: -0x110, hi: 0x940, known: true} // glibc 2.36 on x86-64 with tls.c
	a64 := tlsLayout{lo: -0x740, hi: 0x120, known: true} // and on AArch64
	for _, c := range []struct {
		l    tlsLayout
		v    uint64
		tp   uint64
		want int64
		in   bool
	}{
		{x86, tp - 0x100, tp, -0x100, true}, // errno
		{x86, tp - 0x110, tp, -0x110, true},
		{x86, tp - 0x111, tp, 0, false}, // the surplus, below
		{x86, tp, tp, 0, true},          // pthread_self
		{x86, tp + 0x93f, tp, 0x93f, true},
		{x86, tp + 0x940, tp, 0, false},
		{a64, tp - 0x740, tp, -0x740, true}, // pthread_self
		{a64, tp - 0x741, tp, 0, false},
		{a64, tp + 0x11f, tp, 0x11f, true},
		{a64, tp + 0x120, tp, 0, false},
		{x86, 0x10, tp, 0, false},
		{x86, ^uint64(0), tp, 0, false},
		{x86, 0x10, 0, 0, false},
		{tlsLayout{lo: -0x110, hi: 0x940}, tp, tp, 0, false},
	} {
		off, in := c.l.holds(c.v, c.tp)
		if in != c.in || in && off != c.want {
			t.Errorf("%#x around %#x in %+v: %d %v, want %d %v", c.v, c.tp, c.l, off, in, c.want, c.in)
		}
	}
}

// The thread pointer in the target descriptions the stubs sent (recorded
// from gdbserver 13.1 on x86-64, qemu-i386 and qemu-aarch64 7.2): fs_base
// of org.gnu.gdb.i386.segments, in gdbserver's g packet; the i386 guest's
// gs_base of QEMU's org.gnu.gdb.i386.core, in its g packet; TPIDR_EL0 of
// QEMU's org.qemu.gdb.arm.sys.regs, past its g packet, so read with p. A
// native AArch64 gdbserver's org.gnu.gdb.aarch64.tls names it tpidr (the
// description below is written from GDB's features/aarch64-tls.xml, not
// recorded: no AArch64 host here).
func TestThreadPointerRegister(t *testing.T) {
	for _, c := range []struct {
		lane, reg string
		number    int
		p         map[string]string
		want      uint64
	}{
		{"x86-64", "fs_base", 58, nil, 0x7ffff7dd1740},
		{"x86", "gs_base", 17, nil, 0x3f7bc080},
		{"arm64", "TPIDR_EL0", 240, map[string]string{"f0": "3004870255000000"}, 0x5502870430},
	} {
		t.Run(c.lane, func(t *testing.T) {
			b, err := os.ReadFile("testdata/registers/" + c.lane + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var fx registerFixture
			if err := json.Unmarshal(b, &fx); err != nil {
				t.Fatal(err)
			}
			td, err := parseTdesc(func(name string) ([]byte, error) {
				if d, ok := fx.Docs[name]; ok {
					return []byte(d), nil
				}
				return nil, fmt.Errorf("no document %s", name)
			})
			if err != nil {
				t.Fatal(err)
			}
			arch, _ := td.archName()
			conv, err := conventionFor(arch, "")
			if err != nil {
				t.Fatal(err)
			}
			s := &session{td: td, conv: conv, res: &ports.TraceResult{Architecture: arch}, cl: serveRecorded(t, fx.Stops[0].G, c.p)}
			r, ok := s.tpRegister()
			if !ok || r.name != c.reg || r.number != c.number {
				t.Fatalf("thread pointer register %+v %v, want %s (%d)", r, ok, c.reg, c.number)
			}
			tp, ok, err := s.threadPointer(context.Background(), threadID{PID: 1, TID: 1})
			if err != nil || !ok || tp != c.want {
				t.Errorf("thread pointer %#x %v %v, want %#x", tp, ok, err, c.want)
			}
		})
	}
	aarch64 := `<?xml version="1.0"?><target><architecture>aarch64</architecture>` +
		`<feature name="org.gnu.gdb.aarch64.core"><reg name="x0" bitsize="64"/><reg name="sp" bitsize="64" regnum="31"/></feature>` +
		`<feature name="org.gnu.gdb.aarch64.tls"><reg name="tpidr" bitsize="64" type="data_ptr" regnum="90"/></feature></target>`
	td, err := parseTdesc(func(string) ([]byte, error) { return []byte(aarch64), nil })
	if err != nil {
		t.Fatal(err)
	}
	s := &session{td: td, conv: convention{word: 8}, res: &ports.TraceResult{Architecture: "arm64"}}
	if r, ok := s.tpRegister(); !ok || r.name != "tpidr" || r.number != 90 {
		t.Errorf("gdbserver's AArch64 thread pointer: %+v %v", r, ok)
	}
	s.td, _ = parseTdesc(func(string) ([]byte, error) {
		return []byte(`<target><architecture>i386:x86-64</architecture><feature name="org.gnu.gdb.i386.core"><reg name="rip" bitsize="64"/></feature></target>`), nil
	})
	s.res.Architecture = "x86-64"
	if r, ok := s.tpRegister(); ok {
		t.Errorf("a description without fs_base: %+v", r)
	}
}

// A thread's pointer is read once per stop: again at the next stop, not
// twice at one.
func TestThreadPointerOncePerStop(t *testing.T) {
	b, err := os.ReadFile("testdata/registers/x86-64.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx registerFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	td, err := parseTdesc(func(name string) ([]byte, error) { return []byte(fx.Docs[name]), nil })
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	cl := serveRecorded(t, fx.Stops[0].G, nil)
	cl.c.tap = func(dir byte, p []byte) {
		if dir == 'c' && string(p) == "g" {
			asked = append(asked, string(p))
		}
	}
	s := &session{td: td, conv: convention{word: 8}, res: &ports.TraceResult{Architecture: "x86-64"}, cl: cl}
	ctx := context.Background()
	for _, stop := range []int{1, 1, 2} {
		s.stops = stop
		if _, ok, err := s.threadPointer(ctx, threadID{PID: 1, TID: 7}); !ok || err != nil {
			t.Fatalf("stop %d: %v %v", stop, ok, err)
		}
	}
	if len(asked) != 2 {
		t.Errorf("%d g packets for 3 reads at 2 stops, want 2", len(asked))
	}
}

// A module's PT_TLS segment and glibc's size of struct pthread, read from
// files built here: a library with a __thread array (its block) and a
// program without TLS (a zero block); the C library's
// _thread_db_sizeof_pthread where it is the host's glibc; and which of
// the loader's list the program loaded at its start.
func TestTLSFiles(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: apt install gcc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "lib.c")
	if err := os.WriteFile(src, []byte("__thread char v[40] __attribute__((aligned(32))) = {1};\nchar *get(void) { return v; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "lib.so")
	if b, err := exec.Command("gcc", "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	b, ok := readTLSFile(lib).block, readTLSFile(lib).ok
	if !ok || b.size != 40 || b.align != 32 || b.firstByte != 0 {
		t.Errorf("library block %+v %v, want 40 bytes 32-aligned", b, ok)
	}
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "prog")
	if b, err := exec.Command("gcc", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	if p := readTLSFile(prog); !p.ok || p.block != (tlsBlock{}) {
		t.Errorf("program without TLS: %+v", p)
	}
	if readTLSFile(src).ok {
		t.Error("a C source read as ELF")
	}
	if n := readTLSFile(lib).pthreadDyn; n != 0 {
		t.Errorf("a library without glibc's symbol: %d", n)
	}
	out, err := exec.Command("gcc", "-print-file-name=libc.so.6").Output()
	libc := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(libc) {
		t.Skip("gcc names no libc.so.6")
	}
	if n := readTLSFile(libc).pthreadDyn; n < 0x400 || n > 0x1000 || n%16 != 0 {
		t.Errorf("%s: sizeof(struct pthread) %#x", libc, n)
	}
	// The loader's list: the program's needed libc, then the library
	// dlopen'd (not needed), which is left out; one before libc (as
	// LD_PRELOAD puts it) is kept.
	vdso := ports.TraceModule{Name: "linux-vdso.so.1", Path: "linux-vdso.so.1"}
	mods := []ports.TraceModule{vdso, {Path: libc}, {Path: lib}}
	if got := initialLibraries(tlsFiles{}, prog, mods); len(got) != 2 || got[1].Path != libc {
		t.Errorf("dlopen'd library: %+v", got)
	}
	mods = []ports.TraceModule{vdso, {Path: lib}, {Path: libc}}
	if got := initialLibraries(tlsFiles{}, prog, mods); len(got) != 3 {
		t.Errorf("preloaded library: %+v", got)
	}
	if got := initialLibraries(tlsFiles{}, src, mods); len(got) != 0 {
		t.Errorf("a program that needs nothing: %+v", got)
	}
}

// A stack without a guard page is the calling thread's from the red zone
// below its stack pointer up to the lowest byte of its static TLS, read
// from its thread pointer (fs_base 0x7ffff7dd1740 in the recorded g
// packet); not below the red zone, not from the TLS up, and not at all
// when the layout is unknown.
func TestGuardlessStack(t *testing.T) {
	b, err := os.ReadFile("testdata/registers/x86-64.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx registerFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	td, err := parseTdesc(func(name string) ([]byte, error) { return []byte(fx.Docs[name]), nil })
	if err != nil {
		t.Fatal(err)
	}
	const tp, sp = 0x7ffff7dd1740, 0x7ffff7dd0e00
	list := []mapping{{0x7ffff75d1000, 0x7ffff7dd2000, 0, 0, "rw-p", ""}}
	s := &session{td: td, conv: convention{word: 8}, res: &ports.TraceResult{Architecture: "x86-64"}, cl: serveRecorded(t, fx.Stops[0].G, nil),
		tls: tlsState{layout: tlsLayout{lo: -0x110, hi: 0x940, known: true}, layoutDone: true}}
	ctx := context.Background()
	for _, c := range []struct {
		v    uint64
		want bool
	}{
		{sp + 0x10, true}, {sp - 0x80, true}, {sp - 0x81, false}, {tp - 0x111, true}, {tp - 0x110, false}, {tp, false}, {tp + 0x940, false},
	} {
		got, err := s.guardlessStack(ctx, c.v, list, 0, threadID{PID: 1, TID: 1}, sp)
		if err != nil || got != c.want {
			t.Errorf("%#x: %v %v, want %v", c.v, got, err, c.want)
		}
	}
	s.tls.layout.known = false
	if got, _ := s.guardlessStack(ctx, sp+0x10, list, 0, threadID{PID: 1, TID: 1}, sp); got {
		t.Error("a stack's end taken without the TLS layout")
	}
	s.tls.layout.known = true
	list[0].path = "/tmp/data"
	if got, _ := s.guardlessStack(ctx, sp+0x10, list, 0, threadID{PID: 1, TID: 1}, sp); got {
		t.Error("a file's mapping taken for a stack")
	}
}

// The memory a thread's static TLS may lie in: anonymous read-write
// memory (a thread's stack, the loader's mappings), the brk heap in a
// static program only; not the kernel's [stack], a thread arena's heap, a
// file's mapping or read-only memory.
func TestMayHoldTLS(t *testing.T) {
	const a = 0x7f0000000000 // 64 MiB aligned
	guard := mapping{0x7000, 0x8000, 0, 0, "---p", ""}
	for name, c := range map[string]struct {
		list   []mapping
		static bool
		want   bool
	}{
		"anonymous":          {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", ""}}, false, true},
		"thread stack":       {[]mapping{guard, {0x8000, 0x10000, 0, 0, "rw-p", ""}}, false, true},
		"named":              {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", "[anon:glibc]"}}, false, true},
		"heap, static":       {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", "[heap]"}}, true, true},
		"heap, dynamic":      {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", "[heap]"}}, false, false},
		"main stack":         {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", "[stack]"}}, false, false},
		"arena":              {[]mapping{{a, a + 0x21000, 0, 0, "rw-p", ""}, {a + 0x21000, a + 64<<20, 0, 0, "---p", ""}}, false, false},
		"file":               {[]mapping{{0x8000, 0x10000, 0, 3, "rw-p", "/tmp/f"}}, false, false},
		"read-only":          {[]mapping{{0x8000, 0x10000, 0, 0, "r--p", ""}}, false, false},
		"guard":              {[]mapping{guard}, false, false},
		"arena-aligned, big": {[]mapping{{a, a + 65<<20, 0, 0, "rw-p", ""}}, false, true},
	} {
		if got := mayHoldTLS(c.list, len(c.list)-1, c.static, 8); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}
