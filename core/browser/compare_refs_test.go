package browser_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
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
	want := []any{in1["evidence_id"], w["evidence_id"]}
	if in2["evidence_id"] != in1["evidence_id"] { // two captures in one millisecond are one record
		want = append(want, in2["evidence_id"])
	}
	is.Equal(byRef["evidence_links"], want)

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

// bigPage is richFake with 120 DOM and 120 accessibility nodes.
func bigPage() *portstest.BrowserFake {
	f := richFake()
	dom := []ports.BrowserDOMNode{{Index: 0, ParentIndex: -1, NodeType: 9, NodeName: "#document"}}
	ax := []ports.BrowserAXNode{{NodeID: "ax0", Role: "RootWebArea"}}
	for i := 1; i < 120; i++ {
		dom = append(dom, ports.BrowserDOMNode{Index: i, ParentIndex: 0, NodeType: 1, NodeName: "LI", AttributeNames: []string{"class"}})
		ax = append(ax, ports.BrowserAXNode{NodeID: fmt.Sprint("ax", i), ParentID: "ax0", Role: "listitem"})
	}
	f.Capture.DOM.Nodes, f.Capture.DOM.TotalNodes = dom, len(dom)
	f.Capture.Accessibility.Nodes, f.Capture.Accessibility.TotalNodes = ax, len(ax)
	return f
}

// inspect_web_page is concise by default on a large page: the first nodes
// of the DOM and the accessibility tree with their totals, both sections
// marked truncated, and the complete record retained as
// parent_evidence_id, which compare_web_captures compares. Before, a
// 300-item page gave 290 KB, 286 KB of it the two node lists.
func TestInspectWebPageConciseByDefault(t *testing.T) {
	is := is.New(t)
	s := session(t, bigPage(), nil)
	args := map[string]any{"cdp_endpoint": ep, "target_id": "T1"}
	ev := mustCall(t, s, "inspect_web_page", args)
	r := result(ev)
	dom, ax := r["dom"].(map[string]any), r["accessibility"].(map[string]any)
	is.Equal(len(dom["nodes"].([]any)), 50)
	is.Equal(dom["total_nodes"], 120.0)
	is.Equal(len(ax["nodes"].([]any)), 50)
	is.Equal(ax["total_nodes"], 120.0)
	trunc := r["completeness"].(map[string]any)["truncated_sections"].([]any)
	is.True(slices.Contains(trunc, any("dom")) && slices.Contains(trunc, any("accessibility")))
	parent := r["parent_evidence_id"]
	is.True(parent != nil)
	is.Equal(ev["evidence_links"], []any{parent})
	lims, _ := json.Marshal(r["limitations"])
	is.True(strings.Contains(string(lims), `detail \"complete\"`))
	raw, _ := json.Marshal(ev)

	args["detail"] = "complete"
	full := mustCall(t, s, "inspect_web_page", args)
	fr := result(full)
	is.Equal(len(fr["dom"].(map[string]any)["nodes"].([]any)), 120)
	is.Equal(len(fr["accessibility"].(map[string]any)["nodes"].([]any)), 120)
	is.Equal(fr["parent_evidence_id"], nil)
	rawFull, _ := json.Marshal(full)
	is.True(len(raw) < len(rawFull))

	// Concise inspections compare as their complete records, by
	// reference or inline.
	ev2 := mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})
	for _, pair := range [][2]any{{retained(ev), retained(ev2)}, {result(ev), result(ev2)}} {
		d := mustCall(t, s, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": pair[0]}, "after": map[string]any{"inspection": pair[1]}})
		dims := result(d)["dimensions"].(map[string]any)
		is.Equal(dims["dom_structure"].(map[string]any)["status"], "unchanged")
		is.True(slices.Contains(d["evidence_links"].([]any), parent))
	}

	// A small page is whole, with no parent.
	small := result(mustCall(t, session(t, richFake(), nil), "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	is.Equal(small["parent_evidence_id"], nil)
	is.Equal(len(small["dom"].(map[string]any)["nodes"].([]any)), 2)
}

// Concise inspections made on another connection name complete records
// this one does not retain. compare_web_captures compares what they carry
// (the listed nodes and the totals), and a DOM or accessibility dimension
// it cannot settle is unknown with a reason that names the record it
// lacks and what to pass instead. Before, the reason was the generic
// "DOM or frame capture was incomplete in at least one observation.", and
// two pages of different sizes with the same first nodes were unknown.
func TestCompareConciseInspectionsFromAnotherConnection(t *testing.T) {
	is := is.New(t)
	a, b := session(t, bigPage(), nil), session(t, bigPage(), nil)
	args := map[string]any{"cdp_endpoint": ep, "target_id": "T1"}
	ra := mustCall(t, a, "inspect_web_page", args)
	rb := mustCall(t, b, "inspect_web_page", args)
	parent := result(ra)["parent_evidence_id"].(string)
	d := result(mustCall(t, b, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": result(ra)}, "after": map[string]any{"inspection": result(rb)}}))
	dims := d["dimensions"].(map[string]any)
	for _, c := range []struct{ dim, what string }{{"dom_structure", "the first 50 of its 120 DOM nodes"}, {"accessibility", "the first 50 of its 120 accessibility nodes"}} {
		dim := dims[c.dim].(map[string]any)
		if dim["status"] != "unknown" {
			t.Fatalf("%s: %v", c.dim, dim)
		}
		reason := dim["reason"].(string)
		t.Log(reason)
		for _, want := range []string{"before inspection is concise", c.what, parent, "not retained", `detail "complete"`, "import_evidence_bundle"} {
			if !strings.Contains(reason, want) {
				t.Errorf("%s: reason %q does not say %q", c.dim, reason, want)
			}
		}
	}

	// A page with more nodes but the same first ones: the totals differ.
	more := bigPage()
	more.Capture.DOM.Nodes = append(more.Capture.DOM.Nodes, ports.BrowserDOMNode{Index: 120, ParentIndex: 0, NodeType: 1, NodeName: "LI"})
	more.Capture.DOM.TotalNodes++
	more.Capture.Accessibility.Nodes = append(more.Capture.Accessibility.Nodes, ports.BrowserAXNode{NodeID: "ax120", ParentID: "ax0", Role: "listitem"})
	more.Capture.Accessibility.TotalNodes++
	rc := mustCall(t, session(t, more, nil), "inspect_web_page", args)
	d = result(mustCall(t, b, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": result(ra)}, "after": map[string]any{"inspection": result(rc)}}))
	dims = d["dimensions"].(map[string]any)
	is.Equal(dims["dom_structure"].(map[string]any)["status"], "changed")
	is.Equal(dims["accessibility"].(map[string]any)["status"], "changed")

	// The advice holds: a bundle of the other connection's records,
	// imported, makes the concise result compare whole.
	path := filepath.Join(t.TempDir(), "a.json")
	mustCall(t, a, "export_evidence_bundle", map[string]any{"path": path})
	mustCall(t, b, "import_evidence_bundle", map[string]any{"path": path})
	d = result(mustCall(t, b, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": result(ra)}, "after": map[string]any{"inspection": result(rb)}}))
	is.Equal(d["dimensions"].(map[string]any)["dom_structure"].(map[string]any)["status"], "unchanged")

	// So does the complete result inline.
	args["detail"] = "complete"
	fa, fb := result(mustCall(t, a, "inspect_web_page", args)), result(mustCall(t, b, "inspect_web_page", args))
	d = result(mustCall(t, b, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": fa}, "after": map[string]any{"inspection": fb}}))
	is.Equal(d["dimensions"].(map[string]any)["dom_structure"].(map[string]any)["status"], "unchanged")
}
