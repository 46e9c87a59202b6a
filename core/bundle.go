package core

import (
	"encoding/json"
	"sort"
)

// Bundle is the canonical Evidence bundle: the records and the manifests
// derived from them.
type Bundle struct {
	Artifacts    []BundleArtifact  `json:"artifacts"`
	Providers    []ProviderRef     `json:"providers"`
	Environments []Environment     `json:"environments"`
	Scenarios    []BundleScenario  `json:"scenarios"`
	Captures     []BundleCapture   `json:"captures"`
	Unknowns     []json.RawMessage `json:"unknowns"`
	Records      []*Evidence       `json:"records"`
}

// BundleArtifact is a unique subject identity.
type BundleArtifact struct {
	Digest       SubjectDigest `json:"digest"`
	Format       string        `json:"format"`
	Architecture *string       `json:"architecture"`
}

// BundleScenario lists a controlled-replay record.
type BundleScenario struct {
	EvidenceID EvidenceID `json:"evidence_id"`
	Operation  string     `json:"operation"`
	Authority  string     `json:"authority"`
}

// BundleCapture lists a process-capture record.
type BundleCapture struct {
	EvidenceID    EvidenceID `json:"evidence_id"`
	PredicateType string     `json:"predicate_type"`
}

// NewBundle builds the canonical bundle of records. Manifests are unique and
// sorted in code-point order of their compact JSON (a Go-native choice noted
// in ARCHITECTURE.md); records are sorted by evidence_id.
func NewBundle(records []*Evidence) *Bundle {
	recs := make([]*Evidence, len(records)) // never null, even when empty
	copy(recs, records)
	sort.Slice(recs, func(i, j int) bool { return recs[i].EvidenceID < recs[j].EvidenceID })
	m := newManifests()
	for _, r := range recs {
		m.add(r)
	}
	arts, provs, envs := m.sorted()
	return &Bundle{Artifacts: arts, Providers: provs, Environments: envs, Scenarios: m.scenarios, Captures: m.captures,
		Unknowns: []json.RawMessage{}, Records: recs}
}

func keyJSON(v any) string {
	b, _ := MarshalNoEscape(v)
	return string(b)
}
