package native_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
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

// The Go literal fixture: distinctive literals, some used by one function
// only, some in data (a slice and a struct array), one with line breaks and
// one longer than the 4 KiB display cap. The Go linker packs them all into
// one blob without terminators.
const (
	litOnly   = "rea-go-only-in-onlyInOne-7f3c"
	litShare1 = "rea-go-shared-first-7f3c"
	litShare2 = "rea-go-shared-second-7f3c"
	litTable1 = "rea-go-table-alpha-7f3c"
	litTable2 = "rea-go-table-beta-7f3c"
	litField  = "rea-go-struct-gamma-7f3c"
	litLines  = "rea-go-multi-line-7f3c\nsecond line\n"
	longHead  = "rea-go-long-head-7f3c "
	longTail  = " rea-go-long-tail-7f3c"
)

// litLong is the literal longer than the display cap.
var litLong = func() string {
	var b strings.Builder
	b.WriteString(longHead)
	for i := range 1000 {
		fmt.Fprintf(&b, "w%04d ", i)
	}
	b.WriteString(longTail)
	return b.String()
}()

var goLiteralSource = `package main

import (
	"fmt"
	"os"
	"strings"
)

var table = []string{` + strconv.Quote(litTable1) + `, ` + strconv.Quote(litTable2) + `}

type entry struct {
	name string
	code int
}

var entries = [...]entry{{` + strconv.Quote(litField) + `, 1}, {"x", 2}}

//go:noinline
func onlyInOne() string { return ` + strconv.Quote(litOnly) + ` }

//go:noinline
func sharedPick(n int) string {
	if n == 0 {
		return ` + strconv.Quote(litShare1) + `
	}
	return ` + strconv.Quote(litShare2) + `
}

//go:noinline
func useLong() int { return strings.Count(` + strconv.Quote(litLong) + `, "w") }

func main() {
	n := len(os.Args)
	fmt.Println(onlyInOne(), sharedPick(n), table[n%2], entries[n%2].name, useLong())
	os.Stdout.WriteString(` + strconv.Quote(litLines) + `)
}
`

// literalBuilds holds the Go programs built from goLiteralSource, one per
// GOARCH, in fixtureDir (removed by TestMain).
var literalBuilds struct {
	sync.Mutex
	paths map[string]string
}

// goLiteralProgram builds goLiteralSource once per variant: a GOARCH, or
// "amd64-pie-stripped", a position-independent executable without symbols
// (its data pointers are in RELATIVE relocations, and only the build
// information says it is Go).
func goLiteralProgram(t *testing.T, variant string) string {
	t.Helper()
	needTool(t, "go")
	literalBuilds.Lock()
	defer literalBuilds.Unlock()
	if p, ok := literalBuilds.paths[variant]; ok {
		return p
	}
	goarch, flags := variant, []string{}
	if variant == "amd64-pie-stripped" {
		goarch, flags = "amd64", []string{"-buildmode=pie", "-ldflags=-s -w"}
	}
	dir := filepath.Join(fixtureDir, "golit-"+variant)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"main.go": goLiteralSource, "go.mod": "module golit\n\ngo 1.22\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "golit")
	env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + goarch, "GOFLAGS=-trimpath"}
	if _, err := run(context.WithoutCancel(t.Context()), dir, env, "go", append(append([]string{"build"}, flags...), "-o", out, ".")...); err != nil {
		t.Fatal(err)
	}
	if literalBuilds.paths == nil {
		literalBuilds.paths = map[string]string{}
	}
	literalBuilds.paths[variant] = out
	return out
}

// withValue returns the strings whose value is v.
func withValue(strs []ports.String, v string) []ports.String {
	var out []ports.String
	for _, s := range strs {
		if s.Value == v {
			out = append(out, s)
		}
	}
	return out
}

// loadTargets returns the addresses the code of the functions matching
// symRegexp loads with LEAQ (amd64) or ADRP+ADD (arm64), as go tool objdump
// prints them.
func loadTargets(t *testing.T, path, goarch, symRegexp string) []uint64 {
	t.Helper()
	out, err := run(t.Context(), "", nil, "go", "tool", "objdump", "-s", symRegexp, path)
	if err != nil {
		t.Fatal(err)
	}
	// file:line  0xADDR  HEXBYTES  MNEMONIC OPERANDS
	line := regexp.MustCompile(`^\s*\S+\s+0x([0-9a-f]+)\s+([0-9a-f]+)\s+(.*)$`)
	lea := regexp.MustCompile(`^LEAQ (-?0x[0-9a-f]+|-?\d+)\(IP\), `)
	adrp := regexp.MustCompile(`^ADRP (-?\d+)\(PC\), (R\d+)`)
	add := regexp.MustCompile(`^ADD \$(\d+), (R\d+), (R\d+)`)
	var targets []uint64
	page, pageReg := uint64(0), ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pc, _ := strconv.ParseUint(m[1], 16, 64)
		text := strings.TrimSpace(m[3])
		switch goarch {
		case "amd64":
			if l := lea.FindStringSubmatch(text); l != nil {
				d, err := strconv.ParseInt(l[1], 0, 64)
				if err != nil {
					t.Fatal(err)
				}
				targets = append(targets, pc+uint64(len(m[2])/2)+uint64(d))
			}
		case "arm64":
			if a := adrp.FindStringSubmatch(text); a != nil {
				d, _ := strconv.ParseInt(a[1], 10, 64)
				page, pageReg = pc&^0xfff+uint64(d), a[2]
			} else if a := add.FindStringSubmatch(text); a != nil && a[2] == pageReg && a[3] == pageReg {
				d, _ := strconv.ParseUint(a[1], 10, 64)
				targets = append(targets, page+d)
				pageReg = ""
			}
		}
	}
	return targets
}

func TestGoLiterals(t *testing.T) {
	for _, variant := range []string{"amd64", "arm64", "amd64-pie-stripped"} {
		t.Run(variant, func(t *testing.T) {
			is := is.New(t)
			path := goLiteralProgram(t, variant)
			goarch, _, _ := strings.Cut(variant, "-")
			strs, err := openAnalysis(t, path).Strings(t.Context())
			is.NoErr(err)
			found := map[string]ports.String{}
			for _, lit := range []string{litOnly, litShare1, litShare2, litTable1, litTable2, litField, litLines} {
				got := withValue(strs, lit)
				if len(got) != 1 {
					t.Fatalf("%q: %d strings with this value, want 1 (the literal on its own)", lit, len(got))
				}
				is.Equal(got[0].ByteLength, len(lit))
				is.True(!got[0].Truncated)
				is.Equal(got[0].Charset, "ascii")
				found[lit] = got[0]
			}
			// The two shared literals sit in one blob: nothing separates them
			// but the references.
			// Each literal returned by a function starts where that function's
			// code loads it.
			if strings.HasSuffix(variant, "stripped") {
				return // go tool objdump needs symbols; TestGoLiteralOneUser covers this build
			}
			for fn, lits := range map[string][]string{
				`^main\.onlyInOne$`:  {litOnly},
				`^main\.sharedPick$`: {litShare1, litShare2},
			} {
				targets := loadTargets(t, path, goarch, fn)
				for _, lit := range lits {
					if !slices.Contains(targets, found[lit].Address) {
						t.Errorf("%s: %q listed at 0x%x; %s loads %x", goarch, lit, found[lit].Address, fn, targets)
					}
				}
			}
		})
	}
}

func TestGoLiteralOneUser(t *testing.T) {
	for _, variant := range []string{"amd64", "arm64", "amd64-pie-stripped"} {
		t.Run(variant, func(t *testing.T) { testGoLiteralOneUser(t, variant) })
	}
}

// testGoLiteralOneUser checks that the literal only main.onlyInOne uses is
// referenced from that function alone (names from the pclntab when the
// build is stripped).
func testGoLiteralOneUser(t *testing.T, variant string) {
	is := is.New(t)
	path := goLiteralProgram(t, variant)
	a := openAnalysis(t, path)
	strs, err := a.Strings(t.Context())
	is.NoErr(err)
	got := withValue(strs, litOnly)
	is.Equal(len(got), 1)
	procs, err := a.Procedures(t.Context())
	is.NoErr(err)
	ranges, err := a.FunctionRanges(t.Context())
	is.NoErr(err)
	var start, end uint64
	for i, p := range procs {
		if p.Name == "main.onlyInOne" {
			start, end = ranges[i].Start, ranges[i].End
		}
	}
	is.True(end > start) // main.onlyInOne found
	refs, err := a.ReferencesTo(t.Context(), got[0].Address, got[0].Address+uint64(got[0].ByteLength))
	is.NoErr(err)
	is.True(len(refs) > 0) // the literal is referenced
	for _, r := range refs {
		if r.From < start || r.From >= end {
			t.Errorf("reference from 0x%x, outside main.onlyInOne [0x%x, 0x%x)", r.From, start, end)
		}
	}
}

func TestGoLongLiteral(t *testing.T) {
	is := is.New(t)
	path := goLiteralProgram(t, "amd64")
	a := openAnalysis(t, path)
	strs, err := a.Strings(t.Context())
	is.NoErr(err)
	var got []ports.String
	for _, s := range strs {
		if strings.HasPrefix(s.Value, longHead) {
			got = append(got, s)
		}
	}
	is.Equal(len(got), 1) // the long literal is one string
	s := got[0]
	is.True(len(litLong) > native.DefaultMaxStringBytes)
	is.Equal(s.ByteLength, len(litLong))
	is.True(s.Truncated)
	is.Equal(s.Value, litLong[:native.DefaultMaxStringBytes])
	// Its whole bytes, tail included, are at its address.
	b, err := a.ReadBytes(t.Context(), s.Address, s.ByteLength)
	is.NoErr(err)
	is.Equal(string(b), litLong)
	is.True(strings.HasSuffix(string(b), longTail))
}

// stringsRun is one run printed by strings -t d.
type stringsRun struct {
	off   uint64
	value string
}

// runStrings runs binutils strings -a -t d -n min on path.
func runStrings(t *testing.T, path string, min int) []stringsRun {
	t.Helper()
	needTool(t, "strings")
	out, err := run(t.Context(), "", nil, "strings", "-a", "-t", "d", "-n", strconv.Itoa(min), path)
	if err != nil {
		t.Fatal(err)
	}
	var runs []stringsRun
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		off, value, ok := strings.Cut(strings.TrimLeft(sc.Text(), " "), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(off, 10, 64)
		if err != nil {
			t.Fatalf("strings output %q", sc.Text())
		}
		runs = append(runs, stringsRun{n, value})
	}
	return runs
}

// TestGoStringsDifferential holds rea to binutils strings on the Go
// fixtures: every literal strings sees is listed whole by rea (strings
// prints the blob around it, rea the literal), and every run strings prints
// from a section rea scans is covered by rea's strings but for the gaps of
// literals shorter than the minimum.
func TestGoStringsDifferential(t *testing.T) {
	const minLen = 8
	for _, goarch := range []string{"amd64", "arm64"} {
		t.Run(goarch, func(t *testing.T) {
			is := is.New(t)
			path := goLiteralProgram(t, goarch)
			a := openAnalysis(t, path)
			strs, err := a.Strings(t.Context())
			is.NoErr(err)
			segs, err := a.Segments(t.Context())
			is.NoErr(err)
			scanned := map[string]bool{}
			for _, s := range strs {
				scanned[s.Section] = true
			}
			inScanned := func(off uint64) bool {
				for _, g := range segs {
					if scanned[g.Name] && off >= g.FileOffset && off < g.FileOffset+g.FileSize {
						return true
					}
				}
				return false
			}
			covered := map[uint64]bool{}
			for _, s := range strs {
				if s.Charset == "ascii" {
					for i := range uint64(s.ByteLength) {
						covered[s.FileOffset+i] = true
					}
				}
			}
			runs := runStrings(t, path, minLen)
			lits := []string{litOnly, litShare1, litShare2, litTable1, litTable2, litField, longHead}
			var total, missed, considered int
			for _, r := range runs {
				for _, lit := range lits {
					if strings.Contains(r.value, lit) {
						is.True(len(withValue(strs, lit)) == 1 || lit == longHead) // strings sees it; rea lists it whole
					}
				}
				if !inScanned(r.off) {
					continue
				}
				considered++
				for i := range uint64(len(r.value)) {
					total++
					if !covered[r.off+i] {
						missed++
					}
				}
			}
			t.Logf("%s: strings -n %d: %d runs (%d in scanned sections, %d bytes); rea: %d strings; bytes of those runs rea leaves out: %d",
				goarch, minLen, len(runs), considered, total, len(strs), missed)
			is.True(considered > 100)
			// Only literals shorter than the minimum are left out: well under 1%.
			is.True(missed*100 < total)
		})
	}
}

// The Go toolchain's own go command: a large real Go binary.
func TestRealGoBinaryLiteral(t *testing.T) {
	needTool(t, "go")
	out, err := run(t.Context(), "", nil, "go", "env", "GOROOT")
	if err != nil {
		t.Fatal(err)
	}
	goroot := strings.TrimSpace(string(out))
	path := filepath.Join(goroot, "bin", "go")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no go command at %s", path)
	}
	// Two messages of cmd/go/internal/modload, as written in its source.
	lits := []string{
		"go: cannot find main module, but found %s in %s\n\tto create a module there, run:\n\t%sgo mod init",
		"go: cannot find main module, but -modfile was set.\n\t-modfile cannot be used to set the module root directory.",
	}
	if src, err := os.ReadFile(filepath.Join(goroot, "src", "cmd", "go", "internal", "modload", "init.go")); err == nil {
		for _, lit := range lits {
			if !bytes.Contains(src, []byte(strconv.Quote(lit))) {
				t.Skipf("this Go release no longer has the literal %q", lit)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	is := is.New(t)
	// strings sees the first line of each, inside a longer run.
	runs := runStrings(t, path, 20)
	for _, lit := range lits {
		first, _, _ := strings.Cut(lit, "\n")
		is.True(slices.ContainsFunc(runs, func(r stringsRun) bool { return strings.Contains(r.value, first) }))
	}
	a := openAnalysis(t, path)
	strs, err := a.Strings(t.Context())
	is.NoErr(err)
	for _, lit := range lits {
		got := withValue(strs, lit)
		if len(got) != 1 {
			t.Fatalf("%q: %d strings with this value, want 1", lit, len(got))
		}
		b, err := a.ReadBytes(t.Context(), got[0].Address, len(lit))
		is.NoErr(err)
		is.Equal(string(b), lit)
	}
	t.Logf("go command: %d strings; strings -n 20: %d runs", len(strs), len(runs))
}

// The Rust fixture: &str in a static table (pointers only in RELATIVE
// relocations of a position-independent executable), a function returning
// a literal, and eprintln! of a plain literal, which recent Rust passes as
// the address and 2*len+1.
const rustLiteralSource = `
static TABLE: [&str; 2] = ["rea-rust-table-one-5d1e", "rea-rust-table-two-5d1e"];
#[inline(never)] fn only_here() -> &'static str { "rea-rust-only-here-5d1e" }
fn main() {
    let n = std::env::args().count();
    println!("rea-rust-println-5d1e {}", TABLE[n % 2]);
    if n > 3 { println!("{}", only_here()); }
    eprintln!("rea-rust-eprintln-literal-5d1e");
}
`

func TestRustLiterals(t *testing.T) {
	if _, err := exec.LookPath("rustc"); err != nil {
		t.Skip("rustc is not installed: no Rust fixture")
	}
	is := is.New(t)
	dir := t.TempDir()
	src, out := filepath.Join(dir, "lit.rs"), filepath.Join(dir, "lit")
	is.NoErr(os.WriteFile(src, []byte(rustLiteralSource), 0o644))
	if _, err := run(t.Context(), dir, nil, "rustc", "-O", "-o", out, src); err != nil {
		t.Fatal(err)
	}
	strs, err := openAnalysis(t, out).Strings(t.Context())
	is.NoErr(err)
	for _, lit := range []string{"rea-rust-table-one-5d1e", "rea-rust-table-two-5d1e", "rea-rust-only-here-5d1e",
		"rea-rust-println-5d1e ", "rea-rust-eprintln-literal-5d1e\n"} {
		if got := withValue(strs, lit); len(got) != 1 {
			t.Errorf("%q: %d strings with this value, want 1", lit, len(got))
		}
	}
}
