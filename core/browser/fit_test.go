package browser_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// minifiedJS is about n bytes of script dense in the characters a JSON
// response escapes (quotes, <, >, &, line breaks), as minified bundles are.
func minifiedJS(seed, n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "if(a%d<b&&c>d){s=\"<div class=\\\"x%d\\\">\"+t&1}\n", seed, i)
	}
	return []byte(b.String()[:n])
}

// TestInspectWithLargeScriptSourcesFitsTheResponseBudget: a page with
// 4 MiB of script sources (the engine's total) captured with
// include_script_sources and default limits answers within the default
// response budget. Before, the result (about 13 MB) failed with
// resource_constraint; now the largest texts are left out, each with its
// digest and size, and the capture says so.
func TestInspectWithLargeScriptSourcesFitsTheResponseBudget(t *testing.T) {
	is := is.New(t)
	f := richFake()
	var scripts []ports.BrowserScript
	sizes := []int{1 << 20, 1 << 20, 1<<20 - 4096, 900 << 10, 100 << 10, 2000}
	for i, n := range sizes {
		src := minifiedJS(i, n)
		u := fmt.Sprintf("http://app.test/chunk%d.js", i)
		scripts = append(scripts, ports.BrowserScript{ScriptID: fmt.Sprint(i + 1), FrameID: "F1", URL: u, Origin: "http://app.test",
			CDPHash: fmt.Sprintf("h%d", i), Length: n, Language: "JavaScript", Source: src})
	}
	f.Capture.Scripts, f.Capture.ScriptsTotal = scripts, len(scripts)
	f.Capture.Completeness = ports.BrowserCompleteness{}
	s := session(t, f, nil)
	raw, _ := json.Marshal(map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_script_sources": true})
	res, err := s.Call(context.Background(), "inspect_web_page", raw, nil)
	is.NoErr(err)
	j, err := res.StructuredJSON()
	is.NoErr(err)
	budget := core.ResponseBudget{MaxResponseBytes: core.DefaultMaxResponseBytes}
	if berr := budget.CheckSuccess("inspect_web_page", res, j, true); berr != nil {
		t.Fatalf("the default call does not fit: %v", berr)
	}
	var ev map[string]any
	is.NoErr(json.Unmarshal(j, &ev))
	insp := result(ev)
	kept, left := 0, 0
	for _, it := range insp["scripts"].(map[string]any)["items"].([]any) {
		sc := it.(map[string]any)
		src := sc["source"].(map[string]any)
		i := slices.IndexFunc(scripts, func(s ports.BrowserScript) bool { return s.URL == sc["url"] })
		is.True(i >= 0)
		sum := sha256.Sum256(scripts[i].Source)
		if src["included"] == true {
			kept++
			is.Equal(src["artifact"].(map[string]any)["text"], string(scripts[i].Source)) // a kept text is whole
			continue
		}
		left++
		is.Equal(src["reason"], fmt.Sprintf("left out to fit the response budget (sha256 %s, %d bytes)", hex.EncodeToString(sum[:]), len(scripts[i].Source)))
		is.True(len(scripts[i].Source) >= 900<<10) // the largest go first
	}
	is.True(left > 0)
	is.True(kept >= 3) // the small ones stay
	comp := insp["completeness"].(map[string]any)
	is.Equal(comp["status"], "truncated")
	is.True(slices.Contains(comp["truncated_sections"].([]any), any("script_sources")))
	is.True(slices.ContainsFunc(insp["limitations"].([]any), func(l any) bool {
		return strings.Contains(l.(string), fmt.Sprintf("%d script source(s)", left)) && strings.Contains(l.(string), "allowed_origins")
	}))

	// A server running with a larger budget gives the call more room: the
	// same capture keeps every text.
	room := core.ResponseBudget{MaxResponseBytes: 32 << 20}.ResultBudget()
	big, err := s.Call(context.Background(), "inspect_web_page", raw, &core.CallOptions{ResultBytes: room})
	is.NoErr(err)
	j, err = big.StructuredJSON()
	is.NoErr(err)
	is.True(core.SuccessBytes(j) > core.DefaultMaxResponseBytes) // it would not fit the default
	is.True(core.ResponseBudget{MaxResponseBytes: 32 << 20}.CheckSuccess("inspect_web_page", big, j, true) == nil)
	is.NoErr(json.Unmarshal(j, &ev))
	for _, it := range result(ev)["scripts"].(map[string]any)["items"].([]any) {
		is.Equal(it.(map[string]any)["source"].(map[string]any)["included"], true)
	}
	is.True(!strings.Contains(fmt.Sprint(result(ev)["limitations"]), "response budget"))

	// Sources that fit are all kept, with no limitation about the budget.
	f.Capture.Scripts = scripts[4:]
	small := result(mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_script_sources": true}))
	for _, it := range small["scripts"].(map[string]any)["items"].([]any) {
		is.Equal(it.(map[string]any)["source"].(map[string]any)["included"], true)
	}
	is.True(!strings.Contains(fmt.Sprint(small["limitations"]), "response budget"))
}
