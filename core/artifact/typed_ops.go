package artifact

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// InventoryArtifactInput is the input of inventory_artifact.
type InventoryArtifactInput struct {
	IntegrityPolicy     string `json:"integrity_policy,omitempty"`      // fail (default): a file whose bytes contradict the hash its container declares fails the call with artifact_...
	MaxCompressionRatio *int   `json:"max_compression_ratio,omitempty"` // Most uncompressed bytes per stored byte of a compressed entry (ZIP bombs); more fails with truncated.
	MaxDepth            *int   `json:"max_depth,omitempty"`             // Most components of a logical path; deeper fails with truncated.
	MaxEntries          *int   `json:"max_entries,omitempty"`           // Most occurrences the graph may hold; more fails with truncated.
	MaxEntryBytes       *int   `json:"max_entry_bytes,omitempty"`       // Most bytes of one entry; more fails with truncated.
	MaxPathBytes        *int   `json:"max_path_bytes,omitempty"`        // Longest logical path in bytes; longer fails with truncated.
	MaxTotalBytes       *int   `json:"max_total_bytes,omitempty"`       // Most bytes read in total (after decompression); more fails with truncated.
	Path                string `json:"path,omitempty"`                  // The artifact to read: a directory, an ASAR (with its .asar.unpacked companion beside it), a ZIP, APK, IPA, ...
}

// InventoryArtifactResultManifest is part of the result of inventory_artifact.
type InventoryArtifactResultManifest struct {
	SchemaVersion   int    `json:"schema_version"`
	ManifestID      string `json:"manifest_id"`      // agm_ + Digest({schema_version:1, root_artifact_id, graph_sha256}).
	RootArtifactID  string `json:"root_artifact_id"` // art_ + Digest({schema_version:1, sha256}): the content's identity.
	RootSHA256      string `json:"root_sha256"`
	RootFormat      string `json:"root_format"`
	GraphSHA256     string `json:"graph_sha256"` // Digest({nodes, occurrences, edges, integrity_contradictions}).
	NodeCount       int    `json:"node_count"`
	OccurrenceCount int    `json:"occurrence_count"`
	EdgeCount       int    `json:"edge_count"`
}

// Node is part of the result of inventory_artifact.
type Node struct {
	ArtifactID   string   `json:"artifact_id"` // art_ + Digest({schema_version:1, sha256}): the content's identity.
	Kind         string   `json:"kind"`
	Format       string   `json:"format"`
	SHA256       string   `json:"sha256"` // SHA-256 of the bytes; for a directory Digest({kind:"directory", children:[{name, artifact_id, entry_kind}]}...
	Size         int      `json:"size"`   // Bytes of a file; total file bytes beneath a directory; length of a link target.
	MediaType    *string  `json:"media_type"`
	Architecture *string  `json:"architecture"`
	Executable   bool     `json:"executable"`    // The bytes are a runnable image or script (whatever the file mode; the mode is on the occurrence).
	ContentState string   `json:"content_state"` // materialized: a file on disk; embedded: inside a container; virtual: a directory or link.
	Limitations  []string `json:"limitations"`
}

// OccurrenceSourceLocation is part of the result of inventory_artifact.
type OccurrenceSourceLocation struct {
	Offset int `json:"offset"`
	Length int `json:"length"`
}

// Occurrence is part of the result of inventory_artifact.
type Occurrence struct {
	OccurrenceID       string                    `json:"occurrence_id"` // occ_ + Digest({root_artifact_id, logical_path, entry_kind}); the root's is Digest({root: artifact_id}).
	ArtifactID         *string                   `json:"artifact_id"`
	ParentOccurrenceID *string                   `json:"parent_occurrence_id"`
	LogicalPath        string                    `json:"logical_path"` // Relative POSIX path; "." for the root.
	EntryKind          string                    `json:"entry_kind"`
	DeclaredSize       *int                      `json:"declared_size"`
	CompressedSize     *int                      `json:"compressed_size"`
	Executable         bool                      `json:"executable"`
	Encrypted          bool                      `json:"encrypted"`
	HashStatus         string                    `json:"hash_status"`
	SourceLocation     *OccurrenceSourceLocation `json:"source_location"`
	Limitations        []string                  `json:"limitations"`
}

// Edge is part of the result of inventory_artifact.
type Edge struct {
	EdgeID           string          `json:"edge_id"`
	Ordinal          int             `json:"ordinal"`
	ParentArtifactID string          `json:"parent_artifact_id"` // art_ + Digest({schema_version:1, sha256}): the content's identity.
	ChildArtifactID  string          `json:"child_artifact_id"`  // art_ + Digest({schema_version:1, sha256}): the content's identity.
	Relation         string          `json:"relation"`
	OccurrenceID     string          `json:"occurrence_id"` // occ_ + Digest({root_artifact_id, logical_path, entry_kind}); the root's is Digest({root: artifact_id}).
	LogicalPath      *string         `json:"logical_path"`
	Producer         json.RawMessage `json:"producer"`
}

// InventoryArtifactResultLimits is part of the result of inventory_artifact.
type InventoryArtifactResultLimits struct {
	MaxEntries          int `json:"max_entries"`
	MaxTotalBytes       int `json:"max_total_bytes"`
	MaxEntryBytes       int `json:"max_entry_bytes"`
	MaxCompressionRatio int `json:"max_compression_ratio"`
	MaxDepth            int `json:"max_depth"`
	MaxPathBytes        int `json:"max_path_bytes"`
}

// InventoryArtifactResultProvenance is part of the result of inventory_artifact.
type InventoryArtifactResultProvenance struct {
	Tool            string `json:"tool"`
	IntegrityPolicy string `json:"integrity_policy"`
	RootKind        string `json:"root_kind"`
	Method          string `json:"method"`
}

// InventoryArtifactResultContradiction is part of the result of inventory_artifact.
type InventoryArtifactResultContradiction struct {
	ContradictionID  string   `json:"contradiction_id"`
	OccurrenceID     string   `json:"occurrence_id"`      // occ_ + Digest({root_artifact_id, logical_path, entry_kind}); the root's is Digest({root: artifact_id}).
	ParentArtifactID string   `json:"parent_artifact_id"` // art_ + Digest({schema_version:1, sha256}): the content's identity.
	LogicalPath      string   `json:"logical_path"`
	DeclaredSHA256   string   `json:"declared_sha256"`
	ObservedSHA256   string   `json:"observed_sha256"`
	EntryKind        string   `json:"entry_kind"`
	Unpacked         bool     `json:"unpacked"`
	Trust            string   `json:"trust"`
	Provenance       string   `json:"provenance"`
	Limitations      []string `json:"limitations"`
}

// InventoryArtifactResult is the result of inventory_artifact.
type InventoryArtifactResult struct {
	Manifest                InventoryArtifactResultManifest        `json:"manifest"`
	Nodes                   []Node                                 `json:"nodes"`       // Distinct contents, sorted by artifact_id.
	Occurrences             []Occurrence                           `json:"occurrences"` // Where each content was found: the root first, then by logical_path in code-point order.
	Edges                   []Edge                                 `json:"edges"`       // contains (parent to child) and maps-source (x.map to x), sorted by edge_id.
	Limits                  InventoryArtifactResultLimits          `json:"limits"`
	Provenance              InventoryArtifactResultProvenance      `json:"provenance"`
	IntegrityContradictions []InventoryArtifactResultContradiction `json:"integrity_contradictions"`
	Limitations             []string                               `json:"limitations"`
}

// InspectArtifactResultSubject is part of the result of inspect_artifact.
type InspectArtifactResultSubject struct {
	RootArtifactID      string `json:"root_artifact_id"` // art_ + Digest({schema_version:1, sha256}): the content's identity.
	RootSHA256          string `json:"root_sha256"`
	RootFormat          string `json:"root_format"`
	ManifestID          string `json:"manifest_id"`
	GraphSHA256         string `json:"graph_sha256"`
	OccurrenceCount     int    `json:"occurrence_count"`
	InventoryEvidenceID string `json:"inventory_evidence_id"` // The inventory_artifact Evidence this inspection recorded and built on.
}

// InspectArtifactResultSubstep is part of the result of inspect_artifact.
type InspectArtifactResultSubstep struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Count  int    `json:"count"`
}

// Entry is part of the result of inspect_artifact.
type Entry struct {
	OccurrenceID string   `json:"occurrence_id"` // occ_ + Digest({root_artifact_id, logical_path, entry_kind}); the root's is Digest({root: artifact_id}).
	LogicalPath  string   `json:"logical_path"`
	EntryKind    string   `json:"entry_kind"`
	ArtifactID   *string  `json:"artifact_id"`
	SHA256       *string  `json:"sha256"`
	Size         *int     `json:"size"`
	Kind         *string  `json:"kind"`
	Format       *string  `json:"format"`
	Executable   bool     `json:"executable"` // The occurrence's file mode (or container flag) marks it executable.
	HashStatus   string   `json:"hash_status"`
	Relations    []string `json:"relations"` // Edges the entry is the parent of: contains:<n> for an expanded container, maps-source:<path> for a source map.
}

// InspectArtifactResultDerivedRelationship is part of the result of inspect_artifact.
type InspectArtifactResultDerivedRelationship struct {
	Relation        string `json:"relation"`
	FromLogicalPath string `json:"from_logical_path"`
	ToLogicalPath   string `json:"to_logical_path"`
	EdgeID          string `json:"edge_id"`
}

// InspectArtifactResultHypothese is part of the result of inspect_artifact.
type InspectArtifactResultHypothese struct {
	Statement  string   `json:"statement"`
	Confidence string   `json:"confidence"`
	Basis      []string `json:"basis"`
}

// InspectArtifactResultContradiction is part of the result of inspect_artifact.
type InspectArtifactResultContradiction struct {
	ContradictionID string `json:"contradiction_id"`
	OccurrenceID    string `json:"occurrence_id"` // occ_ + Digest({root_artifact_id, logical_path, entry_kind}); the root's is Digest({root: artifact_id}).
	DeclaredSHA256  string `json:"declared_sha256"`
	ObservedSHA256  string `json:"observed_sha256"`
	EvidenceID      string `json:"evidence_id"`
	Statement       string `json:"statement"`
}

// InspectArtifactResultUnexploredBranche is part of the result of inspect_artifact.
type InspectArtifactResultUnexploredBranche struct {
	OccurrenceID string `json:"occurrence_id"` // occ_ + Digest({root_artifact_id, logical_path, entry_kind}); the root's is Digest({root: artifact_id}).
	LogicalPath  string `json:"logical_path"`
	Reason       string `json:"reason"`
}

// InspectArtifactResultNextProbe is part of the result of inspect_artifact.
type InspectArtifactResultNextProbe struct {
	Operation string          `json:"operation"`
	Arguments json.RawMessage `json:"arguments"`
	Reason    string          `json:"reason"`
}

// InspectArtifactResultCoverage is part of the result of inspect_artifact.
type InspectArtifactResultCoverage struct {
	Occurrences        int  `json:"occurrences"`
	Files              int  `json:"files"`
	HashedFiles        int  `json:"hashed_files"`
	UnavailableFiles   int  `json:"unavailable_files"`
	ExpandedContainers int  `json:"expanded_containers"`
	OpaqueContainers   int  `json:"opaque_containers"`
	Complete           bool `json:"complete"`
}

// InspectArtifactResult is the result of inspect_artifact.
type InspectArtifactResult struct {
	SchemaVersion        int                                        `json:"schema_version"`
	InspectionID         string                                     `json:"inspection_id"`
	Subject              InspectArtifactResultSubject               `json:"subject"`
	Substeps             []InspectArtifactResultSubstep             `json:"substeps"`
	Observations         []Entry                                    `json:"observations"` // Every occurrence with its content facts, in occurrence order.
	DerivedRelationships []InspectArtifactResultDerivedRelationship `json:"derived_relationships"`
	Hypotheses           []InspectArtifactResultHypothese           `json:"hypotheses"`
	Contradictions       []InspectArtifactResultContradiction       `json:"contradictions"`
	UnexploredBranches   []InspectArtifactResultUnexploredBranche   `json:"unexplored_branches"`
	NextProbes           []InspectArtifactResultNextProbe           `json:"next_probes"`
	Coverage             InspectArtifactResultCoverage              `json:"coverage"`
	EvidenceLinks        []string                                   `json:"evidence_links"`
	Limitations          []string                                   `json:"limitations"`
}

// InspectArtifactInput is the input of inspect_artifact, the same as InventoryArtifactInput.
type InspectArtifactInput = InventoryArtifactInput

// ExtractArtifactInput is the input of extract_artifact.
type ExtractArtifactInput struct {
	IntegrityPolicy     string   `json:"integrity_policy,omitempty"`      // fail (default): a file whose bytes contradict the hash its container declares fails the call with artifact_...
	MaxCompressionRatio *int     `json:"max_compression_ratio,omitempty"` // Most uncompressed bytes per stored byte of a compressed entry (ZIP bombs); more fails with truncated.
	MaxDepth            *int     `json:"max_depth,omitempty"`             // Most components of a logical path; deeper fails with truncated.
	MaxEntries          *int     `json:"max_entries,omitempty"`           // Most occurrences the graph may hold; more fails with truncated.
	MaxEntryBytes       *int     `json:"max_entry_bytes,omitempty"`       // Most bytes of one entry; more fails with truncated.
	MaxPathBytes        *int     `json:"max_path_bytes,omitempty"`        // Longest logical path in bytes; longer fails with truncated.
	MaxTotalBytes       *int     `json:"max_total_bytes,omitempty"`       // Most bytes read in total (after decompression); more fails with truncated.
	OccurrenceIDs       []string `json:"occurrence_ids,omitempty"`        // Regular-file occurrences to write, from inventory_artifact on the same bytes.
	Path                string   `json:"path,omitempty"`                  // The artifact to read: a directory, an ASAR (with its .asar.unpacked companion beside it), a ZIP, APK, IPA, ...
}

// ExtractArtifactResultExtractionManifest is part of the result of extract_artifact.
type ExtractArtifactResultExtractionManifest struct {
	ExtractionID          string   `json:"extraction_id"` // aex_ + Digest({source_manifest_id, selected_occurrence_ids, files_sha256}).
	SourceManifestID      string   `json:"source_manifest_id"`
	SelectedOccurrenceIDs []string `json:"selected_occurrence_ids"`
	FilesSHA256           string   `json:"files_sha256"` // Digest of the artifacts list.
	OutputRootAlias       string   `json:"output_root_alias"`
}

// ExtractArtifactResultArtifact is part of the result of extract_artifact.
type ExtractArtifactResultArtifact struct {
	ArtifactID   string `json:"artifact_id"`   // art_ + Digest({schema_version:1, sha256}): the content's identity.
	RelativePath string `json:"relative_path"` // Under output_root: the logical path; entries of a nested container go under <container path>.contents/.
	SHA256       string `json:"sha256"`
	BytesWritten int    `json:"bytes_written"`
	Created      bool   `json:"created"`
}

// ExtractArtifactResultCleanup is part of the result of extract_artifact.
type ExtractArtifactResultCleanup struct {
	Attempted     bool     `json:"attempted"`
	Verified      bool     `json:"verified"`
	ResidualPaths []string `json:"residual_paths"`
}

// ExtractArtifactResult is the result of extract_artifact.
type ExtractArtifactResult struct {
	Manifest                InventoryArtifactResultManifest         `json:"manifest"`
	ExtractionManifest      ExtractArtifactResultExtractionManifest `json:"extraction_manifest"`
	OutputRoot              string                                  `json:"output_root"` // The fresh directory rea created for this call; every file was written under it.
	Artifacts               []ExtractArtifactResultArtifact         `json:"artifacts"`
	ContainmentVerified     bool                                    `json:"containment_verified"` // After writing, the output was walked without following links: only the written files and their directories ...
	Cleanup                 ExtractArtifactResultCleanup            `json:"cleanup"`
	Provenance              InventoryArtifactResultProvenance       `json:"provenance"`
	Limitations             []string                                `json:"limitations"`
	IntegrityContradictions []InventoryArtifactResultContradiction  `json:"integrity_contradictions"` // Contradictions of the extracted files; their observed bytes were written.
}

// CompareArtifactsInput is the input of compare_artifacts.
type CompareArtifactsInput struct {
	Left           json.RawMessage `json:"left"`                      // The left side: a retained reference {"kind":"retained-evidence","evidence_id":"ev_..."} to an inventory_art...
	Right          json.RawMessage `json:"right"`                     // The right side: a retained reference {"kind":"retained-evidence","evidence_id":"ev_..."} to an inventory_ar...
	MaxDifferences *int            `json:"max_differences,omitempty"` // Most differences listed; counts cover all.
}

// CompareArtifactsResultLeft is part of the result of compare_artifacts.
type CompareArtifactsResultLeft struct {
	EvidenceID         string `json:"evidence_id"`
	Operation          string `json:"operation"`
	RootArtifactID     string `json:"root_artifact_id"` // art_ + Digest({schema_version:1, sha256}): the content's identity.
	RootFormat         string `json:"root_format"`
	ManifestID         string `json:"manifest_id"`
	GraphSHA256        string `json:"graph_sha256"`
	Entries            int    `json:"entries"`
	ContradictionCount int    `json:"contradiction_count"`
	Complete           bool   `json:"complete"`
}

// CompareArtifactsResultCounts is part of the result of compare_artifacts.
type CompareArtifactsResultCounts struct {
	Unchanged     int `json:"unchanged"`
	Changed       int `json:"changed"`
	Added         int `json:"added"`
	Removed       int `json:"removed"`
	Contradiction int `json:"contradiction"`
	Unknown       int `json:"unknown"`
}

// CompareArtifactsResultDifference is part of the result of compare_artifacts.
type CompareArtifactsResultDifference struct {
	LogicalPath    string   `json:"logical_path"`
	Classification string   `json:"classification"`
	Aspects        []string `json:"aspects"`
	Left           *Entry   `json:"left"`
	Right          *Entry   `json:"right"`
}

// CompareArtifactsResult is the result of compare_artifacts.
type CompareArtifactsResult struct {
	Status               string                             `json:"status"` // incomplete when either side is; contradiction when any entry carries one; never equal unless both sides are...
	Complete             bool                               `json:"complete"`
	Left                 CompareArtifactsResultLeft         `json:"left"`
	Right                CompareArtifactsResultLeft         `json:"right"`
	Counts               CompareArtifactsResultCounts       `json:"counts"`
	Differences          []CompareArtifactsResultDifference `json:"differences"`
	DifferencesTotal     int                                `json:"differences_total"`
	DifferencesTruncated bool                               `json:"differences_truncated"`
	Limitations          []string                           `json:"limitations"`
}

var operationTypes = map[string]core.Types{
	"inventory_artifact": core.TypesOf[InventoryArtifactInput, InventoryArtifactResult](),
	"inspect_artifact":   core.TypesOf[InspectArtifactInput, InspectArtifactResult](),
	"extract_artifact":   core.TypesOf[ExtractArtifactInput, ExtractArtifactResult](),
	"compare_artifacts":  core.TypesOf[CompareArtifactsInput, CompareArtifactsResult](),
}
