package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"rea/core/internal/jcs"
)

// Subject identifies the bytes an observation is about.
type Subject struct {
	Name         string        `json:"name"`
	Digest       SubjectDigest `json:"digest"`
	Format       string        `json:"format"`
	Architecture *string       `json:"architecture"`
	LocalPath    string        `json:"local_path"`
}

// SubjectDigest holds the subject's content hash.
type SubjectDigest struct {
	SHA256 string `json:"sha256"`
}

// ProviderRef names the engine (or rea itself) that observed.
type ProviderRef struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Version *string `json:"version"`
}

// Environment describes where a dynamic observation ran.
type Environment struct {
	ID           string `json:"id"`
	Platform     string `json:"platform"`
	Architecture string `json:"architecture"`
	Isolation    string `json:"isolation"`
}

// Location points into the subject. Addresses are "0x" hex strings.
type Location struct {
	Kind    string `json:"kind"` // address, address-range, artifact-path, file-offset, file-offset-range
	Address string `json:"address,omitempty"`
	Start   any    `json:"start,omitempty"` // hex string for addresses, int for offsets
	End     any    `json:"end,omitempty"`
	Path    string `json:"path,omitempty"`
	Offset  *int64 `json:"offset,omitempty"`
}

// Confidence and authority values.
const (
	ConfidenceObserved = "observed"
	ConfidenceDerived  = "derived"
	ConfidenceInferred = "inferred"

	AuthorityShippedArtifact = "shipped-artifact"

	DefaultPredicate = "rea.analysis"
)

var (
	confidences = []string{ConfidenceObserved, ConfidenceDerived, ConfidenceInferred}
	authorities = []string{"shipped-artifact", "controlled-replay", "historical-reference", "external-service", "analyst-inference"}
	isolations  = []string{"none", "process", "container", "virtual-machine"}
	archs       = []string{"x86", "x86_64", "arm", "arm64"}
)

// Evidence is the canonical record of one observation.
type Evidence struct {
	EvidenceID       EvidenceID      `json:"evidence_id"`
	Subject          *Subject        `json:"subject"`
	Provider         ProviderRef     `json:"provider"`
	AnalysisProfile  *Profile        `json:"analysis_profile"`
	PredicateType    string          `json:"predicate_type"`
	Operation        string          `json:"operation"`
	Parameters       json.RawMessage `json:"parameters"`
	RawResult        json.RawMessage `json:"raw_result"`
	NormalizedResult json.RawMessage `json:"normalized_result"`
	Confidence       string          `json:"confidence"`
	Authority        string          `json:"authority"`
	Environment      *Environment    `json:"environment"`
	Limitations      []string        `json:"limitations"`
	Locations        []Location      `json:"locations"`
	EvidenceLinks    []EvidenceID    `json:"evidence_links"`
}

// ComputeID derives the record's ID from its semantic projection, streamed
// through SHA-256 without building the projection's bytes.
func (e *Evidence) ComputeID() (EvidenceID, error) {
	d, _, err := e.digestForm(formProjection)
	if err != nil {
		return "", err
	}
	return EvidenceID("ev_" + d), nil
}

// Seal fills defaults, canonicalizes the JSON payloads and sets EvidenceID.
func (e *Evidence) Seal() error {
	for _, f := range []*json.RawMessage{&e.Parameters, &e.RawResult, &e.NormalizedResult} {
		if len(*f) == 0 {
			*f = json.RawMessage("null")
		}
		c, err := Canonicalize(*f)
		if err != nil {
			return fmt.Errorf("seal evidence: %w", err)
		}
		*f = c
	}
	return e.sealCanonical()
}

// sealCanonical is Seal for records whose payloads are already canonical
// (core produced them), so large results are not re-encoded.
func (e *Evidence) sealCanonical() error {
	if e.PredicateType == "" {
		e.PredicateType = DefaultPredicate
	}
	if e.Confidence == "" {
		e.Confidence = ConfidenceObserved
	}
	if e.Authority == "" {
		e.Authority = AuthorityShippedArtifact
	}
	if e.Limitations == nil {
		e.Limitations = []string{}
	}
	if e.Locations == nil {
		e.Locations = []Location{}
	}
	if e.EvidenceLinks == nil {
		e.EvidenceLinks = []EvidenceID{}
	}
	for _, f := range []*json.RawMessage{&e.Parameters, &e.RawResult, &e.NormalizedResult} {
		if len(*f) == 0 {
			*f = json.RawMessage("null")
		}
	}
	if err := e.validate(); err != nil {
		return err
	}
	id, err := e.ComputeID()
	if err != nil {
		return fmt.Errorf("seal evidence: %w", err)
	}
	e.EvidenceID = id
	return nil
}

// MarshalCanonical returns the record's JCS bytes.
func (e *Evidence) MarshalCanonical() ([]byte, error) {
	var b bytes.Buffer
	if err := e.writeCanonical(&b, formFull); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ParseEvidence strictly decodes a record, re-validates it and recomputes its
// ID. Unknown fields, a missing analysis_profile and a tampered ID are
// rejected with evidence_integrity_mismatch.
func ParseEvidence(raw []byte) (*Evidence, error) {
	// One pass: every member's value is canonicalized (the large results
	// are kept as they come out), keys must be exactly the record's fields,
	// each once; the small fields are then decoded strictly, together.
	var e Evidence
	var seen [len(evidenceFields)]bool
	small := make([]byte, 0, 512)
	small = append(small, '{')
	err := jcs.Members(raw, func(key string, v []byte) error {
		i := slices.Index(evidenceFields[:], key)
		if i < 0 {
			return errors.New("unknown field " + strconv.Quote(key))
		}
		if seen[i] {
			return errors.New("duplicate field " + key)
		}
		seen[i] = true
		switch key {
		case "parameters":
			e.Parameters = v
		case "raw_result":
			e.RawResult = v
		case "normalized_result":
			e.NormalizedResult = v
		default:
			if len(small) > 1 {
				small = append(small, ',')
			}
			small = AppendCanonicalString(small, key)
			small = append(append(small, ':'), v...)
		}
		return nil
	})
	if err != nil {
		return nil, evidenceErr(err.Error())
	}
	for i, ok := range seen {
		if !ok {
			return nil, evidenceErr("missing field " + evidenceFields[i])
		}
	}
	dec := json.NewDecoder(bytes.NewReader(append(small, '}')))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, evidenceErr(err.Error())
	}
	claimed := e.EvidenceID
	if err := e.validate(); err != nil {
		return nil, err
	}
	id, err := e.ComputeID()
	if err != nil {
		return nil, evidenceErr(err.Error())
	}
	if id != claimed {
		return nil, &Error{Code: CodeEvidenceIntegrityMismatch,
			Message: "evidence: id does not match content (tampered or not canonical)",
			Details: map[string]any{"reason": "id_mismatch", "expected": string(id), "actual": string(claimed)}}
	}
	return &e, nil
}

// evidenceFields are a record's members, all required.
var evidenceFields = [...]string{"evidence_id", "subject", "provider", "analysis_profile", "predicate_type",
	"operation", "parameters", "raw_result", "normalized_result", "confidence", "authority",
	"environment", "limitations", "locations", "evidence_links"}

func evidenceErr(msg string) *Error {
	return &Error{Code: CodeEvidenceIntegrityMismatch, Message: "evidence: " + msg,
		Details: map[string]any{"reason": "invalid_record"}}
}

func (e *Evidence) validate() error {
	if e.Operation == "" {
		return evidenceErr("operation is empty")
	}
	if e.Provider.ID == "" || e.Provider.Name == "" {
		return evidenceErr("provider id and name are required")
	}
	if !slices.Contains(confidences, e.Confidence) {
		return evidenceErr("confidence " + e.Confidence + " is not one of " + strings.Join(confidences, ", "))
	}
	if !slices.Contains(authorities, e.Authority) {
		return evidenceErr("authority " + e.Authority + " is not valid")
	}
	if e.Environment != nil && !slices.Contains(isolations, e.Environment.Isolation) {
		return evidenceErr("environment isolation " + e.Environment.Isolation + " is not valid")
	}
	if p := e.Parameters; len(p) == 0 || p[0] != '{' {
		return evidenceErr("parameters must be a JSON object")
	}
	if s := e.Subject; s != nil {
		if !isHex64(s.Digest.SHA256) {
			return evidenceErr("subject digest is not a sha256")
		}
		if s.Architecture != nil && !slices.Contains(archs, *s.Architecture) {
			return evidenceErr("subject architecture " + *s.Architecture + " is not valid")
		}
	}
	if p := e.AnalysisProfile; p != nil {
		if err := p.Verify(); err != nil {
			return err
		}
		if p.Provider.ID != e.Provider.ID || p.Provider.Name != e.Provider.Name ||
			e.Provider.Version == nil || p.Provider.Version != *e.Provider.Version {
			return evidenceErr("analysis_profile provider differs from the record's provider")
		}
	}
	for _, l := range e.Locations {
		switch l.Kind {
		case "address", "address-range", "artifact-path", "file-offset", "file-offset-range":
		default:
			return evidenceErr("location kind " + l.Kind + " is not valid")
		}
	}
	for _, id := range e.EvidenceLinks {
		if _, err := ParseEvidenceID(string(id)); err != nil {
			return evidenceErr(err.Error())
		}
	}
	return nil
}

// NewSubject describes a target for Evidence.
func NewSubject(localPath, sha256, format, arch string) *Subject {
	name := path.Base(strings.ReplaceAll(localPath, "\\", "/"))
	if name == "" || name == "." || name == "/" {
		name = "artifact"
	}
	s := &Subject{Name: name, Digest: SubjectDigest{SHA256: sha256}, Format: format, LocalPath: localPath}
	if arch != "" && slices.Contains(archs, arch) {
		a := arch
		s.Architecture = &a
	}
	return s
}
