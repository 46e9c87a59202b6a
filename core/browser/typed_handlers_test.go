package browser_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// Every browser tool's handler returns its operation's Go result type
// (Types.Result or a pointer to it) as the Observation's Result, over the
// fake browser, scenario runner and JavaScript engine (issue 13; the
// operations that need no engine are run in core/standard's
// TestAppHandlersReturnTheirResultTypes).
func TestBrowserHandlersReturnTheirResultTypes(t *testing.T) {
	fams := standard.Families()
	got := map[string][]reflect.Type{}
	var browserOps []*core.Operation
	for _, f := range fams {
		if f.Name != "browser" {
			continue
		}
		for _, op := range f.Operations {
			browserOps = append(browserOps, op)
			h, name := op.Handler, op.Name
			op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
				out, err := h(ctx, c)
				if obs, ok := out.(*core.Observation); ok && err == nil {
					got[name] = append(got[name], reflect.TypeOf(obs.Result))
				}
				return out, err
			}
		}
	}
	cat, err := core.Assemble(fams...)
	if err != nil {
		t.Fatal(err)
	}
	f := richFake()
	f.Tools = []ports.WebMCPTool{{Name: "search", FrameID: "F1", FrameURL: "http://app.test/", OwnerOrigin: "http://app.test", InputSchema: []byte(`{"type":"object"}`)}}
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{Browser: f, Scenarios: &fakeRunner{}, JavaScript: portstest.FakeJS{}})
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	page := map[string]any{"cdp_endpoint": ep, "target_id": "T1"}
	shot := map[string]any{"data_base64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}
	for _, c := range []struct {
		op   string
		args any
	}{
		{"list_browser_targets", map[string]any{"cdp_endpoint": ep}},
		{"inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_json_body_shapes": true, "include_storage_keys": true}},
		{"observe_web_session", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "observation_ms": 10}},
		{"discover_webmcp_tools", page},
		{"analyze_web_bundle", page},
		{"capture_web_screenshot", page},
		{"compare_web_screenshots", map[string]any{"before": shot, "after": shot}},
		{"capture_browser_scenario", map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": "http://app.test/"},
			"actions": []any{map[string]any{"step_id": "go", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "a"}}}},
			"capture": map[string]any{"after_each_step": []any{"url"}, "at_end": []any{"screenshot", "dom"}}}},
	} {
		raw, _ := json.Marshal(c.args)
		if _, err := s.Call(context.Background(), c.op, raw, nil); err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
	}
	for _, op := range browserOps {
		if len(got[op.Name]) == 0 {
			t.Errorf("%s was not run", op.Name)
		}
		for _, g := range got[op.Name] {
			if g != op.Types.Result && g != reflect.PointerTo(op.Types.Result) {
				t.Errorf("%s: the handler returned a %v, not its result type %s", op.Name, g, op.Types.Result)
			}
		}
	}
}
