package main

import (
	"os/exec"
	"testing"

	"github.com/matryer/is"
)

// constpropSource calls static functions with a constant argument, so gcc
// -O2 keeps only copies specialized for it (mul.constprop.0,
// pre.constprop.0) that take no argument for it.
const constpropSource = `#include <stdio.h>
static __attribute__((noinline)) long mul(long x, long k) { return x * k + (x >> 3); }
static __attribute__((noinline)) long pre(long k, long x, long y) { return x * k - y; }
int main(int argc, char **argv) {
	printf("%ld %ld\n", mul(argc, 7), mul(argc + 1, 7));
	printf("%ld\n", pre(9, argc, 3 * argc) + pre(9, argc * 5, argc));
	return 0;
}
`

// A specialized copy's constant parameter has its value where the copy's
// parameters are shown: inspect_native_api's native_api and signature
// ("k = 9"), and trace_native_calls' breakpoint ("k", register "none",
// constant "7"), in the source's order (pre: k, x, y). Before, k was located "none" and its
// value was not reported, and pre's parameters came in the copy's DWARF
// order (x, y, k).
func TestMCPNativeConstantParameterOfSpecializedCopy(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "constprop", constpropSource, "-g", "-O2")
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
	noDescendants(t)
}
