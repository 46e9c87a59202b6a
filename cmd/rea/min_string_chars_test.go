package main

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// shortLiteralSource prints a literal of two characters, shorter than the
// 4 the strings list holds by default.
const shortLiteralSource = `#include <stdio.h>
int main(int argc, char **argv) {
	if (argc > 2)
		puts("ok");
	return argc > 1 ? puts("nope") : 0;
}
`

// find_code_for_string and search_strings take min_string_chars for one
// call: a literal of two characters, not found at the default 4 (the note
// says to pass min_string_chars 2), is found at 2 with the code that uses
// it, and the next call without it lists as before. Before, the shortest
// length was the provider's option only, which no tool or flag set.
func TestMCPStringToolsMinStringChars(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "shortlit", shortLiteralSource, "-O1")
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
		t.Fatal(r.text)
	}
	find := func(args map[string]any) (map[string]any, []string) {
		t.Helper()
		ev, m := evidence(t, call(t, cs, "find_code_for_string", args))
		return m, ev.Limitations
	}
	m, lim := find(map[string]any{"query": "ok", "case_sensitive": true})
	is.Equal(m["matched_strings"], float64(0))
	is.True(strings.Contains(strings.Join(lim, " "), "Pass min_string_chars 2")) // says what to pass
	m, _ = find(map[string]any{"query": "ok", "case_sensitive": true, "min_string_chars": 2})
	is.Equal(m["matched_strings"], float64(1))
	procs := m["procedures"].([]any)
	is.True(len(procs) > 0)
	is.Equal(procs[0].(map[string]any)["name"], "main") // the code that prints it
	search := func(args map[string]any) float64 {
		t.Helper()
		_, m := evidence(t, call(t, cs, "search_strings", args))
		return m["total"].(float64)
	}
	is.Equal(search(map[string]any{"pattern": "ok", "mode": "exact", "min_string_chars": 2}), float64(1))
	is.Equal(search(map[string]any{"pattern": "ok", "mode": "exact"}), float64(0)) // the profile's list, as before
	// The record names the profile that produced it: at 2 the bound one
	// with min_string_chars 2, the bound one without the argument.
	for op, args := range map[string]map[string]any{
		"find_code_for_string": {"query": "ok"}, "search_strings": {"pattern": "ok"}, "list_strings": {"limit": 1},
	} {
		ev, _ := evidence(t, call(t, cs, op, args))
		is.True(ev.AnalysisProfile != nil)
		is.True(strings.Contains(string(ev.AnalysisProfile.Parameters), `"min_string_chars":4`))
		args["min_string_chars"] = 2
		ev, _ = evidence(t, call(t, cs, op, args))
		is.True(ev.AnalysisProfile != nil)
		is.True(strings.Contains(string(ev.AnalysisProfile.Parameters), `"min_string_chars":2`))     // the profile that listed them
		is.True(strings.Contains(strings.Join(ev.Limitations, " "), "Listed at min_string_chars 2")) // says so
	}
	r := call(t, cs, "search_strings", map[string]any{"pattern": "ok", "min_string_chars": 1})
	is.True(r.isError)
	is.True(strings.Contains(r.text, "min_string_chars")) // the refusal names the argument
}

// list_strings takes min_string_chars as the search tools do: at 2 the
// list holds the literal of two characters (and the address of it finds
// it), at the default it does not, and the list without the argument is
// the profile's again. Before, list_strings refused the argument.
func TestMCPListStringsMinStringChars(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "shortlit", shortLiteralSource, "-O1")
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
		t.Fatal(r.text)
	}
	list := func(args map[string]any) (total float64, ok string) {
		t.Helper()
		r := call(t, cs, "list_strings", args)
		if r.isError {
			t.Fatal(r.text)
		}
		_, m := evidence(t, r)
		for _, it := range m["items"].([]any) {
			if s := it.(map[string]any); s["value"] == "ok" {
				ok = s["address"].(string)
			}
		}
		return m["total"].(float64), ok
	}
	before, ok := list(map[string]any{"limit": 500})
	is.Equal(ok, "") // not listed at the default 4
	at2, ok := list(map[string]any{"limit": 500, "min_string_chars": 2})
	is.True(ok != "")     // listed at 2
	is.True(at2 > before) // with every other string of 2 or 3 characters
	n, okAt := list(map[string]any{"address": ok, "min_string_chars": 2})
	is.Equal(n, float64(1))
	is.Equal(okAt, ok)
	n, _ = list(map[string]any{"address": ok})
	is.Equal(n, float64(0)) // the profile's list has no string there
	after, _ := list(map[string]any{"limit": 500})
	is.Equal(after, before) // the profile's list, as before
	r := call(t, cs, "list_strings", map[string]any{"min_string_chars": 1})
	is.True(r.isError)
	is.True(strings.Contains(r.text, "min_string_chars")) // the refusal names the argument
}
