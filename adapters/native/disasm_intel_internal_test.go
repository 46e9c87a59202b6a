package native

import (
	"debug/elf"
	"os"
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestAppendIntelMatchesIntelSyntax renders every instruction of the code
// sections of ls and libc (a linear sweep, as the text disassembly does)
// with appendIntel and with IntelSyntax, and requires the same text. It
// also requires the fast path to render most of them, so that the test
// compares something.
func TestAppendIntelMatchesIntelSyntax(t *testing.T) {
	tested := 0
	for _, path := range []string{"/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libc.so.6"} {
		f, err := elf.Open(path)
		if err != nil {
			continue
		}
		defer f.Close()
		if f.Machine != elf.EM_X86_64 {
			continue
		}
		d := newX86(64, nil, source{})
		total, fast := 0, 0
		for _, s := range f.Sections {
			if s.Flags&elf.SHF_EXECINSTR == 0 || s.Type != elf.SHT_PROGBITS {
				continue
			}
			code, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off < len(code); {
				pc := s.Addr + uint64(off)
				inst, special, err := d.decode(code[off:])
				if err != nil || inst.Len <= 0 || special != "" {
					off++
					continue
				}
				want := x86asm.IntelSyntax(inst, pc, nil)
				if inst.Op == x86asm.LEA {
					want = strings.Replace(want, ", ptr [", ", [", 1)
				}
				got := string(appendIntel([]byte("x"), inst, pc)[1:])
				if got != want {
					t.Fatalf("%s 0x%x (% x): appendIntel %q, IntelSyntax %q", path, pc, code[off:off+inst.Len], got, want)
				}
				if _, ok := appendIntelFast(nil, &inst, pc); ok {
					fast++
				}
				total++
				off += inst.Len
			}
		}
		t.Logf("%s: %d instructions, %d (%.0f%%) on the fast path", path, total, fast, 100*float64(fast)/float64(max(total, 1)))
		if total > 1000 && fast < total/2 {
			t.Errorf("%s: only %d of %d instructions on the fast path", path, fast, total)
		}
		tested += total
	}
	if tested == 0 {
		t.Skip("no x86-64 ELF to read")
	}
	if _, err := os.Stat("/usr/bin/ls"); err != nil {
		t.Log("ls is missing")
	}
}
