package native_test

import (
	"math"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// TestFastPathMatchesFullDecoder walks every executable section of the
// fixtures and of system binaries instruction by instruction with the fast
// decoder and with x86asm alone: sizes, flows, targets, references and jump
// tables must be the same.
func TestFastPathMatchesFullDecoder(t *testing.T) {
	codeFixtures()
	var paths []string
	for _, name := range []string{"c", "c-O2", "c-ibt", "c-noplt", "gen-O0-stripped", "gen-nounwind-stripped", "code-nounwind-stripped"} {
		p, err := buildFixture(t.Context(), name)
		if err != nil {
			t.Logf("fixture %s: %v", name, err)
			continue
		}
		paths = append(paths, p)
	}
	paths = append(paths, "/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libc.so.6")
	if out, err := exec.Command("gcc", "-print-prog-name=cc1").Output(); err == nil && !testing.Short() {
		paths = append(paths, strings.TrimSpace(string(out)))
	}
	checked := 0
	for _, p := range paths {
		st, err := native.CompareX86Paths(t.Context(), p)
		if err != nil {
			if strings.Contains(err.Error(), "no such file") || strings.Contains(err.Error(), "not x86") {
				t.Logf("%s: %v", p, err)
				continue
			}
			t.Fatalf("%s: %v", p, err)
		}
		checked++
		t.Logf("%s: %d instructions, %d on the fast path (%.1f%%), %d references", p, st.Instructions, st.Fast,
			100*float64(st.Fast)/float64(max(st.Instructions, 1)), st.Refs)
		if st.Instructions == 0 || st.Refs == 0 {
			t.Fatalf("%s: nothing compared", p)
		}
	}
	if checked == 0 {
		t.Skip("no x86 binary to compare")
	}
}

// discoveryOf is what whole-file discovery finds in the file at path.
type discoveryOf struct {
	procs  []ports.Procedure
	ranges []ports.FunctionRange
	refs   []ports.Reference
	stats  native.DiscoveryStats
}

func discover(t *testing.T, path string) discoveryOf {
	t.Helper()
	a := openAnalysis(t, path)
	var d discoveryOf
	var err error
	if d.procs, err = a.Procedures(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d.ranges, err = a.FunctionRanges(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d.refs, err = a.ReferencesFrom(t.Context(), 0, math.MaxUint64); err != nil {
		t.Fatal(err)
	}
	if d.stats, err = a.Discovery(t.Context()); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDiscoveryFastPathAgrees: whole-file discovery finds the same
// procedures, function ranges and references whether the x86 decoder takes
// the fast path or decodes everything with x86asm.
func TestDiscoveryFastPathAgrees(t *testing.T) {
	codeFixtures()
	var paths []string
	for _, name := range []string{"c-O2", "c-noplt", "c-stripped", "gen-O0-stripped", "gen-nounwind-stripped"} {
		if p, err := buildFixture(t.Context(), name); err == nil {
			paths = append(paths, p)
		}
	}
	paths = append(paths, "/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libc.so.6")
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		fast := discover(t, p)
		restore := native.X86FullOnly()
		full := discover(t, p)
		restore()
		if len(fast.refs) == 0 || len(fast.procs) == 0 {
			t.Fatalf("%s: nothing discovered", p)
		}
		if !reflect.DeepEqual(fast.procs, full.procs) {
			t.Errorf("%s: procedures differ: %d with the fast path, %d without", p, len(fast.procs), len(full.procs))
		}
		if !reflect.DeepEqual(fast.ranges, full.ranges) {
			t.Errorf("%s: function ranges differ", p)
		}
		if !reflect.DeepEqual(fast.refs, full.refs) {
			t.Errorf("%s: references differ: %d with the fast path, %d without", p, len(fast.refs), len(full.refs))
		}
		if !reflect.DeepEqual(fast.stats, full.stats) {
			t.Errorf("%s: discovery differs: %+v with the fast path, %+v without", p, fast.stats, full.stats)
		}
		t.Logf("%s: %d procedures, %d references", p, len(fast.procs), len(fast.refs))
	}
}

// TestSweepDoesNotAllocate: the discovery decoder allocates nothing for an
// instruction the fast path takes (about 99% of them; once per sweep, for
// its insn), and on whole code sections only for the rest: instructions
// outside the fast tables and the instructions before an indirect jump
// that jump-table recovery decodes with x86asm (about one allocation per
// 20 to 70 instructions on these files; with x86asm decoding every memory
// operand it was about one per 5).
func TestSweepDoesNotAllocate(t *testing.T) {
	codeFixtures()
	paths := []string{"/usr/bin/ls"}
	for _, name := range []string{"c-O2", "gen-O0-stripped"} {
		if p, err := buildFixture(t.Context(), name); err == nil {
			paths = append(paths, p)
		}
	}
	checked := 0
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		section, fastOnly, n, err := native.SweepAllocs(t.Context(), p, func(f func()) float64 { return testing.AllocsPerRun(3, f) })
		if err != nil {
			t.Fatal(err)
		}
		checked++
		t.Logf("%s: %d instructions, %.0f allocations per sweep (%.4f per instruction), %.0f on the fast path's", p, n, section, section/float64(n), fastOnly)
		if fastOnly > 1 { // the insn of the sweep, once
			t.Errorf("%s: %.0f allocations sweeping the instructions the fast path takes", p, fastOnly)
		}
		if section > float64(n)/10 {
			t.Errorf("%s: %.0f allocations for %d instructions", p, section, n)
		}
	}
	if checked == 0 {
		t.Skip("no x86 binary")
	}
}
