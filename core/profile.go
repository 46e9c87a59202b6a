package core

import (
	"encoding/json"
	"fmt"
)

// Profile is an analysis profile: the engine and configuration that shaped
// an observation, with its own digest.
type Profile struct {
	SchemaVersion                int             `json:"schema_version"`
	Provider                     ProfileProvider `json:"provider"`
	ProviderProfileSchemaVersion int             `json:"provider_profile_schema_version"`
	Parameters                   json.RawMessage `json:"parameters"`
	Digest                       string          `json:"digest"`
}

// ProfileProvider is a provider with a concrete version.
type ProfileProvider struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Profile parameter limits.
const (
	profileMaxDepth   = 16
	profileMaxString  = 16384
	profileMaxNodes   = 4096
	profileMaxJCSSize = 65536
)

// NewProfile builds and digests a profile.
func NewProfile(p ProfileProvider, providerSchemaVersion int, params map[string]any) (*Profile, error) {
	if params == nil {
		params = map[string]any{}
	}
	raw, err := CanonicalJSON(params)
	if err != nil {
		return nil, fmt.Errorf("analysis profile: %w", err)
	}
	pr := &Profile{SchemaVersion: 1, Provider: p, ProviderProfileSchemaVersion: providerSchemaVersion, Parameters: raw}
	if err := pr.checkShape(); err != nil {
		return nil, err
	}
	pr.Digest = pr.computeDigest()
	return pr, nil
}

func (p *Profile) computeDigest() string {
	return MustDigest(struct {
		SchemaVersion                int             `json:"schema_version"`
		Provider                     ProfileProvider `json:"provider"`
		ProviderProfileSchemaVersion int             `json:"provider_profile_schema_version"`
		Parameters                   json.RawMessage `json:"parameters"`
	}{p.SchemaVersion, p.Provider, p.ProviderProfileSchemaVersion, p.Parameters})
}

func (p *Profile) checkShape() error {
	if p.SchemaVersion != 1 {
		return evidenceErr("analysis profile schema_version must be 1")
	}
	if p.Provider.ID == "" || p.Provider.Name == "" || p.Provider.Version == "" {
		return evidenceErr("analysis profile provider needs id, name and version")
	}
	if p.ProviderProfileSchemaVersion < 1 {
		return evidenceErr("analysis profile provider_profile_schema_version must be >= 1")
	}
	c, err := Canonicalize(p.Parameters)
	if err != nil {
		return evidenceErr("analysis profile parameters: " + err.Error())
	}
	if len(c) > profileMaxJCSSize {
		return evidenceErr("analysis profile parameters exceed 65536 canonical bytes")
	}
	v, _ := decodeJSON(c)
	if _, ok := v.(map[string]any); !ok {
		return evidenceErr("analysis profile parameters must be an object")
	}
	nodes := 0
	if !walkBounded(v, 1, &nodes) {
		return evidenceErr("analysis profile parameters exceed depth 16, 4096 nodes or 16384-character strings")
	}
	p.Parameters = c
	return nil
}

func walkBounded(v any, depth int, nodes *int) bool {
	*nodes++
	if depth > profileMaxDepth || *nodes > profileMaxNodes {
		return false
	}
	switch x := v.(type) {
	case string:
		return len([]rune(x)) <= profileMaxString
	case []any:
		for _, e := range x {
			if !walkBounded(e, depth+1, nodes) {
				return false
			}
		}
	case map[string]any:
		for k, e := range x {
			if len([]rune(k)) > profileMaxString || !walkBounded(e, depth+1, nodes) {
				return false
			}
		}
	}
	return true
}

// Verify re-checks the shape and recomputes the digest.
func (p *Profile) Verify() error {
	if err := p.checkShape(); err != nil {
		return err
	}
	if d := p.computeDigest(); d != p.Digest {
		return &Error{Code: CodeEvidenceIntegrityMismatch, Message: "analysis profile: digest does not match content",
			Details: map[string]any{"reason": "profile_digest_mismatch", "expected": d, "actual": p.Digest}}
	}
	return nil
}

// Equal compares digests, provider fields and both versions.
func (p *Profile) Equal(q *Profile) bool {
	if p == nil || q == nil {
		return p == q
	}
	return p.Digest == q.Digest && p.Provider == q.Provider && p.SchemaVersion == q.SchemaVersion &&
		p.ProviderProfileSchemaVersion == q.ProviderProfileSchemaVersion
}
