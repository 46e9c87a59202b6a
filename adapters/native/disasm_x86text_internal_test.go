package native

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// xtName is a stand-in symbol lookup: every 16-byte-aligned address has a
// name, so the differential tests compare the names' placement too.
func xtName(addr uint64) string {
	if addr%16 != 0 {
		return ""
	}
	return fmt.Sprintf("f_%x", addr)
}

// xtCompare renders the instruction at pc (already stepped into in) both
// ways. It reports whether the fast path took it, and fails the test when
// the fast text differs from the x86asm path's.
func xtCompare(t testing.TB, d *x86Decoder, code []byte, pc uint64, in *insn, where string) bool {
	var x xtInst
	if !xtDecode(code, &x) {
		return false
	}
	d.last.ok = false
	want := d.appendTextX86asm(nil, code, pc, in, xtName)
	var fin insn
	xtStep(&x, pc, &fin)
	if in.invalid || x.length != in.size || fin.hasTarget != in.hasTarget || fin.target != in.target {
		t.Fatalf("%s 0x%x (% x): fast length %d, target %v 0x%x; step: invalid %v, length %d, target %v 0x%x (x86asm text %q)", where, pc, code[:min(len(code), 15)],
			x.length, fin.hasTarget, fin.target, in.invalid, in.size, in.hasTarget, in.target, want)
	}
	if line, wantLine := appendXTextLine(nil, code, pc, &x, xtName), appendTextLine(nil, d, code, pc, in, xtName); !bytes.Equal(line, wantLine) {
		t.Fatalf("%s 0x%x: fast line %q, step's line %q", where, pc, line, wantLine)
	}
	got := appendXTextNamed(nil, &x, pc, in, xtName)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s 0x%x (% x): fast text %q, x86asm path %q", where, pc, code[:x.length], got, want)
	}
	return true
}

// xtSweepFile compares the two renderings on every instruction of the
// linear sweep of each code section of an x86-64 ELF file. everyOffset
// also decodes at every byte offset (instructions a sweep never meets).
func xtSweepFile(t *testing.T, path string, everyOffset bool) (total, fast int) {
	f, err := elf.Open(path)
	if err != nil {
		t.Logf("%s: %v", path, err)
		return 0, 0
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		return 0, 0
	}
	d := newX86(64, &memMap{}, source{})
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Type != elf.SHT_PROGBITS {
			continue
		}
		code, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		d.reset(code, s.Addr)
		for off := 0; off < len(code); {
			pc := s.Addr + uint64(off)
			var in insn
			d.step(code[off:], pc, &in)
			total++
			if xtCompare(t, d, code[off:], pc, &in, path) {
				fast++
			}
			if everyOffset {
				off++
			} else {
				off += max(in.size, 1)
			}
		}
	}
	return total, fast
}

// TestXTextMatchesX86asm holds the fast text (xtDecode, appendXText) to
// the x86asm path's on every instruction of real code: gcc builds of the
// test sources at -O0 and -O2, this test binary (Go code), ls, libc and,
// when installed, gcc's cc1. On ls every byte offset is decoded too. It
// also requires the fast path to take most instructions.
func TestXTextMatchesX86asm(t *testing.T) {
	var files []string
	if gcc, err := exec.LookPath("gcc"); err == nil {
		dir := t.TempDir()
		for _, c := range []struct{ name, src, opt string }{
			{"hello-O0", "hello.c", "-O0"}, {"hello-O2", "hello.c", "-O2"}, {"code-O2", "code.c", "-O2"}, {"valueflow-O1", "valueflow.c", "-O1"},
		} {
			out := filepath.Join(dir, c.name)
			cmd := exec.CommandContext(t.Context(), gcc, c.opt, "-o", out, filepath.Join("testdata", c.src))
			if b, err := cmd.CombinedOutput(); err != nil {
				// Some sources are not whole programs: compile only.
				cmd = exec.CommandContext(t.Context(), gcc, c.opt, "-c", "-o", out, filepath.Join("testdata", c.src))
				if b2, err2 := cmd.CombinedOutput(); err2 != nil {
					t.Fatalf("gcc %s: %v\n%s\n%s", c.src, err2, b, b2)
				}
			}
			files = append(files, out)
		}
	}
	if exe, err := os.Executable(); err == nil {
		files = append(files, exe)
	}
	files = append(files, "/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libc.so.6")
	if out, err := exec.Command("gcc", "-print-prog-name=cc1").Output(); err == nil && !testing.Short() {
		files = append(files, string(bytes.TrimSpace(out)))
	}
	tested := 0
	for _, path := range files {
		every := path == "/usr/bin/ls"
		total, fast := xtSweepFile(t, path, every)
		if total == 0 {
			continue
		}
		t.Logf("%s: %d instructions, %d (%.1f%%) on the fast path", path, total, fast, 100*float64(fast)/float64(total))
		if !every && total > 10000 && fast < total*8/10 {
			t.Errorf("%s: only %d of %d instructions on the fast path", path, fast, total)
		}
		tested += total
	}
	if tested == 0 {
		t.Skip("no x86-64 ELF to read")
	}
}

// FuzzXText feeds random bytes to both renderings: the fast path may
// decline, but what it takes must render as the x86asm path renders it.
func FuzzXText(f *testing.F) {
	for _, seed := range [][]byte{
		{0x48, 0x8b, 0x05, 1, 2, 3, 4},
		{0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0},
		{0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0},
		{0xf2, 0x48, 0x0f, 0x2a, 0xc0},
		{0x41, 0xff, 0x24, 0xc4},
		{0x40, 0x88, 0xc6},
		{0x66, 0x41, 0xc7, 0x44, 0x24, 0x08, 0xff, 0xff},
		{0x0f, 0xba, 0xe0, 0x1f},
		{0xf3, 0x0f, 0x1e, 0xfa},
		{0x66, 0x90},
		{0xcc},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 32 {
			data = data[:32]
		}
		d := newX86(64, &memMap{}, source{})
		const pc = 0x401000
		d.reset(data, pc)
		var in insn
		d.step(data, pc, &in)
		xtCompare(t, d, data, pc, &in, "fuzz")
	})
}

// TestXTextAllocatesNothing formats the code section of ls (or of this
// test binary) into a reused buffer: the instructions the fast path takes
// allocate nothing, and the whole sweep (the rest through x86asm) far less
// than once per instruction.
func TestXTextAllocatesNothing(t *testing.T) {
	var code []byte
	var base uint64
	for _, path := range []string{"/usr/bin/ls", os.Args[0]} {
		f, err := elf.Open(path)
		if err != nil {
			continue
		}
		if s := f.Section(".text"); s != nil && f.Machine == elf.EM_X86_64 {
			code, _ = s.Data()
			base = s.Addr
		}
		f.Close()
		if len(code) > 0 {
			break
		}
	}
	if len(code) == 0 {
		t.Skip("no x86-64 ELF to read")
	}
	code = code[:min(len(code), 64<<10)]
	name := func(addr uint64) string {
		if addr%64 == 0 {
			return "aligned"
		}
		return ""
	}
	d := newX86(64, &memMap{}, source{})
	buf := make([]byte, 0, 64*len(code))
	n, fastN := 0, 0
	var fastPCs []uint64
	sweepText := func() {
		buf = buf[:0]
		n, fastN = 0, 0
		var x xtInst
		for pc := base; pc < base+uint64(len(code)); {
			b := code[pc-base:]
			n++
			if xtDecode(b, &x) {
				fastN++
				buf = appendXTextLine(buf, b, pc, &x, name)
				pc += uint64(x.length)
				continue
			}
			var in insn
			d.step(b, pc, &in)
			buf = appendTextLine(buf, d, b, pc, &in, name)
			pc += uint64(in.size)
		}
	}
	sweepText()
	var x xtInst
	for pc := base; pc < base+uint64(len(code)); {
		if xtDecode(code[pc-base:], &x) {
			fastPCs = append(fastPCs, pc)
			pc += uint64(x.length)
			continue
		}
		var in insn
		d.step(code[pc-base:], pc, &in)
		pc += uint64(in.size)
	}
	if a := testing.AllocsPerRun(5, func() {
		buf = buf[:0]
		var x xtInst
		for _, pc := range fastPCs {
			if xtDecode(code[pc-base:], &x) {
				buf = appendXTextLine(buf, code[pc-base:], pc, &x, name)
			}
		}
	}); a != 0 {
		t.Errorf("the fast path allocated %v times formatting %d instructions", a, len(fastPCs))
	}
	if fastN < n/2 {
		t.Errorf("the fast path took only %d of %d instructions", fastN, n)
	}
	a := testing.AllocsPerRun(5, sweepText)
	t.Logf("%d instructions, %d on the fast path, %v allocations in all", n, fastN, a)
	if a > float64(n-fastN)*8 {
		t.Errorf("%v allocations for %d instructions, %d of them through x86asm", a, n, n-fastN)
	}
}

// TestHexAppendersMatchFmt holds the hex writers of the text to fmt's
// formatting, for every digit count and padding.
func TestHexAppendersMatchFmt(t *testing.T) {
	var vals []uint64
	for sh := range 64 {
		vals = append(vals, 1<<sh, 1<<sh-1, 0xdeadbeefcafef00d>>sh, 0x123456789abcdef0>>sh)
	}
	vals = append(vals, 0, ^uint64(0))
	for _, v := range vals {
		for _, w := range []int{0, 1, 8, 16, 20} {
			if got, want := string(appendHexPad([]byte("x"), v, w)), fmt.Sprintf("x%*x", w, v); got != want {
				t.Fatalf("appendHexPad(%#x, %d) = %q, want %q", v, w, got, want)
			}
		}
		if got, want := string(appendHex(nil, v)), fmt.Sprintf("%#x", v); got != want && !(v == 0 && got == "0x0") {
			t.Fatalf("appendHex(%#x) = %q, want %q", v, got, want)
		}
	}
	for n := range 20 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*37 + n*101)
		}
		want := fmt.Sprintf("% x", b)
		if got := string(appendHexBytes([]byte("y"), b)); got != "y"+want {
			t.Fatalf("appendHexBytes(% x) = %q", b, got)
		}
	}
}

// TestXTextLockPrefixAndPushImm: lock-prefixed read-modify-write
// instructions on memory and push with an immediate take the fast path
// with x86asm's text; lock anywhere else is declined.
func TestXTextLockPrefixAndPushImm(t *testing.T) {
	d := newX86(64, &memMap{}, source{})
	take := [][]byte{
		{0xf0, 0x48, 0x0f, 0xb1, 0x0a},             // lock cmpxchg qword ptr [rdx], rcx
		{0xf0, 0x0f, 0xb0, 0x11},                   // lock cmpxchg byte ptr [rcx], dl
		{0xf0, 0xff, 0x08},                         // lock dec dword ptr [rax]
		{0xf0, 0x48, 0xff, 0x00},                   // lock inc qword ptr [rax]
		{0xf0, 0x0f, 0xc1, 0x07},                   // lock xadd dword ptr [rdi], eax
		{0xf0, 0x83, 0x0c, 0x24, 0x00},             // lock or dword ptr [rsp], 0x0
		{0xf0, 0x48, 0x83, 0x2d, 0x10, 0, 0, 0, 1}, // lock sub qword ptr [rip+0x10], 0x1
		{0xf0, 0x48, 0x0f, 0xab, 0x07},             // lock bts qword ptr [rdi], rax
		{0x48, 0x0f, 0xb1, 0xd1},                   // cmpxchg rcx, rdx
		{0x6a, 0xff},                               // push 0xffffffff
		{0x6a, 0x10},                               // push 0x10
		{0x68, 0x00, 0x00, 0x00, 0x80},             // push 0x80000000
		{0x68, 0x78, 0x56, 0x34, 0x12},             // push 0x12345678
	}
	for _, b := range take {
		var in insn
		d.reset(b, 0x1000)
		d.step(b, 0x1000, &in)
		if !xtCompare(t, d, b, 0x1000, &in, "built") {
			t.Errorf("% x: declined", b)
		}
	}
	decline := [][]byte{
		{0xf0, 0x89, 0x07},             // lock mov
		{0xf0, 0x01, 0xc0},             // lock add eax, eax (register destination)
		{0xf0, 0xf0, 0xff, 0x08},       // two locks
		{0x66, 0xf0, 0xff, 0x08},       // with another prefix
		{0xf0, 0x0f, 0x10, 0x07},       // lock on SSE
		{0xf0, 0x48, 0x8d, 0x04, 0x24}, // lock lea
	}
	for _, b := range decline {
		var x xtInst
		if xtDecode(b, &x) {
			t.Errorf("% x: taken, as %q", b, appendXText(nil, &x, 0x1000))
		}
	}
}
