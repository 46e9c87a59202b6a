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
	b := &Bundle{Artifacts: []BundleArtifact{}, Providers: []ProviderRef{}, Environments: []Environment{},
		Scenarios: []BundleScenario{}, Captures: []BundleCapture{}, Unknowns: []json.RawMessage{}, Records: recs}
	arts := map[string]BundleArtifact{}
	provs := map[string]ProviderRef{}
	envs := map[string]Environment{}
	for _, r := range recs {
		if r.Subject != nil {
			a := BundleArtifact{Digest: r.Subject.Digest, Format: r.Subject.Format, Architecture: r.Subject.Architecture}
			arts[keyJSON(a)] = a
		}
		provs[keyJSON(r.Provider)] = r.Provider
		if r.Environment != nil {
			envs[keyJSON(*r.Environment)] = *r.Environment
		}
		if r.Authority == "controlled-replay" {
			b.Scenarios = append(b.Scenarios, BundleScenario{r.EvidenceID, r.Operation, r.Authority})
		}
		if r.PredicateType == "rea.process-capture" {
			b.Captures = append(b.Captures, BundleCapture{r.EvidenceID, r.PredicateType})
		}
	}
	for _, k := range sortedKeys(arts) {
		b.Artifacts = append(b.Artifacts, arts[k])
	}
	for _, k := range sortedKeys(provs) {
		b.Providers = append(b.Providers, provs[k])
	}
	for _, k := range sortedKeys(envs) {
		b.Environments = append(b.Environments, envs[k])
	}
	return b
}

func keyJSON(v any) string {
	b, _ := MarshalNoEscape(v)
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
