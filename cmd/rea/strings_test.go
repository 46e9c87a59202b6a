package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

type foundCode struct {
	MatchedStrings int `json:"matched_strings"`
	Strings        []struct {
		String struct {
			Address   string
			Value     string
			Truncated bool
		}
	}
	Procedures []struct {
		Address, Name, Reference string
		Sites                    []string
	}
}

// TestFindCodeForGoStrings builds a Go program whose literals reach code in
// three ways (loaded directly, through a string header in a data table, and
// as the tail of a literal longer than the display cap) and requires that
// find_code_for_string finds each one and ranks first the procedure that
// uses it; then the same on the Go toolchain's own go command.
func TestFindCodeForGoStrings(t *testing.T) {
	long := strings.Repeat("padding text that makes this literal longer than the display cap. ", 80) + "rea-tail-marker: found past the cap"
	src := fmt.Sprintf(`package main

import "os"

var table = []string{"rea-header-literal: reached through a string header", "second entry"}

//go:noinline
func direct() string { return "rea-direct-literal: loaded by direct" }

//go:noinline
func viaTable(i int) string { return table[i] }

//go:noinline
func longOne() string { return %q }

func main() {
	os.Stdout.WriteString(direct() + viaTable(len(os.Args)-1) + longOne()[:10])
}
`, long)
	prog := goBuild(t, t.TempDir(), "amd64", src)
	is := is.New(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": prog}).isError)
	find := func(query string) foundCode {
		t.Helper()
		var f foundCode
		_, m := evidence(t, call(t, cs, "find_code_for_string", map[string]any{"query": query, "case_sensitive": true}))
		decode(t, m, &f)
		return f
	}
	for _, c := range []struct{ query, user, how string }{
		{"rea-direct-literal", "main.direct", "direct"},
		{"rea-header-literal", "main.viaTable", "via-data"},
		{"rea-tail-marker", "main.longOne", "direct"},
	} {
		f := find(c.query)
		if len(f.Strings) == 0 || len(f.Procedures) == 0 {
			t.Errorf("%s: %d strings, %d procedures", c.query, len(f.Strings), len(f.Procedures))
			continue
		}
		if f.Procedures[0].Name != c.user || f.Procedures[0].Reference != c.how {
			t.Errorf("%s: top-ranked %s (%s), want %s (%s); all: %+v", c.query, f.Procedures[0].Name, f.Procedures[0].Reference, c.user, c.how, f.Procedures)
		}
	}
	// The long literal's displayed value is capped, and the marker is past the cap.
	f := find("rea-tail-marker")
	is.True(len(f.Strings) == 1 && f.Strings[0].String.Truncated && !strings.Contains(f.Strings[0].String.Value, "rea-tail-marker"))

	t.Run("go command", func(t *testing.T) {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			t.Skip("go is not on PATH")
		}
		goCmd, _ = filepath.EvalSymlinks(goCmd)
		if _, err := os.Stat(goCmd); err != nil {
			t.Skip(err)
		}
		is := is.New(t)
		cs := mcpClient(t)
		is.True(!call(t, cs, "open_binary", map[string]any{"path": goCmd}).isError)
		// modload reports a missing module with this literal; the
		// procedure ranked first must hold an instruction loading it.
		var f foundCode
		_, m := evidence(t, call(t, cs, "find_code_for_string", map[string]any{"query": "go: cannot find main module", "case_sensitive": true}))
		decode(t, m, &f)
		is.True(len(f.Procedures) > 0)
		top := f.Procedures[0]
		is.Equal(top.Reference, "direct")
		is.True(strings.HasPrefix(top.Name, "cmd/go/internal/modload."))
		// Its first site lies inside it and references the literal.
		_, xr := evidence(t, call(t, cs, "resolve_containing_procedure", map[string]any{"address": top.Sites[0]}))
		is.True(strings.Contains(fmt.Sprint(xr), top.Address))
	})
}

// TestFindCodeForCStringWithLineBreaks builds a C program whose message
// starts and ends with a line break, as C diagnostics often do: the literal
// is one string at the address the code loads, line breaks included, so
// find_code_for_string finds the function that prints it.
func TestFindCodeForCStringWithLineBreaks(t *testing.T) {
	help := strings.Repeat("a line of help text that an embedded script or manual would hold\\n", 80) + "rea-past-the-cap: the last line"
	prog := buildC(t, "crcmsg", `#include <stdio.h>
__attribute__((noinline)) void crc_fail(const char *name) {
	fprintf(stderr, "\n%s: rea-crc-marker: invalid data\r\n", name);
}
int main(int argc, char **argv) {
	if (argc > 2)
		puts("`+help+`");
	if (argc > 1)
		crc_fail(argv[1]);
	return 0;
}
`)
	is := is.New(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": prog}).isError)
	var f foundCode
	_, m := evidence(t, call(t, cs, "find_code_for_string", map[string]any{"query": "rea-crc-marker", "case_sensitive": true}))
	decode(t, m, &f)
	is.Equal(len(f.Strings), 1)
	is.Equal(f.Strings[0].String.Value, "\n%s: rea-crc-marker: invalid data\r\n") // one literal, line breaks included
	is.True(len(f.Procedures) > 0)
	is.Equal(f.Procedures[0].Name, "crc_fail")
	is.Equal(f.Procedures[0].Reference, "direct") // the code loads the literal's first byte

	// A multi-line literal longer than the display cap is one string, and
	// search_strings matches its whole text, not only the capped value.
	var page struct {
		Total int
		Items []struct {
			Value     string
			Truncated bool
		}
	}
	_, m = evidence(t, call(t, cs, "search_strings", map[string]any{"pattern": "rea-past-the-cap", "case_sensitive": true}))
	decode(t, m, &page)
	is.Equal(page.Total, 1)
	is.True(page.Items[0].Truncated && strings.HasPrefix(page.Items[0].Value, "a line of help text"))
}
