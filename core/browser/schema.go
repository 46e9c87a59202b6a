package browser

import (
	"encoding/json"
	"strings"
	"sync"

	"rea/core"
	"rea/core/web"
)

// The normalized results of inspect_web_page, discover_webmcp_tools and
// capture_browser_scenario are exactly what compare_web_captures accepts,
// so their result schemas are that operation's definitions (one source of
// truth): web_inspection, web_webmcp_discovery, web_scenario_capture.

var (
	webDefsOnce sync.Once
	webDefs     map[string]any
)

func compareDefs() map[string]any {
	webDefsOnce.Do(func() {
		for _, op := range web.Family().Operations {
			if op.Name != "compare_web_captures" {
				continue
			}
			var root map[string]any
			if err := json.Unmarshal(op.Input, &root); err != nil {
				panic("browser: compare_web_captures input schema: " + err.Error())
			}
			webDefs, _ = root["$defs"].(map[string]any)
		}
		if webDefs == nil {
			panic("browser: compare_web_captures has no $defs")
		}
	})
	return webDefs
}

// defResult is a result schema that is one of compare_web_captures'
// definitions, with every definition it references: buildDefResult's text,
// read from schemas_generated.go so start-up neither decodes
// compare_web_captures' input schema nor encodes these.
func defResult(name string) json.RawMessage {
	for _, r := range generatedDefResults {
		if r.name == name {
			return r.text
		}
	}
	panic("browser: no generated result schema for " + name + ": run go generate ./core/browser")
}

// generatedResults are the definitions defResult serves.
var generatedResults = []string{"web_inspection", "web_scenario_capture", "web_webmcp_discovery"}

// buildDefResult builds defResult's text from compare_web_captures' input
// schema (go generate ./core/browser; TestGeneratedSchemasCurrent fails when
// they differ).
func buildDefResult(name string) json.RawMessage {
	defs := compareDefs()
	need := map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if s, ok := x.(string); ok && k == "$ref" && strings.HasPrefix(s, "#/$defs/") {
					n := strings.TrimPrefix(s, "#/$defs/")
					if _, seen := need[n]; !seen {
						need[n] = defs[n]
						walk(defs[n])
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(map[string]any{"$ref": "#/$defs/" + name})
	raw, err := core.MarshalNoEscape(map[string]any{"$ref": "#/$defs/" + name, "$defs": need})
	if err != nil {
		panic(err)
	}
	return raw
}

// Shared input property declarations.
const (
	propEndpoint = `"cdp_endpoint":{"type":"string","minLength":1,"maxLength":2048,"description":"CDP HTTP endpoint of a browser on loopback: http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path, query or userinfo)."}`
	propTarget   = `"target_id":{"type":"string","minLength":1,"maxLength":256,"description":"Page target id from list_browser_targets."}`
	propOrigins  = `"allowed_origins":{"type":"array","maxItems":32,"items":{"type":"string","minLength":1,"maxLength":2048},"description":"Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (listing: every http(s) page)."}`
)

func schemaObj(required []string, props ...string) json.RawMessage {
	return core.InputSchema(required, props...)
}
