package core_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func TestUnknownRevisionChain(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	_, r1 := bndCall(t, s, "record_unknown", map[string]any{"domain": "native.control-flow", "question": "  Which callers\n reach it? "})
	u1 := r1["unknown"].(map[string]any)
	id := u1["unknown_id"].(string)
	is.Equal(u1["question"], "Which callers reach it?") // white space collapsed
	is.Equal(core.UnknownID(id), core.NewUnknownID("native.control-flow", "Which callers reach it?", nil))
	is.Equal(u1["revision"], float64(1))
	is.Equal(u1["previous_revision_digest"], nil)
	is.Equal(u1["status"], "open")
	is.Equal(u1["severity"], "medium")
	mut, ok := s.Ledger().Get(core.EvidenceID(r1["mutation_evidence_id"].(string)))
	is.True(ok)
	is.Equal(mut.PredicateType, core.MutationPredicate)

	// Recording it again is a conflict; a stale expected digest too.
	e := bndErr(t, s, "record_unknown", map[string]any{"domain": "native.control-flow", "question": "Which callers reach it?"})
	is.Equal(e.Code, core.CodeRevisionConflict)
	is.Equal(e.Details["reason"], "already-exists")
	_, r2 := bndCall(t, s, "update_unknown", map[string]any{"unknown_id": id, "expected_revision_digest": u1["revision_digest"], "status": "investigating"})
	u2 := r2["unknown"].(map[string]any)
	is.Equal(u2["revision"], float64(2))
	is.Equal(u2["previous_revision_digest"], u1["revision_digest"])
	e = bndErr(t, s, "update_unknown", map[string]any{"unknown_id": id, "expected_revision_digest": u1["revision_digest"], "status": "blocked"})
	is.Equal(e.Code, core.CodeRevisionConflict)
	is.Equal(e.Details["reason"], "revision-conflict")
	// A no-op update is refused; so is a resolution without status resolved.
	is.Equal(bndErr(t, s, "update_unknown", map[string]any{"unknown_id": id, "status": "investigating"}).Code, core.CodeInvalidRequest)
	e = bndErr(t, s, "update_unknown", map[string]any{"unknown_id": id, "resolution": map[string]any{"disposition": "withdrawn", "rationale": "x"}})
	is.Equal(e.Code, core.CodeInvalidRequest)
	// Its advice says what to change, not to correct the details.issues it
	// has none of.
	advice := e.Envelope().Error.Remediation.Action
	is.True(strings.Contains(advice, `status "resolved"`))
	is.True(!strings.Contains(advice, "details.issues"))
	// Unknown references are refused before anything is recorded.
	before, _ := s.Ledger().Len()
	e = bndErr(t, s, "update_unknown", map[string]any{"unknown_id": id, "supporting_evidence_ids": []string{"ev_" + sha}})
	is.Equal(e.Details["reason"], "missing")
	after, _ := s.Ledger().Len()
	is.Equal(after, before)

	// An unknown_id this connection does not hold: the advice names
	// list_unknowns, not the details.issues this refusal has none of.
	none := "unk_" + strings.Repeat("0", 64)
	for _, op := range []string{"update_unknown", "verify_unknown_resolution"} {
		args := map[string]any{"unknown_id": none}
		if op == "update_unknown" {
			args["status"] = "blocked"
		}
		e = bndErr(t, s, op, args)
		is.Equal(e.Code, core.CodeInvalidRequest)
		is.Equal(e.Details["reason"], "missing")
		is.True(strings.Contains(e.Envelope().Error.Remediation.Action, "list_unknowns"))
	}

	_, list := bndCall(t, s, "list_unknowns", map[string]any{})
	is.Equal(list["total"], float64(1))
	is.Equal(list["revisions"], float64(2))
	_, list = bndCall(t, s, "list_unknowns", map[string]any{"status": "open"})
	is.Equal(list["total"], float64(0))

	// close_binary clears unknowns with the ledger.
	bndCall(t, s, "close_binary", map[string]any{})
	_, list = bndCall(t, s, "list_unknowns", map[string]any{})
	is.Equal(list["total"], float64(0))
}

func TestVerifiedResolutionRules(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	observed := bndRecord(t, s, 1, "answer")      // observed, shipped-artifact
	contra := bndRecord(t, s, 2, "contradiction") // listed as contradicting
	_, r := bndCall(t, s, "record_unknown", map[string]any{"domain": "d", "question": "q?", "required_authority": "controlled-replay",
		"contradicting_evidence_ids": []string{string(contra.EvidenceID)}})
	u := r["unknown"].(map[string]any)
	id := u["unknown_id"].(string)
	mutation := r["mutation_evidence_id"].(string)
	resolve := func(ids ...string) *core.Error {
		return bndErr(t, s, "update_unknown", map[string]any{"unknown_id": id, "status": "resolved",
			"resolution": map[string]any{"disposition": "verified", "rationale": "seen", "evidence_ids": ids}})
	}
	// Wrong authority, a mutation record, a contradicting record: refused.
	for _, ids := range [][]string{{string(observed.EvidenceID)}, {mutation}, {string(contra.EvidenceID)}} {
		e := resolve(ids...)
		is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
		is.Equal(e.Details["reason"], "unverified-resolution")
		is.True(strings.Contains(e.Envelope().Error.Remediation.Action, "required authority")) // not the integrity code's advice
	}
	// Without the authority requirement the observed record qualifies.
	bndCall(t, s, "update_unknown", map[string]any{"unknown_id": id, "required_authority": nil})
	_, v := bndCall(t, s, "verify_unknown_resolution", map[string]any{"unknown_id": id})
	is.Equal(v["status"], "not-resolved")
	bndCall(t, s, "update_unknown", map[string]any{"unknown_id": id, "status": "resolved",
		"resolution": map[string]any{"disposition": "verified", "rationale": "seen", "evidence_ids": []string{string(observed.EvidenceID)}}})
	_, v = bndCall(t, s, "verify_unknown_resolution", map[string]any{"unknown_id": id})
	is.Equal(v["status"], "verified")
	is.Equal(v["verified"], true)
	// Required confidence beyond the record's is refused.
	_, r = bndCall(t, s, "record_unknown", map[string]any{"domain": "d", "question": "q2?", "required_confidence": "observed",
		"required_environment": map[string]any{"isolation": "virtual-machine"}})
	e := bndErr(t, s, "update_unknown", map[string]any{"unknown_id": r["unknown"].(map[string]any)["unknown_id"], "status": "resolved",
		"resolution": map[string]any{"disposition": "verified", "rationale": "x", "evidence_ids": []string{string(observed.EvidenceID)}}})
	is.Equal(e.Details["reason"], "unverified-resolution")
}
