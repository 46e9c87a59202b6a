package core

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// UnknownID is "unk_" followed by 64 lowercase hex characters: the digest of
// a residual unknown's {domain, question, scope_digest}.
type UnknownID string

// ParseUnknownID validates s.
func ParseUnknownID(s string) (UnknownID, error) {
	if !strings.HasPrefix(s, "unk_") || !isHex64(s[4:]) {
		return "", fmt.Errorf("unknown id %q: want \"unk_\" and 64 lowercase hex characters", s)
	}
	return UnknownID(s), nil
}

func (id UnknownID) String() string { return string(id) }

// MarshalText implements encoding.TextMarshaler.
func (id UnknownID) MarshalText() ([]byte, error) { return []byte(id), nil }

// UnmarshalText implements encoding.TextUnmarshaler and validates the form.
func (id *UnknownID) UnmarshalText(b []byte) error {
	v, err := ParseUnknownID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// Residual unknown limits and values (CONTRACTS.md §3).
const (
	UnknownRegistryVersion = 1
	maxQuestionChars       = 1000
	maxUnknownEvidenceIDs  = 100
	maxUnknownProbes       = 32
	maxUnknownRelations    = 100
	// MaxUnknowns and MaxUnknownRevisions bound one connection's registry.
	MaxUnknowns         = 1000
	MaxUnknownRevisions = 10000
	// MutationPredicate marks the Evidence that records a change to an unknown.
	MutationPredicate = "rea.residual-unknown-mutation"
)

var (
	unknownStatuses     = []string{"open", "investigating", "blocked", "contradicted", "resolved"}
	unknownSeverities   = []string{"low", "medium", "high", "critical"}
	relationshipTypes   = []string{"depends-on", "related-to", "contradicts"}
	resolutionKinds     = []string{"verified", "withdrawn", "out-of-scope"}
	confidenceRank      = map[string]int{ConfidenceObserved: 3, ConfidenceDerived: 2, ConfidenceInferred: 1}
	unknownFieldsStrict = []string{"registry_version", "unknown_id", "revision", "previous_revision_digest", "revision_digest",
		"scope_digest", "question", "status", "severity", "domain", "supporting_evidence_ids", "contradicting_evidence_ids",
		"required_authority", "required_confidence", "required_environment", "recommended_probes", "relationships",
		"resolution", "mutation_evidence_ids"}
)

// Unknown is one revision of a residual unknown: a question the evidence
// does not answer yet. Revisions chain by digest; the latest is current.
type Unknown struct {
	RegistryVersion          int                  `json:"registry_version"`
	UnknownID                UnknownID            `json:"unknown_id"`
	Revision                 int                  `json:"revision"`
	PreviousRevisionDigest   *string              `json:"previous_revision_digest"`
	RevisionDigest           string               `json:"revision_digest"`
	ScopeDigest              *string              `json:"scope_digest"`
	Question                 string               `json:"question"`
	Status                   string               `json:"status"`
	Severity                 string               `json:"severity"`
	Domain                   string               `json:"domain"`
	SupportingEvidenceIDs    []EvidenceID         `json:"supporting_evidence_ids"`
	ContradictingEvidenceIDs []EvidenceID         `json:"contradicting_evidence_ids"`
	RequiredAuthority        *string              `json:"required_authority"`
	RequiredConfidence       *string              `json:"required_confidence"`
	RequiredEnvironment      *RequiredEnvironment `json:"required_environment"`
	RecommendedProbes        []Probe              `json:"recommended_probes"`
	Relationships            []Relationship       `json:"relationships"`
	Resolution               *Resolution          `json:"resolution"`
	MutationEvidenceIDs      []EvidenceID         `json:"mutation_evidence_ids"`
}

// RequiredEnvironment constrains the environment of resolving Evidence; a
// null field matches anything.
type RequiredEnvironment struct {
	ID           *string `json:"id"`
	Platform     *string `json:"platform"`
	Architecture *string `json:"architecture"`
	Isolation    *string `json:"isolation"`
}

// Probe is an operation that might answer the question.
type Probe struct {
	Operation string `json:"operation"`
	Rationale string `json:"rationale"`
}

// Relationship links two unknowns.
type Relationship struct {
	Type      string    `json:"type"`
	UnknownID UnknownID `json:"unknown_id"`
}

// Resolution closes an unknown. A verified one names the Evidence that
// answers it.
type Resolution struct {
	Disposition string       `json:"disposition"`
	Rationale   string       `json:"rationale"`
	EvidenceIDs []EvidenceID `json:"evidence_ids"`
}

// NewUnknownID derives an unknown's identity from what it asks.
func NewUnknownID(domain, question string, scope *string) UnknownID {
	return UnknownID("unk_" + MustDigest(map[string]any{"domain": domain, "question": CollapseSpace(question), "scope_digest": scope}))
}

// CollapseSpace trims and collapses runs of white space to one space.
func CollapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// ComputeRevisionDigest is Digest of the revision without revision_digest.
func (u *Unknown) ComputeRevisionDigest() (string, error) {
	raw, err := MarshalNoEscape(u)
	if err != nil {
		return "", err
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return "", err
	}
	m := v.(map[string]any)
	delete(m, "revision_digest")
	return Digest(m)
}

// normalize fills nil lists so the canonical form always has arrays.
func (u *Unknown) normalize() {
	for _, l := range []*[]EvidenceID{&u.SupportingEvidenceIDs, &u.ContradictingEvidenceIDs, &u.MutationEvidenceIDs} {
		if *l == nil {
			*l = []EvidenceID{}
		}
	}
	if u.RecommendedProbes == nil {
		u.RecommendedProbes = []Probe{}
	}
	if u.Relationships == nil {
		u.Relationships = []Relationship{}
	}
	if u.Resolution != nil && u.Resolution.EvidenceIDs == nil {
		u.Resolution.EvidenceIDs = []EvidenceID{}
	}
}

// unknownErr is the UnknownRegistry error family (CONTRACTS.md §5); advice replaces the code's default.
func unknownErr(op string, code Code, reason, msg string, details map[string]any, advice ...string) *Error {
	details["reason"] = reason
	if op != "" {
		details["operation"] = op
	}
	return &Error{Code: code, Message: op + ": " + msg, Details: details, Remediation: strings.Join(advice, "")}
}

// check validates one revision on its own: identity, fields and digests.
func (u *Unknown) check(op string) error {
	bad := func(msg string) error {
		return unknownErr(op, CodeEvidenceIntegrityMismatch, "integrity", "unknown "+string(u.UnknownID)+": "+msg,
			map[string]any{"unknown_id": string(u.UnknownID), "revision": u.Revision})
	}
	if u.RegistryVersion != UnknownRegistryVersion {
		return bad("registry_version must be 1")
	}
	if _, err := ParseUnknownID(string(u.UnknownID)); err != nil {
		return bad(err.Error())
	}
	if u.Question != CollapseSpace(u.Question) || u.Question == "" || len([]rune(u.Question)) > maxQuestionChars {
		return bad("question must be 1-1000 characters with white space collapsed")
	}
	if u.Domain == "" {
		return bad("domain is empty")
	}
	if u.ScopeDigest != nil && !isHex64(*u.ScopeDigest) {
		return bad("scope_digest is not 64 lowercase hex characters")
	}
	if NewUnknownID(u.Domain, u.Question, u.ScopeDigest) != u.UnknownID {
		return bad("unknown_id does not match {domain, question, scope_digest}")
	}
	if u.Revision < 1 {
		return bad("revision must be at least 1")
	}
	if (u.Revision == 1) != (u.PreviousRevisionDigest == nil) {
		return bad("previous_revision_digest must be null exactly for revision 1")
	}
	if !slices.Contains(unknownStatuses, u.Status) || !slices.Contains(unknownSeverities, u.Severity) {
		return bad("invalid status or severity")
	}
	if len(u.SupportingEvidenceIDs) > maxUnknownEvidenceIDs || len(u.ContradictingEvidenceIDs) > maxUnknownEvidenceIDs {
		return bad("at most 100 supporting and 100 contradicting evidence ids")
	}
	if u.RequiredAuthority != nil && !slices.Contains(authorities, *u.RequiredAuthority) {
		return bad("invalid required_authority")
	}
	if u.RequiredConfidence != nil && confidenceRank[*u.RequiredConfidence] == 0 {
		return bad("invalid required_confidence")
	}
	if e := u.RequiredEnvironment; e != nil && e.Isolation != nil && !slices.Contains(isolations, *e.Isolation) {
		return bad("invalid required_environment.isolation")
	}
	if len(u.RecommendedProbes) > maxUnknownProbes || len(u.Relationships) > maxUnknownRelations {
		return bad("too many probes or relationships")
	}
	for _, r := range u.Relationships {
		if !slices.Contains(relationshipTypes, r.Type) {
			return bad("invalid relationship type " + r.Type)
		}
		if r.UnknownID == u.UnknownID {
			return bad("an unknown cannot relate to itself")
		}
	}
	if (u.Status == "resolved") != (u.Resolution != nil) {
		return bad("status resolved requires a resolution, and a resolution requires status resolved")
	}
	if r := u.Resolution; r != nil {
		if !slices.Contains(resolutionKinds, r.Disposition) || strings.TrimSpace(r.Rationale) == "" {
			return bad("a resolution needs a disposition and a rationale")
		}
		if r.Disposition == "verified" && len(r.EvidenceIDs) == 0 {
			return bad("a verified resolution names at least one evidence id")
		}
	}
	if len(u.MutationEvidenceIDs) == 0 {
		return bad("mutation_evidence_ids is empty")
	}
	d, err := u.ComputeRevisionDigest()
	if err != nil {
		return bad(err.Error())
	}
	if d != u.RevisionDigest {
		return bad("revision_digest does not match the revision")
	}
	return nil
}

// evidenceFacts is what the resolution rules read of a record.
type evidenceFacts struct {
	predicate, authority, confidence string
	environment                      *Environment
}

func factsOf(e *Evidence) evidenceFacts {
	return evidenceFacts{e.PredicateType, e.Authority, e.Confidence, e.Environment}
}

// ResolutionCheck is how one resolving record meets an unknown's
// requirements.
type ResolutionCheck struct {
	EvidenceID   EvidenceID `json:"evidence_id"`
	Present      bool       `json:"present"`
	Mutation     bool       `json:"mutation"`
	Contradicted bool       `json:"contradicted"`
	Authority    bool       `json:"meets_authority"`
	Confidence   bool       `json:"meets_confidence"`
	Environment  bool       `json:"meets_environment"`
	Qualifies    bool       `json:"qualifies"`
}

// checkResolution applies the verified-resolution rule: at least one
// supporting, non-mutation record meeting the required authority,
// confidence and environment, and no resolving id that the unknown lists as
// contradicting.
func (u *Unknown) checkResolution(lookup func(EvidenceID) (evidenceFacts, bool)) (ok bool, checks []ResolutionCheck, findings []string) {
	if u.Resolution == nil || u.Resolution.Disposition != "verified" {
		return false, []ResolutionCheck{}, []string{}
	}
	contra := map[EvidenceID]bool{}
	for _, id := range u.ContradictingEvidenceIDs {
		contra[id] = true
	}
	checks, findings = []ResolutionCheck{}, []string{}
	contradicted := false
	qualifying := 0
	for _, id := range u.Resolution.EvidenceIDs {
		c := ResolutionCheck{EvidenceID: id, Contradicted: contra[id]}
		f, present := lookup(id)
		c.Present = present
		if present {
			c.Mutation = f.predicate == MutationPredicate
			c.Authority = u.RequiredAuthority == nil || f.authority == *u.RequiredAuthority
			c.Confidence = u.RequiredConfidence == nil || confidenceRank[f.confidence] >= confidenceRank[*u.RequiredConfidence]
			c.Environment = envMatches(u.RequiredEnvironment, f.environment)
			c.Qualifies = !c.Mutation && !c.Contradicted && c.Authority && c.Confidence && c.Environment
		}
		switch {
		case !present:
			findings = append(findings, string(id)+" is not retained")
		case c.Contradicted:
			findings = append(findings, string(id)+" is listed as contradicting evidence")
			contradicted = true
		case c.Mutation:
			findings = append(findings, string(id)+" records a registry mutation, not an observation")
		case !c.Qualifies:
			findings = append(findings, string(id)+" does not meet the required authority, confidence or environment")
		}
		if c.Qualifies {
			qualifying++
		}
		checks = append(checks, c)
	}
	if qualifying == 0 {
		findings = append(findings, "no resolving record qualifies")
	}
	return qualifying > 0 && !contradicted, checks, findings
}

func envMatches(req *RequiredEnvironment, got *Environment) bool {
	if req == nil {
		return true
	}
	if got == nil {
		return req.ID == nil && req.Platform == nil && req.Architecture == nil && req.Isolation == nil
	}
	eq := func(want *string, have string) bool { return want == nil || *want == have }
	return eq(req.ID, got.ID) && eq(req.Platform, got.Platform) && eq(req.Architecture, got.Architecture) && eq(req.Isolation, got.Isolation)
}

// referencedEvidence lists every evidence id a revision names.
func (u *Unknown) referencedEvidence() []EvidenceID {
	ids := append(append(append([]EvidenceID{}, u.SupportingEvidenceIDs...), u.ContradictingEvidenceIDs...), u.MutationEvidenceIDs...)
	if u.Resolution != nil {
		ids = append(ids, u.Resolution.EvidenceIDs...)
	}
	return ids
}

// validateUnknownGraph checks a complete set of revisions: chains run 1..n
// without gaps and link by digest, every referenced record and unknown
// exists, verified resolutions qualify, and depends-on has no cycle (over
// the latest revisions).
func validateUnknownGraph(op string, revs []*Unknown, lookup func(EvidenceID) (evidenceFacts, bool)) error {
	byID := map[UnknownID][]*Unknown{}
	for _, u := range revs {
		if err := u.check(op); err != nil {
			return err
		}
		byID[u.UnknownID] = append(byID[u.UnknownID], u)
	}
	latest := map[UnknownID]*Unknown{}
	for id, chain := range byID {
		sort.Slice(chain, func(i, j int) bool { return chain[i].Revision < chain[j].Revision })
		for i, u := range chain {
			if u.Revision != i+1 {
				return unknownErr(op, CodeEvidenceIntegrityMismatch, "revision-gap",
					fmt.Sprintf("unknown %s: revisions must run 1..n without gaps or repeats; found revision %d at position %d", id, u.Revision, i+1),
					map[string]any{"unknown_id": string(id), "revision": u.Revision})
			}
			if i > 0 && *u.PreviousRevisionDigest != chain[i-1].RevisionDigest {
				return unknownErr(op, CodeEvidenceIntegrityMismatch, "revision-chain",
					fmt.Sprintf("unknown %s: revision %d does not follow revision %d's digest", id, u.Revision, i),
					map[string]any{"unknown_id": string(id), "revision": u.Revision})
			}
		}
		latest[id] = chain[len(chain)-1]
	}
	for _, u := range revs {
		for _, id := range u.referencedEvidence() {
			if _, ok := lookup(id); !ok {
				return unknownErr(op, CodeEvidenceIntegrityMismatch, "missing-evidence",
					fmt.Sprintf("unknown %s revision %d names %s, which is not present", u.UnknownID, u.Revision, id),
					map[string]any{"unknown_id": string(u.UnknownID), "evidence_id": string(id)})
			}
		}
		for _, r := range u.Relationships {
			if _, ok := byID[r.UnknownID]; !ok {
				return unknownErr(op, CodeEvidenceIntegrityMismatch, "missing-unknown",
					fmt.Sprintf("unknown %s relates to %s, which is not present", u.UnknownID, r.UnknownID),
					map[string]any{"unknown_id": string(u.UnknownID), "related_unknown_id": string(r.UnknownID)})
			}
		}
		if u.Resolution != nil && u.Resolution.Disposition == "verified" {
			if ok, _, findings := u.checkResolution(lookup); !ok {
				return unknownErr(op, CodeEvidenceIntegrityMismatch, "unverified-resolution",
					fmt.Sprintf("unknown %s revision %d claims a verified resolution that does not qualify: %s", u.UnknownID, u.Revision, strings.Join(findings, "; ")),
					map[string]any{"unknown_id": string(u.UnknownID), "revision": u.Revision, "findings": findings})
			}
		}
	}
	if cyc := dependsOnCycle(latest); cyc != nil {
		return unknownErr(op, CodeEvidenceIntegrityMismatch, "depends-on-cycle", "depends-on relationships form a cycle: "+strings.Join(cyc, " -> "),
			map[string]any{"cycle": cyc})
	}
	return nil
}

// dependsOnCycle returns one depends-on cycle among the latest revisions,
// or nil.
func dependsOnCycle(latest map[UnknownID]*Unknown) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[UnknownID]int{}
	var stack []UnknownID
	var found []string
	var visit func(id UnknownID) bool
	visit = func(id UnknownID) bool {
		color[id] = grey
		stack = append(stack, id)
		if u := latest[id]; u != nil {
			for _, r := range u.Relationships {
				if r.Type != "depends-on" {
					continue
				}
				switch color[r.UnknownID] {
				case grey:
					for i, s := range stack {
						if s == r.UnknownID {
							for _, c := range stack[i:] {
								found = append(found, string(c))
							}
							found = append(found, string(r.UnknownID))
							return true
						}
					}
				case white:
					if visit(r.UnknownID) {
						return true
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	ids := make([]string, 0, len(latest))
	for id := range latest {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	for _, id := range ids {
		if color[UnknownID(id)] == white && visit(UnknownID(id)) {
			return found
		}
	}
	return nil
}

// parseUnknown strictly decodes one revision.
func parseUnknown(raw []byte) (*Unknown, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, err
	}
	for _, k := range unknownFieldsStrict {
		if _, ok := probe[k]; !ok {
			return nil, fmt.Errorf("missing field %s", k)
		}
	}
	var u Unknown
	if err := decodeStrictJSON(raw, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// sortUnknowns orders revisions by (unknown_id, revision), the bundle order.
func sortUnknowns(revs []*Unknown) {
	sort.Slice(revs, func(i, j int) bool {
		if revs[i].UnknownID != revs[j].UnknownID {
			return revs[i].UnknownID < revs[j].UnknownID
		}
		return revs[i].Revision < revs[j].Revision
	})
}
