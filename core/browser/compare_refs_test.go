package browser_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func retained(ev map[string]any) map[string]any {
	return map[string]any{"kind": "retained-evidence", "evidence_id": ev["evidence_id"]}
}

// compare_web_captures takes each capture as a retained Evidence reference
// and keeps references, not captures, in the parameters its answer
// repeats; an inline capture is kept as its digest only. Before, an agent
// could only send captures inline (580 KB on a 300-item page) and got
// them back in parameters.
func TestCompareWebCapturesTakesRetainedEvidence(t *testing.T) {
	is := is.New(t)
	f := richFake()
	s := session(t, f, nil)
	in1 := mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})
	in2 := mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})
	w := mustCall(t, s, "discover_webmcp_tools", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})

	byRef := mustCall(t, s, "compare_web_captures", map[string]any{
		"before": map[string]any{"inspection": retained(in1), "webmcp": retained(w)},
		"after":  map[string]any{"inspection": retained(in2), "webmcp": retained(w)}})
	inline := mustCall(t, s, "compare_web_captures", map[string]any{
		"before": map[string]any{"inspection": result(in1), "webmcp": result(w)},
		"after":  map[string]any{"inspection": result(in2), "webmcp": result(w)}})
	is.Equal(result(byRef), result(inline)) // the same comparison either way

	p := byRef["parameters"].(map[string]any)
	is.Equal(p["before"], map[string]any{"inspection": retained(in1), "webmcp": retained(w)})
	is.Equal(p["after"].(map[string]any)["inspection"], retained(in2))
	is.Equal(byRef["evidence_links"], []any{in1["evidence_id"], w["evidence_id"], in2["evidence_id"]})

	p = inline["parameters"].(map[string]any)
	got := p["before"].(map[string]any)["inspection"].(map[string]any)
	is.Equal(got["kind"], "inline")
	d, err := core.Digest(result(in1))
	is.NoErr(err)
	is.Equal(got["sha256"], d)
	raw, _ := json.Marshal(p)
	is.True(!strings.Contains(string(raw), "http://app.test/app.js")) // no capture content echoed

	// A reference to another tool's Evidence is refused, typed.
	_, err = call(t, s, "compare_web_captures", map[string]any{
		"before": map[string]any{"inspection": retained(w)}, "after": map[string]any{"inspection": retained(in2)}})
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(e.Details["expected"], "inspect_web_page")
	is.Equal(e.Details["actual"], "discover_webmcp_tools")
}

func TestCompareScenarioCapturesTakeRetainedEvidence(t *testing.T) {
	is := is.New(t)
	s := session(t, nil, &fakeRunner{})
	args := map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": "http://app.test/"},
		"actions": []any{map[string]any{"step_id": "go", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "a"}}}}}
	a := mustCall(t, s, "capture_browser_scenario", args)
	b := mustCall(t, s, "capture_browser_scenario", args)
	byRef := mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": retained(a), "after_scenario": retained(b)})
	inline := mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": result(a), "after_scenario": result(b)})
	is.Equal(result(byRef), result(inline))
	is.Equal(result(byRef)["overall_status"], "unchanged")
	is.Equal(byRef["parameters"].(map[string]any)["before_scenario"], retained(a))
	is.Equal(inline["parameters"].(map[string]any)["after_scenario"].(map[string]any)["kind"], "inline")
}

// compare_web_screenshots takes capture_web_screenshot Evidence by
// reference, and its parameters never repeat a PNG's base64 (two 70 KB
// screenshots were 137 KB of the answer before).
func TestCompareScreenshotsTakeRetainedEvidence(t *testing.T) {
	is := is.New(t)
	s := session(t, richFake(), nil)
	shot := mustCall(t, s, "capture_web_screenshot", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})
	art := result(shot)["artifact"].(map[string]any)

	byRef := mustCall(t, s, "compare_web_screenshots", map[string]any{"before": retained(shot), "after": retained(shot)})
	is.Equal(result(byRef)["status"], "identical")
	is.Equal(byRef["parameters"].(map[string]any)["before"], retained(shot))
	is.Equal(byRef["evidence_links"], []any{shot["evidence_id"]})

	inline := mustCall(t, s, "compare_web_screenshots", map[string]any{"before": art, "after": retained(shot)})
	is.Equal(result(inline), result(byRef))
	is.Equal(inline["parameters"].(map[string]any)["before"], map[string]any{"kind": "inline", "sha256": art["sha256"]})
	raw, _ := json.Marshal(inline["parameters"])
	is.True(!strings.Contains(string(raw), art["data_base64"].(string)))

	in := mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})
	_, err := call(t, s, "compare_web_screenshots", map[string]any{"before": retained(in), "after": art})
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
}
