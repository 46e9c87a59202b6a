package native_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// lineVariants are builds of testdata/lines.c: its static inline functions,
// called in loops, are inlined at -O2 into chains two calls deep. gcc 12
// writes DWARF 5 by default, clang 14 too; mingw's gcc writes DWARF into a
// PE image.
var lineVariants = []struct {
	name, tool string
	flags      []string
	addr2line  string // the oracle for the architecture
}{
	{"lines-O0-g", "gcc", []string{"-O0", "-g"}, "addr2line"},
	{"lines-O2-g", "gcc", []string{"-O2", "-g"}, "addr2line"},
	{"lines-O2-g-nopie", "gcc", []string{"-O2", "-g", "-fno-PIE", "-no-pie"}, "addr2line"},
	{"lines-O2-g4", "gcc", []string{"-O2", "-gdwarf-4"}, "addr2line"},
	{"clang-lines-O2-g4", "clang", []string{"-O2", "-gdwarf-4"}, "addr2line"},
	{"clang-lines-O2-g5", "clang", []string{"-O2", "-gdwarf-5"}, "addr2line"},
	{"lines-arm64-O2-g", "aarch64-linux-gnu-gcc", []string{"-O2", "-g"}, "aarch64-linux-gnu-addr2line"},
	{"lines-i686-O2-g", "i686-linux-gnu-gcc", []string{"-O2", "-g"}, "addr2line"},
	{"lines-clang-arm64-O2-g", "clang", []string{"-O2", "-g", "--target=aarch64-linux-gnu"}, "aarch64-linux-gnu-addr2line"},
	{"lines-mingw64-O2-g.exe", "x86_64-w64-mingw32-gcc", []string{"-O2", "-g"}, "x86_64-w64-mingw32-addr2line"},
	{"lines-mingw32-O2-g.exe", "i686-w64-mingw32-gcc", []string{"-O2", "-g"}, "i686-w64-mingw32-addr2line"},
}

var registerLines sync.Once

func lineFixtures() {
	registerLines.Do(func() {
		for _, v := range lineVariants {
			fixtures[v.name] = srcFixture(v.name, v.tool, "lines.c", v.flags...)
		}
		fixtures["lines-O2-g-stripped"] = stripFixture("lines-O2-g-stripped", "lines-O2-g")
		fixtures["lines-O2-nodebug"] = srcFixture("lines-O2-nodebug", "gcc", "lines.c", "-O2")
	})
}

// frame is one line of addr2line -f -i's answer: a function and where in
// it the address (or the call of the next inner frame) is.
type frame struct {
	function, file string // file is a base name
	line           int
}

func (f frame) String() string { return fmt.Sprintf("%s %s:%d", f.function, f.file, f.line) }

// addr2lineFrames runs addr2line -a -f -i over the addresses, innermost
// frame first for each; an address it knows no line of has no frames.
func addr2lineFrames(t *testing.T, tool, bin string, addrs []uint64) map[uint64][]frame {
	t.Helper()
	args := []string{"-a", "-f", "-i", "-e", bin}
	for _, a := range addrs {
		args = append(args, fmt.Sprintf("0x%x", a))
	}
	out, err := run(t.Context(), "", nil, tool, args...)
	if err != nil {
		t.Fatal(err)
	}
	res := map[uint64][]frame{}
	var cur uint64
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "0x") {
			v, err := strconv.ParseUint(l[2:], 16, 64)
			if err != nil {
				t.Fatalf("addr2line: %q", l)
			}
			cur = v
			res[cur] = nil
			continue
		}
		if i+1 >= len(lines) {
			t.Fatalf("addr2line: a function without its location: %q", l)
		}
		loc := lines[i+1]
		i++
		loc, _, _ = strings.Cut(loc, " (discriminator ")
		file, ln, _ := strings.Cut(loc, ":")
		if file == "??" {
			continue // no line
		}
		n, _ := strconv.Atoi(ln) // "?" is 0
		res[cur] = append(res[cur], frame{l, path.Base(file), n})
	}
	return res
}

// reaFrames is the same view of a SourceLocation.
func reaFrames(loc ports.SourceLocation) []frame {
	fn := func(s string) string {
		if s == "" {
			return "??"
		}
		return s
	}
	out := []frame{{function: fn(loc.Function), file: path.Base(loc.File), line: loc.Line}}
	if len(loc.Inlined) > 0 {
		out[0].function = fn(loc.Inlined[0].Function)
	}
	for i, c := range loc.Inlined {
		caller := loc.Function
		if i+1 < len(loc.Inlined) {
			caller = loc.Inlined[i+1].Function
		}
		out = append(out, frame{fn(caller), path.Base(c.CallFile), c.CallLine})
	}
	return out
}

// TestSourceLinesMatchAddr2line compares SourceAt with addr2line -f -i at
// every instruction of the fixtures' functions: file base name, line and
// the inlined calls' functions and call lines.
func TestSourceLinesMatchAddr2line(t *testing.T) {
	lineFixtures()
	total, inlined, deep, line0, none := 0, 0, 0, 0, 0
	for _, v := range lineVariants {
		t.Run(v.name, func(t *testing.T) {
			if _, err := exec.LookPath(v.addr2line); err != nil {
				t.Skipf("%s not found: apt install %s", v.addr2line, debianPackages[v.addr2line])
			}
			bin := fixturePath(t, v.name)
			a, err := native.OpenFile(t.Context(), bin)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(context.Background())
			procs, err := a.Procedures(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var addrs []uint64
			for _, p := range procs {
				switch p.Name {
				case "main", "total", "checksum", "_main", "_total": // 32-bit PE decorates C names
					as, _ := addresses(t, a, p.Address)
					addrs = append(addrs, as...)
				}
			}
			if len(addrs) == 0 {
				t.Fatal("no function of lines.c found")
			}
			want := addr2lineFrames(t, v.addr2line, bin, addrs)
			for _, addr := range addrs {
				loc, err := a.SourceAt(t.Context(), addr)
				var got []frame
				switch {
				case errors.Is(err, ports.ErrNotFound):
				case err != nil:
					t.Fatalf("0x%x: %v", addr, err)
				default:
					got = reaFrames(loc)
				}
				if fmt.Sprint(got) != fmt.Sprint(want[addr]) {
					t.Errorf("0x%x: rea %v, addr2line %v", addr, got, want[addr])
				}
				total++
				switch {
				case len(got) == 0:
					none++
				case got[0].line == 0:
					line0++
				}
				if len(got) > 1 {
					inlined++
				}
				if len(got) > 2 {
					deep++
				}
			}
		})
	}
	t.Logf("%d addresses compared: %d in inlined calls (%d two or more deep), %d at line 0, %d with no line", total, inlined, deep, line0, none)
}

// TestSourceLinesUnavailable: a stripped build and one without -g have no
// line table; an address outside every sequence has no line.
func TestSourceLinesUnavailable(t *testing.T) {
	lineFixtures()
	for _, name := range []string{"lines-O2-g-stripped", "lines-O2-nodebug"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a, err := native.OpenFile(t.Context(), fixturePath(t, name))
			is.NoErr(err)
			defer a.Close(context.Background())
			_, err = a.SourceAt(t.Context(), 0x1000)
			is.True(errors.Is(err, ports.ErrUnsupported))
			is.True(strings.Contains(err.Error(), "no DWARF line table (built without -g or stripped)"))
		})
	}
	t.Run("outside", func(t *testing.T) {
		is := is.New(t)
		a, err := native.OpenFile(t.Context(), fixturePath(t, "lines-O2-g"))
		is.NoErr(err)
		defer a.Close(context.Background())
		segs, err := a.Segments(t.Context())
		is.NoErr(err)
		_, err = a.SourceAt(t.Context(), segs[0].Start) // the ELF header
		is.True(errors.Is(err, ports.ErrNotFound))
		_, err = a.SourceAt(context.Background(), ^uint64(0))
		is.True(errors.Is(err, ports.ErrNotFound))
	})
}
