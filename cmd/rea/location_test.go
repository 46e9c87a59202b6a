package main

import (
	"testing"

	"github.com/matryer/is"
)

// TestStepAndXrefsStartAtTheCursor: next_address, prev_address and xrefs
// without an address start from the session's cursor (goto_address), as
// the contract's cursor-default tools do; before, they started from the
// entry point whatever goto_address had done.
func TestStepAndXrefsStartAtTheCursor(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, gone := evidence(t, call(t, cs, "goto_address", map[string]any{"address": "helper"}))
	at := gone["address"].(string)
	for _, tool := range []string{"next_address", "prev_address"} {
		_, m := evidence(t, call(t, cs, tool, map[string]any{}))
		is.Equal(m["address"], at) // from the cursor
	}
	want, _ := evidence(t, call(t, cs, "xrefs", map[string]any{"address": at}))
	got, _ := evidence(t, call(t, cs, "xrefs", map[string]any{}))
	is.Equal(string(got.NormalizedResult), string(want.NormalizedResult))
	is.Equal(got.Locations[0].Address, at)
}
