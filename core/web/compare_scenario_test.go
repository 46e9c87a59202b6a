package web_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

var webBuiltInRules = []any{"ignore_step_elapsed_ms", "ignore_event_sequence", "ignore_event_step_index",
	"compare_screenshot_content_digest", "compare_normalized_text_content"}

// webScenarioPair is the example's before capture on both sides, with no
// normalization.
func webScenarioPair(t *testing.T) map[string]any {
	t.Helper()
	b := webMap(t, webExample(t, webExScenario), "before_scenario")
	return map[string]any{"before_scenario": webClone(t, b), "after_scenario": webClone(t, b)}
}

func webFailureCodes(t *testing.T, res map[string]any) []string {
	t.Helper()
	var out []string
	for _, f := range webList(t, res, "alignment", "failures") {
		out = append(out, fmt.Sprintf("%s:%v", f.(map[string]any)["code"], f.(map[string]any)["step_id"]))
	}
	return out
}

func webStepDiff(t *testing.T, res map[string]any, stepID string) map[string]any {
	t.Helper()
	for _, s := range webList(t, res, "steps") {
		if s.(map[string]any)["step_id"] == stepID {
			return s.(map[string]any)
		}
	}
	t.Fatalf("no step %s in %v", stepID, res["steps"])
	return nil
}

// webAddStep appends an action step with no events and no artifacts.
func webAddStep(t *testing.T, capture map[string]any, id, action string) {
	t.Helper()
	steps := webList(t, capture, "steps")
	s := webClone(t, steps[len(steps)-1]).(map[string]any)
	s["step_index"], s["step_id"], s["action"] = len(steps), id, action
	s["event_sequence_start"], s["event_sequence_end"] = 5, 4
	for _, k := range []string{"screenshot", "dom", "accessibility", "url", "history", "storage"} {
		webMap(t, s, "artifacts")[k] = map[string]any{"state": "not_requested"}
	}
	capture["steps"] = append(steps, s)
	webMap(t, capture, "scenario")["action_count"] = len(steps)
}

// webSetURL makes a capture end its last step on url.
func webSetURL(t *testing.T, capture map[string]any, url string) {
	t.Helper()
	step := webMap(t, capture, "steps", 1)
	u := map[string]any{"url": url, "origin": "http://127.0.0.1:4173", "query_parameter_names": []any{}, "redacted": false}
	step["after_url"] = u
	webMap(t, step, "artifacts")["url"] = map[string]any{"state": "captured", "value": webClone(t, u)}
}

func TestCompareScenario(t *testing.T) {
	sessionRules := []any{
		map[string]any{"rule_id": "session-1", "artifacts": []any{"url", "action_state"}, "match": "/session-1", "replacement": "/session-N"},
		map[string]any{"rule_id": "session-2", "artifacts": []any{"url", "action_state"}, "match": "/session-2", "replacement": "/session-N"},
	}
	sessionPair := func(t *testing.T) map[string]any {
		a := webScenarioPair(t)
		webSetURL(t, webMap(t, a, "before_scenario"), "http://127.0.0.1:4173/app/session-1")
		webSetURL(t, webMap(t, a, "after_scenario"), "http://127.0.0.1:4173/app/session-2")
		return a
	}
	cases := []struct {
		name  string
		args  func(t *testing.T) map[string]any
		check func(t *testing.T, res map[string]any)
	}{
		{"identical captures", webScenarioPair, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(res["overall_status"], "unchanged")
			is.Equal(res["comparison_kind"], "browser_scenario")
			is.Equal(webAt(t, res, "alignment", "status"), "aligned")
			is.Equal(webAt(t, res, "alignment", "aligned_steps"), 2.0)
			is.Equal(webAt(t, res, "artifact_diffs", "total"), 0.0)
			for _, s := range webList(t, res, "steps") {
				is.Equal(s.(map[string]any)["status"], "unchanged")
			}
		}},
		{"elapsed time is ignored", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webMap(t, a, "after_scenario", "steps", 1)["elapsed_ms"] = 9999
			webMap(t, a, "after_scenario")["duration_ms"] = 12000
			return a
		}, func(t *testing.T, res map[string]any) { is.New(t).Equal(res["overall_status"], "unchanged") }},
		{"build id normalized by the example rule", func(t *testing.T) map[string]any { return webExample(t, webExScenario) },
			func(t *testing.T, res map[string]any) { is.New(t).Equal(res["overall_status"], "unchanged") }},
		{"build id differs without rules", func(t *testing.T) map[string]any {
			a := webExample(t, webExScenario)
			delete(a, "normalization")
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(res["overall_status"], "changed")
			s := webStepDiff(t, res, "add-to-cart")
			is.Equal(s["status"], "changed")
			d := webMap(t, s, "artifact_diffs", 0)
			is.Equal(d["artifact"], "dom")
			is.Equal(d["before_state"], "captured")
			is.True(d["before_sha256"] != d["after_sha256"])
			is.Equal(webStepDiff(t, res, "scenario_start")["status"], "unchanged")
			is.Equal(len(webList(t, res, "normalization", "rules")), 0)
		}},
		{"differing URL without rules", sessionPair, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(res["overall_status"], "changed")
			var arts []string
			for _, d := range webList(t, webStepDiff(t, res, "add-to-cart"), "artifact_diffs") {
				arts = append(arts, d.(map[string]any)["artifact"].(string))
			}
			is.Equal(strings.Join(arts, ","), "action_state,url")
		}},
		{"normalization rules make a differing URL equal", func(t *testing.T) map[string]any {
			a := sessionPair(t)
			a["normalization"] = map[string]any{"rules": sessionRules}
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(res["overall_status"], "unchanged")
			is.Equal(len(webList(t, res, "normalization", "rules")), 2)
		}},
		{"duplicate step ids", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webMap(t, a, "after_scenario", "steps", 1)["step_id"] = "scenario_start"
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webFailureCodes(t, res), []string{"duplicate_after_step_id:scenario_start",
				"missing_after_step:add-to-cart", "missing_after_step:scenario_start"})
			is.Equal(webAt(t, res, "alignment", "status"), "failed")
			is.Equal(len(webList(t, res, "steps")), 0)
			is.Equal(res["overall_status"], "unknown")
		}},
		{"duplicate before step ids", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webMap(t, a, "before_scenario", "steps", 1)["step_id"] = "scenario_start"
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webFailureCodes(t, res)[0], "duplicate_before_step_id:scenario_start")
			is.Equal(res["overall_status"], "unknown")
		}},
		{"missing before step", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webAddStep(t, webMap(t, a, "after_scenario"), "checkout", "click")
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webFailureCodes(t, res), []string{"missing_before_step:checkout"})
			is.Equal(webAt(t, res, "alignment", "status"), "partial")
			is.Equal(webAt(t, res, "alignment", "after_only"), []any{"checkout"})
			is.Equal(webAt(t, res, "alignment", "aligned_steps"), 2.0)
			is.Equal(res["overall_status"], "unknown") // never unchanged without alignment
		}},
		{"missing after step", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webAddStep(t, webMap(t, a, "before_scenario"), "checkout", "click")
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webFailureCodes(t, res), []string{"missing_after_step:checkout"})
			is.Equal(webAt(t, res, "alignment", "before_only"), []any{"checkout"})
		}},
		{"action mismatch is reported and still compared", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webMap(t, a, "after_scenario", "steps", 1)["action"] = "press"
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webFailureCodes(t, res), []string{"action_mismatch:add-to-cart"})
			is.Equal(webAt(t, res, "alignment", "status"), "partial")
			s := webStepDiff(t, res, "add-to-cart")
			is.Equal(s["before_action"], "click")
			is.Equal(s["after_action"], "press")
			is.Equal(webMap(t, s, "artifact_diffs", 0)["artifact"], "action_state")
			is.Equal(res["overall_status"], "changed")
		}},
		{"capture context mismatch", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webMap(t, a, "after_scenario", "browser")["version"] = "127.0.6533.72"
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webFailureCodes(t, res), []string{"capture_context_mismatch:<nil>"})
			is.Equal(res["overall_status"], "unknown")
		}},
		{"dropped events make events truncated", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			c := webMap(t, a, "after_scenario")
			webMap(t, c, "events")["dropped"] = 3
			c["completeness"] = map[string]any{"status": "truncated", "equality_eligible": false,
				"missing_sections": []any{}, "truncated_sections": []any{"events"}}
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(res["overall_status"], "unknown")
			d := webMap(t, webStepDiff(t, res, "scenario_start"), "artifact_diffs", 0)
			is.Equal(d["artifact"], "events")
			is.Equal(d["status"], "unknown")
			is.Equal(d["after_state"], "truncated")
			is.Equal(d["after_sha256"], nil)
			is.Equal(d["reason"], "Artifact coverage is not comparable (captured before, truncated after).")
		}},
		{"missing artifact is unknown", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			step := webMap(t, a, "after_scenario", "steps", 1)
			webMap(t, step, "artifacts")["dom"] = map[string]any{"state": "missing", "reason": "current page is outside approved origins"}
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(res["overall_status"], "unknown")
			is.Equal(webStepDiff(t, res, "add-to-cart")["status"], "unknown")
		}},
		{"ineligible capture is never unchanged", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			webMap(t, a, "before_scenario")["completeness"] = map[string]any{"status": "incomplete", "equality_eligible": false,
				"missing_sections": []any{"popups"}, "truncated_sections": []any{}}
			return a
		}, func(t *testing.T, res map[string]any) { is.New(t).Equal(res["overall_status"], "unknown") }},
		{"screenshots compare by content digest", func(t *testing.T) map[string]any {
			a := webScenarioPair(t)
			for i, side := range []string{"before_scenario", "after_scenario"} {
				png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', byte(i)}
				sum := sha256.Sum256(png)
				h := hex.EncodeToString(sum[:])
				webMap(t, a, side, "steps", 1, "artifacts")["screenshot"] = map[string]any{"state": "captured", "value": map[string]any{
					"uri": "rea://web-screenshot/sha256/" + h, "sha256": h, "bytes": len(png), "media_type": "image/png",
					"data_base64": base64.StdEncoding.EncodeToString(png)}}
			}
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webMap(t, webStepDiff(t, res, "add-to-cart"), "artifact_diffs", 0)
			is.Equal(d["artifact"], "screenshot")
			is.Equal(d["status"], "changed")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, webCompare(t, tc.args(t))) })
	}
}

func TestCompareScenarioNormalizationCommitment(t *testing.T) {
	rule := func(id, match string, artifacts ...any) map[string]any {
		return map[string]any{"rule_id": id, "artifacts": artifacts, "match": match, "replacement": "X"}
	}
	commit := func(t *testing.T, rules ...any) map[string]any {
		a := webScenarioPair(t)
		if rules != nil {
			a["normalization"] = map[string]any{"rules": rules}
		}
		return webMap(t, webCompare(t, a), "normalization")
	}
	is := is.New(t)
	none := commit(t)
	want, err := core.Digest(map[string]any{"built_in_rules": webBuiltInRules, "rules": []any{}})
	is.NoErr(err)
	is.Equal(none["sha256"], want)
	is.Equal(none["built_in_rules"], webBuiltInRules)
	is.Equal(commit(t, []any{}...)["sha256"], want) // explicit empty rules commit the same

	ab := commit(t, rule("b", "beta", "url", "dom"), rule("a", "alpha", "history"))
	ba := commit(t, rule("a", "alpha", "history"), rule("b", "beta", "dom", "url"))
	is.Equal(ab["sha256"], ba["sha256"]) // stable under input order
	is.Equal(webAt(t, ab, "rules", 0, "rule_id"), "a")
	is.Equal(webAt(t, ab, "rules", 1, "artifacts"), []any{"dom", "url"})
	want, err = core.Digest(map[string]any{"built_in_rules": webBuiltInRules, "rules": webClone(t, ab["rules"])})
	is.NoErr(err)
	is.Equal(ab["sha256"], want)
	is.True(ab["sha256"] != none["sha256"])
	is.True(commit(t, rule("a", "alpha", "history"), rule("b", "gamma", "dom", "url"))["sha256"] != ab["sha256"])
}

func TestCompareScenarioChangeBudget(t *testing.T) {
	pair := func(t *testing.T, max int) map[string]any {
		a := webScenarioPair(t)
		after := webMap(t, a, "after_scenario")
		webMap(t, after, "steps", 0)["after_url"] = map[string]any{"url": "http://127.0.0.1:4173/app/", "origin": "http://127.0.0.1:4173",
			"query_parameter_names": []any{}, "redacted": false}
		webSetURL(t, after, "http://127.0.0.1:4173/app/cart")
		if max > 0 {
			a["max_changes"] = max
		}
		return a
	}
	// Step 0 changes action_state; step 1 changes action_state and url.
	for _, tc := range []struct {
		max               int
		retained, omitted []float64
	}{
		{0, []float64{1, 2}, []float64{0, 0}},
		{2, []float64{1, 1}, []float64{0, 1}},
		{1, []float64{1, 0}, []float64{0, 2}},
	} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			is := is.New(t)
			res := webCompare(t, pair(t, tc.max))
			is.Equal(res["overall_status"], "changed")
			var kept float64
			for i, s := range webList(t, res, "steps") {
				is.Equal(float64(len(webList(t, s, "artifact_diffs"))), tc.retained[i])
				is.Equal(webAt(t, s, "omitted_artifact_diffs"), tc.omitted[i])
				is.Equal(webAt(t, s, "status"), "changed") // omission never hides a status
				kept += tc.retained[i]
			}
			is.Equal(webAt(t, res, "artifact_diffs", "total"), 3.0)
			is.Equal(webAt(t, res, "artifact_diffs", "retained"), kept)
			is.Equal(webAt(t, res, "artifact_diffs", "omitted"), 3-kept)
		})
	}
}
