package native_test

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// canarySource has the canary's usual shape under -fstack-protector-strong:
// main holds no array (no canary), worker and helper do.
const canarySource = `#include <stdio.h>
#include <string.h>
static int helper(const char *s) { char buf[32]; strncpy(buf, s, sizeof buf - 1); buf[31] = 0; return (int)strlen(buf); }
int worker(int n) { char b[64]; snprintf(b, sizeof b, "%d", n); return helper(b); }
int main(int c, char **v) { printf("%d\n", worker(c)); return 0; }
`

// TestLayoutStackCanaryOfStaticBinaries: libc.a defines __stack_chk_fail
// and uses the canary whatever the program was built with, so a static
// binary's indicator follows the program's own code: main (and, with
// DWARF, the functions of the program's compile units); stripped, it is
// unknown and says why. Dynamic binaries keep the import rule.
func TestLayoutStackCanaryOfStaticBinaries(t *testing.T) {
	needTool(t, "gcc")
	if out, err := exec.Command("gcc", "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		t.Skip("static linking needs libc.a (the libc6-dev package), which gcc does not find")
	}
	t.Run("gcc", func(t *testing.T) { staticCanaries(t, "gcc", "strip") })
	// clang's DWARF 5 names the compile units' directories by strx forms
	// and their ranges by rnglists.
	t.Run("clang", func(t *testing.T) {
		needTool(t, "clang")
		staticCanaries(t, "clang", "strip")
	})
}

// TestLayoutStackCanaryOfCrossBuilds is TestLayoutStackCanaryOfStaticBinaries
// for AArch64, where its cross gcc and libc.a are installed (Debian's
// gcc-aarch64-linux-gnu and libc6-dev-arm64-cross); it skips elsewhere.
func TestLayoutStackCanaryOfCrossBuilds(t *testing.T) {
	const cc = "aarch64-linux-gnu-gcc"
	needTool(t, cc)
	if out, err := exec.Command(cc, "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		t.Skip("static linking needs the AArch64 libc.a (libc6-dev-arm64-cross), which " + cc + " does not find")
	}
	staticCanaries(t, cc, "aarch64-linux-gnu-strip")
}

// TestLayoutStackCanaryOfCrossBuilds386 is the same for 32-bit x86
// (Debian's gcc-i686-linux-gnu and libc6-dev-i386-cross), whose canary is
// at gs:0x14.
func TestLayoutStackCanaryOfCrossBuilds386(t *testing.T) {
	const cc = "i686-linux-gnu-gcc"
	needTool(t, cc)
	if out, err := exec.Command(cc, "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		t.Skip("static linking needs the i386 libc.a (libc6-dev-i386-cross), which " + cc + " does not find")
	}
	staticCanaries(t, cc, "i686-linux-gnu-strip")
}

// staticCanaries builds canarySource with cc and checks each indicator.
func staticCanaries(t *testing.T, cc, strip string) {
	dir := t.TempDir()
	src := filepath.Join(dir, "canary.c")
	if err := os.WriteFile(src, []byte(canarySource), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, flags ...string) string {
		out := filepath.Join(dir, name)
		if b, err := exec.Command(cc, append(flags, "-o", out, src)...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", cc, flags, err, b)
		}
		return out
	}
	for _, tc := range []struct {
		name            string
		flags           []string
		strip           bool
		canary, unknown bool
		limited         bool // a limitation says what was not looked at
	}{
		{"static-all", []string{"-static", "-fstack-protector-all"}, false, true, false, false},
		{"static-none", []string{"-static", "-fno-stack-protector"}, false, false, false, true},
		{"static-pie-none", []string{"-static-pie", "-fPIE", "-fno-stack-protector"}, false, false, false, true},
		{"static-none-stripped", []string{"-static", "-fno-stack-protector"}, true, false, true, true},
		{"static-all-stripped", []string{"-static", "-fstack-protector-all"}, true, false, true, true},
		// With DWARF the program's other functions are looked at too.
		{"static-strong-g", []string{"-static", "-g", "-fstack-protector-strong"}, false, true, false, false},
		{"static-none-g", []string{"-static", "-g", "-fno-stack-protector"}, false, false, false, false},
		{"dynamic-all", []string{"-fstack-protector-all"}, false, true, false, false},
		{"dynamic-none", []string{"-fno-stack-protector"}, false, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := build(tc.name, tc.flags...)
			if tc.strip {
				needTool(t, strip)
				if b, err := exec.Command(strip, path).CombinedOutput(); err != nil {
					t.Fatalf("strip: %v\n%s", err, b)
				}
			}
			data, err := os.ReadFile(path)
			is.NoErr(err)
			l, err := readLayout(t, data)
			is.NoErr(err)
			is.Equal(l.Dynamic.StackCanary, tc.canary)
			is.Equal(l.Dynamic.StackCanaryUnknown, tc.unknown)
			is.Equal(l.Dynamic.StackCanaryLimit != "", tc.limited)
		})
	}
}

// AArch64 instruction words for the synthetic images below.
func a64ADRP(rd uint32, pc, target uint64) uint32 {
	d := uint32((target>>12)-(pc>>12)) & 0x1fffff
	return 0x90000000 | (d&3)<<29 | (d>>2)<<5 | rd
}
func a64LDR(rt, rn uint32, off uint64) uint32 { return 0xf9400000 | uint32(off/8)<<10 | rn<<5 | rt }
func a64ADD(rd, rn uint32, imm uint64) uint32 { return 0x91000000 | uint32(imm)<<10 | rn<<5 | rd }
func a64BL(pc, target uint64) uint32          { return 0x94000000 | uint32((target-pc)/4)&0x3ffffff }

const (
	a64Ret   = 0xd65f03c0
	a64Nop   = 0xd503201f
	a64STP   = 0xa9ba7bfd // stp x29, x30, [sp, #-96]!
	a64MovFP = 0x910003fd // mov x29, sp
	a64MRS   = 0xd53bd040 // mrs x0, tpidr_el0
)

// Addresses of the synthetic static AArch64 executable.
const (
	a64Main  = 0x401000
	a64Fail  = 0x401100 // __stack_chk_fail
	a64Slot  = 0x410010 // a .got slot holding the guard's address
	a64Guard = 0x410100 // __stack_chk_guard, in .data
)

// staticAArch64 builds a static AArch64 executable (no PT_INTERP, no
// .dynamic) whose main is the given instructions, with symbols for main,
// __stack_chk_fail and __stack_chk_guard and a GOT slot holding the
// guard's address, as gcc's static link leaves it.
func staticAArch64(main []uint32) []byte {
	le := binary.LittleEndian
	words := func(ws ...uint32) []byte {
		b := make([]byte, 4*len(ws))
		for i, w := range ws {
			le.PutUint32(b[4*i:], w)
		}
		return b
	}
	text := make([]byte, a64Fail-a64Main+4)
	copy(text, words(main...))
	copy(text[a64Fail-a64Main:], words(a64Ret))
	got := make([]byte, 0x20)
	le.PutUint64(got[a64Slot-0x410000:], a64Guard)
	data := make([]byte, 0x110)
	le.PutUint64(data[a64Guard-0x410000:], 0x1234567890abcdef)
	strtab := []byte("\x00main\x00__stack_chk_fail\x00__stack_chk_guard\x00")
	sym := func(name uint32, info byte, shndx uint16, value, size uint64) []byte {
		b := make([]byte, 24)
		le.PutUint32(b, name)
		b[4] = info
		le.PutUint16(b[6:], shndx)
		le.PutUint64(b[8:], value)
		le.PutUint64(b[16:], size)
		return b
	}
	var symtab []byte
	symtab = append(symtab, make([]byte, 24)...)
	symtab = append(symtab, sym(1, 0x12, 1, a64Main, uint64(4*len(main)))...) // GLOBAL FUNC
	symtab = append(symtab, sym(6, 0x12, 1, a64Fail, 4)...)                   // GLOBAL FUNC
	symtab = append(symtab, sym(23, 0x11, 3, a64Guard, 8)...)                 // GLOBAL OBJECT
	shstrtab := []byte("\x00.text\x00.got\x00.data\x00.symtab\x00.strtab\x00.shstrtab\x00")
	type section struct {
		name, typ  uint32
		flags      uint64
		addr       uint64
		body       []byte
		link, info uint32
		entsize    uint64
	}
	secs := []section{
		{},
		{1, 1, 0x6, a64Main, text, 0, 0, 0}, // .text: PROGBITS, ALLOC|EXECINSTR
		{7, 1, 0x3, 0x410000, got, 0, 0, 0}, // .got: PROGBITS, WRITE|ALLOC
		{12, 1, 0x3, 0x410000 + 0x20, data[0x20:], 0, 0, 0}, // .data
		{18, 2, 0, 0, symtab, 5, 1, 24},                     // .symtab
		{26, 3, 0, 0, strtab, 0, 0, 0},                      // .strtab
		{34, 3, 0, 0, shstrtab, 0, 0, 0},                    // .shstrtab
	}
	out := make([]byte, 64)
	offs := make([]uint64, len(secs))
	for i, s := range secs {
		for len(out)%16 != 0 {
			out = append(out, 0)
		}
		offs[i] = uint64(len(out))
		out = append(out, s.body...)
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	for i, s := range secs {
		h := make([]byte, 64)
		if i > 0 {
			le.PutUint32(h, s.name)
			le.PutUint32(h[4:], s.typ)
			le.PutUint64(h[8:], s.flags)
			le.PutUint64(h[16:], s.addr)
			le.PutUint64(h[24:], offs[i])
			le.PutUint64(h[32:], uint64(len(s.body)))
			le.PutUint32(h[40:], s.link)
			le.PutUint32(h[44:], s.info)
			le.PutUint64(h[48:], 8)
			le.PutUint64(h[56:], s.entsize)
		}
		out = append(out, h...)
	}
	copy(out, "\x7fELF\x02\x01\x01")
	le.PutUint16(out[16:], 2)    // ET_EXEC
	le.PutUint16(out[18:], 0xb7) // EM_AARCH64
	le.PutUint32(out[20:], 1)
	le.PutUint64(out[24:], a64Main)
	le.PutUint64(out[40:], shoff)
	le.PutUint16(out[52:], 64)
	le.PutUint16(out[54:], 56)
	le.PutUint16(out[58:], 64)
	le.PutUint16(out[60:], uint16(len(secs)))
	le.PutUint16(out[62:], uint16(len(secs)-1))
	return out
}

// TestLayoutStackCanaryOfStaticAArch64: in a static AArch64 executable the
// canary is glibc's global __stack_chk_guard, loaded through its GOT slot
// (gcc), straight from it (clang) or from its address formed by add, or a
// direct bl __stack_chk_fail; a load from the thread pointer, where glibc
// keeps thread-locals and no canary, and a load of other data are not the
// canary. The images are hand-assembled: there is no AArch64 gcc here
// (TestLayoutStackCanaryOfCrossBuilds uses one where it is installed).
func TestLayoutStackCanaryOfStaticAArch64(t *testing.T) {
	const got, guard = 0x410000 + a64Slot%0x1000, a64Guard
	for _, tc := range []struct {
		name   string
		main   []uint32
		canary bool
	}{
		{"gcc-got", []uint32{a64ADRP(2, a64Main, a64Slot), a64LDR(2, 2, a64Slot%0x1000), a64STP, a64MovFP, a64LDR(3, 2, 0), a64Ret}, true},
		{"clang-direct", []uint32{a64STP, a64ADRP(8, a64Main+4, guard), a64LDR(8, 8, guard%0x1000), a64Ret}, true},
		{"add", []uint32{a64ADRP(0, a64Main, guard), a64ADD(0, 0, guard%0x1000), a64LDR(1, 0, 0), a64Ret}, true},
		{"bl-fail", []uint32{a64STP, a64Nop, a64BL(a64Main+8, a64Fail), a64Ret}, true},
		{"tls", []uint32{a64MRS, a64LDR(1, 0, 0x28), a64Ret}, false},
		{"other-data", []uint32{a64ADRP(0, a64Main, guard), a64LDR(1, 0, 0x20), a64Ret}, false},
		{"slot-address-only", []uint32{a64ADRP(2, a64Main, got), a64ADD(2, 2, got%0x1000), a64Ret}, false},
		{"stale", []uint32{a64ADRP(8, a64Main, guard), a64Nop, a64Nop, a64Nop, a64Nop, a64Nop, a64Nop, a64Nop, a64Nop, a64LDR(8, 8, guard%0x1000), a64Ret}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			l, err := readLayout(t, staticAArch64(tc.main))
			is.NoErr(err)
			is.Equal(l.Machine, "EM_AARCH64")
			is.Equal(l.Dynamic.StackCanaryUnknown, false)
			is.Equal(l.Dynamic.StackCanary, tc.canary)
		})
	}
}
