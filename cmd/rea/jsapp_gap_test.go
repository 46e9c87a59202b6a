package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/core/jsapp"
)

// A long array passed to a system call is cut at the items the engine
// keeps, and the result says so: the call's text ends the array with
// "…", the system-api node is not literal (its arguments are not all
// written out), and the result has a limitation naming the file. Before,
// the array was cut silently at 16 items, and the call read as literal.
func TestJSAppCutArrayIsMarked(t *testing.T) {
	var items []string
	for i := 1; i <= 18; i++ {
		items = append(items, strconv.Itoa(i))
	}
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"cut","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js":      "const { spawn } = require(\"child_process\");\nspawn(\"tool\", [" + strings.Join(items, ", ") + "]);\n"})})
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, n := range g.Nodes {
		if n.Kind != "system-api" {
			continue
		}
		found = true
		o := n.Observations[0]
		want := "child_process.spawn(\"tool\", [" + strings.Join(items[:16], ", ") + ", …])"
		if o.Label == nil || *o.Label != want || o.Properties["literal"] != false {
			t.Errorf("system-api node %q literal %v, want %q, not literal", *o.Label, o.Properties["literal"], want)
		}
	}
	if !found {
		t.Fatal("no system-api node")
	}
	if !slices.ContainsFunc(g.Limitations, func(l string) bool { return strings.HasPrefix(l, "main.js: Array arguments of recorded calls cut at 16 items") }) {
		t.Errorf("limitations %q, want one naming main.js's cut array", g.Limitations)
	}
}
