package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reexportApp re-exports an imported function through clauses: index.mjs
// renames search to find and passes on node:path's join, barrel.mjs
// renames find again, and via.mjs takes search through an export * of
// all.mjs.
func reexportApp(t *testing.T) (string, map[string]string) {
	t.Helper()
	files := map[string]string{
		"x.mjs":      "export function search(q, opts) { return [q, opts]; }\n",
		"index.mjs":  "import { search } from \"./x.mjs\";\nimport { join } from \"node:path\";\nexport { search as find, join };\n",
		"barrel.mjs": "import { find } from \"./index.mjs\";\nexport { find as query };\n",
		"all.mjs":    "export * from \"./x.mjs\";\n",
		"via.mjs":    "import { search as s } from \"./all.mjs\";\nexport { s };\n",
	}
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

// An imported name exported again through a clause (import {search} from
// "./x.mjs"; export {search as find}) is a re-export: asked where find is
// defined, trace_javascript_semantics answers with the clause (where
// index.mjs passes it on, kind re-export, local search) and, as its
// definition, search's declaration in x.mjs, through further renames and
// an export * as well. Before, find was a named export of index.mjs
// located at the clause, and nothing led to x.mjs. A name from outside the
// application has no definition, and says why.
func TestJSSemanticsReexportNamesItsDefinition(t *testing.T) {
	dir, files := reexportApp(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	app := map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	at := func(path, text string) string {
		off := strings.Index(files[path], text)
		l, c := lineColumn(files[path], off)
		return fmt.Sprintf("%s:%d:%d", path, l, c)
	}
	type entry struct {
		SourcePath string         `json:"source_path"`
		Name       string         `json:"name"`
		Kind       string         `json:"kind"`
		Local      *string        `json:"local"`
		Line       int            `json:"line"`
		Column     int            `json:"column"`
		Value      map[string]any `json:"value"`
		Definition *entry         `json:"definition"`
		Reason     string         `json:"definition_unknown_reason"`
	}
	where := func(e *entry) string { return fmt.Sprintf("%s:%d:%d", e.SourcePath, e.Line, e.Column) }
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for _, c := range []struct{ symbol, site, local, def string }{
		{"find", at("index.mjs", "find"), "search", at("x.mjs", "search")},
		{"query", at("barrel.mjs", "query"), "find", at("x.mjs", "search")},
		{"s", at("via.mjs", "s };"), "search", at("x.mjs", "search")},
		{"join", at("index.mjs", "join };"), "join", ""},
	} {
		res := jaCall(t, s, "trace_javascript_semantics", map[string]any{"application": app, "query": map[string]any{"kind": "symbol", "value": c.symbol}})
		var a struct{ Definitions []entry }
		if err := json.Unmarshal(res.NormalizedResult, &a); err != nil {
			t.Fatal(err)
		}
		if len(a.Definitions) != 1 {
			t.Fatalf("%s: %d definitions: %s", c.symbol, len(a.Definitions), res.NormalizedResult)
		}
		d := a.Definitions[0]
		if d.Kind != "re-export" || where(&d) != c.site || d.Local == nil || *d.Local != c.local {
			t.Errorf("%s: %s %s local %v, want a re-export at %s of %s", c.symbol, d.Kind, where(&d), str(d.Local), c.site, c.local)
		}
		switch {
		case c.def == "" && (d.Definition != nil || d.Reason == ""):
			t.Errorf("%s: definition %v, reason %q; want none and why", c.symbol, d.Definition, d.Reason)
		case c.def != "" && d.Definition == nil:
			t.Errorf("%s: no definition (%s), want %s", c.symbol, d.Reason, c.def)
		case c.def != "" && (where(d.Definition) != c.def || d.Definition.Name != "search" || d.Definition.Value["params"] != 2.0):
			t.Errorf("%s: definition %s %s %v, want search(q, opts) at %s", c.symbol, d.Definition.Name, where(d.Definition), d.Definition.Value, c.def)
		}
	}
}

// Through the command line: analyze-javascript-application records find as
// a re-export of x.mjs's search at the clause, and index.mjs's export
// shapes give find search's two parameters.
func TestCLIAnalyzeRecordsClauseReexport(t *testing.T) {
	dir, _ := reexportApp(t)
	out, errOut, code := runCLI(t, "--format", "json", "analyze-javascript-application", dir)
	if code != 0 {
		t.Fatalf("analyze: %d %s", code, errOut)
	}
	var ev struct {
		Result struct {
			Semantic struct {
				Relations []json.RawMessage `json:"relations"`
			} `json:"semantic_graph"`
		} `json:"normalized_result"`
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range ev.Result.Semantic.Relations {
		var row []any
		if json.Unmarshal(r, &row) != nil || len(row) < 3 || row[1] != "exports" || row[2] != "find" {
			continue
		}
		found = true
		// [source, "exports", name, value_kind, params, kind, offset,
		// line, column, original, original_line, original_column, rest,
		// specifier, local]
		if len(row) != 15 || row[5] != "re-export" || row[7] != 3.0 || row[8] != 19.0 || row[13] != "./x.mjs" || row[14] != "search" {
			t.Errorf("find is recorded %s", r)
		}
	}
	if !found {
		t.Fatalf("no exports relation of find in %.2000s", out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), ""), `{"kind":"function","name":"find","params":2,"rest":false}`) {
		t.Errorf("index.mjs's export shapes do not give find search's shape")
	}
}

// A re-export's value is the value of the definition it passes on: find,
// query and s are search(q, opts), a function of two parameters, and say
// so (value_from "definition") with the module their specifier resolves
// to; join, from node:path outside the application, stays unknown. Before,
// every re-export's value was unknown while its definition was known.
func TestJSSemanticsReexportTakesItsDefinitionsValue(t *testing.T) {
	dir, _ := reexportApp(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	app := map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	for _, c := range []struct{ symbol, kind, from, module string }{
		{"find", "function", "definition", "x.mjs"},
		{"query", "function", "definition", "index.mjs"},
		{"s", "function", "definition", "all.mjs"},
		{"join", "unknown", "", ""},
	} {
		res := jaCall(t, s, "trace_javascript_semantics", map[string]any{"application": app, "query": map[string]any{"kind": "symbol", "value": c.symbol}})
		var a struct {
			Definitions []struct {
				Value      map[string]any `json:"value"`
				ValueFrom  string         `json:"value_from"`
				TargetPath string         `json:"target_path"`
			}
		}
		if err := json.Unmarshal(res.NormalizedResult, &a); err != nil || len(a.Definitions) != 1 {
			t.Fatalf("%s: %v %s", c.symbol, err, res.NormalizedResult)
		}
		d := a.Definitions[0]
		if d.Value["kind"] != c.kind || d.ValueFrom != c.from || d.TargetPath != c.module || (c.kind == "function" && d.Value["params"] != 2.0) {
			t.Errorf("%s: value %v from %q, module %q; want %s from %q, module %q", c.symbol, d.Value, d.ValueFrom, d.TargetPath, c.kind, c.from, c.module)
		}
	}
}
