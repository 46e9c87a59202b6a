package core

import (
	"encoding/json"
)

// The Go input and result type of each of the kernel's own operations,
// registered as Family.Types (Kernel). Below the first level the values stay
// JSON, documented by the schemas. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// BinarySessionInput is the input of binary_session.
type BinarySessionInput struct {
	Detail                 string `json:"detail,omitempty"`                   // compact: each tool_availability entry is name, available, reason and remediation; complete: also surface, c...
	ExpectedCatalogDigest  string `json:"expected_catalog_digest,omitempty"`  // The combined_sha256 catalog digest the caller expects.
	ExpectedPackageVersion string `json:"expected_package_version,omitempty"` // The rea version the caller expects to be running.
	ExpectedServerPath     string `json:"expected_server_path,omitempty"`     // Absolute path of the rea executable the caller registered.
}

// BinarySessionResult is the result of binary_session.
type BinarySessionResult struct {
	Open                       bool                  `json:"open"`
	Path                       *string               `json:"path"`
	SHA256                     *string               `json:"sha256"`
	Format                     *string               `json:"format"`
	Kind                       *string               `json:"kind"`
	Architecture               *string               `json:"architecture"`
	Provider                   *ProviderRef          `json:"provider"`
	Providers                  []ProviderRef         `json:"providers"`
	ServerIdentity             ServerIdentityResult  `json:"server_identity"`
	ClientFeatures             ClientFeatures        `json:"client_features"`
	AnalysisProviderCandidates []ProviderCandidate   `json:"analysis_provider_candidates"`
	AnalysisProviderBinding    *ProviderBindingState `json:"analysis_provider_binding"`
	AnalysisRun                *AnalysisRun          `json:"analysis_run"`
	ToolAvailability           []ToolAvailability    `json:"tool_availability"`
}

// ServerIdentityResult is binary_session's server_identity (and the
// server identity resource).
type ServerIdentityResult struct {
	Package struct {
		Name        string  `json:"name"`
		Version     string  `json:"version"`
		RootPath    *string `json:"root_path"`
		BuildCommit *string `json:"build_commit"`
	} `json:"package"`
	Server struct {
		Name        string  `json:"name"`
		Version     string  `json:"version"`
		StartedAt   *string `json:"started_at"`
		CommandPath *string `json:"command_path"`
	} `json:"server"`
	SDK struct {
		Server     *string `json:"server"`
		ClientTest *string `json:"client_test"`
		Core       string  `json:"core"`
	} `json:"sdk"`
	NegotiatedProtocolVersion *string `json:"negotiated_protocol_version"`
	Client                    *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"client"`
	Catalog struct {
		ToolsSHA256    string `json:"tools_sha256"`
		CombinedSHA256 string `json:"combined_sha256"`
		ToolCount      int    `json:"tool_count"`
	} `json:"catalog"`
	ProtocolFeatures struct {
		Progress          bool `json:"progress"`
		Cancellation      bool `json:"cancellation"`
		EvidenceResources bool `json:"evidence_resources"`
		Elicitation       bool `json:"elicitation"`
	} `json:"protocol_features"`
	Alignment struct {
		State       string   `json:"state"`
		Reasons     []string `json:"reasons"`
		Remediation *string  `json:"remediation"`
	} `json:"alignment"`
}

// ProviderCandidate is one provider of binary_session's candidates.
type ProviderCandidate struct {
	Provider      ProviderRef     `json:"provider"`
	Availability  CandidateStatus `json:"availability"`
	TargetSupport CandidateStatus `json:"target_support"`
	Selected      bool            `json:"selected"`
	Capabilities  []string        `json:"capabilities"`
}

// CandidateStatus is a candidate's availability or target support; Code
// and Reason are null when the status is not a refusal.
type CandidateStatus struct {
	Status      string   `json:"status"`
	Code        *string  `json:"code"`
	Reason      *string  `json:"reason"`
	Diagnostics []string `json:"diagnostics"`
}

// ProviderBindingState is binary_session's analysis_provider_binding.
type ProviderBindingState struct {
	Provider        ProviderRef `json:"provider"`
	SelectionSource string      `json:"selection_source"`
	AnalysisProfile any         `json:"analysis_profile"` // the binding's profile object, as the engine declared it
}

// AnalysisRun is binary_session's analysis_run.
type AnalysisRun struct {
	RunID          string             `json:"run_id"`
	ProcessLineage ProcessLineageView `json:"process_lineage"`
}

// ProcessLineageView is analysis_run.process_lineage: not_observed, or the
// snapshots engines reported.
type ProcessLineageView struct {
	Status    string            `json:"status"`
	Snapshots []LineageSnapshot `json:"snapshots,omitempty"`
}

// LineageSnapshot is one provider's observation; Observation is a
// VerifiedLineage or an UnavailableLineage (the schema's two shapes).
type LineageSnapshot struct {
	Provider    ProviderRef `json:"provider"`
	Observation any         `json:"observation"`
}

// VerifiedLineage is a lineage snapshot whose ownership was revalidated.
type VerifiedLineage struct {
	Status            string           `json:"status"`
	ObservedAt        string           `json:"observed_at"`
	SchemaVersion     int              `json:"schema_version"`
	LauncherPID       *int             `json:"launcher_pid"`
	LauncherParentPID *int             `json:"launcher_parent_pid"`
	ProcessGroupID    *int             `json:"process_group_id"`
	Descendants       []LineageProcess `json:"descendants"`
}

// LineageProcess is one descendant of a verified lineage.
type LineageProcess struct {
	PID            int `json:"pid"`
	ParentPID      int `json:"parent_pid"`
	ProcessGroupID int `json:"process_group_id"`
}

// UnavailableLineage is a lineage snapshot that could not be verified.
type UnavailableLineage struct {
	Status         string `json:"status"`
	ObservedAt     string `json:"observed_at"`
	LauncherPID    *int   `json:"launcher_pid"`
	ProcessGroupID *int   `json:"process_group_id"`
	Reason         string `json:"reason"`
}

// ToolAvailability is one tool's entry; the detail "complete" form adds
// surface, client requirements, effects and annotations.
type ToolAvailability struct {
	Name               string              `json:"name"`
	Available          bool                `json:"available"`
	Reason             string              `json:"reason"`
	Remediation        *string             `json:"remediation"`
	Surface            string              `json:"surface,omitempty"`
	ClientRequirements *ClientRequirements `json:"client_requirements,omitempty"`
	Effects            *Effects            `json:"effects,omitempty"`
	Annotations        *Annotations        `json:"annotations,omitempty"`
}

// ClientRequirements are a tool's client capability requirements.
type ClientRequirements struct {
	Required        []string `json:"required"`
	Optional        []string `json:"optional"`
	MissingRequired []string `json:"missing_required"`
	MissingOptional []string `json:"missing_optional"`
}

// CloseBinaryInput is the input of close_binary.
type CloseBinaryInput struct {
}

// GetEvidenceBundleInput is the input of get_evidence_bundle.
type GetEvidenceBundleInput struct {
	Detail  string          `json:"detail,omitempty"`  // Omit for the complete canonical bundle; "summary" lists every matching record's identity, provenance and na...
	Filters json.RawMessage `json:"filters,omitempty"` // Exact-match filters, combined with AND; they require detail "summary".
}

// GetEvidenceBundleResult is the result of get_evidence_bundle: the
// complete canonical bundle (detail "summary" gives a *BundleSummary, the
// schema's other alternative).
type GetEvidenceBundleResult = Bundle

// ExportEvidenceBundleInput is the input of export_evidence_bundle.
type ExportEvidenceBundleInput struct {
	Path      string `json:"path"`                // Absolute path of the bundle file.
	Overwrite *bool  `json:"overwrite,omitempty"` // Replace an existing regular file at path.
}

// ExportEvidenceBundleResult is the result of export_evidence_bundle.
type ExportEvidenceBundleResult = ExportResult

// ImportEvidenceBundleInput is the input of import_evidence_bundle.
type ImportEvidenceBundleInput struct {
	Path string `json:"path"` // Absolute path of the bundle file.
}

// ImportEvidenceBundleResult is the result of import_evidence_bundle.
type ImportEvidenceBundleResult = ImportResult

// SnapshotEvidenceBundleResult is the result of snapshot_evidence_bundle.
type SnapshotEvidenceBundleResult = SnapshotResult

// SnapshotEvidenceBundleInput is the input of snapshot_evidence_bundle, the same as CloseBinaryInput.
type SnapshotEvidenceBundleInput = CloseBinaryInput

// ReleaseEvidenceBundleInput is the input of release_evidence_bundle.
type ReleaseEvidenceBundleInput struct {
	BundleDigest string `json:"bundle_digest"` // The bundle_digest returned by snapshot_evidence_bundle.
}

// ReleaseEvidenceBundleResult is the result of release_evidence_bundle.
type ReleaseEvidenceBundleResult struct {
	BundleDigest string `json:"bundle_digest"`
	Released     bool   `json:"released"`
}

// CompareBundlesInput is the input of compare_bundles.
type CompareBundlesInput struct {
	Left  json.RawMessage `json:"left"`  // A bundle file ({kind:"bundle",path}), this connection's ledger ({kind:"session"}) or a set of Evidence ({ki...
	Right json.RawMessage `json:"right"` // A bundle file ({kind:"bundle",path}), this connection's ledger ({kind:"session"}) or a set of Evidence ({ki...
}

// CompareBundlesResult is the result of compare_bundles.
type CompareBundlesResult struct {
	Left              ComparedSide     `json:"left"`
	Right             ComparedSide     `json:"right"`
	Counts            CompareCounts    `json:"counts"`
	Added             []compareEntry   `json:"added"`
	Removed           []compareEntry   `json:"removed"`
	Changed           []changedPair    `json:"changed"`
	Unknowns          ComparedUnknowns `json:"unknowns"`
	Conclusion        string           `json:"conclusion"`
	ConclusionReasons []string         `json:"conclusion_reasons"`
}

// ComparedSide is one side of a CompareBundlesResult.
type ComparedSide struct {
	Kind              string   `json:"kind"`
	Source            string   `json:"source"`
	Records           int      `json:"records"`
	UnknownRevisions  int      `json:"unknown_revisions"`
	IncompleteRecords []string `json:"incomplete_records"`
}

// CompareCounts counts a CompareBundlesResult's records.
type CompareCounts struct {
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
}

// ComparedUnknowns compares the latest revisions of two sides' unknowns.
type ComparedUnknowns struct {
	Added   []string         `json:"added"`
	Removed []string         `json:"removed"`
	Changed []ChangedUnknown `json:"changed"`
}

// ChangedUnknown is an unknown whose latest revision differs.
type ChangedUnknown struct {
	UnknownID           string `json:"unknown_id"`
	LeftRevision        int    `json:"left_revision"`
	RightRevision       int    `json:"right_revision"`
	LeftStatus          string `json:"left_status"`
	RightStatus         string `json:"right_status"`
	LeftRevisionDigest  string `json:"left_revision_digest"`
	RightRevisionDigest string `json:"right_revision_digest"`
}

// RecordUnknownInput is the input of record_unknown.
type RecordUnknownInput struct {
	Domain                   string            `json:"domain"`   // What the question is about, such as native.control-flow or application.network.
	Question                 string            `json:"question"` // The open question; white space is collapsed and at most 1000 characters remain.
	ContradictingEvidenceIDs []string          `json:"contradicting_evidence_ids,omitempty"`
	RecommendedProbes        []json.RawMessage `json:"recommended_probes,omitempty"`
	Relationships            []json.RawMessage `json:"relationships,omitempty"`
	RequiredAuthority        *string           `json:"required_authority,omitempty"`   // Authority a resolving record must have; null for any.
	RequiredConfidence       *string           `json:"required_confidence,omitempty"`  // Least confidence a resolving record must have (observed > derived > inferred); null for any.
	RequiredEnvironment      json.RawMessage   `json:"required_environment,omitempty"` // Environment a resolving record must match; null fields match anything.
	ScopeDigest              *string           `json:"scope_digest,omitempty"`         // Digest of what the question is scoped to (for example a target sha256), or null.
	Severity                 string            `json:"severity,omitempty"`             // How much the open question matters.
	Status                   string            `json:"status,omitempty"`               // Initial status.
	SupportingEvidenceIDs    []string          `json:"supporting_evidence_ids,omitempty"`
}

// RecordUnknownResult is the result of record_unknown.
type RecordUnknownResult struct {
	Unknown            Unknown    `json:"unknown"`
	MutationEvidenceID EvidenceID `json:"mutation_evidence_id"`
}

// UpdateUnknownInput is the input of update_unknown.
type UpdateUnknownInput struct {
	UnknownID                string            `json:"unknown_id"` // The unknown_id returned by record_unknown.
	ContradictingEvidenceIDs []string          `json:"contradicting_evidence_ids,omitempty"`
	ExpectedRevisionDigest   string            `json:"expected_revision_digest,omitempty"` // The revision_digest this change is based on.
	RecommendedProbes        []json.RawMessage `json:"recommended_probes,omitempty"`
	Relationships            []json.RawMessage `json:"relationships,omitempty"`
	RequiredAuthority        *string           `json:"required_authority,omitempty"`   // Authority a resolving record must have; null for any.
	RequiredConfidence       *string           `json:"required_confidence,omitempty"`  // Least confidence a resolving record must have (observed > derived > inferred); null for any.
	RequiredEnvironment      json.RawMessage   `json:"required_environment,omitempty"` // Environment a resolving record must match; null fields match anything.
	Resolution               json.RawMessage   `json:"resolution,omitempty"`           // Closes the unknown (status resolved): verified names retained Evidence that answers it; withdrawn and out-o...
	Severity                 string            `json:"severity,omitempty"`             // How much the open question matters.
	Status                   string            `json:"status,omitempty"`               // New status; resolved requires a resolution.
	SupportingEvidenceIDs    []string          `json:"supporting_evidence_ids,omitempty"`
}

// UpdateUnknownResult is the result of update_unknown, the same as RecordUnknownResult.
type UpdateUnknownResult = RecordUnknownResult

// ListUnknownsInput is the input of list_unknowns.
type ListUnknownsInput struct {
	Domain         string `json:"domain,omitempty"`          // Only unknowns of this domain.
	IncludeHistory *bool  `json:"include_history,omitempty"` // Return every revision, not only the latest.
	Status         string `json:"status,omitempty"`          // Only unknowns whose latest status is this.
	UnknownID      string `json:"unknown_id,omitempty"`      // The unknown_id returned by record_unknown.
}

// ListUnknownsResult is the result of list_unknowns.
type ListUnknownsResult struct {
	Unknowns  []Unknown `json:"unknowns"`
	Total     int       `json:"total"`
	Revisions int       `json:"revisions"`
}

// VerifyUnknownResolutionInput is the input of verify_unknown_resolution.
type VerifyUnknownResolutionInput struct {
	UnknownID string `json:"unknown_id"` // The unknown_id returned by record_unknown.
}

// VerifyUnknownResolutionResult is the result of verify_unknown_resolution.
type VerifyUnknownResolutionResult struct {
	UnknownID      string            `json:"unknown_id"`
	Revision       int               `json:"revision"`
	RevisionDigest string            `json:"revision_digest"`
	Status         string            `json:"status"`
	Disposition    *string           `json:"disposition"`
	Verified       bool              `json:"verified"`
	Checks         []ResolutionCheck `json:"checks"`
	Findings       []string          `json:"findings"`
}

// InspectAnalysisViewInput is the input of inspect_analysis_view.
type InspectAnalysisViewInput struct {
	Source json.RawMessage `json:"source"` // The parent: a same-connection retained reference, or complete inline Evidence.
	View   json.RawMessage `json:"view"`   // summary; a layout facet (mitigations, linkage); one section or symbol (by index or exact name); a stable pa...
}

// InspectAnalysisViewResult is the result of inspect_analysis_view: the
// view's facts and view_digest over them.
type InspectAnalysisViewResult struct {
	ViewFacts
	ViewDigest string `json:"view_digest"`
}

// ViewFacts are what a view selected and the fields every view carries.
// Exactly one of Summary, Facet, Item and Items holds the viewer's part,
// a value of the parent family's own type (for example binary's
// LayoutViewSummary or jsapp's ModulePage).
type ViewFacts struct {
	Kind             string       `json:"kind"`
	View             ViewSpec     `json:"view"`
	Summary          ViewPart     `json:"summary,omitempty"`
	Facet            ViewPart     `json:"facet,omitempty"`
	Item             ViewPart     `json:"item,omitempty"`
	Items            ViewPart     `json:"items,omitempty"`
	ProcedureAddress **string     `json:"procedure_address,omitempty"` // analyze_function views only; null when the parent recorded none
	ParentEvidenceID string       `json:"parent_evidence_id"`
	ParentOperation  string       `json:"parent_operation"`
	ParentDigest     string       `json:"parent_digest"`
	Artifact         ViewArtifact `json:"artifact"`
	Coverage         ViewCoverage `json:"coverage"`
	Limitations      []string     `json:"limitations"`
	Unknowns         []any        `json:"unknowns"`
}

// ViewArtifact names the parent's bytes; path is "" unless the parent's
// own result records it (the path a record was read at otherwise stays
// outside its semantic projection).
type ViewArtifact struct {
	Path   string  `json:"path"`
	SHA256 *string `json:"sha256"`
}

var operationTypes = map[string]Types{
	"open_binary":               TypesOf[OpenBinaryInput, OpenBinaryResult](),
	"binary_session":            TypesOf[BinarySessionInput, BinarySessionResult](),
	"close_binary":              TypesOf[CloseBinaryInput, json.RawMessage](),
	"get_evidence_bundle":       TypesOf[GetEvidenceBundleInput, GetEvidenceBundleResult](),
	"export_evidence_bundle":    TypesOf[ExportEvidenceBundleInput, ExportEvidenceBundleResult](),
	"import_evidence_bundle":    TypesOf[ImportEvidenceBundleInput, ImportEvidenceBundleResult](),
	"snapshot_evidence_bundle":  TypesOf[SnapshotEvidenceBundleInput, SnapshotEvidenceBundleResult](),
	"release_evidence_bundle":   TypesOf[ReleaseEvidenceBundleInput, ReleaseEvidenceBundleResult](),
	"compare_bundles":           TypesOf[CompareBundlesInput, CompareBundlesResult](),
	"record_unknown":            TypesOf[RecordUnknownInput, RecordUnknownResult](),
	"update_unknown":            TypesOf[UpdateUnknownInput, UpdateUnknownResult](),
	"list_unknowns":             TypesOf[ListUnknownsInput, ListUnknownsResult](),
	"verify_unknown_resolution": TypesOf[VerifyUnknownResolutionInput, VerifyUnknownResolutionResult](),
	"inspect_analysis_view":     TypesOf[InspectAnalysisViewInput, InspectAnalysisViewResult](),
}
