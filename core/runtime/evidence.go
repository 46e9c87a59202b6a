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
// inspect_web_page, inspect_electron_page, observe_javascript_runtime or
// capture_electron_scenario; the static layers from
// analyze_javascript_application). capture_browser_scenario is not among
// them: its steps keep DOM, URL and screenshot artifacts, not scripts.
var (
	staticProducer   = producer{"analyze_javascript_application", core.DefaultPredicate}
	runtimeProducers = []producer{
		{"observe_javascript_runtime", "rea.javascript-runtime-observation/v1"},
		{"inspect_electron_page", "rea.electron-page-inspection/v1"},
		{"capture_electron_scenario", "rea.electron-active-scenario/v1"},
		{"inspect_web_page", "rea.web-page-inspection/v2"},
	}
)

// evidenceArg resolves the Evidence argument at path (inline or retained,
// through the kernel's resolver), follows an application summary view to
// its retained parent, checks it comes from one of the producers, and
// records the argument as the retained reference, so both input forms seal
// the same parameters.
func evidenceArg(c *core.Call, path []any, want []producer) (*core.Evidence, error) {
	ev, err := c.EvidenceAt(path...)
	if err != nil {
		return nil, err
	}
	if ev.Operation == staticProducer.op && slices.Contains(want, staticProducer) {
		if ev, err = c.CompleteEvidence(ev); err != nil {
			return nil, err
		}
	}
	var ops []string
	for _, p := range want {
		ops = append(ops, p.op)
		if ev.Operation == p.op {
			if ev.PredicateType != p.predicate {
				return nil, referenceErr(ev.EvidenceID, "wrong_predicate", p.predicate, ev.PredicateType)
			}
			c.KeepReferenceAt(ev, path...)
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
