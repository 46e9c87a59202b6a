package ports_test

import (
	"testing"

	"rea/ports"
)

// JSChunkNames.Name joins the parts for a chunk id; a table that lacks the
// id names no file unless it falls back to the id, and nil names none.
func TestJSChunkNamesName(t *testing.T) {
	n := &ports.JSChunkNames{Parts: []ports.JSChunkNamePart{
		{Literal: "chunks/"}, {ID: true}, {Literal: "."}, {Table: map[string]string{"447": "c8c9"}}, {Literal: ".js"},
	}}
	for _, tc := range []struct {
		id, want string
		ok       bool
	}{{"447", "chunks/447.c8c9.js", true}, {"12", "", false}} {
		if got, ok := n.Name(tc.id); got != tc.want || ok != tc.ok {
			t.Errorf("Name(%q) = %q, %v; want %q, %v", tc.id, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := (&ports.JSChunkNames{Parts: []ports.JSChunkNamePart{{Table: map[string]string{}}}}).Name("1"); ok || got != "" {
		t.Errorf("empty table named %q", got)
	}
	// Named chunks: a table whose missing ids name themselves, before a
	// hash table that names only the chunks it holds.
	named := &ports.JSChunkNames{Parts: []ports.JSChunkNamePart{
		{Table: map[string]string{"812": "lazyname"}, OrID: true}, {Literal: "."}, {Table: map[string]string{"812": "1a", "447": "2b"}}, {Literal: ".js"},
	}}
	for _, tc := range []struct {
		id, want string
		ok       bool
	}{{"812", "lazyname.1a.js", true}, {"447", "447.2b.js", true}, {"12", "", false}} {
		if got, ok := named.Name(tc.id); got != tc.want || ok != tc.ok {
			t.Errorf("Name(%q) = %q, %v; want %q, %v", tc.id, got, ok, tc.want, tc.ok)
		}
	}
	var none *ports.JSChunkNames
	if _, ok := none.Name("1"); ok {
		t.Error("nil names a chunk")
	}
}
