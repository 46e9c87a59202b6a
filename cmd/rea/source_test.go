package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// inlinedSource calls clampv inside twice inside main's loop: at -O2 both
// are inlined, the addresses of clampv's code lying in a chain of two
// inlined calls.
const inlinedSource = `#include <stdio.h>
static inline int clampv(int v) { return v > 1000 ? 1000 : v; }
static inline int twice(int v) { return clampv(v * 2 + 1); }

int main(int argc, char **argv) {
	int t = 0;
	for (int i = 0; i < argc; i++)
		t += twice(argv[i][0] * argc);
	printf("%d\n", t);
	return 0;
}
`

// TestMCPSourceFacet: inspect_address_context's source facet names the
// line of an address and the inlined calls it lies in, innermost first; a
// build without -g says why it has none; rea annotate prints the chain.
func TestMCPSourceFacet(t *testing.T) {
	is := is.New(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: apt install gcc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "inl.c")
	is.NoErr(os.WriteFile(src, []byte(inlinedSource), 0o644))
	bin, bare := filepath.Join(dir, "inl"), filepath.Join(dir, "inl-bare")
	for out, flags := range map[string][]string{bin: {"-O2", "-g"}, bare: {"-O2"}} {
		if b, err := exec.Command("gcc", append(flags, "-o", out, src)...).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
	}

	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, ins := evidence(t, call(t, cs, "read_function_instructions", map[string]any{"procedure": "main", "limit": 500}))
	var chain map[string]any
	var at string
	for _, in := range ins["items"].([]any) {
		a := in.(map[string]any)["address"].(string)
		ctx := sessionResult(t, call(t, cs, "inspect_address_context", map[string]any{"address": a}))
		f := facet(ctx, "source")
		is.Equal(f["status"], "available")
		if v, ok := f["value"].(map[string]any); ok && len(v["inlined"].([]any)) == 2 {
			chain, at = v, a
			break
		}
	}
	if chain == nil {
		t.Fatal("no address of main lies in the two inlined calls")
	}
	t.Logf("%v", chain)
	is.Equal(filepath.Base(chain["file"].(string)), "inl.c")
	is.Equal(chain["line"], 2.0) // clampv's body
	is.Equal(chain["function"], "main")
	inl := chain["inlined"].([]any)
	is.Equal(inl[0].(map[string]any)["function"], "clampv")
	is.Equal(inl[0].(map[string]any)["call_line"], 3.0) // in twice
	is.Equal(inl[1].(map[string]any)["function"], "twice")
	is.Equal(inl[1].(map[string]any)["call_line"], 8.0) // in main's loop
	is.Equal(filepath.Base(inl[1].(map[string]any)["call_file"].(string)), "inl.c")

	// Before main's code (the ELF header) no line: available, null.
	_, segs := evidence(t, call(t, cs, "list_segments", map[string]any{}))
	first := segs["items"].([]any)[0].(map[string]any)["start"].(string)
	f := facet(sessionResult(t, call(t, cs, "inspect_address_context", map[string]any{"address": first})), "source")
	is.Equal(f["status"], "available")
	is.Equal(f["value"], nil)

	// Without -g: unavailable, with the reason.
	if r := call(t, cs, "open_binary", map[string]any{"path": bare}); r.isError {
		t.Fatal(r.text)
	}
	f = facet(sessionResult(t, call(t, cs, "inspect_address_context", map[string]any{"address": "main"})), "source")
	is.Equal(f["status"], "unavailable")
	is.Equal(f["reason"], "no DWARF line table (built without -g or stripped)")

	// rea annotate's text shows the facet as addr2line -f -i would.
	out, _, code := runCLI(t, "annotate", bin, `inspect_address_context={"address":"`+at+`"}`)
	is.Equal(code, 0)
	is.True(strings.Contains(out, "inl.c:2 in clampv, inlined at "+src+":3 in twice, inlined at "+src+":8 in main"))
}
