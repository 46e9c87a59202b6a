package main

import (
	"fmt"
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

// inspect_native_api on a procedure larger than the instructions whose
// value flow it runs to infer parameters (2000) infers them from that
// prefix only, and says so: the bound, the procedure's size, that a
// parameter read later is not listed (c, read only at the end), and the
// analyze_function call that infers them from the whole procedure. Before,
// it ran the whole value flow, whatever the procedure's size.
func TestMCPInspectNativeAPIBoundsInference(t *testing.T) {
	is := is.New(t)
	var src strings.Builder
	src.WriteString("volatile int sink;\n__attribute__((noinline)) int big(int a, int b, int c) {\n\tsink = b;\n")
	for k := range 1500 {
		fmt.Fprintf(&src, "\tsink = a + %d;\n", k)
	}
	src.WriteString("\treturn c;\n}\nint main(int argc, char **argv) { return big(argc, argc + 1, (int)(long)argv); }\n")
	exe := buildC(t, "bigapi", src.String(), "-O1", "-g0")
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
		t.Fatal(r.text)
	}
	ev, m := evidence(t, call(t, cs, "inspect_native_api", map[string]any{"procedure": "big"}))
	addr := m["procedure"].(map[string]any)["address"].(string)
	lim := strings.Join(ev.Limitations, " ")
	is.True(strings.Contains(lim, "reads rdi, rsi before writing them"))                                             // c's rdx is read after the bound
	is.True(strings.Contains(lim, "parameters inferred from the first 2000 instructions only"))                      // the bound, named
	is.True(strings.Contains(lim, `analyze_function {"procedure":"`+addr+`"} infers them from the whole procedure`)) // the call to make
	_, d := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": addr}))
	vf := d["native_value_flow"].(map[string]any)["summary"].(map[string]any)
	is.Equal(vf["parameters"], []any{"rdi", "rsi", "rdx"}) // what the whole procedure shows
}
