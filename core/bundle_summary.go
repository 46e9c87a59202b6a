package core

import (
	"context"
	"encoding/json"
	"io"
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

// summarize projects one record. It reads only analyze_function's
// procedure{address, name} and native_value_flow.
func summarize(e *Evidence) SummaryRecord {
	r := SummaryRecord{EvidenceID: e.EvidenceID, Subject: e.Subject, Provider: e.Provider, Operation: e.Operation,
		PredicateType: e.PredicateType, Confidence: e.Confidence, Authority: e.Authority, Retention: "complete-record",
		LimitationCount: len(e.Limitations), NativeDossier: nativeDossier(e)}
	if e.AnalysisProfile != nil {
		d := e.AnalysisProfile.Digest
		r.AnalysisProfileDigest = &d
	}
	return r
}

func nativeDossier(e *Evidence) map[string]any {
	if e.Operation != "analyze_function" || e.PredicateType != DefaultPredicate {
		return map[string]any{"available": false, "reason": "different-operation"}
	}
	var nr struct {
		Procedure *struct {
			Address *string `json:"address"`
			Name    *string `json:"name"`
		} `json:"procedure"`
		ValueFlow json.RawMessage `json:"native_value_flow"`
	}
	if json.Unmarshal(e.NormalizedResult, &nr) != nil || nr.Procedure == nil || nr.Procedure.Address == nil {
		return map[string]any{"available": false, "reason": "not-recorded-or-incompatible"}
	}
	return map[string]any{"available": true, "procedure_address": *nr.Procedure.Address,
		"procedure_name": nr.Procedure.Name, "value_flow": valueFlowStatus(nr.ValueFlow)}
}

// valueFlowStatus reports what a record says of its value flow without
// inventing counts: missing counts stay null.
func valueFlowStatus(raw json.RawMessage) map[string]any {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{"status": "not-recorded"}
	}
	var vf map[string]any
	if err := json.Unmarshal(raw, &vf); err != nil {
		return map[string]any{"status": "unknown", "reason": "value-flow record is not an object"}
	}
	reason := func() string {
		if s, ok := vf["reason"].(string); ok && s != "" {
			return s
		}
		return "unspecified"
	}
	status, _ := vf["status"].(string)
	if avail, ok := vf["available"].(bool); ok && !avail && status == "" {
		status = "unavailable"
	}
	count := func(names ...string) any {
		for _, n := range names {
			for _, m := range []map[string]any{vf, asMap(vf["omissions"]), asMap(vf["coverage"])} {
				if v, ok := m[n].(float64); ok {
					return int64(v)
				}
			}
		}
		return nil
	}
	switch status {
	case "observed", "complete", "partial", "truncated":
		truncated, _ := vf["truncated"].(bool)
		return map[string]any{"status": "observed", "truncated": truncated || status == "truncated",
			"omitted_operations_lower_bound": count("omitted_operations_lower_bound", "omitted_operations"),
			"known_omitted_inputs":           count("known_omitted_inputs", "omitted_inputs"),
			"known_omitted_edges":            count("known_omitted_edges", "omitted_edges")}
	case "unavailable":
		return map[string]any{"status": "unavailable", "reason": reason()}
	case "not-recorded":
		return map[string]any{"status": "not-recorded"}
	}
	return map[string]any{"status": "unknown", "reason": "unrecognized value-flow status " + jsonString(status)}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func jsonString(s string) string { return string(appendCanonicalString(nil, s)) }

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
	s BundleSummary
	f summaryFilter
}

func newSummaryBuilder(args map[string]any) *summaryBuilder {
	f, echo := newSummaryFilter(args)
	return &summaryBuilder{f: f, s: BundleSummary{Kind: "evidence-bundle-summary", Filters: echo, Records: []SummaryRecord{}}}
}

func (b *summaryBuilder) add(e *Evidence) {
	b.s.TotalRetainedRecords++
	r := summarize(e)
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
	if d, _ := c.Args["detail"].(string); d == "summary" {
		b := newSummaryBuilder(c.Args)
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
func InspectBundleFile(ctx context.Context, args json.RawMessage, w io.Writer) (*BundleSummary, error) {
	m, err := validateInspectBundleArgs(args)
	if err != nil {
		return nil, err
	}
	path := m["path"].(string)
	if d, _ := m["detail"].(string); d == "summary" {
		b := newSummaryBuilder(m)
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
	_, err = WriteBundle(ctx, w, BundleSource{Records: sliceSeq(recs), Unknowns: info.Unknowns}, nil)
	return nil, err
}

func sliceSeq(recs []*Evidence) func(func(*Evidence) bool) {
	return func(yield func(*Evidence) bool) {
		for _, r := range recs {
			if !yield(r) {
				return
			}
		}
	}
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
