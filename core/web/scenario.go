package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"

	"rea/core"
)

// Scenario comparison (BROWSER.md §5 "compare_web_captures, scenario"):
// steps align by step_id, each aligned step's artifacts are compared by the
// digest of their normalized projection, and the normalization policy is
// committed in the result so a reader can reproduce every digest.

// builtInNormalizationRules are always in force and recorded in the
// commitment.
var builtInNormalizationRules = []string{"ignore_step_elapsed_ms", "ignore_event_sequence", "ignore_event_step_index",
	"compare_screenshot_content_digest", "compare_normalized_text_content"}

// eventSections are the scenario completeness sections that qualify the
// events artifact.
var eventSections = []string{"events", "frames", "workers", "popups", "websockets"}

type scenarioCompleteness struct {
	Status           string   `json:"status"`
	EqualityEligible bool     `json:"equality_eligible"`
	Missing          []string `json:"missing_sections"`
	Truncated        []string `json:"truncated_sections"`
}

type captureState struct {
	State string `json:"state"`
	Value any    `json:"value"`
}

type scenarioStep struct {
	StepIndex    int                     `json:"step_index"`
	StepID       string                  `json:"step_id"`
	Action       string                  `json:"action"`
	Status       string                  `json:"status"`
	Error        *string                 `json:"error"`
	BeforeURL    any                     `json:"before_url"`
	AfterURL     any                     `json:"after_url"`
	SeqStart     int                     `json:"event_sequence_start"`
	SeqEnd       int                     `json:"event_sequence_end"`
	Artifacts    map[string]captureState `json:"artifacts"`
	Completeness scenarioCompleteness    `json:"completeness"`
}

type scenarioCapture struct {
	Browser struct {
		Product string `json:"product"`
		Version string `json:"version"`
	} `json:"browser"`
	Scenario struct {
		StartOrigin    string   `json:"start_origin"`
		AllowedOrigins []string `json:"allowed_origins"`
		ActionCount    int      `json:"action_count"`
	} `json:"scenario"`
	Steps  []scenarioStep `json:"steps"`
	Events struct {
		Retained int              `json:"retained"`
		Dropped  int              `json:"dropped"`
		Items    []map[string]any `json:"items"`
	} `json:"events"`
	Completeness scenarioCompleteness `json:"completeness"`
}

// commitNormalization sorts the rules by rule_id and their artifact lists,
// and digests {built_in_rules, rules}.
func commitNormalization(rules []WebNormalizationRule) WebScenarioNormalization {
	sorted := make([]WebNormalizationRule, len(rules))
	for i, r := range rules {
		r.Artifacts = append([]string{}, r.Artifacts...)
		sort.Strings(r.Artifacts)
		sorted[i] = r
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].RuleID < sorted[j].RuleID })
	built := append([]string{}, builtInNormalizationRules...)
	d := core.MustDigest(map[string]any{"built_in_rules": built, "rules": sorted})
	return WebScenarioNormalization{BuiltInRules: built, Rules: sorted, SHA256: d}
}

// normalizeValue applies, in order, the rules that target artifact to every
// string in v (object keys are left alone). Screenshots are never rewritten.
func normalizeValue(v any, artifact string, rules []WebNormalizationRule) any {
	if artifact == "screenshot" {
		return v
	}
	switch x := v.(type) {
	case string:
		for _, r := range rules {
			if slices.Contains(r.Artifacts, artifact) {
				x = strings.ReplaceAll(x, r.Match, r.Replacement)
			}
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeValue(e, artifact, rules)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeValue(e, artifact, rules)
		}
		return out
	}
	return v
}

// compareScenarios compares two validated scenario captures.
func compareScenarios(ctx context.Context, before, after *scenarioCapture, rules []WebNormalizationRule, maxChanges int) (*CompareWebScenarioResult, error) {
	norm := commitNormalization(rules)
	out := &CompareWebScenarioResult{SchemaVersion: 1, ComparisonKind: "browser_scenario", Normalization: norm, Steps: []WebScenarioStepDiff{}}

	bDup, aDup := duplicateStepIDs(before.Steps), duplicateStepIDs(after.Steps)
	bSteps, aSteps := uniqueSteps(before.Steps, bDup), uniqueSteps(after.Steps, aDup)
	beforeOnly, afterOnly := []string{}, []string{}
	for id := range bSteps {
		if _, ok := aSteps[id]; !ok {
			beforeOnly = append(beforeOnly, id)
		}
	}
	for id := range aSteps {
		if _, ok := bSteps[id]; !ok {
			afterOnly = append(afterOnly, id)
		}
	}
	sort.Strings(beforeOnly)
	sort.Strings(afterOnly)
	failures := []WebAlignmentFailure{}
	fail := func(code, id, reason string) {
		f := WebAlignmentFailure{Code: code, Reason: reason}
		if id != "" {
			f.StepID = &id
		}
		failures = append(failures, f)
	}
	for _, id := range bDup {
		fail("duplicate_before_step_id", id, "The before capture contains step_id "+id+" more than once.")
	}
	for _, id := range aDup {
		fail("duplicate_after_step_id", id, "The after capture contains step_id "+id+" more than once.")
	}
	for _, id := range afterOnly {
		fail("missing_before_step", id, "Step "+id+" is missing from the before capture.")
	}
	for _, id := range beforeOnly {
		fail("missing_after_step", id, "Step "+id+" is missing from the after capture.")
	}
	if !sameCaptureContext(before, after) {
		fail("capture_context_mismatch", "", "Browser product or version, start origin or allowed origins differ between the captures.")
	}

	// Aligned steps follow the before order; duplicates are not in bSteps.
	remaining, total := maxChanges, 0
	for _, s := range before.Steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bs, okB := bSteps[s.StepID]
		as, okA := aSteps[s.StepID]
		if !okB || !okA {
			continue
		}
		if bs.Action != as.Action {
			fail("action_mismatch", s.StepID, fmt.Sprintf("Aligned step action changed from %s to %s.", bs.Action, as.Action))
		}
		diffs, status := compareStep(before, bs, after, as, norm.Rules)
		total += len(diffs)
		keep := min(remaining, len(diffs))
		remaining -= keep
		out.Steps = append(out.Steps, WebScenarioStepDiff{StepID: s.StepID, BeforeIndex: bs.StepIndex, AfterIndex: as.StepIndex,
			BeforeAction: bs.Action, AfterAction: as.Action, Status: status,
			ArtifactDiffs: append([]WebArtifactDiff{}, diffs[:keep]...), OmittedArtifact: len(diffs) - keep})
	}

	switch {
	case len(failures) == 0:
		out.Alignment.Status = "aligned"
	case len(out.Steps) == 0:
		out.Alignment.Status = "failed"
	default:
		out.Alignment.Status = "partial"
	}
	out.Alignment.AlignedSteps, out.Alignment.BeforeOnly, out.Alignment.AfterOnly, out.Alignment.Failures =
		len(out.Steps), beforeOnly, afterOnly, failures

	eligible := before.Completeness.EqualityEligible && after.Completeness.EqualityEligible && out.Alignment.Status == "aligned"
	out.OverallStatus = "unchanged"
	for _, s := range out.Steps {
		if s.Status == "changed" {
			out.OverallStatus = "changed"
			break
		}
		if s.Status == "unknown" {
			out.OverallStatus = "unknown"
		}
	}
	if out.OverallStatus == "unchanged" && !eligible {
		out.OverallStatus = "unknown"
	}
	omitted := max(0, total-maxChanges)
	out.ArtifactDiffs.Total, out.ArtifactDiffs.Retained, out.ArtifactDiffs.Omitted = total, total-omitted, omitted
	out.Limitations = []string{
		"Steps align only by exact, unique step_id; missing, duplicate or action-mismatched steps are reported and prevent an unchanged claim.",
		"Only the committed literal normalization rules are applied, in rule_id order, to already-redacted capture strings; screenshots are never rewritten.",
		"Elapsed time and event sequence and step index values are excluded as volatile; screenshots are compared by content digest.",
		"A changed status proves an observed normalized difference. Missing or truncated evidence, a differing capture context or an alignment failure prevents an unchanged claim.",
	}
	if omitted > 0 {
		out.Limitations = append(out.Limitations, fmt.Sprintf("%d artifact difference record(s) were omitted by max_changes.", omitted))
	}
	return out, nil
}

func duplicateStepIDs(steps []scenarioStep) []string {
	count := map[string]int{}
	for _, s := range steps {
		count[s.StepID]++
	}
	var out []string
	for id, n := range count {
		if n > 1 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

func uniqueSteps(steps []scenarioStep, dup []string) map[string]*scenarioStep {
	m := map[string]*scenarioStep{}
	for i := range steps {
		if !slices.Contains(dup, steps[i].StepID) {
			m[steps[i].StepID] = &steps[i]
		}
	}
	return m
}

func sameCaptureContext(b, a *scenarioCapture) bool {
	set := func(l []string) string {
		c := append([]string{}, l...)
		sort.Strings(c)
		return core.MustDigest(c)
	}
	return b.Browser.Product == a.Browser.Product && b.Browser.Version == a.Browser.Version &&
		b.Scenario.StartOrigin == a.Scenario.StartOrigin && set(b.Scenario.AllowedOrigins) == set(a.Scenario.AllowedOrigins)
}

// artifactState is an artifact's evidence state after the step's
// completeness ledger has downgraded it.
func artifactState(artifact string, cs captureState, step *scenarioStep) string {
	if cs.State != "captured" {
		return cs.State
	}
	section := artifact
	if artifact == "action_state" {
		section = "action"
	}
	switch {
	case slices.Contains(step.Completeness.Truncated, section):
		return "truncated"
	case slices.Contains(step.Completeness.Missing, section):
		return "missing"
	}
	return "captured"
}

// eventState qualifies a step's events by the capture and step ledgers;
// dropped events make every step's events truncated.
func eventState(c *scenarioCapture, step *scenarioStep) string {
	listed := func(pick func(*scenarioCompleteness) []string) bool {
		for _, s := range eventSections {
			if slices.Contains(pick(&c.Completeness), s) || slices.Contains(pick(&step.Completeness), s) {
				return true
			}
		}
		return false
	}
	switch {
	case c.Events.Dropped > 0 || listed(func(x *scenarioCompleteness) []string { return x.Truncated }):
		return "truncated"
	case listed(func(x *scenarioCompleteness) []string { return x.Missing }):
		return "missing"
	}
	return "captured"
}

func actionProjection(s *scenarioStep) map[string]any {
	return map[string]any{"action": s.Action, "status": s.Status, "before_url": s.BeforeURL, "after_url": s.AfterURL, "error": s.Error}
}

// stepEvents are the events observed during the step, without their
// volatile sequence and step index.
func stepEvents(c *scenarioCapture, index int) []any {
	out := []any{}
	for _, e := range c.Events.Items {
		if n, _ := jsonInt(e["step_index"]); n != index {
			continue
		}
		p := make(map[string]any, len(e))
		for k, v := range e {
			if k != "sequence" && k != "step_index" {
				p[k] = v
			}
		}
		out = append(out, p)
	}
	return out
}

// artifactProjection is what a captured artifact value is compared by:
// screenshots by content identity, DOM and accessibility snapshots by text.
func artifactProjection(artifact string, v any) any {
	m, _ := v.(map[string]any)
	switch artifact {
	case "screenshot":
		return map[string]any{"sha256": m["sha256"], "bytes": m["bytes"], "media_type": m["media_type"]}
	case "dom", "accessibility":
		return m["text"]
	}
	return v
}

// compareStep compares one aligned step's artifacts; the diffs list changed
// and unknown artifacts in artifact order.
func compareStep(bc *scenarioCapture, bs *scenarioStep, ac *scenarioCapture, as *scenarioStep, rules []WebNormalizationRule) ([]WebArtifactDiff, string) {
	diffs := []WebArtifactDiff{}
	status := "unchanged"
	for _, artifact := range scenarioArtifactKinds {
		var bv, av captureState
		var bState, aState string
		switch artifact {
		case "action_state":
			bv, av = captureState{State: "captured", Value: actionProjection(bs)}, captureState{State: "captured", Value: actionProjection(as)}
			bState, aState = artifactState(artifact, bv, bs), artifactState(artifact, av, as)
		case "events":
			bv, av = captureState{State: "captured", Value: stepEvents(bc, bs.StepIndex)}, captureState{State: "captured", Value: stepEvents(ac, as.StepIndex)}
			bState, aState = eventState(bc, bs), eventState(ac, as)
		default:
			bv, av = bs.Artifacts[artifact], as.Artifacts[artifact]
			bState, aState = artifactState(artifact, bv, bs), artifactState(artifact, av, as)
		}
		if bState == "not_requested" && aState == "not_requested" {
			continue
		}
		digest := func(state string, cs captureState) *string {
			if state != "captured" {
				return nil
			}
			d := core.MustDigest(normalizeValue(artifactProjection(artifact, cs.Value), artifact, rules))
			return &d
		}
		bd, ad := digest(bState, bv), digest(aState, av)
		switch {
		case bd == nil || ad == nil:
			r := fmt.Sprintf("Artifact coverage is not comparable (%s before, %s after).", bState, aState)
			diffs = append(diffs, WebArtifactDiff{Artifact: artifact, Status: "unknown", BeforeState: bState, AfterState: aState,
				BeforeSHA: bd, AfterSHA: ad, Reason: &r})
			if status == "unchanged" {
				status = "unknown"
			}
		case *bd != *ad:
			diffs = append(diffs, WebArtifactDiff{Artifact: artifact, Status: "changed", BeforeState: bState, AfterState: aState,
				BeforeSHA: bd, AfterSHA: ad})
			status = "changed"
		}
	}
	return diffs, status
}

// jsonInt reads an integral JSON number decoded with UseNumber.
func jsonInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			f, ferr := n.Float64()
			if ferr != nil || f != float64(int64(f)) {
				return 0, false
			}
			return int(f), true
		}
		return int(i), true
	case float64:
		return int(n), n == float64(int(n))
	case int:
		return n, true
	}
	return 0, false
}

// validateScenario checks the cross-field invariants of one capture that
// JSON Schema cannot express: retained counts, contiguous step indexes,
// event sequence references, step outcomes and artifact digests.
func validateScenario(op, side string, c *scenarioCapture) error {
	var issues []core.Issue
	bad := func(msg string, path ...any) {
		issues = append(issues, core.Issue{Path: append([]any{side}, path...), Reason: core.ReasonInvalidValue, Message: msg})
	}
	if c.Events.Retained != len(c.Events.Items) {
		bad(fmt.Sprintf("events.retained %d is not the %d retained items", c.Events.Retained, len(c.Events.Items)), "events", "retained")
	}
	if len(c.Steps) != c.Scenario.ActionCount+1 {
		bad(fmt.Sprintf("%d steps for %d actions: a capture has the start step plus one step per action", len(c.Steps), c.Scenario.ActionCount), "steps")
	}
	observed := c.Events.Retained + c.Events.Dropped
	for i, s := range c.Steps {
		if s.StepIndex != i {
			bad(fmt.Sprintf("step_index %d at position %d: step indexes run from 0 without gaps", s.StepIndex, i), "steps", i, "step_index")
		}
		if (s.Status == "completed") != (s.Error == nil) {
			bad("error must be null exactly when the step completed", "steps", i, "error")
		}
		if s.SeqEnd < s.SeqStart-1 {
			bad(fmt.Sprintf("event_sequence_end %d precedes event_sequence_start %d", s.SeqEnd, s.SeqStart), "steps", i, "event_sequence_end")
		}
		if s.SeqEnd > observed {
			bad(fmt.Sprintf("event_sequence_end %d points past the %d observed events", s.SeqEnd, observed), "steps", i, "event_sequence_end")
		}
		for _, name := range []string{"dom", "accessibility"} {
			if a := s.Artifacts[name]; a.State == "captured" {
				if msg := checkTextArtifact(a.Value); msg != "" {
					bad(msg, "steps", i, "artifacts", name, "value")
				}
			}
		}
		if a := s.Artifacts["screenshot"]; a.State == "captured" {
			if msg := checkScreenshotArtifact(a.Value); msg != "" {
				bad(msg, "steps", i, "artifacts", "screenshot", "value")
			}
		}
	}
	last := 0
	for i, e := range c.Events.Items {
		seq, _ := jsonInt(e["sequence"])
		idx, _ := jsonInt(e["step_index"])
		if seq <= last {
			bad(fmt.Sprintf("sequence %d does not follow %d: events are in receipt order", seq, last), "events", "items", i, "sequence")
		}
		if seq > observed {
			bad(fmt.Sprintf("sequence %d points past the %d observed events", seq, observed), "events", "items", i, "sequence")
		}
		last = seq
		if idx >= len(c.Steps) {
			bad(fmt.Sprintf("step_index %d references no step (the capture has %d)", idx, len(c.Steps)), "events", "items", i, "step_index")
		}
	}
	if len(issues) > 0 {
		return core.InvalidRequest(op, issues...)
	}
	return nil
}

func checkTextArtifact(v any) string {
	m, _ := v.(map[string]any)
	text, _ := m["text"].(string)
	n, _ := jsonInt(m["bytes"])
	sum := sha256.Sum256([]byte(text))
	if n != len(text) || hex.EncodeToString(sum[:]) != m["sha256"] {
		return "text artifact sha256 or bytes do not match its text"
	}
	return ""
}

func checkScreenshotArtifact(v any) string {
	m, _ := v.(map[string]any)
	data, _ := m["data_base64"].(string)
	raw, err := base64.StdEncoding.Strict().DecodeString(data)
	if err != nil || len(raw) == 0 || !bytes.Equal([]byte(base64.StdEncoding.EncodeToString(raw)), []byte(data)) {
		return "screenshot data_base64 is not canonical base64"
	}
	n, _ := jsonInt(m["bytes"])
	sum := sha256.Sum256(raw)
	h := hex.EncodeToString(sum[:])
	if n != len(raw) || m["sha256"] != h || m["uri"] != "rea://web-screenshot/sha256/"+h {
		return "screenshot sha256, bytes or uri do not match its data"
	}
	return ""
}

// validateNormalization checks what the schema cannot: unique rule ids and
// the 4096 UTF-16 unit bound of match.
func validateNormalization(op string, rules []WebNormalizationRule) error {
	var issues []core.Issue
	seen := map[string]bool{}
	for i, r := range rules {
		if seen[r.RuleID] {
			issues = append(issues, core.Issue{Path: []any{"normalization", "rules", i, "rule_id"}, Reason: core.ReasonInvalidValue,
				Message: "duplicate rule_id " + r.RuleID})
		}
		seen[r.RuleID] = true
		if n := len(utf16.Encode([]rune(r.Match))); n > 4096 {
			issues = append(issues, core.Issue{Path: []any{"normalization", "rules", i, "match"}, Reason: core.ReasonOutOfRange,
				Message: fmt.Sprintf("match is %d UTF-16 units long; at most 4096", n), Maximum: 4096})
		}
	}
	if len(issues) > 0 {
		return core.InvalidRequest(op, issues...)
	}
	return nil
}
