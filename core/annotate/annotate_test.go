package annotate_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
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

	// An unsupported kind is an unavailable facet, and a typed error when set.
	ctx := sessionValue(t, s, "inspect_address_context", `{"address":"main"}`)
	is.Equal(facet(ctx, "comment")["value"], "kept by the engine")
	is.Equal(facet(ctx, "inline_comment")["status"], "unavailable")
	is.True(facet(ctx, "inline_comment")["reason"] != nil)
	_, err = s.Call(context.Background(), "set_inline_comment", json.RawMessage(`{"address":"main","comment":"x"}`), nil)
	var ce *core.Error
	is.True(errors.As(err, &ce))
	is.Equal(ce.Code, core.CodeCapabilityUnavailable)

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
