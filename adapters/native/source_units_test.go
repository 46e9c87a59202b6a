package native_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

var registerUnits sync.Once

// unitFixtures: lines.c with an assembly unit whose function has line
// records and no DWARF subprogram; the lines.c build with its debug
// sections compressed the old GNU way (.zdebug_*, "ZLIB" and a size) and
// the ELF way (SHF_COMPRESSED).
func unitFixtures() {
	lineFixtures()
	registerUnits.Do(func() {
		fixtures["lines-asm-O2-g"] = srcFixture("lines-asm-O2-g", "gcc", "lines.c", "-O2", "-g", filepath.Join("testdata", "lines_asm.s"))
		for name, how := range map[string]string{"lines-O2-g-zdebug": "zlib-gnu", "lines-O2-g-zlib": "zlib-gabi"} {
			fixtures[name] = &fixture{tools: []string{"gcc", "objcopy"}, build: func(ctx context.Context) (string, error) {
				src, err := buildFixture(ctx, "lines-O2-g")
				if err != nil {
					return "", err
				}
				out := filepath.Join(fixtureDir, name)
				_, err = run(ctx, "", nil, "objcopy", "--compress-debug-sections="+how, src, out)
				return out, err
			}}
		}
	})
}

// procAddresses are the instruction addresses of the named procedures
// (at -O2 lines.c's checksum has no copy of its own).
func procAddresses(t *testing.T, a *native.Analysis, names ...string) map[string][]uint64 {
	t.Helper()
	procs, err := a.Procedures(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]uint64{}
	for _, p := range procs {
		for _, n := range names {
			if p.Name == n {
				out[n], _ = addresses(t, a, p.Address)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("none of %v found", names)
	}
	return out
}

// TestSourceLinesDecodeOneUnit: the first lookup decodes the unit that
// covers the address, not every unit: one of lines.c's two (with the
// assembly unit), two of a Go program's hundreds.
func TestSourceLinesDecodeOneUnit(t *testing.T) {
	unitFixtures()
	for _, tt := range []struct {
		fixture, proc string
		minUnits      int
	}{
		{"lines-asm-O2-g", "main", 2},
		{"go-linux-arm64", "main.main", 50},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			is := is.New(t)
			a, err := native.OpenFile(t.Context(), fixturePath(t, tt.fixture))
			is.NoErr(err)
			defer a.Close(context.Background())
			addrs := procAddresses(t, a, tt.proc)[tt.proc]
			loc, err := a.SourceAt(t.Context(), addrs[0])
			is.NoErr(err)
			is.Equal(loc.Function, tt.proc)
			decoded, units := native.SourceUnits(a)
			t.Logf("%s: %d of %d units decoded for %s at %s:%d", tt.fixture, decoded, units, tt.proc, filepath.Base(loc.File), loc.Line)
			is.True(units >= tt.minUnits)
			is.True(decoded >= 1 && decoded <= 2) // the unit, and the one of another range that the address may also fall in
			for _, addr := range addrs {
				_, err := a.SourceAt(t.Context(), addr)
				is.True(err == nil || errors.Is(err, ports.ErrNotFound))
			}
			again, _ := native.SourceUnits(a)
			is.Equal(again, decoded) // the procedure's other addresses are in the unit decoded
		})
	}
}

// TestSourceLinesConcurrentEvicting: lookups from several goroutines,
// with a cache too small to keep two units, answer as lookups one at a
// time with the whole cache do.
func TestSourceLinesConcurrentEvicting(t *testing.T) {
	unitFixtures()
	is := is.New(t)
	bin := fixturePath(t, "lines-asm-O2-g")
	want := map[uint64]string{}
	ref, err := native.OpenFile(t.Context(), bin)
	is.NoErr(err)
	defer ref.Close(context.Background())
	var addrs []uint64
	for _, as := range procAddresses(t, ref, "main", "total", "checksum", "asm_add") {
		addrs = append(addrs, as...)
	}
	for _, addr := range addrs {
		loc, err := ref.SourceAt(t.Context(), addr)
		want[addr] = fmt.Sprint(loc, err)
	}

	a, err := native.OpenFile(t.Context(), bin)
	is.NoErr(err)
	defer a.Close(context.Background())
	native.LimitSourceCache(t.Context(), a, addrs[0], 1)
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(addrs))
	for g := range 8 {
		wg.Go(func() {
			for i := range addrs {
				addr := addrs[(i+g*7)%len(addrs)]
				loc, err := a.SourceAt(t.Context(), addr)
				if got := fmt.Sprint(loc, err); got != want[addr] {
					errs <- fmt.Sprintf("0x%x: %s, want %s", addr, got, want[addr])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	decoded, units := native.SourceUnits(a)
	is.Equal(units, 2)
	is.Equal(decoded, 1) // the other was dropped
}

// TestSourceLinesShareDWARF: signatures and source lines read one parsed
// DWARF and one decompressed .debug_line.
func TestSourceLinesShareDWARF(t *testing.T) {
	unitFixtures()
	for _, name := range []string{"lines-O2-g", "lines-O2-g-zlib", "go-linux-arm64"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a, err := native.OpenFile(t.Context(), fixturePath(t, name))
			is.NoErr(err)
			defer a.Close(context.Background())
			proc := "main"
			if name == "go-linux-arm64" {
				proc = "main.main"
			}
			at := procAddresses(t, a, proc)[proc][0]
			_, err = a.Signature(t.Context(), at)
			is.NoErr(err)
			_, err = a.SourceAt(t.Context(), at)
			is.NoErr(err)
			is.True(native.SharedDWARF(a))
		})
	}
}

// TestSourceFunctionFromSymbol: an address with a line but no DWARF
// subprogram (asm_add, assembled with -g) takes its function from the
// symbol table, as addr2line -f names it.
func TestSourceFunctionFromSymbol(t *testing.T) {
	unitFixtures()
	is := is.New(t)
	if _, err := exec.LookPath("addr2line"); err != nil {
		t.Skip("addr2line not found: apt install binutils")
	}
	bin := fixturePath(t, "lines-asm-O2-g")
	a, err := native.OpenFile(t.Context(), bin)
	is.NoErr(err)
	defer a.Close(context.Background())
	addrs := procAddresses(t, a, "asm_add")["asm_add"] // and the padding after it: no line there
	want := addr2lineFrames(t, "addr2line", bin, addrs)
	found := 0
	for _, addr := range addrs {
		loc, err := a.SourceAt(t.Context(), addr)
		var got []frame
		if !errors.Is(err, ports.ErrNotFound) {
			is.NoErr(err)
			is.Equal(filepath.Base(loc.File), "lines_asm.s")
			is.Equal(loc.Function, "asm_add")
			got = reaFrames(loc)
			found++
		}
		is.Equal(fmt.Sprint(got), fmt.Sprint(want[addr]))
	}
	is.Equal(found, 3) // lea, add, ret
}

// TestSourceLinesCompressed: debug sections compressed the old GNU way
// (.zdebug_line) and the ELF way answer as the uncompressed build does.
func TestSourceLinesCompressed(t *testing.T) {
	unitFixtures()
	plain, err := native.OpenFile(t.Context(), fixturePath(t, "lines-O2-g"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(context.Background())
	var addrs []uint64
	for _, as := range procAddresses(t, plain, "main", "total", "checksum") {
		addrs = append(addrs, as...)
	}
	for _, name := range []string{"lines-O2-g-zdebug", "lines-O2-g-zlib"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a, err := native.OpenFile(t.Context(), fixturePath(t, name))
			is.NoErr(err)
			defer a.Close(context.Background())
			found := 0
			for _, addr := range addrs {
				want, werr := plain.SourceAt(t.Context(), addr)
				got, err := a.SourceAt(t.Context(), addr)
				is.Equal(fmt.Sprint(got, err), fmt.Sprint(want, werr))
				if err == nil {
					found++
				}
			}
			is.True(found > len(addrs)/2)
		})
	}
}
