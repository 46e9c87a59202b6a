package core

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

func unknownOperations() []*Operation {
	return []*Operation{opRecordUnknown(), opUpdateUnknown(), opListUnknowns(), opVerifyUnknownResolution()}
}

const (
	evidenceIDList = `{"type": "array", "maxItems": 100, "uniqueItems": true, "items": {"type": "string", "pattern": "^ev_[0-9a-f]{64}$"}}`
	unknownIDProp  = `{"type": "string", "pattern": "^unk_[0-9a-f]{64}$", "description": "The unknown_id returned by record_unknown."}`
	// unknownMutable are the fields record_unknown and update_unknown set.
	unknownMutable = `"severity": {"enum": ["low", "medium", "high", "critical"], "description": "How much the open question matters."},
  "supporting_evidence_ids": ` + evidenceIDList + `,
  "contradicting_evidence_ids": ` + evidenceIDList + `,
  "required_authority": {"enum": ["shipped-artifact", "controlled-replay", "historical-reference", "external-service", "analyst-inference", null], "description": "Authority a resolving record must have; null for any."},
  "required_confidence": {"enum": ["observed", "derived", "inferred", null], "description": "Least confidence a resolving record must have (observed > derived > inferred); null for any."},
  "required_environment": {"anyOf": [{"type": "null"}, {"type": "object", "additionalProperties": false,
    "properties": {"id": {"type": ["string", "null"]}, "platform": {"type": ["string", "null"]}, "architecture": {"type": ["string", "null"]},
     "isolation": {"enum": ["none", "process", "container", "virtual-machine", null]}}}], "description": "Environment a resolving record must match; null fields match anything."},
  "recommended_probes": {"type": "array", "maxItems": 32, "items": {"type": "object", "additionalProperties": false, "required": ["operation", "rationale"],
    "properties": {"operation": {"type": "string", "minLength": 1}, "rationale": {"type": "string", "minLength": 1, "maxLength": 2000}}}},
  "relationships": {"type": "array", "maxItems": 100, "items": {"type": "object", "additionalProperties": false, "required": ["type", "unknown_id"],
    "properties": {"type": {"enum": ["depends-on", "related-to", "contradicts"]}, "unknown_id": {"type": "string", "pattern": "^unk_[0-9a-f]{64}$"}}}}`
	resolutionProp = `"resolution": {"anyOf": [{"type": "null"},
    {"type": "object", "additionalProperties": false, "required": ["disposition", "rationale", "evidence_ids"],
     "properties": {"disposition": {"const": "verified"}, "rationale": {"type": "string", "minLength": 1, "maxLength": 4000},
      "evidence_ids": {"type": "array", "minItems": 1, "maxItems": 100, "uniqueItems": true, "items": {"type": "string", "pattern": "^ev_[0-9a-f]{64}$"}}}},
    {"type": "object", "additionalProperties": false, "required": ["disposition", "rationale"],
     "properties": {"disposition": {"enum": ["withdrawn", "out-of-scope"]}, "rationale": {"type": "string", "minLength": 1, "maxLength": 4000},
      "evidence_ids": {"type": "array", "maxItems": 100, "uniqueItems": true, "items": {"type": "string", "pattern": "^ev_[0-9a-f]{64}$"}}}}],
   "description": "Closes the unknown (status resolved): verified names retained Evidence that answers it; withdrawn and out-of-scope explain why it is dropped."}`
	unknownResultSchema = `{"type":"object","additionalProperties":false,"required":["unknown","mutation_evidence_id"],
 "properties":{"unknown":{"$ref":"#/$defs/unknown"},"mutation_evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}},
 "$defs":{"unknown":` + unknownRevisionSchema + `}}`
	unknownRevisionSchema = `{"type":"object","additionalProperties":false,
 "required":["registry_version","unknown_id","revision","previous_revision_digest","revision_digest","scope_digest","question","status","severity","domain",
  "supporting_evidence_ids","contradicting_evidence_ids","required_authority","required_confidence","required_environment","recommended_probes","relationships","resolution","mutation_evidence_ids"],
 "properties":{"registry_version":{"const":1},"unknown_id":{"type":"string","pattern":"^unk_[0-9a-f]{64}$"},"revision":{"type":"integer","minimum":1},
  "previous_revision_digest":{"type":["string","null"]},"revision_digest":{"type":"string","pattern":"^[0-9a-f]{64}$"},"scope_digest":{"type":["string","null"]},
  "question":{"type":"string"},"status":{"enum":["open","investigating","blocked","contradicted","resolved"]},"severity":{"enum":["low","medium","high","critical"]},
  "domain":{"type":"string"},"supporting_evidence_ids":{"type":"array","items":{"type":"string"}},"contradicting_evidence_ids":{"type":"array","items":{"type":"string"}},
  "required_authority":{"type":["string","null"]},"required_confidence":{"type":["string","null"]},"required_environment":{"type":["object","null"]},
  "recommended_probes":{"type":"array","items":{"type":"object"}},"relationships":{"type":"array","items":{"type":"object"}},
  "resolution":{"type":["object","null"]},"mutation_evidence_ids":{"type":"array","minItems":1,"items":{"type":"string"}}}}`
)

func opRecordUnknown() *Operation {
	return &Operation{
		Name:  "record_unknown",
		Title: "Record Residual Unknown",
		Description: "Record a residual unknown: a question the retained Evidence does not answer yet. Its id is unk_ + the digest of {domain, question, scope_digest}; revision 1 is recorded with a mutation Evidence record " +
			"(predicate rea.residual-unknown-mutation) and travels in exported bundles. Referenced evidence ids must be retained; depends-on relationships may not form a cycle.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{MutatesSession: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["domain", "question"],
 "properties": {
  "domain": {"type": "string", "minLength": 1, "maxLength": 128, "description": "What the question is about, such as native.control-flow or application.network."},
  "question": {"type": "string", "minLength": 1, "maxLength": 4000, "description": "The open question; white space is collapsed and at most 1000 characters remain."},
  "scope_digest": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$", "default": null, "description": "Digest of what the question is scoped to (for example a target sha256), or null."},
  "status": {"enum": ["open", "investigating", "blocked", "contradicted"], "default": "open", "description": "Initial status."},
  ` + unknownMutable + `}}`),
		Result: json.RawMessage(unknownResultSchema),
		Examples: []json.RawMessage{
			json.RawMessage(`{"domain":"native.control-flow","question":"Which callers reach the license check?","severity":"high"}`),
			json.RawMessage(`{"domain":"application.network","question":"Does the updater verify signatures?","required_authority":"controlled-replay","recommended_probes":[{"operation":"inspect_binary_layout","rationale":"find the TLS library"}]}`)},
		Handler: handleRecordUnknown,
	}
}

func opUpdateUnknown() *Operation {
	return &Operation{
		Name:  "update_unknown",
		Title: "Update Residual Unknown",
		Description: "Append a revision to a residual unknown: change its status, severity, evidence, requirements, probes, relationships or resolution. " +
			"Pass expected_revision_digest to fail with revision_conflict if another change landed first. A verified resolution must name retained, non-mutation Evidence that meets the required authority, confidence and environment and is not listed as contradicting.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{MutatesSession: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["unknown_id"],
 "properties": {
  "unknown_id": ` + unknownIDProp + `,
  "expected_revision_digest": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "The revision_digest this change is based on."},
  "status": {"enum": ["open", "investigating", "blocked", "contradicted", "resolved"], "description": "New status; resolved requires a resolution."},
  ` + unknownMutable + `,
  ` + resolutionProp + `}}`),
		Result: json.RawMessage(unknownResultSchema),
		Examples: []json.RawMessage{
			json.RawMessage(`{"unknown_id":"` + string(NewUnknownID("native.control-flow", "Which callers reach the license check?", nil)) + `","status":"investigating"}`),
			json.RawMessage(`{"unknown_id":"unk_0000000000000000000000000000000000000000000000000000000000000000","status":"resolved","resolution":{"disposition":"out-of-scope","rationale":"Not needed for this release."}}`)},
		Handler: handleUpdateUnknown,
	}
}

func opListUnknowns() *Operation {
	return &Operation{
		Name:            "list_unknowns",
		Title:           "List Residual Unknowns",
		Description:     "List this connection's residual unknowns: the latest revision of each (or every revision with include_history), sorted by unknown_id, optionally filtered by exact status, domain or unknown_id.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{Idempotent: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
 "properties": {
  "status": {"enum": ["open", "investigating", "blocked", "contradicted", "resolved"], "description": "Only unknowns whose latest status is this."},
  "domain": {"type": "string", "minLength": 1, "description": "Only unknowns of this domain."},
  "unknown_id": ` + unknownIDProp + `,
  "include_history": {"type": "boolean", "default": false, "description": "Return every revision, not only the latest."}}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["unknowns","total","revisions"],
 "properties":{"unknowns":{"type":"array","items":{"$ref":"#/$defs/unknown"}},"total":{"type":"integer","minimum":0},"revisions":{"type":"integer","minimum":0}},
 "$defs":{"unknown":` + unknownRevisionSchema + `}}`),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"status":"open","include_history":true}`)},
		Handler:  handleListUnknowns,
	}
}

func opVerifyUnknownResolution() *Operation {
	return &Operation{
		Name:  "verify_unknown_resolution",
		Title: "Verify Unknown Resolution",
		Description: "Check a residual unknown's latest resolution against the retained Evidence: whether each resolving record is retained, is an observation rather than a registry mutation, is not listed as contradicting, " +
			"and meets the required authority, confidence and environment. Findings are data; nothing changes.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{Idempotent: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["unknown_id"],
 "properties": {"unknown_id": ` + unknownIDProp + `}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["unknown_id","revision","revision_digest","status","disposition","verified","checks","findings"],
 "properties":{"unknown_id":{"type":"string"},"revision":{"type":"integer"},"revision_digest":{"type":"string"},
  "status":{"enum":["verified","not-verified","not-resolved","not-applicable"]},"disposition":{"type":["string","null"]},"verified":{"type":"boolean"},
  "checks":{"type":"array","items":{"type":"object"}},"findings":{"type":"array","items":{"type":"string"}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"unknown_id":"` + string(NewUnknownID("native.control-flow", "Which callers reach the license check?", nil)) + `"}`)},
		Handler:  handleVerifyUnknownResolution,
	}
}

// unknownChange is the mutable fields of record_unknown's and
// update_unknown's input: a nil field was absent, and a RawMessage holds
// "null" when the argument was null.
type unknownChange struct {
	Status                   *string         `json:"status"`
	Severity                 *string         `json:"severity"`
	SupportingEvidenceIDs    *[]EvidenceID   `json:"supporting_evidence_ids"`
	ContradictingEvidenceIDs *[]EvidenceID   `json:"contradicting_evidence_ids"`
	RequiredAuthority        json.RawMessage `json:"required_authority"`
	RequiredConfidence       json.RawMessage `json:"required_confidence"`
	RequiredEnvironment      json.RawMessage `json:"required_environment"`
	RecommendedProbes        *[]Probe        `json:"recommended_probes"`
	Relationships            *[]Relationship `json:"relationships"`
	Resolution               json.RawMessage `json:"resolution"`
}

// applyUnknownArgs decodes the mutable fields present in c's arguments
// onto u.
func applyUnknownArgs(u *Unknown, c *Call) error {
	in, err := Input[unknownChange](c)
	if err != nil {
		return err
	}
	if in.Status != nil {
		u.Status = *in.Status
	}
	if in.Severity != nil {
		u.Severity = *in.Severity
	}
	if in.SupportingEvidenceIDs != nil {
		u.SupportingEvidenceIDs = *in.SupportingEvidenceIDs
	}
	if in.ContradictingEvidenceIDs != nil {
		u.ContradictingEvidenceIDs = *in.ContradictingEvidenceIDs
	}
	if in.RecommendedProbes != nil {
		u.RecommendedProbes = *in.RecommendedProbes
	}
	if in.Relationships != nil {
		u.Relationships = *in.Relationships
	}
	if err := cmp.Or(decodeOnto(in.RequiredAuthority, &u.RequiredAuthority), decodeOnto(in.RequiredConfidence, &u.RequiredConfidence),
		decodeOnto(in.RequiredEnvironment, &u.RequiredEnvironment), decodeOnto(in.Resolution, &u.Resolution)); err != nil {
		return err
	}
	u.normalize()
	return nil
}

// decodeOnto replaces *dst with raw decoded when raw is present (null
// clears it); a fresh value, so nothing of the old one is merged in.
func decodeOnto[T any](raw json.RawMessage, dst **T) error {
	if raw == nil {
		return nil
	}
	*dst = nil
	return json.Unmarshal(raw, dst)
}

// mutate records the mutation Evidence, completes the revision and checks
// it against the ledger and the registry, with r.mu held. Nothing is
// stored when it fails.
func (s *Session) mutateUnknownLocked(op string, args map[string]any, u *Unknown) (*Unknown, EvidenceID, error) {
	r := &s.retained
	if r.revisions >= MaxUnknownRevisions || (u.Revision == 1 && len(r.unknowns) >= MaxUnknowns) {
		return nil, "", unknownErr(op, CodeTruncated, "limit", "the residual unknown registry is full",
			map[string]any{"limit": "unknowns", "maximum": MaxUnknowns, "truncated": true})
	}
	// Everything named must exist before anything is recorded.
	for _, id := range u.referencedEvidence() {
		if _, err := s.ledger.Resolve(id); err != nil {
			return nil, "", err
		}
	}
	for _, rel := range u.Relationships {
		if _, ok := r.unknowns[rel.UnknownID]; !ok && rel.UnknownID != u.UnknownID {
			return nil, "", unknownErr(op, CodeInvalidRequest, "missing-unknown", "relationship names unknown "+string(rel.UnknownID)+", which this connection does not hold",
				map[string]any{"unknown_id": string(rel.UnknownID)}, missingUnknownAdvice)
		}
	}
	params, err := CanonicalJSON(args)
	if err != nil {
		return nil, "", err
	}
	change, err := CanonicalJSON(map[string]any{"unknown_id": u.UnknownID, "revision": u.Revision, "previous_revision_digest": u.PreviousRevisionDigest, "change": args})
	if err != nil {
		return nil, "", err
	}
	v := s.opts.Server.Version
	mut := &Evidence{Operation: op, PredicateType: MutationPredicate, Parameters: params, NormalizedResult: change,
		Provider: ProviderRef{ID: "rea", Name: "rea", Version: &v}, Confidence: ConfidenceObserved, Authority: "analyst-inference",
		Limitations: []string{"No single artifact is this record's subject; its parameters and evidence links name what it covers.", "This record documents a change to the residual unknown registry, not an observation of an artifact."}}
	if err := mut.Seal(); err != nil {
		return nil, "", err
	}
	u.MutationEvidenceIDs = []EvidenceID{mut.EvidenceID}
	d, err := u.ComputeRevisionDigest()
	if err != nil {
		return nil, "", err
	}
	u.RevisionDigest = d
	if err := u.check(op); err != nil {
		ce := err.(*Error)
		ce.Code, ce.Remediation = CodeInvalidRequest, `Change what the message names and call again: a resolution needs status "resolved", and status "resolved" a resolution.`
		return nil, "", ce
	}
	lookup := func(id EvidenceID) (evidenceFacts, bool) {
		if id == mut.EvidenceID {
			return factsOf(mut), true
		}
		e, ok := s.ledger.Get(id)
		if !ok {
			return evidenceFacts{}, false
		}
		return factsOf(e), true
	}
	if u.Resolution != nil && u.Resolution.Disposition == "verified" {
		if ok, _, findings := u.checkResolution(lookup); !ok {
			return nil, "", unknownErr(op, CodeEvidenceIntegrityMismatch, "unverified-resolution",
				"the verified resolution does not qualify: "+fmt.Sprint(findings), map[string]any{"unknown_id": string(u.UnknownID), "findings": findings}, unverifiedAdvice)
		}
	}
	latest := r.latestLocked()
	latest[u.UnknownID] = u
	if cyc := dependsOnCycle(latest); cyc != nil {
		return nil, "", unknownErr(op, CodeInvalidRequest, "depends-on-cycle", "depends-on relationships would form a cycle: "+fmt.Sprint(cyc),
			map[string]any{"cycle": cyc}, "Drop one of the depends-on relationships that details.cycle lists and call again.")
	}
	if _, err := s.ledger.Record(mut); err != nil {
		return nil, "", err
	}
	if r.unknowns == nil {
		r.unknowns = map[UnknownID][]*Unknown{}
	}
	r.unknowns[u.UnknownID] = append(r.unknowns[u.UnknownID], u)
	r.revisions++
	return u, mut.EvidenceID, nil
}

func handleRecordUnknown(_ context.Context, c *Call) (any, error) {
	in, err := Input[RecordUnknownInput](c)
	if err != nil {
		return nil, err
	}
	question := CollapseSpace(in.Question)
	if n := len([]rune(question)); n == 0 || n > maxQuestionChars {
		return nil, InvalidRequest(c.Op.Name, Issue{Path: []any{"question"}, Reason: ReasonOutOfRange, Message: "the question must hold 1-1000 characters after white space is collapsed", Maximum: maxQuestionChars})
	}
	domain, scope := in.Domain, in.ScopeDigest
	u := &Unknown{RegistryVersion: UnknownRegistryVersion, UnknownID: NewUnknownID(domain, question, scope), Revision: 1,
		ScopeDigest: scope, Question: question, Domain: domain, Status: "open", Severity: "medium"}
	if err := applyUnknownArgs(u, c); err != nil {
		return nil, InvalidRequest(c.Op.Name, Issue{Path: []any{}, Reason: ReasonInvalidValue, Message: err.Error()})
	}
	r := &c.Session.retained
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.unknowns[u.UnknownID]; ok {
		return nil, unknownErr(c.Op.Name, CodeRevisionConflict, "already-exists", "unknown "+string(u.UnknownID)+" already exists; change it with update_unknown",
			map[string]any{"unknown_id": string(u.UnknownID)})
	}
	rev, mut, err := c.Session.mutateUnknownLocked(c.Op.Name, c.Args, u)
	if err != nil {
		return nil, err
	}
	return &RecordUnknownResult{Unknown: *rev, MutationEvidenceID: mut}, nil
}

func handleUpdateUnknown(_ context.Context, c *Call) (any, error) {
	in, err := Input[UpdateUnknownInput](c)
	if err != nil {
		return nil, err
	}
	id := UnknownID(in.UnknownID)
	r := &c.Session.retained
	r.mu.Lock()
	defer r.mu.Unlock()
	chain := r.unknowns[id]
	if len(chain) == 0 {
		return nil, unknownErr(c.Op.Name, CodeInvalidRequest, "missing", "this connection holds no unknown "+string(id), map[string]any{"unknown_id": string(id)}, missingUnknownAdvice)
	}
	cur := chain[len(chain)-1]
	if want := in.ExpectedRevisionDigest; want != "" && want != cur.RevisionDigest {
		return nil, unknownErr(c.Op.Name, CodeRevisionConflict, "revision-conflict",
			fmt.Sprintf("unknown %s is at revision %d (%s), not %s", id, cur.Revision, cur.RevisionDigest, want),
			map[string]any{"unknown_id": string(id), "revision": cur.Revision, "revision_digest": cur.RevisionDigest})
	}
	next := cloneUnknown(cur)
	prev := cur.RevisionDigest
	next.Revision, next.PreviousRevisionDigest = cur.Revision+1, &prev
	if err := applyUnknownArgs(next, c); err != nil {
		return nil, InvalidRequest(c.Op.Name, Issue{Path: []any{}, Reason: ReasonInvalidValue, Message: err.Error()})
	}
	next.MutationEvidenceIDs = cur.MutationEvidenceIDs
	next.RevisionDigest = ""
	if d, _ := next.ComputeRevisionDigest(); d == mustRevisionDigestSans(cur) {
		return nil, InvalidRequest(c.Op.Name, Issue{Path: []any{}, Reason: ReasonInvalidValue, Message: "the update changes nothing"})
	}
	rev, mut, err := c.Session.mutateUnknownLocked(c.Op.Name, c.Args, next)
	if err != nil {
		return nil, err
	}
	return &UpdateUnknownResult{Unknown: *rev, MutationEvidenceID: mut}, nil
}

// mustRevisionDigestSans is the digest of cur as the next revision would be
// if nothing changed: used to refuse no-op updates.
func mustRevisionDigestSans(cur *Unknown) string {
	c := cloneUnknown(cur)
	prev := cur.RevisionDigest
	c.Revision, c.PreviousRevisionDigest, c.RevisionDigest = cur.Revision+1, &prev, ""
	d, _ := c.ComputeRevisionDigest()
	return d
}

func cloneUnknown(u *Unknown) *Unknown {
	raw, _ := MarshalNoEscape(u)
	var c Unknown
	_ = json.Unmarshal(raw, &c)
	c.normalize()
	return &c
}

func handleListUnknowns(_ context.Context, c *Call) (any, error) {
	r := &c.Session.retained
	r.mu.Lock()
	defer r.mu.Unlock()
	in, err := Input[ListUnknownsInput](c)
	if err != nil {
		return nil, err
	}
	status, domain, only, history := in.Status, in.Domain, in.UnknownID, in.IncludeHistory != nil && *in.IncludeHistory
	out := []Unknown{}
	total := 0
	for _, id := range slices.Sorted(maps.Keys(r.unknowns)) {
		chain := r.unknowns[id]
		cur := chain[len(chain)-1]
		if (status != "" && cur.Status != status) || (domain != "" && cur.Domain != domain) || (only != "" && string(id) != only) {
			continue
		}
		total++
		if history {
			for _, u := range chain {
				out = append(out, *u)
			}
		} else {
			out = append(out, *cur)
		}
	}
	return &ListUnknownsResult{Unknowns: out, Total: total, Revisions: r.revisions}, nil
}

func handleVerifyUnknownResolution(_ context.Context, c *Call) (any, error) {
	in, err := Input[VerifyUnknownResolutionInput](c)
	if err != nil {
		return nil, err
	}
	id := UnknownID(in.UnknownID)
	r := &c.Session.retained
	r.mu.Lock()
	defer r.mu.Unlock()
	chain := r.unknowns[id]
	if len(chain) == 0 {
		return nil, unknownErr(c.Op.Name, CodeInvalidRequest, "missing", "this connection holds no unknown "+string(id), map[string]any{"unknown_id": string(id)}, missingUnknownAdvice)
	}
	u := chain[len(chain)-1]
	out := &VerifyUnknownResolutionResult{UnknownID: string(id), Revision: u.Revision, RevisionDigest: u.RevisionDigest,
		Checks: []ResolutionCheck{}, Findings: []string{}}
	switch {
	case u.Resolution == nil:
		out.Status = "not-resolved"
		out.Findings = []string{"the unknown has no resolution"}
	case u.Resolution.Disposition != "verified":
		d := u.Resolution.Disposition
		out.Status, out.Disposition = "not-applicable", &d
		out.Findings = []string{"a " + d + " resolution names no answering evidence"}
	default:
		ok, checks, findings := u.checkResolution(func(id EvidenceID) (evidenceFacts, bool) {
			e, ok := c.Session.ledger.Get(id)
			if !ok {
				return evidenceFacts{}, false
			}
			return factsOf(e), true
		})
		d := "verified"
		out.Disposition, out.Checks, out.Findings, out.Verified = &d, checks, findings, ok
		out.Status = "not-verified"
		if ok {
			out.Status = "verified"
		}
	}
	return out, nil
}

const missingUnknownAdvice = "Call list_unknowns for the unknown_ids this connection holds (they do not outlive close_binary or the connection), or record the unknown with record_unknown."                                                                                               // not details.issues, which it has none of
const unverifiedAdvice = "Name retained Evidence of this connection that meets the unknown's required authority, confidence and environment and is not a mutation or a contradicting record (details.findings says what each falls short of), or resolve it as withdrawn or out-of-scope." // not the integrity code's default
