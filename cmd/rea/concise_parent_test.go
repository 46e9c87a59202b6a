package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// wantMissingParent checks err is evidence_integrity_mismatch naming the
// complete record the concise one links and what to pass instead.
func wantMissingParent(t *testing.T, err error, concise *core.Evidence) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeEvidenceIntegrityMismatch {
		t.Fatalf("got %v; want evidence_integrity_mismatch", err)
	}
	parent := string(concise.EvidenceLinks[0])
	if e.Details["evidence_id"] != parent || e.Details["reason"] != "missing" || e.Details["concise_evidence_id"] != string(concise.EvidenceID) ||
		!strings.Contains(e.Details["pass_instead"].(string), `"detail":"complete"`) {
		t.Errorf("details %v; want the missing %s and what to pass instead", e.Details, parent)
	}
}

// A concise compare_binaries page made on another connection, passed
// inline where this one does not hold the complete comparison it links, is
// refused with what to pass instead. Before, find_changed_behavior ranked
// only the page's first changed functions and said total 25 of 200, and
// correlate_static_and_runtime listed only those.
func TestConciseComparisonFromAnotherConnection(t *testing.T) {
	v1, v2 := manyBuilds(t, 200)
	res := nativeSession(t)("compare_binaries", map[string]any{"left_path": v1, "right_path": v2})
	if len(res.Evidence.EvidenceLinks) == 0 {
		t.Fatal("the concise comparison is not a page")
	}
	other := nativeSessionErr(t, loopTracer{3})
	_, err := other("find_changed_behavior", map[string]any{"comparison": res.Evidence})
	wantMissingParent(t, err, res.Evidence)
	if _, err = other("open_binary", map[string]any{"path": v1}); err != nil {
		t.Fatal(err)
	}
	tr, err := other("trace_native_calls", map[string]any{"procedures": []string{"f1"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = other("correlate_static_and_runtime", map[string]any{"static_comparisons": []any{res.Evidence}, "runtime_comparisons": []any{tr.Evidence},
		"mappings": []any{map[string]any{"runtime_evidence_id": string(tr.Evidence.EvidenceID), "side": "left"}}})
	wantMissingParent(t, err, res.Evidence)
}

// A concise trace page made on another connection is refused the same way.
// Before, correlate_static_and_runtime counted only the page's first hits,
// so a function executed after them read as changed-not-executed.
func TestConciseTraceFromAnotherConnection(t *testing.T) {
	is := is.New(t)
	v1, v2 := manyBuilds(t, 4)
	call := nativeSessionErr(t, loopTracer{3000})
	cmp, err := call("compare_binaries", map[string]any{"left_path": v1, "right_path": v2})
	is.NoErr(err)
	_, err = call("open_binary", map[string]any{"path": v1})
	is.NoErr(err)
	tr, err := call("trace_native_calls", map[string]any{"procedures": []string{"f1"}})
	is.NoErr(err)
	is.True(len(tr.Evidence.EvidenceLinks) > 0) // a page
	_, err = nativeSessionErr(t, loopTracer{3000})("correlate_static_and_runtime", map[string]any{"static_comparisons": []any{cmp.Evidence},
		"runtime_comparisons": []any{tr.Evidence}, "mappings": []any{map[string]any{"runtime_evidence_id": string(tr.Evidence.EvidenceID), "side": "left"}}})
	wantMissingParent(t, err, tr.Evidence)
}

// nativeSessionErr is nativeSession returning the call's error, with
// tracer (nil for none).
func nativeSessionErr(t *testing.T, tracer ports.CallTracer) func(op string, args any) (*core.Result, error) {
	t.Helper()
	return nativeCalls(t, &core.RegistryOptions{Tracer: tracer})
}

// nativeCalls calls operations in a session of its own over the whole
// catalog, rea-native and opts' engines, closed when t ends.
func nativeCalls(t *testing.T, opts *core.RegistryOptions) func(op string, args any) (*core.Result, error) {
	t.Helper()
	cat, err := core.Assemble(standard.Families()...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry([]ports.Provider{native.New(&native.Options{})}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	return func(op string, args any) (*core.Result, error) {
		raw, _ := json.Marshal(args)
		return s.Call(context.Background(), op, raw, nil)
	}
}

// mustCall is call failing t on an error.
func mustCall(t *testing.T, call func(op string, args any) (*core.Result, error)) func(op string, args any) *core.Result {
	return func(op string, args any) *core.Result {
		t.Helper()
		res, err := call(op, args)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res
	}
}

// A concise analyze_function dossier made on another connection is
// compared as it is, which cannot mislead: each collection it cut lists
// fewer items than its total, so its dimension is unknown with the reason,
// never unchanged or changed from the first items alone.
func TestConciseDossierFromAnotherConnection(t *testing.T) {
	is := is.New(t)
	v1, v2 := manyBuilds(t, 4)
	dossier := func(path string) *core.Evidence {
		call := nativeSession(t)
		call("open_binary", map[string]any{"path": path})
		r := call("analyze_function", map[string]any{"procedure": "f3", "include_assembly": true})
		is.True(len(r.Evidence.EvidenceLinks) > 0) // concise: the complete dossier is linked
		return r.Evidence
	}
	l, r := dossier(v1), dossier(v2)
	res, err := nativeSessionErr(t, nil)("compare_functions", map[string]any{"left": l, "right": r})
	is.NoErr(err)
	var out struct {
		Status     string                     `json:"status"`
		Unknown    []string                   `json:"unknown_dimensions"`
		Dimensions map[string]json.RawMessage `json:"dimensions"`
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
	t.Logf("status %s, unknown %v", out.Status, out.Unknown)
	is.True(out.Status != "unchanged")
	is.True(len(out.Unknown) > 0)
	for _, d := range out.Unknown {
		if !strings.Contains(string(out.Dimensions[d]), "the record holds") {
			t.Errorf("%s: %s; want the reason that the record holds a page", d, out.Dimensions[d])
		}
	}
}
