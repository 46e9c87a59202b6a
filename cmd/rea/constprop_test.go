package main

import (
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/matryer/is"
)

// constpropSource is adapters/native's fixture: static functions called
// with a constant argument, so gcc -O2 keeps only copies specialized for
// it (mul.constprop.0, pre.constprop.0) that take no argument for it.
const constpropSource = "../../adapters/native/testdata/constprop.c"

// A specialized copy's constant parameter has its value where the copy's
// parameters are shown: inspect_native_api's native_api and signature
// ("k = 9"), and trace_native_calls' breakpoint ("k", register "none",
// constant "7"), in the source's order (pre: k, x, y). Before, k was located "none" and its
// value was not reported, and pre's parameters came in the copy's DWARF
// order (x, y, k).
func TestMCPNativeConstantParameterOfSpecializedCopy(t *testing.T) {
	is := is.New(t)
	src, err := os.ReadFile(constpropSource)
	if err != nil {
		t.Fatal(err)
	}
	exe := buildC(t, "constprop", string(src), "-g", "-O2")
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
		t.Fatal(r.text)
	}
	param := func(name, typ, loc, k string, constant any) map[string]any {
		p := map[string]any{"name": name, "type": typ, k: loc}
		if constant != nil {
			p["constant"] = constant
		}
		return p
	}
	_, m := evidence(t, call(t, cs, "inspect_native_api", map[string]any{"procedure": "pre.constprop.0"}))
	is.Equal(m["signature"], "long int pre.constprop.0(long int k = 9, long int x, long int y)")
	is.Equal(m["native_api"].(map[string]any)["parameters"], []any{param("k", "long int", "none", "location", "9"),
		param("x", "long int", "rdi", "location", nil), param("y", "long int", "rsi", "location", nil)})
	if _, err := exec.LookPath("gdbserver"); err != nil {
		t.Skip("gdbserver is not installed (Debian: apt-get install gdbserver)")
	}
	_, m = evidence(t, call(t, cs, "trace_native_calls", map[string]any{"procedures": []string{"mul.constprop.0"}}))
	bp := m["breakpoints"].([]any)[0].(map[string]any)
	is.Equal(bp["parameters"], []any{param("x", "long int", "rdi", "register", nil), param("k", "long int", "none", "register", "7")})
	// Each hit repeats the constant where the parameter comes, read from
	// no register: mul(argc, 7) and mul(argc + 1, 7) with argc 1.
	hits := m["hits"].([]any)
	is.Equal(len(hits), 2)
	var xs []string
	for _, h := range hits {
		args := h.(map[string]any)["arguments"].([]any)
		is.Equal(len(args), 2)
		x := args[0].(map[string]any)
		is.Equal(x["parameter"], "x")
		xs = append(xs, x["value"].(string))
		is.Equal(args[1], map[string]any{"register": "none", "value": "0x7", "parameter": "k", "string": nil, "constant": "7"})
	}
	slices.Sort(xs) // gcc decides which argument it computes first
	is.Equal(xs, []string{"0x1", "0x2"})
	noDescendants(t)
}
