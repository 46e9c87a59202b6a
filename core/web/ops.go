package web

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"rea/core"
)

func webOperations() []*core.Operation { return []*core.Operation{opCompareWebCaptures()} }

// Defaults of compare_web_captures. The input root is a union with no
// top-level properties, so Catalog.Validate cannot apply them; the handler
// does, and the Evidence parameters record the effective values.
const defaultMaxChanges = 2000

func opCompareWebCaptures() *core.Operation {
	return &core.Operation{
		Name:  "compare_web_captures",
		Title: "Compare Web Captures",
		Description: "Compare two browser captures without contacting a browser; each capture is a retained Evidence reference " +
			"{kind:retained-evidence, evidence_id} or the result inline. Passive: before and after each hold inspection " +
			"(inspect_web_page) and optional webmcp (discover_webmcp_tools or null); eight dimensions report " +
			"changed, unchanged or unknown, completeness-aware. Scenario: before_scenario and after_scenario hold " +
			"capture_browser_scenario captures; steps align by step_id, artifacts compare after optional literal normalization. " +
			"Parameters keep references, and an inline capture's SHA-256 only.",
		Kind:     core.KindApplication,
		Effects:  core.Effects{MutatesSession: true, Idempotent: true},
		Input:    webCompareInputSchema(),
		Result:   webCompareResultSchema(),
		Examples: webCompareExamples(),
		Produced: webCompareProduced,
		Handler:  handleCompareWebCaptures,
	}
}

// webCompareArgs is the decoded input of either group.
type webCompareArgs struct {
	Before         *webPassiveCapture `json:"before"`
	After          *webPassiveCapture `json:"after"`
	BeforeScenario *scenarioCapture   `json:"before_scenario"`
	AfterScenario  *scenarioCapture   `json:"after_scenario"`
	Normalization  struct {
		Rules []WebNormalizationRule `json:"rules"`
	} `json:"normalization"`
	MaxChanges *int `json:"max_changes"`
}

func handleCompareWebCaptures(ctx context.Context, c *core.Call) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	op := c.Op.Name
	_, scenario := c.Args["before_scenario"]
	if _, ok := c.Args["max_changes"]; !ok {
		c.Args["max_changes"] = json.Number(strconv.Itoa(defaultMaxChanges))
	}
	if _, ok := c.Args["normalization"]; scenario && !ok {
		c.Args["normalization"] = map[string]any{"rules": []any{}}
	}
	// The captures are read into the comparison's own structs (what it
	// compares, with the captures' items as open maps that each projection
	// digests as they are), decoded once from the arguments as sent.
	// Numbers decode as float64, which canonical JSON writes as it writes
	// the number literals.
	args, err := core.Input[webCompareArgs](c)
	if err != nil {
		return nil, err
	}
	links, err := resolveCaptures(c, &args, scenario)
	if err != nil {
		return nil, err
	}
	maxChanges := defaultMaxChanges
	if args.MaxChanges != nil {
		maxChanges = *args.MaxChanges
	}

	var result any
	if scenario {
		for _, side := range []struct {
			name string
			c    *scenarioCapture
		}{{"before_scenario", args.BeforeScenario}, {"after_scenario", args.AfterScenario}} {
			if err := validateScenario(op, side.name, side.c); err != nil {
				return nil, err
			}
		}
		if err := validateNormalization(op, args.Normalization.Rules); err != nil {
			return nil, err
		}
		if result, err = compareScenarios(ctx, args.BeforeScenario, args.AfterScenario, args.Normalization.Rules, maxChanges); err != nil {
			return nil, err
		}
	} else {
		for _, side := range []struct {
			name string
			c    *webPassiveCapture
		}{{"before", args.Before}, {"after", args.After}} {
			if err := validatePassive(op, side.name, side.c); err != nil {
				return nil, err
			}
		}
		if result, err = comparePassive(ctx, args.Before, args.After, maxChanges); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &core.Observation{Result: result, Unbound: true, Confidence: core.ConfidenceDerived, Links: links}, nil
}

// captureProducers are the operations and predicates whose Evidence a
// retained reference in compare_web_captures may name, by argument.
var captureProducers = map[string][2]string{
	"inspection":      {"inspect_web_page", "rea.web-page-inspection/v2"},
	"webmcp":          {"discover_webmcp_tools", "rea.webmcp-discovery/v1"},
	"before_scenario": {"capture_browser_scenario", "rea.browser-scenario-capture/v1"},
	"after_scenario":  {"capture_browser_scenario", "rea.browser-scenario-capture/v1"},
}

// resolveCaptures reads each capture given as a retained Evidence reference
// into args from the Evidence's normalized_result, after checking which
// operation made it, and returns the IDs read. In the arguments the
// Evidence keeps (its parameters, which the answer repeats) a reference
// stays a reference and an inline capture becomes
// {"kind":"inline","sha256":<Digest of the capture>}: an agent that sent
// 580 KB of captures got them back twice in the answer before.
func resolveCaptures(c *core.Call, args *webCompareArgs, scenario bool) ([]core.EvidenceID, error) {
	type slot struct {
		path []any
		dst  any
	}
	var slots []slot
	if scenario {
		slots = []slot{{[]any{"before_scenario"}, args.BeforeScenario}, {[]any{"after_scenario"}, args.AfterScenario}}
	} else {
		for _, side := range []struct {
			name string
			c    *webPassiveCapture
		}{{"before", args.Before}, {"after", args.After}} {
			slots = append(slots, slot{[]any{side.name, "inspection"}, &side.c.Inspection}, slot{[]any{side.name, "webmcp"}, &side.c.WebMCP})
		}
	}
	var links []core.EvidenceID
	for _, s := range slots {
		parent := c.Args
		for _, k := range s.path[:len(s.path)-1] {
			parent, _ = parent[k.(string)].(map[string]any)
		}
		name := s.path[len(s.path)-1].(string)
		v, _ := parent[name].(map[string]any)
		if v == nil {
			continue // webmcp null or absent
		}
		if v["kind"] != "retained-evidence" {
			d, err := core.Digest(v)
			if err != nil {
				return nil, err
			}
			parent[name] = map[string]any{"kind": "inline", "sha256": d}
			continue
		}
		ev, err := c.EvidenceAt(s.path...)
		if err != nil {
			return nil, err
		}
		want := captureProducers[name]
		if ev.Operation != want[0] || ev.PredicateType != want[1] {
			return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch,
				Message:     fmt.Sprintf("evidence %s: wrong operation (expected %s, got %s)", ev.EvidenceID, want[0], ev.Operation),
				Remediation: "Pass " + want[0] + " Evidence recorded on this connection, or its normalized_result inline.",
				Details:     map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "wrong_operation", "expected": want[0], "actual": ev.Operation}}
		}
		if err := json.Unmarshal(ev.NormalizedResult, s.dst); err != nil {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: s.path, Reason: core.ReasonInvalidValue, Message: "retained capture does not decode: " + err.Error()})
		}
		c.KeepReferenceAt(ev, s.path...)
		if !slices.Contains(links, ev.EvidenceID) {
			links = append(links, ev.EvidenceID)
		}
	}
	if !scenario {
		for _, in := range []*webInspection{&args.Before.Inspection, &args.After.Inspection} {
			if id := completeInspection(c, in); id != "" && !slices.Contains(links, id) {
				links = append(links, id)
			}
		}
	}
	return links, nil
}

// completeInspection replaces a concise inspection (inspect_web_page's
// default on a large page, whose DOM and accessibility lists hold their
// first nodes) with the complete record its parent_evidence_id names, when
// this connection retains it, and returns that record's ID. Otherwise the
// concise inspection stays, which cannot mislead: it lists fewer DOM and
// accessibility nodes than its totals, so only the listed nodes and the
// totals are compared (matchConcise), and a dimension they cannot settle
// is unknown with a reason naming the missing record and what to pass
// instead (conciseReason; core/browser's
// TestCompareConciseInspectionsFromAnotherConnection pins it).
func completeInspection(c *core.Call, in *webInspection) core.EvidenceID {
	if in.ParentEvidenceID == "" {
		return ""
	}
	id, err := core.ParseEvidenceID(in.ParentEvidenceID)
	if err != nil {
		return ""
	}
	ev, err := c.Resolve(id)
	if err != nil || ev.Operation != "inspect_web_page" {
		return ""
	}
	var full webInspection
	if err := json.Unmarshal(ev.NormalizedResult, &full); err != nil || full.ParentEvidenceID != "" {
		return ""
	}
	*in = full
	return ev.EvidenceID
}
