package native_test

import (
	"os/exec"
	"strings"
	"testing"

	"rea/adapters/native"
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
