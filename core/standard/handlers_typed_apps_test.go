package standard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/core/typecheck"
	"rea/core/web"
)

// The artifact, web, browser and process families build their results as
// their operations' Go result types (issue 13): a handler returns an
// Observation whose Result is the operation's Types.Result (or a pointer to
// it), never a map. This file runs, with no engine wired in, every such
// operation whose example or a local input can run here; the operations
// that need a browser, a process-capture engine or a call tracer are
// checked the same way over the fake engines in their families' tests.

// appsFamilies are the families this file holds to their result types.
var appsFamilies = []string{"artifact", "web", "browser", "process"}

// appsElsewhere are the operations checked in their family's tests, over
// fake engines that core/standard's tests may not import.
var appsElsewhere = map[string]string{
	"list_browser_targets":     "core/browser TestBrowserHandlersReturnTheirResultTypes (fake browser)",
	"inspect_web_page":         "core/browser TestBrowserHandlersReturnTheirResultTypes (fake browser)",
	"observe_web_session":      "core/browser TestBrowserHandlersReturnTheirResultTypes (fake browser)",
	"discover_webmcp_tools":    "core/browser TestBrowserHandlersReturnTheirResultTypes (fake browser)",
	"analyze_web_bundle":       "core/browser TestBrowserHandlersReturnTheirResultTypes (fake browser and JavaScript engine)",
	"capture_web_screenshot":   "core/browser TestBrowserHandlersReturnTheirResultTypes (fake browser)",
	"capture_browser_scenario": "core/browser TestBrowserHandlersReturnTheirResultTypes (fake scenario runner)",
	"capture_process_scenario": "core/process TestProcessHandlersReturnTheirResultTypes (fake capturer)",
	"compare_process_captures": "core/process TestProcessHandlersReturnTheirResultTypes (two fake captures)",
	"trace_native_calls":       "core/process TestProcessHandlersReturnTheirResultTypes (fake provider and tracer)",
}

// appsAlternatives are result types an operation returns besides its
// Types.Result: the other alternatives of a union result schema.
var appsAlternatives = map[string][]reflect.Type{
	"compare_web_captures": {reflect.TypeFor[web.CompareWebScenarioResult]()},
}

// appsRecorder wraps the handlers of fams to record the dynamic type of
// each Observation's Result, by operation.
type appsRecorder struct {
	mu    sync.Mutex
	types map[string][]reflect.Type
}

func (r *appsRecorder) wrap(fams []core.Family) {
	for _, f := range fams {
		for _, op := range f.Operations {
			h, name := op.Handler, op.Name
			op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
				out, err := h(ctx, c)
				if obs, ok := out.(*core.Observation); ok && err == nil {
					r.mu.Lock()
					r.types[name] = append(r.types[name], reflect.TypeOf(obs.Result))
					r.mu.Unlock()
				}
				return out, err
			}
		}
	}
}

// appsCheck fails t for every recorded result type of op that is not its
// Types.Result, a pointer to it, or a declared alternative (which must
// then match one alternative of the result schema).
func appsCheck(t *testing.T, op *core.Operation, got []reflect.Type) {
	t.Helper()
	want := op.Types.Result
	for _, g := range got {
		switch {
		case g == want || g == reflect.PointerTo(want):
		case g != nil && appsIsAlternative(op.Name, g):
			if g.Kind() == reflect.Pointer {
				g = g.Elem()
			}
			for _, p := range typecheck.Check(op.Result, g, true) {
				t.Errorf("%s: alternative result type %s: %s", op.Name, g, p)
			}
		default:
			t.Errorf("%s: the handler returned a %v, not its result type %s", op.Name, g, want)
		}
	}
}

func appsIsAlternative(op string, g reflect.Type) bool {
	for _, a := range appsAlternatives[op] {
		if g == a || g == reflect.PointerTo(a) {
			return true
		}
	}
	return false
}

func TestAppHandlersReturnTheirResultTypes(t *testing.T) {
	fams := standard.Families()
	rec := &appsRecorder{types: map[string][]reflect.Type{}}
	rec.wrap(fams)
	cat, err := core.Assemble(fams...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })

	dir := t.TempDir()
	for name, text := range map[string]string{"app.js": "console.log(1)\n", "app.js.map": `{"version":3,"sources":["a.ts"],"mappings":""}`, "lib/readme.txt": "x\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	call := func(name string, args json.RawMessage) *core.Result {
		t.Helper()
		res, err := s.Call(context.Background(), name, args, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return res
	}
	path, _ := json.Marshal(map[string]any{"path": dir})
	call("inventory_artifact", path)
	call("inspect_artifact", path)
	ex := call("extract_artifact", path)
	var extracted struct {
		OutputRoot string `json:"output_root"`
	}
	if err := json.Unmarshal(ex.Evidence.NormalizedResult, &extracted); err != nil || extracted.OutputRoot == "" {
		t.Fatalf("extract_artifact: no output_root (%v)", err)
	}
	t.Cleanup(func() { os.RemoveAll(extracted.OutputRoot) })
	for _, name := range []string{"compare_artifacts", "compare_web_captures", "compare_web_screenshots"} {
		op, _ := cat.Lookup(name)
		for _, e := range op.Examples {
			if bytes.Contains(e, []byte(`"retained-evidence"`)) {
				continue // references to records this session does not hold
			}
			call(name, e)
		}
	}

	fam := map[string]bool{}
	for _, f := range appsFamilies {
		fam[f] = true
	}
	for _, f := range fams {
		if !fam[f.Name] {
			continue
		}
		for _, op := range f.Operations {
			got, ran := rec.types[op.Name]
			where, listed := appsElsewhere[op.Name]
			switch {
			case ran && listed:
				t.Errorf("%s ran here but is listed as checked in %s: drop it from the list", op.Name, where)
			case !ran && !listed:
				t.Errorf("%s (family %s) was not run: run it here or list where its result type is checked", op.Name, f.Name)
			}
			appsCheck(t, op, got)
		}
	}
	if len(rec.types["compare_web_captures"]) < 2 {
		t.Errorf("compare_web_captures ran %d times; its examples hold a passive and a scenario comparison", len(rec.types["compare_web_captures"]))
	}
}
