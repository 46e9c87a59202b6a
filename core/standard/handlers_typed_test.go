package standard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// typedPending lists the families, and single operations, whose handlers
// still build map results; TestHandlersReturnTheirTypes skips them. Shrink
// it as they are converted.
var typedPending = map[string]string{
	// Converted, and checked where their engines are: TestAppHandlersReturnTheirResultTypes
	// (handlers_typed_apps_test.go) and the browser, process and runtime families' own tests
	// run them over fakes this test's code engine does not offer.
	"artifact": "checked by TestAppHandlersReturnTheirResultTypes",
	"web":      "checked by TestAppHandlersReturnTheirResultTypes",
	"browser":  "checked by core/browser TestBrowserHandlersReturnTheirResultTypes over the fake browser",
	"process":  "checked by core/process TestProcessHandlersReturnTheirResultTypes over fakes",
	"runtime":  "checked by TestRuntimeHandlersReturnTypedResults",
	"jsapp":    "checked by TestJSAppHandlersReturnTheirTypes over the JavaScript fake",
	// diff operations
}

// typedAlternatives are the other result types of operations whose result
// schema is a union (a detail "summary" form).
var typedAlternatives = map[string][]reflect.Type{"get_evidence_bundle": {reflect.TypeFor[*core.BundleSummary]()},
	"inspect_binary_layout": {reflect.TypeFor[*core.InspectAnalysisViewResult]()}}

// typedExtraArgs are calls made besides each operation's examples, for
// operations whose examples name addresses or procedures the fake engine
// does not have. The fake's program is main at 0x1030, _start at 0x1010,
// puts@plt at 0x1000 and the string "hello, world" at 0x2000.
var typedExtraArgs = map[string][]string{
	"list_names":                   {`{"address":"0x1030"}`},
	"address_name":                 {`{"address":"0x1030"}`},
	"xrefs":                        {`{"address":"0x1030"}`},
	"resolve_containing_procedure": {`{"address":"0x1038"}`},
	"read_bytes":                   {`{"address":"0x1030","length":8}`},
	"address_to_file_offset":       {`{"address":"0x1030"}`},
	"next_address":                 {`{"address":"0x1030"}`},
	"prev_address":                 {`{"address":"0x1034"}`},
	"find_xrefs_to_name":           {`{"name":"greeting"}`},
	"find_code_for_string":         {`{"query":"hello"}`},
	"trace_feature":                {`{"query":"hello"}`},
	"trace_call_path":              {`{"start":"_start","goal":"puts@plt"}`},
	"get_call_graph":               {`{"address":"main"}`},
	"batch_decompile":              {`{"addresses":["main","0x1010"]}`},
	"inspect_native_api":           {`{"procedure":"main"}`},
	"search_strings":               {`{"pattern":"hello"}`},
	"set_address_name":             {`{"address":"0x1030","name":"entry_main"}`},
	"set_addresses_names":          {`{"names":{"0x1010":"start_here"}}`},
}

// TestHandlersReturnTheirTypes runs every operation of the converted
// families on a session over the in-memory code fake and fails when a
// handler's result (an Evidence operation's Observation.Result, a session
// operation's value) is not the operation's Go result type (Types.Result,
// or a pointer to it): the Go types are then what the handlers build, not
// a description checked beside map-building code. Each operation must
// return a result at least once, from its examples or typedExtraArgs.
func TestHandlersReturnTheirTypes(t *testing.T) {
	dir := t.TempDir()
	image, bundle := filepath.Join(dir, "fake.bin"), filepath.Join(dir, "bundle.json")
	if err := os.WriteFile(image, portstest.CodeFakeImage(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string][]reflect.Type{}
	var fams []core.Family
	for _, f := range standard.Families() {
		if _, skip := typedPending[f.Name]; !skip {
			for _, op := range f.Operations {
				if _, skip := typedPending[op.Name]; skip {
					continue
				}
				h, name, session := op.Handler, op.Name, op.RequiresSession
				op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
					out, err := h(ctx, c)
					if err == nil {
						v := out
						if o, ok := out.(*core.Observation); ok && !session {
							v = o.Result
						}
						got[name] = append(got[name], reflect.TypeOf(v))
					}
					return out, err
				}
			}
		}
		fams = append(fams, f)
	}
	cat, err := core.Assemble(fams...)
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewCodeFake()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	exe, err := os.Executable() // an ELF file; the fake ignores its bytes
	if err != nil {
		t.Fatal(err)
	}
	open, _ := json.Marshal(map[string]string{"path": exe})
	if _, err := s.Call(ctx, "open_binary", open, nil); err != nil {
		t.Fatal(string(core.AsError("open_binary", err).JSON()))
	}
	for _, f := range fams {
		if _, skip := typedPending[f.Name]; skip {
			continue
		}
		for _, op := range f.Operations {
			if _, skip := typedPending[op.Name]; skip || op.Name == "close_binary" {
				continue // close_binary runs last: it unbinds the target
			}
			calls := slices.Clone(op.Examples)
			for _, a := range typedExtraArgs[op.Name] {
				calls = append(calls, json.RawMessage(a))
			}
			switch op.Name { // examples that name files: use the test's own
			case "inspect_binary_layout": // detail summary returns a view, as inspect_analysis_view does
				calls = []json.RawMessage{typedMust(json.Marshal(map[string]string{"path": image})), typedMust(json.Marshal(map[string]string{"path": exe})),
					typedMust(json.Marshal(map[string]string{"path": image, "detail": "summary"}))}
			case "inspect_analysis_view":
				calls = viewArgs(t, s, image)
			case "export_evidence_bundle":
				calls = []json.RawMessage{typedMust(json.Marshal(map[string]any{"path": bundle, "overwrite": true}))}
			case "import_evidence_bundle":
				calls = []json.RawMessage{typedMust(json.Marshal(map[string]any{"path": bundle}))}
			case "compare_functions":
				main, start := dossierRefs(t, s)
				calls = []json.RawMessage{typedMust(json.Marshal(map[string]any{"left": main, "right": start}))}
			case "build_call_path":
				main, start := dossierRefs(t, s)
				calls = []json.RawMessage{typedMust(json.Marshal(map[string]any{"functions": []any{start, main}, "start": "_start", "goal": "main"}))}
			case "correlate_static_and_runtime":
				calls = []json.RawMessage{correlateArgs(t, s)}
			case "compare_bundles":
				calls = calls[:1] // the session against itself; the second example reads files in /tmp
			}
			for _, args := range calls {
				if _, err := s.Call(ctx, op.Name, args, nil); err != nil {
					t.Logf("%s %s: %s", op.Name, args, core.AsError(op.Name, err).Message)
				}
			}
		}
	}
	for _, f := range fams {
		if _, skip := typedPending[f.Name]; skip {
			continue
		}
		for _, op := range f.Operations {
			if _, skip := typedPending[op.Name]; skip {
				continue
			}
			if op.Name == "close_binary" {
				if _, err := s.Call(ctx, op.Name, nil, nil); err != nil {
					t.Errorf("close_binary: %v", err)
				}
			}
			types := got[op.Name]
			if len(types) == 0 {
				t.Errorf("%s (%s): no call returned a result; add arguments to typedExtraArgs", op.Name, f.Name)
				continue
			}
			want := op.Types.Result
			for _, typ := range types {
				if typ != want && typ != reflect.PointerTo(want) && !slices.Contains(typedAlternatives[op.Name], typ) {
					t.Errorf("%s (%s): the handler returned %v, not its result type %v", op.Name, f.Name, typ, want)
					break
				}
			}
		}
	}
	// Every operation has read the fake's lists, which it hands out shared
	// as the native engine does: none may have written into them.
	s.Close(ctx)
	if m := portstest.ModifiedSharedLists(); len(m) > 0 {
		t.Errorf("operations modified lists the ports declare shared: %v", m)
	}
}

// viewArgs are inspect_analysis_view calls over a complete
// analyze_function dossier of the fake's main (every native facet and the
// summary) and over the retained complete layout of image (every view
// kind).
func viewArgs(t *testing.T, s *core.Session, image string) []json.RawMessage {
	t.Helper()
	main, _ := dossierRefs(t, s)
	var out []json.RawMessage
	add := func(src any, view string) {
		out = append(out, typedMust(json.Marshal(map[string]any{"source": src, "view": json.RawMessage(view)})))
	}
	add(main, `{"kind":"summary"}`)
	for _, f := range []string{"procedure", "pseudocode", "native_api", "references", "assembly", "value_flow_summary", "value_flow_def_use"} {
		add(main, `{"kind":"native","facet":"`+f+`"}`)
	}
	res, err := s.Call(context.Background(), "inspect_binary_layout", typedMust(json.Marshal(map[string]any{"path": image, "detail": "summary"})), nil)
	if err != nil {
		t.Fatal(core.AsError("inspect_binary_layout", err).Message)
	}
	layout := map[string]any{"kind": "retained-evidence", "evidence_id": res.Evidence.EvidenceLinks[0]}
	for _, v := range []string{`{"kind":"summary"}`, `{"kind":"facet","facet":"mitigations"}`, `{"kind":"item","collection":"sections","selector":{"index":1}}`,
		`{"kind":"page","collection":"symbols","limit":2}`} {
		add(layout, v)
	}
	return out
}

func typedMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// dossierRefs are retained references to complete analyze_function
// records of the fake's main and _start.
func dossierRefs(t *testing.T, s *core.Session) (main, start map[string]any) {
	t.Helper()
	ref := func(proc string) map[string]any {
		res, err := s.Call(context.Background(), "analyze_function", json.RawMessage(`{"procedure":"`+proc+`","detail":"complete","include_assembly":true}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(res.Evidence.EvidenceID)}
	}
	return ref("main"), ref("_start")
}

// correlateArgs correlate a compare_functions record of the fake's program
// with a sealed inline trace_native_calls record that saw main run once
// (the trace engines are not started here).
func correlateArgs(t *testing.T, s *core.Session) json.RawMessage {
	t.Helper()
	main, start := dossierRefs(t, s)
	cmp, err := s.Call(context.Background(), "compare_functions", typedMust(json.Marshal(map[string]any{"left": main, "right": start})), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := "0"
	trace := &core.Evidence{Operation: "trace_native_calls", PredicateType: core.DefaultPredicate, Parameters: json.RawMessage(`{}`), Provider: core.ProviderRef{ID: "fake-trace", Name: "fake trace", Version: &v},
		Confidence: core.ConfidenceObserved, Authority: "shipped-artifact",
		NormalizedResult: json.RawMessage(`{"breakpoints":[{"name":"main","address":"0x1030"}],"hits":[{"address":"0x1030","arguments":[]}]}`)}
	if err := trace.Seal(); err != nil {
		t.Fatal(err)
	}
	inline, err := trace.MarshalCanonical()
	if err != nil {
		t.Fatal(err)
	}
	return typedMust(json.Marshal(map[string]any{
		"static_comparisons":  []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(cmp.Evidence.EvidenceID)}},
		"runtime_comparisons": []any{json.RawMessage(inline)},
		"mappings":            []any{map[string]any{"runtime_evidence_id": string(trace.EvidenceID), "side": "left"}}}))
}
