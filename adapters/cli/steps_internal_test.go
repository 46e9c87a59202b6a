package cli

import (
	"testing"
)

// rea annotate's steps and rea evidence-export's --call take one grammar:
// TOOL, TOOL=JSON or TOOL JSON. Before, annotate took only TOOL=JSON (its
// 'goto_address {"address":"main"}' was an unknown tool of that whole
// name) and --call only TOOL JSON.
func TestStepsTakeEitherSeparator(t *testing.T) {
	for _, s := range []string{`goto_address={"address":"main"}`, `goto_address {"address":"main"}`, ` goto_address  {"address":"main"} `} {
		steps, err := parseAnnotateSteps([]string{s})
		if err != nil || len(steps) != 1 || steps[0].tool != "goto_address" || string(steps[0].args) != `{"address":"main"}` {
			t.Errorf("%q: %+v, %v", s, steps, err)
		}
		tool, args := splitStep(s)
		if tool != "goto_address" || args != `{"address":"main"}` {
			t.Errorf("splitStep(%q) = %q, %q", s, tool, args)
		}
	}
	// A space inside the JSON after = stays in the arguments.
	if tool, args := splitStep(`set_comment={"address":"main","comment":"a = b"}`); tool != "set_comment" || args != `{"address":"main","comment":"a = b"}` {
		t.Errorf("got %q, %q", tool, args)
	}
	if tool, args := splitStep("list_segments"); tool != "list_segments" || args != "{}" {
		t.Errorf("got %q, %q", tool, args)
	}
}
