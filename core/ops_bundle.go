package core

import (
	"context"
	"encoding/json"
	"fmt"
)

func bundleOperations() []*Operation {
	return []*Operation{opExportEvidenceBundle(), opImportEvidenceBundle(), opSnapshotEvidenceBundle(),
		opReleaseEvidenceBundle(), opCompareBundles()}
}

const absolutePathProp = `{"type": "string", "minLength": 2, "pattern": "^/", "description": "Absolute path of the bundle file."}`

func opExportEvidenceBundle() *Operation {
	return &Operation{
		Name:  "export_evidence_bundle",
		Title: "Export Evidence Bundle",
		Description: "Write this connection's complete Evidence bundle (every retained record and residual unknown) to a file as canonical JSON. " +
			"The bundle is streamed into a staging file beside the destination (mode 0600), synced and atomically renamed, so the destination changes only when a complete export is published; " +
			"cancelling removes the staging file. An existing file is replaced only with overwrite:true; symlinks, FIFOs and other non-regular files are refused. Starts no provider.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{WritesFilesystem: true, MayDiscardData: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["path"],
 "properties": {"path": ` + absolutePathProp + `,
  "overwrite": {"type": "boolean", "default": false, "description": "Replace an existing regular file at path."}}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path","bytes","records","unknowns"],
 "properties":{"path":{"type":"string"},"bytes":{"type":"integer","minimum":0},"records":{"type":"integer","minimum":0},"unknowns":{"type":"integer","minimum":0}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"path":"/tmp/rea-evidence-bundle.json","overwrite":true}`), json.RawMessage(`{"path":"/tmp/evidence.json"}`)},
		Handler: func(ctx context.Context, c *Call) (any, error) {
			in, err := Input[ExportEvidenceBundleInput](c)
			if err != nil {
				return nil, err
			}
			return c.Session.Export(ctx, in.Path, &ExportOptions{Overwrite: in.Overwrite != nil && *in.Overwrite,
				Progress: func(n int) { c.Observe(fmt.Sprintf("wrote %d records", n)) }})
		},
	}
}

func opImportEvidenceBundle() *Operation {
	return &Operation{
		Name:  "import_evidence_bundle",
		Title: "Import Evidence Bundle",
		Description: "Validate an exported Evidence bundle completely (limits derive from this connection's ledger bound: its bytes plus 16 MiB, depth 64, strings as long as the ledger, a value per two bytes, i.e. 80 MiB for a 64 MiB ledger, so any bundle a ledger of the same bound exports reads back; schema, duplicate ids, the unknown revision chains, every record's id re-derived, canonical form) " +
			"and then merge its records and unknowns into this connection's ledger atomically: on any failure nothing is merged. A record whose id is retained with different content is rejected. Starts no provider.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["path"],
 "properties": {"path": ` + absolutePathProp + `}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["imported","total","unknowns_added"],
 "properties":{"imported":{"type":"integer","minimum":0},"total":{"type":"integer","minimum":0},"unknowns_added":{"type":"integer","minimum":0}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"path":"/tmp/rea-evidence-bundle.json"}`)},
		Handler: func(ctx context.Context, c *Call) (any, error) {
			in, err := Input[ImportEvidenceBundleInput](c)
			if err != nil {
				return nil, err
			}
			return c.Session.ImportBundleFile(ctx, in.Path, nil)
		},
	}
}

func opSnapshotEvidenceBundle() *Operation {
	return &Operation{
		Name:  "snapshot_evidence_bundle",
		Title: "Snapshot Evidence Bundle",
		Description: "Freeze this connection's current bundle under its digest (SHA-256 of its canonical JSON) and return a rea://evidence-bundle/<digest> resource URI to read it with resources/read. " +
			"At most 16 snapshots and 64 MiB per connection; they do not survive the session, and close_binary or release_evidence_bundle drops them.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{MutatesSession: true, Idempotent: true},
		Input:           json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["bundle_digest","bundle_uri","bytes","records","unknowns","scope","survives_session"],
 "properties":{"bundle_digest":{"type":"string","pattern":"^[0-9a-f]{64}$"},"bundle_uri":{"type":"string","pattern":"^rea://evidence-bundle/[0-9a-f]{64}$"},
  "bytes":{"type":"integer","minimum":0},"records":{"type":"integer","minimum":0},"unknowns":{"type":"integer","minimum":0},
  "scope":{"const":"session"},"survives_session":{"const":false}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *Call) (any, error) {
			return c.Session.Snapshot(ctx)
		},
	}
}

func opReleaseEvidenceBundle() *Operation {
	return &Operation{
		Name:            "release_evidence_bundle",
		Title:           "Release Evidence Bundle",
		Description:     "Drop a snapshot made by snapshot_evidence_bundle; released reports whether it was held. Retained records are not affected.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{MutatesSession: true, MayDiscardData: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"required":["bundle_digest"],
 "properties":{"bundle_digest":{"type":"string","pattern":"^[0-9a-f]{64}$","description":"The bundle_digest returned by snapshot_evidence_bundle."}}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["bundle_digest","released"],
 "properties":{"bundle_digest":{"type":"string"},"released":{"type":"boolean"}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"bundle_digest":"0000000000000000000000000000000000000000000000000000000000000000"}`)},
		Handler: func(ctx context.Context, c *Call) (any, error) {
			in, err := Input[ReleaseEvidenceBundleInput](c)
			if err != nil {
				return nil, err
			}
			return &ReleaseEvidenceBundleResult{BundleDigest: in.BundleDigest, Released: c.Session.ReleaseSnapshot(in.BundleDigest)}, nil
		},
	}
}

const bundleSideSchema = `{"oneOf": [
  {"type": "object", "additionalProperties": false, "required": ["kind", "path"], "properties": {"kind": {"const": "bundle"}, "path": ` + absolutePathProp + `}},
  {"type": "object", "additionalProperties": false, "required": ["kind"], "properties": {"kind": {"const": "session"}}},
  {"type": "object", "additionalProperties": false, "required": ["kind", "records"], "properties": {"kind": {"const": "evidence"},
   "records": {"type": "array", "maxItems": 10000, "description": "Complete inline Evidence records or retained references.", "items": {"anyOf": [
    {"type": "object", "additionalProperties": false, "required": ["kind", "evidence_id"], "properties": {"kind": {"const": "retained-evidence"}, "evidence_id": {"type": "string", "pattern": "^ev_[0-9a-f]{64}$"}}},
    {"type": "object", "required": ["evidence_id", "normalized_result"]}]}}}}],
 "description": "A bundle file ({kind:\"bundle\",path}), this connection's ledger ({kind:\"session\"}) or a set of Evidence ({kind:\"evidence\",records})."}`

func opCompareBundles() *Operation {
	return &Operation{
		Name:  "compare_bundles",
		Title: "Compare Evidence Bundles",
		Description: "Compare two Evidence bundles or Evidence sets record by record: records answering the same question (operation, parameters, subject bytes, provider) whose ids differ are changed, with the differing fields as reasons; others are added or removed; unknowns are compared by their latest revision. " +
			"Truncated, paged or failed records are marked incomplete, and incomplete evidence never yields no-differences-observed. Starts no provider.",
		Kind:    KindEnhanced,
		Effects: Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["left", "right"],
 "properties": {"left": ` + bundleSideSchema + `, "right": ` + bundleSideSchema + `}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["left","right","counts","added","removed","changed","unknowns","conclusion","conclusion_reasons"],
 "properties":{"left":{"type":"object"},"right":{"type":"object"},"counts":{"type":"object"},
  "added":{"type":"array","items":{"type":"object"}},"removed":{"type":"array","items":{"type":"object"}},"changed":{"type":"array","items":{"type":"object"}},
  "unknowns":{"type":"object"},"conclusion":{"enum":["different","no-differences-observed","indeterminate"]},"conclusion_reasons":{"type":"array","items":{"type":"string"}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"left":{"kind":"session"},"right":{"kind":"session"}}`),
			json.RawMessage(`{"left":{"kind":"bundle","path":"/tmp/before.json"},"right":{"kind":"bundle","path":"/tmp/after.json"}}`)},
		Handler: handleCompareBundles,
	}
}

func handleCompareBundles(ctx context.Context, c *Call) (any, error) {
	var sides [2]*bundleSide
	for i, name := range []string{"left", "right"} {
		v, _ := c.Args[name].(map[string]any)
		s, err := loadSide(ctx, c.Session, name, v)
		if err != nil {
			return nil, err
		}
		sides[i] = s
	}
	res, err := compareSides(ctx, sides[0], sides[1])
	if err != nil {
		return nil, err
	}
	return &Observation{Result: res, Unbound: true, Confidence: ConfidenceDerived}, nil
}

// CompareBundleFiles compares two bundle files, as `rea compare` does.
func (s *Session) CompareBundleFiles(ctx context.Context, left, right string) (*Result, error) {
	args, err := MarshalNoEscape(map[string]any{"left": map[string]any{"kind": "bundle", "path": left}, "right": map[string]any{"kind": "bundle", "path": right}})
	if err != nil {
		return nil, err
	}
	return s.Call(ctx, "compare_bundles", args, nil)
}
