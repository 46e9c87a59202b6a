package main

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// nativeAPISource has a procedure of three parameters that main calls.
const nativeAPISource = `__attribute__((noinline)) int mix(int a, int b, int c) { return a * b + c; }
int main(int argc, char **argv) { return mix(argc, argc + 1, (int)(long)argv); }
`

// inspect_native_api on a procedure no debug information describes says
// native_api is unavailable and, in a limitation, what the code shows
// instead (the registers it reads before writing them) and the call that
// gives them with their uses: analyze_function with the procedure's
// address. With DWARF the declared signature is the answer and no such
// note is made. Before, the answer stopped at "unavailable".
func TestMCPInspectNativeAPIPointsToInferred(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		flag  string
		dwarf bool
	}{{"-g0", false}, {"-g", true}} {
		exe := buildC(t, "nativeapi", nativeAPISource, "-O1", tc.flag)
		cs := mcpClient(t)
		if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
			t.Fatal(r.text)
		}
		ev, m := evidence(t, call(t, cs, "inspect_native_api", map[string]any{"procedure": "mix"}))
		is.Equal(m["native_api"].(map[string]any)["available"], tc.dwarf)
		addr := m["procedure"].(map[string]any)["address"].(string)
		lim := strings.Join(ev.Limitations, " ")
		pointer := `analyze_function {"procedure":"` + addr + `"}`
		if tc.dwarf {
			is.True(!strings.Contains(lim, "analyze_function")) // the declared signature answers
			continue
		}
		is.True(strings.Contains(lim, pointer))               // the call to make instead
		is.True(strings.Contains(lim, "reads rdi, rsi, rdx")) // the inferred parameters, in order
		_, d := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": addr}))
		vf := d["native_value_flow"].(map[string]any)["summary"].(map[string]any)
		is.Equal(vf["parameters"], []any{"rdi", "rsi", "rdx"}) // what the pointer promised
	}
}
