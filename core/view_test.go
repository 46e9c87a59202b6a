package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/matryer/is"

	"rea/core"
)

func bndELF(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "app.elf")
	os.WriteFile(p, []byte("\x7fELF fake image"), 0o644)
	return p
}

func TestLayoutSummaryRetainsTheCompleteParent(t *testing.T) {
	is := is.New(t)
	s := bndSession(t, bndLayoutProvider{symbols: 200})
	path := bndELF(t)
	res, sum := bndCall(t, s, "inspect_binary_layout", map[string]any{"path": path, "detail": "summary"})
	parentID := core.EvidenceID(sum["parent_evidence_id"].(string))
	is.Equal(res.Evidence.EvidenceLinks, []core.EvidenceID{parentID})
	is.Equal(res.Evidence.Operation, "inspect_binary_layout")
	is.Equal(res.Evidence.Provider.ID, "layout-fake")
	is.Equal(res.Evidence.Subject.LocalPath, path)
	counts := sum["summary"].(map[string]any)["counts"].(map[string]any)
	is.Equal(counts["symbols"], "0xcb")
	parent, ok := s.Ledger().Get(parentID)
	is.True(ok)
	// The retained parent is exactly what detail "complete" returns.
	full, _ := bndCall(t, s, "inspect_binary_layout", map[string]any{"path": path})
	is.Equal(full.Evidence.EvidenceID, parent.EvidenceID)
	var lr map[string]any
	json.Unmarshal(parent.NormalizedResult, &lr)
	sec := lr["sections"].([]any)[2].(map[string]any)["name"].(map[string]any)
	is.Equal(sec["display"], `bad\xffname`) // raw bytes kept
	is.Equal(sec["bytes_base64"], "YmFk/25hbWU=")
	bad := lr["symbols"].([]any)[202].(map[string]any)["name"].(map[string]any)
	is.Equal(bad["unknown_reason"], "offset-outside-string-table")
	for _, k := range []string{"sections", "segments", "symbols"} {
		for _, row := range lr[k].([]any) {
			for f, v := range row.(map[string]any) {
				if s, ok := v.(string); ok && strings.HasPrefix(s, "0x") && !hexRe(s) {
					t.Errorf("%s.%s = %q is not canonical hex", k, f, s)
				}
			}
		}
	}
	// Not ELF: capability_unavailable.
	txt := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	is.Equal(bndErr(t, s, "inspect_binary_layout", map[string]any{"path": txt}).Code, core.CodeCapabilityUnavailable)
	// No provider reads layouts: capability_unavailable.
	is.Equal(bndErr(t, bndSession(t), "inspect_binary_layout", map[string]any{"path": path}).Code, core.CodeCapabilityUnavailable)
}

func hexRe(s string) bool {
	if s == "0x0" {
		return true
	}
	if len(s) < 3 || len(s) > 18 || s[2] == '0' {
		return false
	}
	for _, c := range s[2:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func TestLayoutViewsPageStablyWithDigests(t *testing.T) {
	is := is.New(t)
	s := bndSession(t, bndLayoutProvider{symbols: 150})
	full, _ := bndCall(t, s, "inspect_binary_layout", map[string]any{"path": bndELF(t)})
	src := map[string]any{"kind": "retained-evidence", "evidence_id": full.Evidence.EvidenceID}
	var all []any
	next := any(0.0)
	for next != nil {
		res, v := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "page", "collection": "symbols", "offset": next, "limit": 64}})
		is.Equal(res.Evidence.EvidenceLinks, []core.EvidenceID{full.Evidence.EvidenceID})
		is.Equal(v["parent_evidence_id"], string(full.Evidence.EvidenceID))
		is.Equal(v["parent_digest"], strings.TrimPrefix(string(full.Evidence.EvidenceID), "ev_"))
		all = append(all, v["items"].([]any)...)
		cov := v["coverage"].(map[string]any)
		next = cov["next_offset"]
		is.Equal(cov["total"], float64(153))
		// view_digest is the digest of the result without it.
		d := v["view_digest"]
		delete(v, "view_digest")
		want, _ := core.Digest(v)
		is.Equal(d, want)
	}
	is.Equal(len(all), 153)
	// The same request is the same Evidence (stable).
	a, _ := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "page", "collection": "symbols"}})
	b, _ := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "page", "collection": "symbols", "offset": 0, "limit": 64}})
	is.Equal(a.Evidence.EvidenceID, b.Evidence.EvidenceID) // defaults recorded as effective values
	// Integral numbers the schema accepts as integers read as those integers.
	c, _ := bndCall(t, s, "inspect_analysis_view", json.RawMessage(`{"source":{"kind":"retained-evidence","evidence_id":"`+string(full.Evidence.EvidenceID)+`"},"view":{"kind":"page","collection":"symbols","offset":64e0,"limit":6.4e1}}`))
	d, _ := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "page", "collection": "symbols", "offset": 64, "limit": 64}})
	is.Equal(c.Evidence.EvidenceID, d.Evidence.EvidenceID)
	// Items, facets, ambiguity.
	_, it := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "item", "collection": "sections", "selector": map[string]any{"name": ".text"}}})
	is.Equal(it["item"].(map[string]any)["position"], float64(1))
	e := bndErr(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "item", "collection": "symbols", "selector": map[string]any{"name": "dup"}}})
	is.Equal(e.Code, core.CodeInvalidRequest)
	is.Equal(len(e.Details["candidates"].([]int)), 2)
	_, f := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "facet", "facet": "mitigations"}})
	is.Equal(f["facet"].(map[string]any)["value"].(map[string]any)["nx_indicator"], true)
	// Invalid requests: limit 0, native facet on a layout.
	is.Equal(bndErr(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "page", "collection": "symbols", "limit": 0}}).Code, core.CodeInvalidRequest)
	is.Equal(bndErr(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "callers"}}).Code, core.CodeInvalidRequest)
}

func TestViewSources(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	af := bndAnalyzeFunction(t, "x", 3)
	inline := map[string]any{"kind": "inline", "evidence": af}
	// Inline Evidence is verified again; tampering is refused.
	_, v := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": inline, "view": map[string]any{"kind": "summary"}})
	is.Equal(v["procedure_address"], "0x1000")
	tampered := *af
	tampered.NormalizedResult = json.RawMessage(strings.Replace(string(af.NormalizedResult), "check_license", "check_licensf", 1))
	e := bndErr(t, s, "inspect_analysis_view", map[string]any{"source": map[string]any{"kind": "inline", "evidence": &tampered}, "view": map[string]any{"kind": "summary"}})
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
	// A missing reference is the canonical missing error.
	e = bndErr(t, s, "inspect_analysis_view", map[string]any{"source": map[string]any{"kind": "retained-evidence", "evidence_id": af.EvidenceID}, "view": map[string]any{"kind": "summary"}})
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(e.Details["reason"], "missing")
	is.Equal(e.Details["evidence_id"], string(af.EvidenceID))
	// A missing or malformed source names the argument and the tools whose
	// evidence_id it takes; before, only "correct details.issues".
	for _, args := range []map[string]any{{"view": map[string]any{"kind": "summary"}},
		{"source": map[string]any{"kind": "retained-evidence", "evidence_id": "x"}, "view": map[string]any{"kind": "summary"}}} {
		e = bndErr(t, s, "inspect_analysis_view", args)
		is.Equal(e.Code, core.CodeInvalidRequest)
		is.True(strings.HasPrefix(e.Remediation, `Pass source: {"kind":"retained-evidence","evidence_id":...} with the evidence_id that analyze_function or analyze_javascript_application or inspect_binary_layout returned on this connection`))
	}
	e = bndErr(t, s, "inspect_analysis_view", map[string]any{"sourc": map[string]any{}, "view": map[string]any{"kind": "summary"}})
	is.True(strings.HasPrefix(e.Remediation, "Rename input.sourc to source")) // a misspelling is renamed
	// Other operations have no views.
	other := numbered(t, 1, "x")
	e = bndErr(t, s, "inspect_analysis_view", map[string]any{"source": map[string]any{"kind": "inline", "evidence": other}, "view": map[string]any{"kind": "summary"}})
	is.Equal(e.Code, core.CodeUnsupportedTarget)
}

func TestNativeViews(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	// 'a', U+1F600 (a surrogate pair), 'b', U+1F601, 'c'.
	text := "a\U0001F600b\U0001F601c"
	af := bndAnalyzeFunction(t, text, 10)
	s.Ledger().Record(af)
	src := map[string]any{"kind": "retained-evidence", "evidence_id": af.EvidenceID}
	page := func(off, lim int) map[string]any {
		_, v := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "pseudocode", "offset": off, "limit": lim}})
		return v
	}
	// Pages of 2 code units: never a split pair, concatenating to the text.
	var got string
	for off := 0; ; {
		v := page(off, 2)
		item := v["item"].(map[string]any)
		got += item["text"].(string)
		next := v["coverage"].(map[string]any)["next_offset"]
		if next == nil {
			break
		}
		off = int(next.(float64))
	}
	is.Equal(got, text)
	is.Equal(page(0, 2)["item"].(map[string]any)["text"], "a") // 'a' + half a pair: stops before it
	is.Equal(page(1, 1)["item"].(map[string]any)["text"], "\U0001F600")
	is.Equal(page(0, 100)["item"].(map[string]any)["total_code_units"], float64(len(utf16.Encode([]rune(text)))))
	e := bndErr(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "pseudocode", "offset": 2, "limit": 2}})
	is.Equal(e.Code, core.CodeInvalidRequest)

	_, v := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "callers", "offset": 8, "limit": 5}})
	is.Equal(len(v["item"].(map[string]any)["items"].([]any)), 2)
	is.True(len(v["unknowns"].([]any)) == 1) // the parent's truncated collection stays explicit
	_, v = bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "unresolved_calls"}})
	is.Equal(v["coverage"].(map[string]any)["status"], "empty")
	_, v = bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "procedure"}})
	is.Equal(v["item"].(map[string]any)["value"].(map[string]any)["name"], "check_license")
}

// TestViewArtifactPathIsTheParentsRecordedPath: a viewer whose parent
// records the path it read (jsapp's input_path) gives it, and the view's
// artifact.path carries it; before, every view said "path":"" beside a
// summary naming the path. A viewer that gives none keeps "".
func TestViewArtifactPathIsTheParentsRecordedPath(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	fam := core.Family{Name: "paths", Operations: []*core.Operation{
		{Name: "read_tree", Title: "Read", Description: "Records a path.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return &core.Observation{Result: map[string]any{"input_path": c.Args["path"]}, Unbound: true}, nil
			}}},
		Viewers: map[string]core.Viewer{"read_tree": func(parent *core.Evidence, req *core.ViewRequest) (*core.ViewBody, error) {
			var d struct {
				InputPath string `json:"input_path"`
			}
			if err := json.Unmarshal(parent.NormalizedResult, &d); err != nil {
				return nil, err
			}
			return &core.ViewBody{Path: d.InputPath, Coverage: core.WholeCoverage()}, nil
		}}}
	cat, err := core.Assemble(core.Kernel(), fam)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	view := func(path string) map[string]any {
		parent, err := s.Call(ctx, "read_tree", json.RawMessage(`{"path":"`+path+`"}`), nil)
		is.NoErr(err)
		v, err := s.Call(ctx, "inspect_analysis_view", json.RawMessage(`{"source":{"kind":"retained-evidence","evidence_id":"`+string(parent.Evidence.EvidenceID)+`"},"view":{"kind":"summary"}}`), nil)
		is.NoErr(err)
		var r map[string]any
		is.NoErr(json.Unmarshal(v.Evidence.NormalizedResult, &r))
		return r["artifact"].(map[string]any)
	}
	is.Equal(view("/opt/App/app.asar")["path"], "/opt/App/app.asar")
	is.Equal(view("")["path"], "")
}

// TestViewDescriptionNamesEveryViewer: inspect_analysis_view's description
// names each operation whose Evidence has views (the catalog's viewers, as
// its source remediation lists them). Before, it named inspect_binary_layout
// and analyze_function only, not analyze_javascript_application.
func TestViewDescriptionNamesEveryViewer(t *testing.T) {
	is := is.New(t)
	c := catalog(t)
	op, _ := c.Lookup("inspect_analysis_view")
	_, err := c.Validate(op, json.RawMessage(`{"view":{"kind":"summary"}}`))
	_, viewers, ok := strings.Cut(core.AsError(op.Name, err).Remediation, "the evidence_id that ")
	viewers, _, _ = strings.Cut(viewers, " returned")
	is.True(ok && strings.Count(viewers, " or ") >= 2)
	for _, v := range strings.Split(viewers, " or ") {
		is.True(strings.Contains(op.Description, v))
	}
	is.True(strings.Contains(op.Description, "module")) // analyze_javascript_application's collection
}
