package web

import (
	"context"
	"encoding/json"
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
		Description: "Compare two supplied browser captures without contacting a browser. Passive: before and after each hold inspection " +
			"(an inspect_web_page result) and optional webmcp (a discover_webmcp_tools result or null); eight dimensions report " +
			"changed, unchanged or unknown, completeness-aware. Scenario: before_scenario and after_scenario hold " +
			"capture_browser_scenario results; steps align by step_id and artifacts are compared after optional literal normalization. " +
			"max_changes bounds the retained change records.",
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
	return &core.Observation{Result: result, Unbound: true, Confidence: core.ConfidenceDerived}, nil
}
