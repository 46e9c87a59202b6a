package standard_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/core/typecheck"
)

func TestCatalogAssembles(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Check(); err != nil {
		t.Fatal(err)
	}
	if got, want := len(cat.Operations()), len(standard.Operations()); got != want {
		t.Fatalf("catalog has %d operations, the families declare %d", got, want)
	}
}

// A family's viewers and summarizers are for its own operations.
func TestFamiliesOwnTheirViewers(t *testing.T) {
	names := map[string]bool{}
	for _, f := range standard.Families() {
		if f.Name == "" || names[f.Name] {
			t.Fatalf("family name %q is empty or repeated", f.Name)
		}
		names[f.Name] = true
		own := map[string]bool{}
		for _, op := range f.Operations {
			own[op.Name] = true
		}
		for op := range f.Viewers {
			if !own[op] {
				t.Errorf("family %s has a viewer for %s, which it does not declare", f.Name, op)
			}
		}
		for op := range f.Summarizers {
			if !own[op] {
				t.Errorf("family %s has a summarizer for %s, which it does not declare", f.Name, op)
			}
		}
	}
}

func TestAssembleRejectsDuplicates(t *testing.T) {
	fams := standard.Families()
	if _, err := core.Assemble(append(fams, fams[1])...); err == nil {
		t.Fatal("a family assembled twice was accepted")
	}
	v := core.Family{Name: "again", Viewers: map[string]core.Viewer{"analyze_function": nil}}
	if _, err := core.Assemble(append(standard.Families(), v)...); err == nil {
		t.Fatal("a second viewer for analyze_function was accepted")
	}
}

// TestEveryOperationIsTyped is the generation check of typed operations:
// every operation of the default catalog has Go input and result types
// (Family.Types), and each agrees with its schema (property names, JSON
// types and nullability, required fields; rea/core/typecheck).
func TestEveryOperationIsTyped(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range cat.Operations() {
		if op.Types.Input == nil || op.Types.Result == nil {
			t.Errorf("%s: no Go input and result types (add them to its family's Types)", op.Name)
			continue
		}
		for _, p := range typecheck.Check(op.Input, op.Types.Input, false) {
			t.Errorf("%s input (%s): %s", op.Name, op.Types.Input, p)
		}
		for _, p := range typecheck.Check(op.Result, op.Types.Result, true) {
			t.Errorf("%s result (%s): %s", op.Name, op.Types.Result, p)
		}
	}
}

// TestAdvertisementSize holds what tools/list costs in the full profile:
// the average bytes per tool of what a client receives (name, title,
// description, annotations, input and output schema), at most 2,048 (issue
// 22). It was 4.0 KB before the output schemas became shallow projections,
// and 2.8 KB before compare_web_captures' captures were advertised
// shallowly (Operation.Produced), its example became a small one, the
// output projections kept only the result's required and optional names,
// and examples beyond the first were limited to 256 bytes per tool.
func TestAdvertisementSize(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, op := range cat.Operations() {
		tool, err := json.Marshal(map[string]any{"name": op.Name, "title": op.Title, "description": op.Description,
			"annotations": op.Effects.Annotations(), "inputSchema": op.AdvertisedInput(core.ProfileFull), "outputSchema": op.OutputSchema()})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(tool, []byte(`"$id":"urn:rea:tool-output:sha256:`)) {
			t.Errorf("%s: the advertised output schema has no $id", op.Name)
		}
		total += len(tool)
	}
	const ceiling = 2048 // per tool on average: the total, not its integer average, is held to it
	n := len(cat.Operations())
	if avg := float64(total) / float64(n); total > ceiling*n {
		t.Errorf("tools/list averages %.1f bytes per tool in the full profile (%d in %d), more than %d", avg, total, n, ceiling)
	} else {
		t.Logf("tools/list averages %.1f bytes per tool in the full profile (%d in %d, %d to spare)", avg, total, n, ceiling*n-total)
	}
}

// TestNoGenericDescriptionMisleads checks the descriptions the advertised
// schemas get from a property's name alone where the catalog gave none
// (core/present): an Evidence "source" description on an enum of words, or
// "Local filesystem path." on a path that is not one, told an agent to
// pass the wrong thing (capture_browser_scenario's fill value, a module
// selector of inspect_analysis_view).
func TestNoGenericDescriptionMisleads(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	var visit func(tool, at string, v any)
	visit = func(tool, at string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for name, p := range props {
					pm, _ := p.(map[string]any)
					d, _ := pm["description"].(string)
					_, enum := pm["enum"]
					if name == "source" && enum && strings.Contains(d, "Evidence") {
						t.Errorf("%s %s.source: an enum described as Evidence: %q", tool, at, d)
					}
					if name == "path" && d == "Local filesystem path." && strings.Contains(at, "selector") {
						t.Errorf("%s %s.path: a selector's path described as a local file: %q", tool, at, d)
					}
				}
			}
			for k, c := range x {
				visit(tool, at+"."+k, c)
			}
		case []any:
			for _, c := range x {
				visit(tool, at, c)
			}
		}
	}
	for _, op := range cat.Operations() {
		b, err := json.Marshal(op.AdvertisedInput(core.ProfileFull))
		if err != nil {
			t.Fatal(err)
		}
		var s any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		visit(op.Name, "", s)
	}
}
