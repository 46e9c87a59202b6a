package core

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"sort"
)

// SummaryRecord is one record of get_evidence_bundle detail:"summary"
// (CONTRACTS.md §14): identity and provenance without the payloads.
type SummaryRecord struct {
	EvidenceID            EvidenceID  `json:"evidence_id"`
	Subject               *Subject    `json:"subject"`
	Provider              ProviderRef `json:"provider"`
	Operation             string      `json:"operation"`
	PredicateType         string      `json:"predicate_type"`
	Confidence            string      `json:"confidence"`
	Authority             string      `json:"authority"`
	AnalysisProfileDigest *string     `json:"analysis_profile_digest"`
	Retention             string      `json:"retention"`
	LimitationCount       int         `json:"limitation_count"`
	NativeDossier         any         `json:"native_dossier"`
}

// BundleSummary is the summary result.
type BundleSummary struct {
	Kind                 string          `json:"kind"`
	Filters              map[string]any  `json:"filters"`
	TotalRetainedRecords int             `json:"total_retained_records"`
	MatchingRecords      int             `json:"matching_records"`
	UnknownRevisions     int             `json:"unknown_revisions"`
	Records              []SummaryRecord `json:"records"`
}

// summaryFilterKeys are the exact-match filters, combined with AND.
var summaryFilterKeys = []string{"evidence_id", "operation", "target_sha256", "analysis_profile_digest", "procedure_address"}

// summarize projects one record; its native_dossier comes from the
// family summarizer of its operation, if any.
func (c *Catalog) summarize(e *Evidence) SummaryRecord {
	var dossier any = map[string]any{"available": false, "reason": "different-operation"}
	if s, ok := c.summarizers[e.Operation]; ok {
		if d, ok := s(e); ok {
			dossier = d
		}
	}
	r := SummaryRecord{EvidenceID: e.EvidenceID, Subject: e.Subject, Provider: e.Provider, Operation: e.Operation,
		PredicateType: e.PredicateType, Confidence: e.Confidence, Authority: e.Authority, Retention: "complete-record",
		LimitationCount: len(e.Limitations), NativeDossier: dossier}
	if e.AnalysisProfile != nil {
		d := e.AnalysisProfile.Digest
		r.AnalysisProfileDigest = &d
	}
	return r
}

// summaryFilter matches summary records exactly; procedure_address matches
// only available dossiers (hex addresses compared by value).
type summaryFilter map[string]string

func newSummaryFilter(args map[string]any) (summaryFilter, map[string]any) {
	f := summaryFilter{}
	echo := map[string]any{}
	m, _ := args["filters"].(map[string]any)
	for _, k := range summaryFilterKeys {
		if v, ok := m[k].(string); ok {
			f[k] = v
			echo[k] = v
		}
	}
	return f, echo
}

func (f summaryFilter) match(r *SummaryRecord) bool {
	if v, ok := f["evidence_id"]; ok && string(r.EvidenceID) != v {
		return false
	}
	if v, ok := f["operation"]; ok && r.Operation != v {
		return false
	}
	if v, ok := f["target_sha256"]; ok && (r.Subject == nil || r.Subject.Digest.SHA256 != v) {
		return false
	}
	if v, ok := f["analysis_profile_digest"]; ok && (r.AnalysisProfileDigest == nil || *r.AnalysisProfileDigest != v) {
		return false
	}
	if v, ok := f["procedure_address"]; ok {
		d, _ := r.NativeDossier.(map[string]any)
		if avail, _ := d["available"].(bool); !avail {
			return false
		}
		addr, _ := d["procedure_address"].(string)
		if !sameAddress(addr, v) {
			return false
		}
	}
	return true
}

func sameAddress(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := ParseHex(a)
	y, err2 := ParseHex(b)
	return err1 == nil && err2 == nil && x == y
}

// summaryBuilder accumulates a summary record by record, so a bundle file
// can be summarized while it streams.
type summaryBuilder struct {
	c *Catalog
	s BundleSummary
	f summaryFilter
}

func (c *Catalog) newSummaryBuilder(args map[string]any) *summaryBuilder {
	f, echo := newSummaryFilter(args)
	return &summaryBuilder{c: c, f: f, s: BundleSummary{Kind: "evidence-bundle-summary", Filters: echo, Records: []SummaryRecord{}}}
}

func (b *summaryBuilder) add(e *Evidence) {
	b.s.TotalRetainedRecords++
	r := b.c.summarize(e)
	if b.f.match(&r) {
		b.s.Records = append(b.s.Records, r)
	}
}

func (b *summaryBuilder) finish(unknownRevisions int) *BundleSummary {
	sort.Slice(b.s.Records, func(i, j int) bool { return b.s.Records[i].EvidenceID < b.s.Records[j].EvidenceID })
	b.s.MatchingRecords = len(b.s.Records)
	b.s.UnknownRevisions = unknownRevisions
	return &b.s
}

// handleGetEvidenceBundle answers get_evidence_bundle from the ledger
// alone; it never starts a provider.
func handleGetEvidenceBundle(_ context.Context, c *Call) (any, error) {
	src := c.Session.bundleSource()
	in, err := Input[GetEvidenceBundleInput](c)
	if err != nil {
		return nil, err
	}
	if in.Detail == "summary" {
		b := c.Session.cat.newSummaryBuilder(c.Args)
		for r := range src.Records {
			b.add(r)
		}
		return b.finish(len(src.Unknowns)), nil
	}
	recs := make([]*Evidence, 0, src.count)
	for r := range src.Records {
		recs = append(recs, r)
	}
	return NewBundleWith(recs, src.Unknowns)
}

// InspectBundleFile is the CLI's inspect-evidence-bundle: it validates the
// bundle at args.path with the import limits and returns the projection
// get_evidence_bundle gives for the same detail and filters. Complete
// detail is written to w as canonical JSON (streamed) and returns nil.
func (c *Catalog) InspectBundleFile(ctx context.Context, args json.RawMessage, w io.Writer) (*BundleSummary, error) {
	m, err := validateInspectBundleArgs(args)
	if err != nil {
		return nil, err
	}
	path := m["path"].(string)
	if d, _ := m["detail"].(string); d == "summary" {
		b := c.newSummaryBuilder(m)
		info, err := ReadBundleFile(ctx, path, nil, func(e *Evidence) error { b.add(e); return nil })
		if err != nil {
			return nil, err
		}
		return b.finish(len(info.Unknowns)), nil
	}
	var recs []*Evidence
	info, err := ReadBundleFile(ctx, path, nil, func(e *Evidence) error { recs = append(recs, e); return nil })
	if err != nil {
		return nil, err
	}
	_, err = WriteBundle(ctx, w, BundleSource{Records: slices.Values(recs), Unknowns: info.Unknowns}, nil)
	return nil, err
}

// bundleFilterProps are get_evidence_bundle's detail and filters, shared by
// the CLI's inspect-evidence-bundle.
const bundleFilterProps = `"detail": {"enum": ["summary"], "description": "Omit for the complete canonical bundle; \"summary\" lists every matching record's identity, provenance and native procedure metadata without payloads."},
  "filters": {"type": "object", "additionalProperties": false, "description": "Exact-match filters, combined with AND; they require detail \"summary\".",
   "properties": {
    "evidence_id": {"type": "string", "pattern": "^ev_[0-9a-f]{64}$", "description": "A record's evidence_id."},
    "operation": {"type": "string", "minLength": 1, "description": "The operation that produced the record, such as analyze_function."},
    "target_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "The SHA-256 of the record's subject."},
    "analysis_profile_digest": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "The digest of the record's analysis profile."},
    "procedure_address": {"type": "string", "pattern": "^(0[xX][0-9a-fA-F]{1,16}|[0-9]{1,20})$", "description": "An analyze_function procedure address; matches only records whose native dossier is available."}}}`

// getEvidenceBundleInput is get_evidence_bundle's canonical input schema:
// filters without detail "summary" are invalid.
var getEvidenceBundleInput = json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
 "properties": {` + bundleFilterProps + `},
 "dependentRequired": {"filters": ["detail"]}}`)

var inspectBundleInput = json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
 "required": ["path"],
 "properties": {"path": {"type": "string", "pattern": "^/", "description": "Absolute path of an exported bundle."}, ` + bundleFilterProps + `},
 "dependentRequired": {"filters": ["detail"]}}`)

var inspectBundleOp = &Operation{Name: "inspect-evidence-bundle", Input: inspectBundleInput, Handler: func(context.Context, *Call) (any, error) { return nil, nil }}

func validateInspectBundleArgs(args json.RawMessage) (map[string]any, error) {
	c := &Catalog{}
	return c.validate(inspectBundleOp, args)
}

// summaryRecordSchema and bundleSummarySchema describe the summary result.
const bundleSummarySchema = `{"type":"object","additionalProperties":false,
 "required":["kind","filters","total_retained_records","matching_records","unknown_revisions","records"],
 "properties":{"kind":{"const":"evidence-bundle-summary"},"filters":{"type":"object"},
  "total_retained_records":{"type":"integer","minimum":0},"matching_records":{"type":"integer","minimum":0},"unknown_revisions":{"type":"integer","minimum":0},
  "records":{"type":"array","items":{"type":"object","additionalProperties":false,
   "required":["evidence_id","subject","provider","operation","predicate_type","confidence","authority","analysis_profile_digest","retention","limitation_count","native_dossier"],
   "properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"subject":{"type":["object","null"]},"provider":{"type":"object"},
    "operation":{"type":"string"},"predicate_type":{"type":"string"},"confidence":{"type":"string"},"authority":{"type":"string"},
    "analysis_profile_digest":{"type":["string","null"]},"retention":{"const":"complete-record"},"limitation_count":{"type":"integer","minimum":0},
    "native_dossier":{"type":"object","required":["available"],"properties":{"available":{"type":"boolean"}}}}}}}}`

const completeBundleSchema = `{"type":"object","additionalProperties":false,
 "required":["artifacts","providers","environments","scenarios","captures","unknowns","records"],
 "properties":{"artifacts":{"type":"array","items":{"type":"object"}},"providers":{"type":"array","items":{"type":"object"}},
  "environments":{"type":"array","items":{"type":"object"}},"scenarios":{"type":"array","items":{"type":"object"}},
  "captures":{"type":"array","items":{"type":"object"}},"unknowns":{"type":"array","items":{"type":"object"}},
  "records":{"type":"array","items":{"type":"object","required":["evidence_id"],"properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}}}}}`

var getEvidenceBundleResult = json.RawMessage(`{"anyOf":[` + completeBundleSchema + `,` + bundleSummarySchema + `]}`)
