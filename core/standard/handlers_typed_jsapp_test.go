package standard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/ports/portstest"
)

// TestJSAppHandlersReturnTheirTypes runs every jsapp operation over the
// in-memory JavaScript fake on a small application and fails when a
// handler's result is not its operation's Types.Result (or a
// pointer to it). Every operation must answer at least once.
func TestJSAppHandlersReturnTheirTypes(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]reflect.Type{}
	var fams []core.Family
	var jsapp core.Family
	for _, f := range standard.Families() {
		if f.Name == "jsapp" {
			for _, op := range f.Operations {
				h, name := op.Handler, op.Name
				op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
					out, err := h(ctx, c)
					if o, ok := out.(*core.Observation); ok && err == nil {
						mu.Lock()
						got[name] = append(got[name], reflect.TypeOf(o.Result))
						mu.Unlock()
					}
					return out, err
				}
			}
			jsapp = f
		}
		fams = append(fams, f)
	}
	cat, err := core.Assemble(fams...)
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{JavaScript: portstest.FakeJS{}})
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })

	app := t.TempDir()
	for name, body := range map[string]string{
		"package.json": `{"name":"app","version":"1.0.0","main":"main.js"}`,
		"main.js":      `const lib = require("./lib.js"); lib.search("needle");`,
		"lib.js":       `const fs = require("fs"); exports.search = function (q) { return "found " + q; };`,
	} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	call := func(op string, args map[string]any) *core.Evidence {
		raw, _ := json.Marshal(args)
		res, err := s.Call(ctx, op, raw, nil)
		if err != nil {
			t.Fatalf("%s: %s", op, core.AsError(op, err).JSON())
		}
		return res.Evidence
	}
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	an := call("analyze_javascript_application", map[string]any{"path": app})
	tr := call("trace_application_feature", map[string]any{"application": ref(an), "seed": map[string]any{"kind": "module", "value": "main.js"}})
	call("trace_application_feature", map[string]any{"application": ref(an), "seed": map[string]any{"kind": "module", "value": "absent.js"}})
	call("trace_javascript_semantics", map[string]any{"application": ref(an), "query": map[string]any{"kind": "module", "value": "lib.js"}})
	call("compare_application_versions", map[string]any{"left": ref(an), "right": ref(an)})
	call("compare_source_to_bundle", map[string]any{"left": ref(an), "right": ref(an)})
	call("compare_javascript_export_shapes", map[string]any{"left": ref(an), "right": ref(an), "left_module_path": "lib.js", "right_module_path": "lib.js"})
	ledger := call("build_reconstruction_obligation_ledger", map[string]any{"trace": ref(tr), "application": ref(an)})
	call("evaluate_reconstruction_coverage", map[string]any{"ledger": ref(ledger), "reconstruction": ref(an)})

	for _, op := range jsapp.Operations {
		types := got[op.Name]
		if len(types) == 0 {
			t.Errorf("%s: no call returned a result", op.Name)
			continue
		}
		want := op.Types.Result
		for _, typ := range types {
			if typ != want && typ != reflect.PointerTo(want) {
				t.Errorf("%s: the handler returned %v, not its result type %v", op.Name, typ, want)
				break
			}
		}
	}
}
