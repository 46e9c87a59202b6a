package main

import (
	"debug/elf"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

const pointerTableC = `int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b; }
int (*ops[])(int, int) = {add, sub};
int main(int c, char **v) { return ops[c & 1](c, 2); }
`

// TestPointerXrefsAreNotCallers checks how the tools show a function
// reached only through a table of function pointers: find_xrefs_to_name,
// xrefs and the dossier's incoming references list the table's slot as a
// pointer reference in no procedure, and nothing counts it as a call.
func TestPointerXrefsAreNotCallers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
	}{{"pie", []string{"-fPIE", "-pie"}}, {"no-pie", []string{"-fno-PIE", "-no-pie"}}} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			bin := buildC(t, "ops", pointerTableC, tc.flags...)
			f, err := elf.Open(bin)
			is.NoErr(err)
			syms, err := f.Symbols()
			is.NoErr(err)
			f.Close()
			addr := map[string]uint64{}
			for _, s := range syms {
				addr[s.Name] = s.Value
			}
			slot := core.Hex(addr["ops"]) // add is ops[0]

			cs := mcpClient(t)
			is.True(!call(t, cs, "open_binary", map[string]any{"path": bin}).isError)
			_, m := evidence(t, call(t, cs, "find_xrefs_to_name", map[string]any{"name": "add"}))
			is.Equal(int(m["total"].(float64)), 1)
			ref := m["references"].([]any)[0].(map[string]any)
			is.Equal(ref["kind"], "pointer")
			is.Equal(ref["from"], slot)
			is.Equal(ref["from_procedure"], nil) // a data slot is in no procedure
			is.Equal(ref["to_name"], "add")

			ev, _ := evidence(t, call(t, cs, "xrefs", map[string]any{"address": core.Hex(addr["add"])}))
			var froms []string
			is.NoErr(json.Unmarshal(ev.NormalizedResult, &froms))
			is.Equal(froms, []string{slot})

			_, m = evidence(t, call(t, cs, "procedure_callers", map[string]any{"procedure": "add"}))
			is.Equal(int(m["total"].(float64)), 0) // a stored pointer is no call

			_, m = evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "add", "detail": "complete"}))
			is.Equal(int(m["callers"].(map[string]any)["total"].(float64)), 0)
			in := m["incoming_references"].(map[string]any)["items"].([]any)
			is.Equal(len(in), 1)
			is.Equal(in[0].(map[string]any)["kind"], "pointer")

			_, m = evidence(t, call(t, cs, "procedure_callees", map[string]any{"procedure": "main"}))
			for _, c := range m["items"].([]any) {
				is.True(c.(map[string]any)["name"] != "add") // main calls through the table: unresolved, not add
			}
		})
	}
}
