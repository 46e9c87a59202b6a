package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"rea/core"
)

// semLocApp writes a small application whose exported and imported names
// follow non-ASCII text (é, 😀) and, in one file, CRLF line endings.
func semLocApp(t *testing.T) (string, map[string]string) {
	t.Helper()
	files := map[string]string{
		"util.mjs":   "// Café 😀 utilities\n/* é😀 */ export function formatName(a) { return a; }\nexport const greeting = \"héllo 😀\";\n",
		"main.mjs":   "// crlf é\r\nimport { formatName } from \"./util.mjs\";\r\nconst n = 'x' + Math.random();\r\n\"😀\"; import(n);\r\nexport { formatName as fmt };\r\n",
		"legacy.cjs": "// naïve 😀\nconst u = require(\"./util.mjs\");\n  exports.helper = u;\n",
	}
	return writeTree(t, files), files
}

// semQuery runs trace_javascript_semantics over the application ev
// analyzed with query (and limits, when not nil) and decodes its result
// into out.
func semQuery(t *testing.T, s *core.Session, ev *core.Evidence, query, limits map[string]any, out any) *core.Evidence {
	t.Helper()
	args := map[string]any{"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}, "query": query}
	if limits != nil {
		args["limits"] = limits
	}
	res := jaCall(t, s, "trace_javascript_semantics", args)
	if err := json.Unmarshal(res.NormalizedResult, out); err != nil {
		t.Fatal(err)
	}
	return res
}

// lineColumn is the convention's position of byte offset off in text:
// line 1-based (\r\n is one terminator), column 0-based in UTF-16 units.
func lineColumn(text string, off int) (int, int) {
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	start := strings.LastIndexAny(before, "\n\r") + 1
	return line, len(utf16.Encode([]rune(before[start:])))
}

type semEntry struct {
	OriginalSource *string  `json:"original_source"`
	OriginalLine   *int     `json:"original_line"`
	OriginalColumn *int     `json:"original_column"`
	Name           string   `json:"name"`
	Names          []string `json:"names"`
	Relation       string   `json:"relation"`
	Specifier      string   `json:"specifier"`
	SourcePath     string   `json:"source_path"`
	Offset         *int     `json:"offset"`
	Line           *int     `json:"line"`
	Column         *int     `json:"column"`
}

type semAnswer struct {
	Definitions      []semEntry       `json:"definitions"`
	References       []semEntry       `json:"references"`
	UnknownFrontiers []map[string]any `json:"unknown_frontiers"`
}

// TestJSSemanticsLocationsHaveLineAndColumn: every definition and
// reference trace_javascript_semantics returns with an offset also has
// the line and column of that offset by the shared convention, checked
// against the files' text.
func TestJSSemanticsLocationsHaveLineAndColumn(t *testing.T) {
	dir, files := semLocApp(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	located := 0
	for _, q := range []map[string]any{
		{"kind": "symbol", "value": "formatName"}, {"kind": "symbol", "value": "greeting"}, {"kind": "symbol", "value": "helper"},
		{"kind": "module", "value": "main.mjs"}, {"kind": "specifier", "value": "./util", "match": "prefix"},
	} {
		var a semAnswer
		semQuery(t, s, ev, q, nil, &a)
		if len(a.Definitions)+len(a.References) == 0 {
			t.Fatalf("query %v found nothing", q)
		}
		for _, e := range append(a.Definitions, a.References...) {
			if e.Offset == nil {
				continue
			}
			text := files[e.SourcePath]
			wl, wc := lineColumn(text, *e.Offset)
			if e.Line == nil || e.Column == nil || *e.Line != wl || *e.Column != wc {
				t.Errorf("%v: %s %s%v in %s at offset %d: line %v column %v, want %d:%d", q, e.Relation, e.Name, e.Names, e.SourcePath, *e.Offset, deref(e.Line), deref(e.Column), wl, wc)
			}
			located++
		}
		for _, f := range a.UnknownFrontiers {
			off, ok := f["offset"].(float64)
			if !ok {
				continue
			}
			wl, wc := lineColumn(files["main.mjs"], int(off))
			if f["line"] != float64(wl) || f["column"] != float64(wc) {
				t.Errorf("%v: frontier %v: want line %d column %d", q, f, wl, wc)
			}
		}
	}
	if located == 0 {
		t.Fatal("no result had an offset")
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestJSSemanticsMapsToOriginalSource: an import in an esbuild bundle with
// a source map is given the original source, line and column the map
// names, as well as its position in the bundle.
func TestJSSemanticsMapsToOriginalSource(t *testing.T) {
	root := needNodeModule(t, "esbuild")
	src := map[string]string{
		"src/util.ts":  "// Café 😀\nimport { join } from \"node:path\";\nexport function formatName(a: string): string { return join(a, \"é\"); }\n",
		"src/entry.ts": "// crlf é\r\nexport { formatName } from \"./util\";\r\n",
	}
	dir := writeTree(t, src)
	app := filepath.Join(dir, "app")
	cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), filepath.Join(dir, "src/entry.ts"), "--bundle", "--format=esm",
		"--platform=node", "--sourcemap", "--charset=utf8", "--outfile="+filepath.Join(app, "bundle.js"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	bundle, err := os.ReadFile(filepath.Join(app, "bundle.js"))
	if err != nil {
		t.Fatal(err)
	}
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": app})
	var a semAnswer
	res := semQuery(t, s, ev, map[string]any{"kind": "specifier", "value": "node:path"}, nil, &a)
	if len(a.References) != 1 {
		t.Fatalf("references %s", res.NormalizedResult)
	}
	r := a.References[0]
	if r.Offset == nil || r.Line == nil {
		t.Fatalf("reference has no position: %s", res.NormalizedResult)
	}
	if wl, _ := lineColumn(string(bundle), *r.Offset); *r.Line != wl {
		t.Errorf("bundle line %d, want %d", *r.Line, wl)
	}
	// The bundle exports formatName in its closing export clause, which
	// the map does not map: the definition is the declaration, which it
	// maps to src/util.ts.
	var d semAnswer
	res = semQuery(t, s, ev, map[string]any{"kind": "symbol", "value": "formatName"}, nil, &d)
	dl, dc := lineColumn(src["src/util.ts"], strings.Index(src["src/util.ts"], "formatName"))
	bl, _ := lineColumn(string(bundle), strings.Index(string(bundle), "function formatName"))
	if len(d.Definitions) != 1 || d.Definitions[0].OriginalSource == nil || !strings.HasSuffix(*d.Definitions[0].OriginalSource, "src/util.ts") ||
		deref(d.Definitions[0].OriginalLine) != dl || deref(d.Definitions[0].OriginalColumn) != dc || deref(d.Definitions[0].Line) != bl {
		t.Errorf("formatName's definition is not bundle.js:%d mapped to src/util.ts:%d:%d: %s", bl, dl, dc, res.NormalizedResult)
	}
	// The relation row names the source by its source-module node (a
	// reference), not by a path repeated in every row.
	var raw struct {
		Semantic struct {
			Relations []json.RawMessage `json:"relations"`
		} `json:"semantic_graph"`
	}
	if err := json.Unmarshal(ev.NormalizedResult, &raw); err != nil {
		t.Fatal(err)
	}
	for _, row := range raw.Semantic.Relations {
		var cells []any
		if json.Unmarshal(row, &cells) == nil && len(cells) > 9 && cells[2] == "node:path" {
			if _, ok := cells[9].(float64); !ok {
				t.Errorf("original cell %v is not a node reference: %s", cells[9], row)
			}
		}
	}
	// esbuild maps the specifier to the specifier in src/util.ts.
	ol, oc := lineColumn(src["src/util.ts"], strings.Index(src["src/util.ts"], `"node:path"`))
	if r.OriginalSource == nil || !strings.HasSuffix(*r.OriginalSource, "src/util.ts") || deref(r.OriginalLine) != ol || deref(r.OriginalColumn) != oc {
		t.Errorf("original %v:%v:%v, want src/util.ts:%d:%d (%s)", deref2(r.OriginalSource), deref(r.OriginalLine), deref(r.OriginalColumn), ol, oc, res.NormalizedResult)
	}
}

func deref2(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestJSSemanticsSaysWhyALocationIsUnknown: a definition or reference
// without an offset says why instead of leaving a bare null.
func TestJSSemanticsSaysWhyALocationIsUnknown(t *testing.T) {
	dir := writeTree(t, map[string]string{"anon.mjs": "export default class {}\nconst n = 'x' + Math.random();\nimport(n);\n"})
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	var a struct {
		Definitions []map[string]any `json:"definitions"`
		References  []map[string]any `json:"references"`
	}
	res := semQuery(t, s, ev, map[string]any{"kind": "module", "value": "anon.mjs"}, nil, &a)
	all := append(a.Definitions, a.References...)
	if len(all) < 2 {
		t.Fatalf("want the default export and the dynamic import: %s", res.NormalizedResult)
	}
	for _, r := range all {
		reason, _ := r["unknown_reason"].(string)
		if (r["offset"] == nil) != (reason != "") {
			t.Errorf("offset %v with unknown_reason %q: %v", r["offset"], reason, r)
		}
	}
}

// TestJSSemanticsCoverageNamesItsLimit: a cut answer names max_results and
// how many matches it left out.
func TestJSSemanticsCoverageNamesItsLimit(t *testing.T) {
	dir, _ := semLocApp(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	var cov struct {
		Coverage struct {
			Status       string         `json:"status"`
			Truncated    bool           `json:"truncated"`
			Limits       map[string]int `json:"limits"`
			OmittedCount *int           `json:"omitted_count"`
		} `json:"coverage"`
		UnknownFrontiers []map[string]any `json:"unknown_frontiers"`
	}
	util := map[string]any{"kind": "specifier", "value": "./util.mjs"}
	res := semQuery(t, s, ev, util, map[string]any{"max_results": 1}, &cov)
	cut := cov.UnknownFrontiers
	c := cov.Coverage
	if !c.Truncated || c.Status != "partial" || c.Limits["max_results"] != 1 || c.OmittedCount == nil || *c.OmittedCount != 1 {
		t.Errorf("coverage %s: want partial, truncated, limits.max_results 1, omitted_count 1", res.NormalizedResult)
	}
	cov.Coverage.OmittedCount = nil
	res = semQuery(t, s, ev, util, nil, &cov)
	if c := cov.Coverage; c.Truncated || c.Status != "complete" || c.Limits["max_results"] != 100 || c.OmittedCount == nil || *c.OmittedCount != 0 {
		t.Errorf("coverage %s: want complete, limits.max_results 100, omitted_count 0", res.NormalizedResult)
	}
	// The frontiers of the modules a cut match involves are still listed.
	if len(cut) != len(cov.UnknownFrontiers) || len(cut) == 0 {
		t.Errorf("frontiers: %d when cut, %d in full; want the same, at least one", len(cut), len(cov.UnknownFrontiers))
	}
}

// TestJSSemanticsEmptyAnswerSaysSo: a query nothing matches is an empty
// answer that says what did not match, not a complete one.
func TestJSSemanticsEmptyAnswerSaysSo(t *testing.T) {
	dir, _ := semLocApp(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	for _, q := range []map[string]any{{"kind": "module", "value": "nope.js"}, {"kind": "symbol", "value": "nope"}, {"kind": "specifier", "value": "nope"}} {
		var a struct {
			Coverage struct {
				Status string `json:"status"`
			} `json:"coverage"`
		}
		res := semQuery(t, s, ev, q, nil, &a)
		said := false
		for _, l := range res.Limitations {
			said = said || strings.Contains(l, "matches the query")
		}
		if a.Coverage.Status != "empty" || !said {
			t.Errorf("%v: coverage %q, limitations %q; want empty and a limitation naming the query", q, a.Coverage.Status, res.Limitations)
		}
	}
}
