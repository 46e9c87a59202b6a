package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestProcedureAssemblyPages: procedure_assembly returned up to 5000 lines
// (44 KB on ls's main) with no paging. Now it pages with
// read_function_instructions' offset and limit, a 200-line default page,
// and a limitation naming the offset of the rest; the pages join to the
// whole listing.
func TestProcedureAssemblyPages(t *testing.T) {
	is := is.New(t)
	exe := wideProgram(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	listing := func(args map[string]any) (*core.Evidence, []string) {
		t.Helper()
		r := call(t, cs, "procedure_assembly", args)
		is.True(!r.isError)
		ev, err := core.ParseEvidence([]byte(r.text))
		is.NoErr(err)
		var text string
		is.NoErr(json.Unmarshal(ev.NormalizedResult, &text))
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if !strings.HasPrefix(l, ";") {
				lines = append(lines, l)
			}
		}
		return ev, lines
	}
	_, all := listing(map[string]any{"procedure": "main", "limit": 5000})
	is.True(len(all) > 300)

	ev, first := listing(map[string]any{"procedure": "main"})
	is.Equal(len(first), 200)
	is.Equal(first, all[:200])
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.Contains(l, fmt.Sprintf("200 of %d instructions", len(all))) && strings.Contains(l, "offset 200")
	}))
	ev, rest := listing(map[string]any{"procedure": "main", "offset": 200, "limit": 5000})
	is.Equal(rest, all[200:])
	is.Equal(len(ev.Limitations), 0) // the last page says nothing is left
	_, mid := listing(map[string]any{"procedure": "main", "offset": 10, "limit": 5})
	is.Equal(mid, all[10:15])
}
