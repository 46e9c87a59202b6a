package standard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// TestRuntimeHandlersReturnTypedResults runs each operation of the runtime
// family against the fake runtime engine (the real ones need a V8
// inspector, an Electron endpoint or an Electron executable) and fails when
// a handler's Observation.Result is not the operation's Types.Result (or a
// pointer to it): the handlers build the Go result types, not maps.
func TestRuntimeHandlersReturnTypedResults(t *testing.T) {
	is := is.New(t)
	fams := standard.Families()
	var mu sync.Mutex
	seen := map[string]reflect.Type{}
	want := map[string]reflect.Type{}
	for _, f := range fams {
		if f.Name != "runtime" {
			continue
		}
		for _, op := range f.Operations {
			want[op.Name] = f.Types[op.Name].Result
			h, name := op.Handler, op.Name
			op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
				v, err := h(ctx, c)
				if o, ok := v.(*core.Observation); ok && err == nil {
					mu.Lock()
					seen[name] = reflect.TypeOf(o.Result)
					mu.Unlock()
				}
				return v, err
			}
		}
	}
	is.Equal(len(want), 6)
	cat, err := core.Assemble(fams...)
	is.NoErr(err)

	dir := t.TempDir()
	for p, body := range map[string]string{"package.json": `{"name":"app","type":"module","main":"main.mjs"}`, "main.mjs": "export const a = 1;\n"} {
		is.NoErr(os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644))
	}
	f := portstest.NewRuntimeFake(dir)
	f.Scripts = []ports.RuntimeScript{{ScriptID: "1", ContextID: 1, Location: ports.RuntimeLocation{Kind: "file", FilePath: dir + "/main.mjs"}, Length: 20, IsModule: true}}
	f.Page = &ports.ElectronPageCapture{Target: ports.ElectronTarget{TargetID: "P1", Type: "page", FilePath: dir + "/index.html"},
		Scripts: []ports.ElectronScript{{ScriptID: "1", FilePath: dir + "/main.mjs", Length: 20}}, ScriptsTotal: 1}
	f.Scenario = &ports.ElectronScenarioCapture{ExecutablePath: "/opt/e/electron", ApplicationPath: dir, Status: "complete",
		IPC: []ports.ElectronEvent{{Family: "ipc", Kind: "invoke", Phase: "observed", Channel: "c", Role: "renderer"}}, IPCObserved: 1}
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{JavaScript: portstest.FakeJS{}, Runtime: f})
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	call := func(op string, args any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(context.Background(), op, raw, nil)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(res.Evidence.EvidenceID)}
	}
	call("list_javascript_runtime_targets", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229"})
	obs := call("observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1"})
	call("list_electron_targets", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222"})
	pg := call("inspect_electron_page", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222", "target_id": "P1"})
	sc := call("capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir})
	an := call("analyze_javascript_application", map[string]any{"path": dir})
	call("reconcile_javascript_runtime", map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": an}},
		"runtime_observations": []any{obs, pg, sc}})

	for op, w := range want {
		got := seen[op]
		if got == nil {
			t.Errorf("%s: the handler never returned an observation", op)
			continue
		}
		if got != w && got != reflect.PointerTo(w) {
			t.Errorf("%s: the handler's result is %v, want %v (or a pointer to it)", op, got, w)
		}
	}
}
