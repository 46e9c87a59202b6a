package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rea compare takes two native binaries or two bundle files. One binary and
// one file of another kind is named as such: before, the pair went to the
// bundle reader, which answered "evidence bundle read: bundle: invalid
// character '\x7f'" (evidence_integrity_mismatch, exit 5) about the binary.
func TestCompareOneBinaryAndOneOther(t *testing.T) {
	bin := needFixture(t)
	other := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(other, []byte("not a binary\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{bin, other}, {other, bin}} {
		_, errOut, code := runCLI(t, "compare", pair[0], pair[1])
		if code != 2 || strings.Contains(errOut, `\x7f`) || !strings.Contains(errOut, "invalid_request") ||
			!strings.Contains(errOut, filepath.Base(other)+" is not") || !strings.Contains(errOut, "two native binaries or two Evidence bundle files") {
			t.Errorf("compare %s %s: exit %d\n%s", pair[0], pair[1], code, errOut)
		}
	}
	out, _, code := runCLI(t, "--format", "json", "compare", bin, other)
	if code != 2 || !strings.Contains(out, `"code":"invalid_request"`) || !strings.Contains(out, `"path":["right"]`) {
		t.Errorf("json: exit %d\n%s", code, out)
	}
}

// An invalid_request in text mode points at the issues printed below it,
// never at details.issues (a field only --format json shows), and an issue
// about the whole arguments is labelled so instead of "[]:". Before:
// rea call binary_overview '{bad' printed "what to do: Correct the
// arguments listed in details.issues and call again." and "[]: invalid_type
// ..."; so did rea disassemble FILE --section .data.
func TestTextErrorsPointAtTheIssuesShown(t *testing.T) {
	bin := needFixture(t)
	for _, args := range [][]string{
		{"call", "binary_overview", "{bad", "--target", bin},
		{"call", "binary_overview", "{bad"},
		{"disassemble", bin, "--section", ".data"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 || strings.Contains(errOut, "details.issues") || strings.Contains(errOut, "  []:") ||
			!strings.Contains(errOut, "listed below") || !strings.Contains(errOut, "  arguments: ") {
			t.Errorf("rea %q: exit %d\n%s", args, code, errOut)
		}
		if args[0] == "call" && !strings.Contains(errOut, "rea tools binary_overview") {
			t.Errorf("rea %q does not name rea tools binary_overview:\n%s", args, errOut)
		}
	}
}
