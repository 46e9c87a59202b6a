package artifact

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.
//
// The result types are the records the handlers build, declared beside
// the code that builds them: Node, Occurrence, Edge, Contradiction and
// InventoryArtifactResultManifest (artifact.go), InventoryArtifactResult,
// Entry and CompareArtifactsResult (compare.go), ExtractArtifactResult
// (extract.go), InspectArtifactResult (ops.go).

// InventoryArtifactInput is the input of inventory_artifact.
type InventoryArtifactInput struct {
	IntegrityPolicy     string `json:"integrity_policy,omitempty"`      // fail (default): a file whose bytes contradict the hash its container declares fails the call with artifact_...
	MaxCompressionRatio *int   `json:"max_compression_ratio,omitempty"` // Most uncompressed bytes per stored byte of a compressed entry (ZIP bombs), else truncated.
	MaxDepth            *int   `json:"max_depth,omitempty"`             // Most components of a logical path, else truncated.
	MaxEntries          *int   `json:"max_entries,omitempty"`           // Most occurrences the graph may hold, else truncated.
	MaxEntryBytes       *int   `json:"max_entry_bytes,omitempty"`       // Most bytes of one entry, else truncated.
	MaxPathBytes        *int   `json:"max_path_bytes,omitempty"`        // Longest logical path in bytes, else truncated.
	MaxTotalBytes       *int   `json:"max_total_bytes,omitempty"`       // Most bytes read in total (after decompression), else truncated.
	Path                string `json:"path,omitempty"`                  // The artifact to read: a directory, an ASAR (with its .asar.unpacked companion beside it), a ZIP, APK, IPA, ...
	Detail              string `json:"detail,omitempty"`                // concise (default): counts, integrity verdict, a page of entries; complete: every entry.
	Offset              *int   `json:"offset,omitempty"`                // First entry listed (default 0).
	Limit               *int   `json:"limit,omitempty"`                 // Entries listed (default 50).
}

// InspectArtifactInput is the input of inspect_artifact, the same as InventoryArtifactInput.
type InspectArtifactInput = InventoryArtifactInput

// ExtractArtifactInput is the input of extract_artifact.
type ExtractArtifactInput struct {
	IntegrityPolicy     string   `json:"integrity_policy,omitempty"`      // fail (default): a file whose bytes contradict the hash its container declares fails the call with artifact_...
	MaxCompressionRatio *int     `json:"max_compression_ratio,omitempty"` // Most uncompressed bytes per stored byte of a compressed entry (ZIP bombs), else truncated.
	MaxDepth            *int     `json:"max_depth,omitempty"`             // Most components of a logical path, else truncated.
	MaxEntries          *int     `json:"max_entries,omitempty"`           // Most occurrences the graph may hold, else truncated.
	MaxEntryBytes       *int     `json:"max_entry_bytes,omitempty"`       // Most bytes of one entry, else truncated.
	MaxPathBytes        *int     `json:"max_path_bytes,omitempty"`        // Longest logical path in bytes, else truncated.
	MaxTotalBytes       *int     `json:"max_total_bytes,omitempty"`       // Most bytes read in total (after decompression), else truncated.
	OccurrenceIDs       []string `json:"occurrence_ids,omitempty"`        // Regular-file occurrences to write, from inventory_artifact on the same bytes.
	Path                string   `json:"path,omitempty"`                  // The artifact to read: a directory, an ASAR (with its .asar.unpacked companion beside it), a ZIP, APK, IPA, ...
}

// CompareArtifactsInput is the input of compare_artifacts.
type CompareArtifactsInput struct {
	Left           json.RawMessage `json:"left"`                      // The left side: a retained reference {"kind":"retained-evidence","evidence_id":"ev_..."} to an inventory_art...
	Right          json.RawMessage `json:"right"`                     // The right side: a retained reference {"kind":"retained-evidence","evidence_id":"ev_..."} to an inventory_ar...
	MaxDifferences *int            `json:"max_differences,omitempty"` // Most differences listed; counts cover all.
}

var operationTypes = map[string]core.Types{
	"inventory_artifact": core.TypesOf[InventoryArtifactInput, InventoryArtifactResult](),
	"inspect_artifact":   core.TypesOf[InspectArtifactInput, InspectArtifactResult](),
	"extract_artifact":   core.TypesOf[ExtractArtifactInput, ExtractArtifactResult](),
	"compare_artifacts":  core.TypesOf[CompareArtifactsInput, CompareArtifactsResult](),
}
