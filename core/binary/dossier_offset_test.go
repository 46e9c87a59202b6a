package binary_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestAnalyzeFunctionOffsetPagesAssembly: analyze_function pages its
// assembly with offset, as disassemble and list_instructions page theirs;
// assembly_offset, the reference contract's name, is its alias, and both
// given with different values are refused naming offset. Before, offset
// was an unknown argument.
func TestAnalyzeFunctionOffsetPagesAssembly(t *testing.T) {
	is := is.New(t)
	s := dossierSession(t)
	first := func(args string) any {
		t.Helper()
		d := completeDossier(t, s, args)
		a := d["assembly"].(map[string]any)
		return a["items"].([]any)[0].(map[string]any)["address"]
	}
	start := first(`{"procedure":"f","include_assembly":true,"detail":"complete"}`)
	second := first(`{"procedure":"f","include_assembly":true,"detail":"complete","offset":1}`)
	is.True(second != start)
	is.Equal(first(`{"procedure":"f","include_assembly":true,"detail":"complete","assembly_offset":1}`), second)
	is.Equal(first(`{"procedure":"f","include_assembly":true,"detail":"complete","assembly_offset":1,"offset":1}`), second)

	_, err := s.Call(context.Background(), "analyze_function", json.RawMessage(`{"procedure":"f","offset":1,"assembly_offset":2}`), nil)
	e := core.AsError("analyze_function", err)
	is.True(e != nil)
	is.Equal(e.Code, core.CodeInvalidRequest)
	issues := e.Details["issues"].([]core.Issue)
	is.Equal(issues[0].Path, []any{"assembly_offset"})
	is.Equal(issues[0].Expected, "offset")
}
