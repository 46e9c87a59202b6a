package annotate_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// engineProvider opens the in-memory fake with an engine-side annotation
// store (ports.Annotator), as Hopper or a writable Ghidra program would.
type engineProvider struct {
	*portstest.Fake
	store *portstest.AnnotatorFake
}

type engineAnalysis struct {
	ports.Analysis
	ports.SegmentLister
	ports.ProcedureLister
	ports.NameLister
	*portstest.AnnotatorFake
}

func (p *engineProvider) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	a, err := p.Fake.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	return &engineAnalysis{a, a.(ports.SegmentLister), a.(ports.ProcedureLister), a.(ports.NameLister), p.store}, nil
}

func session(t *testing.T, p ports.Provider) *core.Session {
	t.Helper()
	target := "/usr/bin/ls" // any readable executable: the fake ignores its bytes
	if _, err := os.Stat(target); err != nil {
		t.Skip("no /usr/bin/ls to open")
	}
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry([]ports.Provider{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	if _, err := s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"`+target+`"}`), nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func result(t *testing.T, s *core.Session, tool, args string) (map[string]any, *core.Evidence) {
	t.Helper()
	res, err := s.Call(context.Background(), tool, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var m map[string]any
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &m); err != nil {
		t.Fatal(err)
	}
	return m, res.Evidence
}

func sessionValue(t *testing.T, s *core.Session, tool, args string) map[string]any {
	t.Helper()
	res, err := s.Call(context.Background(), tool, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	b, _ := json.Marshal(res.Value)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func facet(m map[string]any, name string) map[string]any {
	return m["facets"].(map[string]any)[name].(map[string]any)
}

func TestEngineStoreIsUsed(t *testing.T) {
	is := is.New(t)
	store := &portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x1100}, {0x2000, 0x2040}}, Unsupported: []ports.AnnotationKind{ports.AnnotationInlineComment}}
	s := session(t, &engineProvider{portstest.NewFake(), store})

	m, ev := result(t, s, "set_comment", `{"address":"main","comment":"kept by the engine"}`)
	is.Equal(m["store"], "engine")
	is.Equal(ev.PredicateType, "rea.annotation-mutation") // recorded as well
	got, err := store.Annotations(context.Background(), ports.AnnotationComment)
	is.NoErr(err)
	is.Equal(got, []ports.Annotation{{Kind: ports.AnnotationComment, Address: 0x1030, Text: "kept by the engine"}})

	// A kind the engine does not keep (Hopper's bookmarks) is kept in
	// rea's overlay, as for an engine without a store, and says so: before,
	// it was refused with capability_unavailable while binary_session
	// listed the tool as available.
	ctx := sessionValue(t, s, "inspect_address_context", `{"address":"main"}`)
	is.Equal(facet(ctx, "comment")["value"], "kept by the engine")
	is.Equal(facet(ctx, "inline_comment")["status"], "available")
	is.Equal(facet(ctx, "inline_comment")["value"], nil)
	im, iev := result(t, s, "set_inline_comment", `{"address":"main","comment":"kept by rea"}`)
	is.Equal(im["store"], "rea-overlay")
	is.True(strings.Contains(strings.Join(iev.Limitations, " "), "overlay"))
	ic, _ := result(t, s, "inline_comment", `{"address":"main"}`)
	is.Equal(ic["comment"], "kept by rea")
	is.Equal(ic["store"], "rea-overlay")
	ctx = sessionValue(t, s, "inspect_address_context", `{"address":"main"}`)
	is.Equal(facet(ctx, "inline_comment")["value"], "kept by rea")
	_, err = store.Annotations(context.Background(), ports.AnnotationInlineComment)
	is.True(errors.Is(err, ports.ErrUnsupported)) // the engine was not asked to keep it
	var ce *core.Error

	// The engine's own annotations are read, also ones rea did not make.
	is.NoErr(store.SetAnnotation(context.Background(), ports.Annotation{Kind: ports.AnnotationBookmark, Address: 0x2000, Text: "data"}))
	bm, _ := result(t, s, "list_bookmarks", `{}`)
	is.Equal(bm["total"], 1.0)
	is.Equal(bm["store"], "engine")
	_, err = s.Call(context.Background(), "unset_bookmark", json.RawMessage(`{"address":"0x2000"}`), nil)
	is.NoErr(err)
	_, err = s.Call(context.Background(), "unset_bookmark", json.RawMessage(`{"address":"0x2000"}`), nil)
	is.True(errors.As(err, &ce))
	is.Equal(ce.Details["reason"], "annotation_absent")
}

func TestOverlayOnAnEngineWithoutAStore(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewFake())
	nav := sessionValue(t, s, "get_navigation_context", `{}`)
	is.Equal(nav["store"], "rea-overlay")
	// The fake's document has no entry point: the cursor starts at the
	// first executable segment, inside puts@plt.
	is.Equal(nav["address"], "0x1000")
	is.Equal(nav["procedure"].(map[string]any)["name"], "puts@plt")
	result(t, s, "goto_address", `{"address":"greeting"}`)
	nav = sessionValue(t, s, "get_navigation_context", `{}`)
	is.Equal(nav["address"], "0x2000")
	is.Equal(nav["procedure"], nil) // outside every procedure
	_, err := s.Call(context.Background(), "goto_address", json.RawMessage(`{"address":"0x3000"}`), nil)
	is.True(err != nil) // between segments
	m, _ := result(t, s, "set_address_name", `{"address":"0x1030","name":"entry_logic"}`)
	is.Equal(m["store"], "rea-overlay")
	lp, lev := result(t, s, "list_procedures", `{}`)
	var renamed map[string]any
	for _, it := range lp["items"].([]any) {
		if it := it.(map[string]any); it["address"] == "0x1030" {
			renamed = it
		}
	}
	is.Equal(renamed["value"], "entry_logic")
	is.Equal(renamed["symbol"], "main")
	is.True(len(lev.Limitations) > 0)
	// A name another address has collides.
	_, err = s.Call(context.Background(), "set_addresses_names", json.RawMessage(`{"names":{"0x1010":"greeting"}}`), nil)
	var ce *core.Error
	is.True(errors.As(err, &ce))
	is.Equal(ce.Details["reason"], "name_collision") // greeting labels 0x2000
	names, _ := result(t, s, "list_names", `{"address":"0x1030"}`)
	is.Equal(names["items"].([]any)[0].(map[string]any)["name"], "entry_logic")
	is.Equal(names["items"].([]any)[0].(map[string]any)["kind"], "analyst")
}

// TestDossierShowsAnalystComments: analyze_function's comments collection
// lists the analysts' comments inside the procedure, from rea's overlay or
// from an engine that keeps them, and says when there are none.
func TestDossierShowsAnalystComments(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    ports.Provider
	}{
		{"overlay", portstest.NewCodeFake()},
		{"engine", &codeEngineProvider{portstest.NewCodeFake(), &portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x1100}, {0x2000, 0x2040}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			s := session(t, tc.p)
			d, _ := result(t, s, "analyze_function", `{"procedure":"main","detail":"complete"}`)
			is.Equal(d["comments"].(map[string]any)["total"], 0.0)
			is.True(contains(d["limitations"], "No analyst comments are recorded for this procedure."))

			result(t, s, "set_inline_comment", `{"address":"main","comment":"entry"}`)
			result(t, s, "set_comment", `{"address":"main","comment":"why main exists"}`)
			result(t, s, "set_comment", `{"address":"greeting","comment":"outside main"}`)
			d, _ = result(t, s, "analyze_function", `{"procedure":"main","detail":"complete"}`)
			c := d["comments"].(map[string]any)
			is.Equal(c["total"], 2.0)
			is.Equal(c["items"], []any{
				map[string]any{"address": "0x1030", "kind": "comment", "text": "why main exists"},
				map[string]any{"address": "0x1030", "kind": "inline", "text": "entry"},
			})
			is.True(!contains(d["limitations"], "No analyst comments are recorded for this procedure."))
		})
	}
}

// codeEngineProvider is the code fake with an engine-side annotation store.
type codeEngineProvider struct {
	*portstest.CodeFake
	store *portstest.AnnotatorFake
}

type codeEngineAnalysis struct {
	*portstest.CodeAnalysis
	*portstest.AnnotatorFake
}

func (p *codeEngineProvider) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	a, err := p.CodeFake.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	return &codeEngineAnalysis{a.(*portstest.CodeAnalysis), p.store}, nil
}

func contains(list any, s string) bool {
	l, _ := list.([]any)
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestSourceFacet: the source facet carries the engine's line and inlined
// calls, is null where no line covers the address, and is unavailable on
// an engine that maps no address to a line.
func TestSourceFacet(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewCodeFake())
	source := func(s *core.Session, addr string) map[string]any {
		return sessionValue(t, s, "inspect_address_context", `{"address":"`+addr+`"}`)["facets"].(map[string]any)["source"].(map[string]any)
	}
	f := source(s, "0x1040")
	is.Equal(f["status"], "available")
	is.Equal(f["value"], map[string]any{"file": "/src/main.c", "line": 10.0, "column": 5.0, "function": "main",
		"inlined": []any{map[string]any{"function": "say", "call_file": "/src/main.c", "call_line": 4.0}}})
	f = source(s, "0x1010") // _start: no line
	is.Equal(f["status"], "available")
	is.Equal(f["value"], nil)
	f = source(session(t, portstest.NewFake()), "main")
	is.Equal(f["status"], "unavailable")
	is.Equal(f["reason"], "the provider does not map addresses to source lines")
}
