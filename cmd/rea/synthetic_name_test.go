package main

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestProcedureAddressTakesSyntheticNames: an engine's made-up name of the
// procedure at an address (rea's and IDA's sub_, Ghidra's FUN_, radare2's
// fcn.) names the procedure starting there, and the result says it was
// resolved from that name; where no procedure starts, the refusal suggests
// the procedure holding the address. Before, procedure_address "sub_113e"
// on a binary whose 0x113e is compute was "no procedure is named" with no
// suggestion, since suggestions were names close in spelling only.
func TestProcedureAddressTakesSyntheticNames(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "synthetic", `#include <stdio.h>
__attribute__((noinline)) int helper(int x) { return x * 3 + 1; }
__attribute__((noinline)) int compute(int a) { return helper(a) + helper(a + 1); }
int main(int c, char **v) { printf("%d\n", compute(c)); return 0; }
`)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	_, m := evidence(t, call(t, cs, "procedure_address", map[string]any{"procedure": "compute"}))
	at := m["address"].(string)
	is.Equal(m["resolved_from"], nil) // a procedure's own name
	var hex uint64
	fmt.Sscanf(at, "0x%x", &hex)
	for _, name := range []string{fmt.Sprintf("sub_%x", hex), fmt.Sprintf("FUN_%08X", hex), fmt.Sprintf("fcn.%08x", hex)} {
		_, m := evidence(t, call(t, cs, "procedure_address", map[string]any{"procedure": name}))
		is.Equal(m["procedure"], "compute")
		is.Equal(m["address"], at)
		is.Equal(m["matches"], []any{at})
		is.Equal(m["resolved_from"], name)
	}
	// Inside compute, where no procedure starts: compute is suggested.
	inside := fmt.Sprintf("sub_%x", hex+1)
	code, details := errCode(t, call(t, cs, "procedure_address", map[string]any{"procedure": inside}))
	is.Equal(code, core.CodeInvalidRequest)
	is.Equal(details["reason"], "unknown_name")
	if !reflect.DeepEqual(details["suggestions"], []any{"compute"}) {
		t.Errorf("procedure_address %q suggests %v, want [compute]", inside, details["suggestions"])
	}
	// A procedure input takes Ghidra's name too, as it takes sub_.
	_, m = evidence(t, call(t, cs, "procedure_info", map[string]any{"procedure": fmt.Sprintf("FUN_%08x", hex)}))
	is.True(strings.Contains(fmt.Sprint(m), "compute"))
}
