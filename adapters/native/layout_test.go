package native_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

func readLayout(t testing.TB, data []byte) (*ports.Layout, error) {
	t.Helper()
	return native.New(nil).ReadLayout(context.Background(), bytes.NewReader(data), int64(len(data)))
}

func readelf(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("readelf"); err != nil {
		t.Skip("readelf is not installed")
	}
	out, err := exec.Command("readelf", args...).Output()
	if err != nil {
		t.Fatalf("readelf %v: %v", args, err)
	}
	return string(out)
}

// TestLayoutMatchesReadelf compares counts and linkage with binutils, on
// x86-64, on an AArch64 PIE (Go's, which has RELATIVE relocations) and on
// Go's static 32-bit x86 executable (ELF32 sections and symbols).
func TestLayoutMatchesReadelf(t *testing.T) {
	codeFixtures()
	for name, path := range elfTargets(t, "c", "c-g", "ls", "clang-c-g", "clang-c-O3-nopie", "clang-c-lld", "clang-c-noplt") {
		relative := "R_X86_64_RELATIVE"
		if strings.HasSuffix(name, "-nopie") {
			relative = "" // nothing to relocate by the load address
		}
		t.Run(name, func(t *testing.T) { matchesReadelf(t, path, "EM_X86_64", relative) })
	}
	t.Run("go-table-arm64", func(t *testing.T) {
		matchesReadelf(t, fixturePath(t, "go-table-arm64"), "EM_AARCH64", "R_AARCH64_RELATIVE")
	})
	t.Run("go-linux-386", func(t *testing.T) { matchesReadelf(t, fixturePath(t, "go-linux-386"), "EM_386", "") })
}

// TestLayoutMatchesReadelfCross compares a gcc-built 32-bit x86 PIE (REL
// relocations, ELF32 .dynamic) with readelf where its cross gcc is
// installed (Debian's gcc-i686-linux-gnu); it skips elsewhere.
func TestLayoutMatchesReadelfCross(t *testing.T) {
	const cc = "i686-linux-gnu-gcc"
	needTool(t, cc)
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "canary.c"), filepath.Join(dir, "canary")
	if err := os.WriteFile(src, []byte(canarySource), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cc, "-fPIE", "-pie", "-fstack-protector-all", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	matchesReadelf(t, exe, "EM_386", "R_386_RELATIVE")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	l, err := readLayout(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if l.Bits != 32 || len(l.Needed) == 0 || !l.Dynamic.PIEFlag || !l.Dynamic.StackCanary {
		t.Errorf("bits %d, needed %v, PIE flag %v, canary %v: want 32, libc, true, true", l.Bits, l.Needed, l.Dynamic.PIEFlag, l.Dynamic.StackCanary)
	}
}

func matchesReadelf(t *testing.T, path, machine, relative string) {
	is := is.New(t)
	data, err := os.ReadFile(path)
	is.NoErr(err)
	l, err := readLayout(t, data)
	is.NoErr(err)
	is.Equal(l.Machine, machine)

	sections := regexp.MustCompile(`(?m)^\s+\[\s*\d+\]`).FindAllString(readelf(t, "-SW", path), -1)
	is.Equal(len(l.Sections), len(sections))

	tables := map[string]int{}
	for _, s := range l.Symbols {
		tables[s.Table]++
	}
	syms := readelf(t, "-sW", path)
	for _, table := range []struct{ ours, theirs string }{{"symtab", ".symtab"}, {"dynsym", ".dynsym"}} {
		m := regexp.MustCompile(`Symbol table '` + regexp.QuoteMeta(table.theirs) + `' contains (\d+) entries`).FindStringSubmatch(syms)
		if m == nil {
			is.Equal(tables[table.ours], 0)
			continue
		}
		is.Equal(strings.TrimSpace(m[1]), strconv.Itoa(tables[table.ours]+1)) // readelf counts the null symbol
	}

	relocs := 0
	for _, m := range regexp.MustCompile(`contains (\d+) entr`).FindAllStringSubmatch(readelf(t, "-rW", path), -1) {
		n, _ := strconv.Atoi(m[1])
		relocs += n
	}
	is.Equal(len(l.Relocations), relocs)
	types := map[string]bool{}
	for _, r := range l.Relocations {
		types[r.Type] = true
	}
	if relative != "" {
		is.True(types[relative]) // named after the machine
	}

	var needed []string
	for _, n := range l.Needed {
		needed = append(needed, string(n.Bytes))
	}
	var want []string
	for _, m := range regexp.MustCompile(`\(NEEDED\)\s+Shared library: \[([^\]]+)\]`).FindAllStringSubmatch(readelf(t, "-dW", path), -1) {
		want = append(want, m[1])
	}
	is.Equal(needed, want)

	progs := readelf(t, "-lW", path)
	if m := regexp.MustCompile(`Requesting program interpreter: ([^\]]+)\]`).FindStringSubmatch(progs); m != nil {
		is.Equal(len(l.Interpreters), 1)
		is.Equal(string(l.Interpreters[0].Bytes), m[1])
	}
	if m := regexp.MustCompile(`(?m)^\s+GNU_STACK.*\s(R?W?E?)\s+0x[0-9a-f]+$`).FindStringSubmatch(progs); m != nil {
		is.True(l.Dynamic.GNUStack != nil)
		is.Equal(l.Dynamic.GNUStack.Execute, strings.Contains(m[1], "E"))
	}
	is.Equal(l.Dynamic.GNURelro != nil, strings.Contains(progs, "GNU_RELRO"))
	is.Equal(len(l.Diagnostics), 0)
}

func TestLayoutRefusesOtherFormatsAndCorruptInput(t *testing.T) {
	data, err := os.ReadFile(ls)
	if err != nil {
		t.Skip("no " + ls)
	}
	riscv := bytes.Clone(data)
	binary.LittleEndian.PutUint16(riscv[18:], 0xf3) // EM_RISCV
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"pe", []byte("MZ\x90\x00\x03"), ports.ErrUnsupported},
		{"riscv", riscv, ports.ErrUnsupported},
		{"truncated", data[:40], ports.ErrMalformed},
		{"empty", nil, ports.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			_, err := readLayout(t, c.data)
			is.True(errors.Is(err, c.want))
		})
	}
}

// FuzzReadLayout reads arbitrary bytes: no panic, only typed errors.
func FuzzReadLayout(f *testing.F) {
	if data, err := os.ReadFile(ls); err == nil {
		f.Add(data[:min(len(data), 64<<10)])
		for _, n := range []int{64, 512, 4096} {
			f.Add(data[:min(len(data), n)])
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	// A static AArch64 executable whose main loads the canary through its
	// GOT slot, so the canary scan's decoder is fuzzed too.
	f.Add(staticAArch64([]uint32{a64ADRP(2, a64Main, a64Slot), a64LDR(2, 2, a64Slot%0x1000), a64LDR(3, 2, 0), a64BL(a64Main+12, a64Fail), a64Ret}))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := readLayout(t, data)
		if err != nil && !typed(err) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
	})
}
