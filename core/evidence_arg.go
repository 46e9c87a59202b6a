package core

import "fmt"

// EvidenceArg resolves the Evidence argument name of this call, in either
// form CONTRACTS.md §4 allows: a retained reference
// {"kind":"retained-evidence","evidence_id"} from this connection's ledger,
// or a complete inline record, strictly re-parsed (its ID recomputed). An
// absent argument is invalid_request, a malformed reference's ID
// invalid_request at [name, "evidence_id"], one this ledger does not hold
// evidence_integrity_mismatch (reason missing), as Resolve says.
// Which operation produced the record is the caller's to check; then
// KeepReference makes both forms seal the same parameters.
func (c *Call) EvidenceArg(name string) (*Evidence, error) {
	raw, ok := c.Args[name].(map[string]any)
	if !ok {
		return nil, InvalidRequest(c.Op.Name, Issue{Path: []any{name}, Reason: ReasonMissingArgument, Message: name + " is required"})
	}
	if raw["kind"] == "retained-evidence" && raw["normalized_result"] == nil {
		id, err := ParseEvidenceID(fmt.Sprint(raw["evidence_id"]))
		if err != nil {
			return nil, InvalidRequest(c.Op.Name, Issue{Path: []any{name, "evidence_id"}, Reason: ReasonInvalidFormat, Message: err.Error()})
		}
		return c.Resolve(id)
	}
	b, err := MarshalNoEscape(raw)
	if err != nil {
		return nil, err
	}
	return ParseEvidence(b)
}

// KeepReference records the argument name as the retained reference to ev
// (retained by the caller), so an inline record and its reference give the
// same Evidence parameters.
func (c *Call) KeepReference(name string, ev *Evidence) {
	c.Args[name] = map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
}
