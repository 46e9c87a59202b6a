package runtime

import (
	"fmt"
	"slices"
	"strings"

	"rea/core"
)

// evidenceInput is the schema of an Evidence argument: complete inline
// Evidence or a retained reference.
const evidenceInput = `{"type":"object","description":"Complete Evidence inline, or {\"kind\":\"retained-evidence\",\"evidence_id\":...} recorded in this connection.","properties":{"kind":{"type":"string"},"evidence_id":{"type":"string"}}}`

// producer is what an Evidence input must come from.
type producer struct {
	op        string
	predicate string
}

// The producers reconciliation accepts (BROWSER.md: observations from
// inspect_electron_page, observe_javascript_runtime or
// capture_electron_scenario; the static layers from
// analyze_javascript_application).
var (
	staticProducer   = producer{"analyze_javascript_application", core.DefaultPredicate}
	runtimeProducers = []producer{
		{"observe_javascript_runtime", "rea.javascript-runtime-observation/v1"},
		{"inspect_electron_page", "rea.electron-page-inspection/v1"},
		{"capture_electron_scenario", "rea.electron-active-scenario/v1"},
	}
)

// evidenceArg resolves one Evidence argument (inline or retained) at path
// and checks it comes from one of the producers. An application summary
// view is followed to its retained parent.
func evidenceArg(c *core.Call, raw any, path []any, want []producer) (*core.Evidence, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: path, Reason: core.ReasonInvalidType, Message: "Evidence must be an object"})
	}
	var ev *core.Evidence
	if m["kind"] == "retained-evidence" && m["normalized_result"] == nil {
		id, err := core.ParseEvidenceID(fmt.Sprint(m["evidence_id"]))
		if err != nil {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: append(slices.Clone(path), "evidence_id"), Reason: core.ReasonInvalidFormat, Message: err.Error()})
		}
		if ev, err = c.Resolve(id); err != nil {
			return nil, err
		}
	} else {
		b, err := core.MarshalNoEscape(m)
		if err != nil {
			return nil, err
		}
		if ev, err = core.ParseEvidence(b); err != nil {
			return nil, err
		}
	}
	if ev.Operation == staticProducer.op && slices.Contains(want, staticProducer) {
		var probe struct {
			Parent string `json:"parent_evidence_id"`
			Graph  any    `json:"graph"`
		}
		_ = jsonUnmarshal(ev.NormalizedResult, &probe)
		if probe.Graph == nil && probe.Parent != "" {
			parent, err := c.Resolve(core.EvidenceID(probe.Parent))
			if err != nil {
				return nil, err
			}
			ev = parent
		}
	}
	var ops []string
	for _, p := range want {
		ops = append(ops, p.op)
		if ev.Operation == p.op {
			if ev.PredicateType != p.predicate {
				return nil, referenceErr(ev.EvidenceID, "wrong_predicate", p.predicate, ev.PredicateType)
			}
			return ev, nil
		}
	}
	return nil, referenceErr(ev.EvidenceID, "wrong_operation", strings.Join(ops, "|"), ev.Operation)
}

func referenceErr(id core.EvidenceID, reason, expected, actual string) *core.Error {
	return &core.Error{Code: core.CodeEvidenceIntegrityMismatch,
		Message:     fmt.Sprintf("evidence %s: %s (expected %s, got %s)", id, strings.ReplaceAll(reason, "_", " "), expected, actual),
		Remediation: "Pass Evidence produced by the expected operation, inline or as a retained reference.",
		Details:     map[string]any{"evidence_id": string(id), "reason": reason, "expected": expected, "actual": actual}}
}
