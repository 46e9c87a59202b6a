package main

import (
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestUnmappedAddressReadersAgree: an address outside every section and
// segment is the same typed invalid_request (reason out_of_range on
// address) from every reader that takes one, where xrefs, list_names and
// address_name used to answer an empty list as if the address were mapped
// and merely unnamed.
func TestUnmappedAddressReadersAgree(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": bin}).isError)
	const far = "0xfffffffffff0"
	for _, tool := range []string{"read_bytes", "xrefs", "list_names", "address_name"} {
		code, details := errCode(t, call(t, cs, tool, map[string]any{"address": far}))
		is.Equal(code, core.CodeInvalidRequest)
		issue := details["issues"].([]any)[0].(map[string]any)
		is.Equal(issue["reason"], "out_of_range")
		is.Equal(issue["path"], []any{"address"})
	}
	// A mapped address with no name is still an empty answer.
	_, page := evidence(t, call(t, cs, "list_names", map[string]any{"address": "0x1"}))
	is.Equal(page["total"], 0.0)
}
