package core

import (
	"encoding/json"
	"fmt"
	"slices"
)

// EvidenceArg resolves the Evidence argument name of this call, in either
// form CONTRACTS.md §4 allows: a retained reference
// {"kind":"retained-evidence","evidence_id"} from this connection's ledger,
// or a complete inline record, strictly re-parsed (its ID recomputed). An
// absent argument is invalid_request, a malformed reference's ID
// invalid_request at [name, "evidence_id"], one this ledger does not hold
// evidence_integrity_mismatch (reason missing), as Resolve says.
// Which operation produced the record is the caller's to check; then
// KeepReference makes both forms seal the same parameters.
func (c *Call) EvidenceArg(name string) (*Evidence, error) { return c.EvidenceAt(name) }

// EvidenceAt is EvidenceArg for an Evidence argument nested in the
// arguments: path names it by object keys (string) and array indices (int),
// as in ("static_layers", 0, "analysis"); issues carry that path. A value
// that is not an object is invalid_request (invalid_type).
func (c *Call) EvidenceAt(path ...any) (*Evidence, error) {
	v, ok := argAt(c.Args, path)
	if !ok || v == nil {
		return nil, InvalidRequest(c.Op.Name, Issue{Path: slices.Clone(path), Reason: ReasonMissingArgument, Message: fmt.Sprint(path...) + " is required"})
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, InvalidRequest(c.Op.Name, Issue{Path: slices.Clone(path), Reason: ReasonInvalidType, Message: "Evidence must be an object"})
	}
	if raw["kind"] == "retained-evidence" && raw["normalized_result"] == nil {
		id, err := ParseEvidenceID(fmt.Sprint(raw["evidence_id"]))
		if err != nil {
			return nil, InvalidRequest(c.Op.Name, Issue{Path: append(slices.Clone(path), "evidence_id"), Reason: ReasonInvalidFormat, Message: err.Error()})
		}
		return c.Resolve(id)
	}
	b, err := MarshalNoEscape(raw)
	if err != nil {
		return nil, err
	}
	return ParseEvidence(b)
}

// CompleteEvidence is the complete record a concise one declares: when
// ev's normalized result names a parent_evidence_id, that record as
// ResolveParent finds it; any other ev as it is. Callers check ev's
// operation first (a view of a record declares its parent too).
func (c *Call) CompleteEvidence(ev *Evidence) (*Evidence, error) {
	var probe struct {
		Parent string `json:"parent_evidence_id"`
	}
	if json.Unmarshal(ev.NormalizedResult, &probe); probe.Parent == "" { // a string, or none
		return ev, nil
	}
	return c.ResolveParent(ev, probe.Parent)
}

// ResolveParent follows concise's parent_evidence_id (parent) to the
// complete record this connection retains. One it does not hold is
// evidence_integrity_mismatch (reason missing) whose details name the
// missing record, the concise one that names it, and what to pass instead;
// one another operation made is evidence_integrity_mismatch (wrong_operation).
func (c *Call) ResolveParent(concise *Evidence, parent string) (*Evidence, error) {
	if id, err := ParseEvidenceID(parent); err == nil {
		if ev, ok := c.Session.ledger.Get(id); ok && ev.Operation != concise.Operation {
			return nil, &Error{Code: CodeEvidenceIntegrityMismatch, Message: fmt.Sprintf("evidence %s: wrong operation (expected %s, got %s)", ev.EvidenceID, concise.Operation, ev.Operation),
				Remediation: "Pass the complete record, inline or as a retained reference.",
				Details:     map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "wrong_operation", "expected": concise.Operation, "actual": ev.Operation}}
		} else if ok {
			return ev, nil
		}
	}
	instead := fmt.Sprintf("the complete record %s inline, or the result of %s called again with \"detail\":\"complete\"", parent, concise.Operation)
	return nil, &Error{Code: CodeEvidenceIntegrityMismatch, Message: fmt.Sprintf("%s: the concise record %s names its complete record %s (parent_evidence_id), which is not in this connection's ledger", c.Op.Name, concise.EvidenceID, parent),
		Remediation: "Pass " + instead + "; or export_evidence_bundle where it was made, import_evidence_bundle here and pass the concise record again.",
		Details: map[string]any{"evidence_id": parent, "reason": "missing", "expected": "the complete " + concise.Operation + " record its parent_evidence_id names", "actual": nil,
			"concise_evidence_id": string(concise.EvidenceID), "pass_instead": instead}}
}

// argAt returns the value at path in v (object keys and array indices).
func argAt(v any, path []any) (any, bool) {
	for _, p := range path {
		m, _ := v.(map[string]any)
		l, _ := v.([]any)
		k, key := p.(string)
		i, index := p.(int)
		if _, has := m[k]; key && has {
			v = m[k]
		} else if index && i >= 0 && i < len(l) {
			v = l[i]
		} else {
			return nil, false
		}
	}
	return v, true
}

// KeepReference records the argument name as the retained reference to ev
// (retained by the caller), so an inline record and its reference give the
// same Evidence parameters.
func (c *Call) KeepReference(name string, ev *Evidence) { c.KeepReferenceAt(ev, name) }

// KeepReferenceAt is KeepReference for the Evidence argument at path (as
// EvidenceAt names it); a path that does not name an argument is ignored.
func (c *Call) KeepReferenceAt(ev *Evidence, path ...any) {
	if _, ok := argAt(c.Args, path); !ok || len(path) == 0 {
		return
	}
	parent, _ := argAt(c.Args, path[:len(path)-1]) // holds path's last key or index: argAt found it there
	ref := map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	switch k := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[k] = ref
	case int:
		parent.([]any)[k] = ref
	}
}
