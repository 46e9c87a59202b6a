package jsapp

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// TraceApplicationFeatureInputSeed is part of the input of trace_application_feature.
type TraceApplicationFeatureInputSeed struct {
	Kind          string `json:"kind"`
	Value         string `json:"value"`
	CaseSensitive *bool  `json:"case_sensitive,omitempty"` // Default true.
	Match         string `json:"match,omitempty"`          // Default exact.
}

// TraceApplicationFeatureInputLimits is part of the input of trace_application_feature.
type TraceApplicationFeatureInputLimits struct {
	MaxDepth int `json:"max_depth,omitempty"`
	MaxNodes int `json:"max_nodes,omitempty"`
	MaxPaths int `json:"max_paths,omitempty"`
}

// TraceApplicationFeatureInput is the input of trace_application_feature.
type TraceApplicationFeatureInput struct {
	Application        json.RawMessage                     `json:"application"`
	Seed               TraceApplicationFeatureInputSeed    `json:"seed"`
	Direction          string                              `json:"direction,omitempty"` // Default both.
	Limits             *TraceApplicationFeatureInputLimits `json:"limits,omitempty"`
	NativeObservations []json.RawMessage                   `json:"native_observations,omitempty"` // Native analysis Evidence (inline) for the add-ons the trace reaches.
}

// TraceSummary counts what a trace found.
type TraceSummary struct {
	SeedMatches  int            `json:"seed_matches"`
	Paths        int            `json:"paths"`
	NodesVisited int            `json:"nodes_visited"`
	EdgesVisited int            `json:"edges_visited"`
	EndKinds     map[string]int `json:"end_kinds"` // paths by the kind of node they end at
}

// TraceSeed is the seed a trace_application_feature result started from.
type TraceSeed struct {
	Kind          string `json:"kind"`
	Value         string `json:"value"`
	Match         string `json:"match"`
	CaseSensitive bool   `json:"case_sensitive"`
}

// TraceLimits are the limits a trace ran under.
type TraceLimits struct {
	MaxDepth int `json:"max_depth"`
	MaxPaths int `json:"max_paths"`
	MaxNodes int `json:"max_nodes"`
}

// TraceCoverage says whether a trace is complete, cut by its limits, or
// empty (no seed matched).
type TraceCoverage struct {
	Status    string      `json:"status"` // complete, partial, empty
	Truncated bool        `json:"truncated"`
	Limits    TraceLimits `json:"limits"`
	CutBy     []TraceCut  `json:"cut_by,omitempty"` // the limits that left something out; none when the trace ran out of edges
}

// TraceCut is a limit that cut a trace and what it left out: max_depth
// edges unfollowed to nodes the trace never reached, max_nodes nodes,
// max_paths paths.
type TraceCut struct {
	Limit string `json:"limit"`
	Value int    `json:"value"`
	Left  int    `json:"left"`
	Unit  string `json:"unit"` // edges, nodes or paths
}

// TraceNode is a node a trace names: its ID, kind and human label.
type TraceNode struct {
	NodeID string `json:"node_id"`
	Kind   string `json:"kind"`
	Label  string `json:"label"`
}

// TraceGraph is the subgraph a trace visited; edges in v1 form (with their
// edge_id), as they are few.
type TraceGraph struct {
	Nodes []TraceNode      `json:"nodes"`
	Edges []map[string]any `json:"edges"` // {edge_id, source_node_id, target_node_id, relation}
}

// TraceApplicationFeatureResult is the result of trace_application_feature.
// Paths and native hand-offs are open records (a path's steps carry
// relation-specific members), so they stay maps.
type TraceApplicationFeatureResult struct {
	TraceID        string           `json:"trace_id"`
	SourceGraphID  string           `json:"source_graph_id"`
	Seed           TraceSeed        `json:"seed"`
	Direction      string           `json:"direction"`
	SeedMatches    []TraceNode      `json:"seed_matches"`
	Paths          []map[string]any `json:"paths"`
	Graph          *TraceGraph      `json:"graph"` // null when no seed matched
	NativeHandoffs []map[string]any `json:"native_handoffs"`
	Summary        TraceSummary     `json:"summary"`
	Coverage       TraceCoverage    `json:"coverage"`
	// Suggestions: for a seed that matched nothing, the closest seeds that
	// match, to pass instead.
	Suggestions []TraceSuggestion `json:"suggestions,omitempty"`
}

// TraceSuggestion is a seed to pass instead of one that matched nothing:
// how many nodes it matches, and one of them.
type TraceSuggestion struct {
	Seed    TraceSeed `json:"seed"`
	Matches int       `json:"matches"`
	Example TraceNode `json:"example"`
}

// TraceJavascriptSemanticsInputQuery is part of the input of trace_javascript_semantics.
type TraceJavascriptSemanticsInputQuery struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Match string `json:"match,omitempty"`
}

// TraceJavascriptSemanticsInputLimits is part of the input of trace_javascript_semantics.
type TraceJavascriptSemanticsInputLimits struct {
	MaxResults int `json:"max_results,omitempty"`
}

// TraceJavascriptSemanticsInput is the input of trace_javascript_semantics.
type TraceJavascriptSemanticsInput struct {
	Application json.RawMessage                      `json:"application"`
	Query       TraceJavascriptSemanticsInputQuery   `json:"query"`
	Limits      *TraceJavascriptSemanticsInputLimits `json:"limits,omitempty"`
}

// SemanticsQuery is the query a trace_javascript_semantics result answers.
type SemanticsQuery struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Match string `json:"match"`
}

// SemanticsSummary counts a trace_javascript_semantics result.
type SemanticsSummary struct {
	Definitions      int `json:"definitions"`
	References       int `json:"references"`
	UnknownFrontiers int `json:"unknown_frontiers"`
}

// SemanticsCoverage says whether max_results cut the result.
type SemanticsCoverage struct {
	Status    string `json:"status"` // complete, partial, empty (nothing matched)
	Truncated bool   `json:"truncated"`
	// Limits is the max_results in force; OmittedCount the matches
	// max_results left out.
	Limits       SemanticsLimits `json:"limits"`
	OmittedCount int             `json:"omitted_count"`
}

// SemanticsLimits is the limit a trace_javascript_semantics answer ran
// under.
type SemanticsLimits struct {
	MaxResults int `json:"max_results"`
}

// TraceJavascriptSemanticsResult is the result of trace_javascript_semantics.
// Definitions, references and frontiers are the semantic graph's records as
// the analysis holds them, expanded (lean.go): open records whose members
// depend on the relation (exports, require, import, ...), so they stay maps.
// The trace adds source_path and target_path, and unknown_reason to a
// definition or reference without an offset.
type TraceJavascriptSemanticsResult struct {
	Query            SemanticsQuery    `json:"query"`
	SourceGraphID    string            `json:"source_graph_id"`
	SemanticGraphID  string            `json:"semantic_graph_id"`
	Definitions      []map[string]any  `json:"definitions"`
	References       []map[string]any  `json:"references"`
	UnknownFrontiers []map[string]any  `json:"unknown_frontiers"`
	Summary          SemanticsSummary  `json:"summary"`
	Coverage         SemanticsCoverage `json:"coverage"`
}

// CompareApplicationVersionsInputLimits is part of the input of compare_application_versions.
type CompareApplicationVersionsInputLimits struct {
	MaxItems int `json:"max_items,omitempty"`
}

// CompareApplicationVersionsInput is the input of compare_application_versions.
type CompareApplicationVersionsInput struct {
	Left                    json.RawMessage                        `json:"left"`
	Right                   json.RawMessage                        `json:"right"`
	LeftNativeObservations  []json.RawMessage                      `json:"left_native_observations,omitempty"`
	Limits                  *CompareApplicationVersionsInputLimits `json:"limits,omitempty"`
	RightNativeObservations []json.RawMessage                      `json:"right_native_observations,omitempty"`
}

// VersionMatch says how a left node and a right node were paired.
type VersionMatch struct {
	Strategy string `json:"strategy"` // the matching tier
	Unique   bool   `json:"unique"`
}

// VersionItem is one node compared across versions: paired, or present on
// one side only.
type VersionItem struct {
	ItemID      string            `json:"item_id"` // Digest({left, right, kind})
	NodeKind    string            `json:"node_kind"`
	LeftNodeID  *string           `json:"left_node_id"`
	RightNodeID *string           `json:"right_node_id"`
	LeftLabel   *string           `json:"left_label"`
	RightLabel  *string           `json:"right_label"`
	Status      string            `json:"status"` // added, removed, changed, unchanged, unknown, contradiction
	Match       *VersionMatch     `json:"match"`
	Dimensions  map[string]string `json:"dimensions"` // content, properties, path of a pair; empty otherwise
	// Changes names the properties a changed pair differs in (absent
	// otherwise): what an agent asks first of a changed item.
	Changes []PropertyChange `json:"changes,omitempty"`
}

// PropertyChange is one property a changed pair differs in: its value on
// each side (null when absent), or for a long list the elements only one
// side has, with each side's length in before and after.
type PropertyChange struct {
	Property string `json:"property"`
	Before   any    `json:"before"`
	After    any    `json:"after"`
	Added    []any  `json:"added,omitempty"`
	Removed  []any  `json:"removed,omitempty"`
}

// VersionCoverage is compare_application_versions' coverage, with each
// input's coverage status as it recorded it.
type VersionCoverage struct {
	Status        string `json:"status"`
	Truncated     bool   `json:"truncated"`
	LeftCoverage  any    `json:"left_coverage"`
	RightCoverage any    `json:"right_coverage"`
}

// CompareApplicationVersionsResult is the result of compare_application_versions.
type CompareApplicationVersionsResult struct {
	ComparisonID string          `json:"comparison_id"`
	LeftGraphID  string          `json:"left_graph_id"`
	RightGraphID string          `json:"right_graph_id"`
	Graph        json.RawMessage `json:"graph"` // always null: no comparison graph is written
	Items        []VersionItem   `json:"items"`
	Matching     map[string]int  `json:"matching"` // matched nodes by basis
	Summary      map[string]int  `json:"summary"`  // items by status: added, removed, changed, unchanged, unknown, contradiction
	Coverage     VersionCoverage `json:"coverage"`
	// RootAlignment is set when a side is a ZIP holding its app in one
	// ASAR: its paths were compared from inside it, as a bare ASAR's are.
	RootAlignment *RootAlignment `json:"root_alignment,omitempty"`
}

// RootAlignment names, per side, the ASAR inside a ZIP whose paths were
// compared from its root ("resources/app.asar"), "" for a side read as
// it is.
type RootAlignment struct {
	Left  string `json:"left"`
	Right string `json:"right"`
}

// CompareSourceToBundleInput is the input of compare_source_to_bundle.
type CompareSourceToBundleInput struct {
	Left   json.RawMessage                        `json:"left"`
	Right  json.RawMessage                        `json:"right"`
	Limits *CompareApplicationVersionsInputLimits `json:"limits,omitempty"`
}

// SourceMapping is one source file of compare_source_to_bundle's left side
// and what the bundle's source maps say of it.
type SourceMapping struct {
	MappingID    string   `json:"mapping_id"` // Digest of the item without it
	SourcePath   string   `json:"source_path"`
	SourceNodeID string   `json:"source_node_id"`
	Status       string   `json:"status"` // unchanged, modified, removed, duplicated, unknown
	Candidates   []string `json:"candidates"`
	Confidence   string   `json:"confidence"`
}

// SourceToBundleCoverage is compare_source_to_bundle's coverage.
type SourceToBundleCoverage struct {
	Status        string `json:"status"`
	Truncated     bool   `json:"truncated"`
	SourceModules int    `json:"source_modules"`
}

// CompareSourceToBundleResult is the result of compare_source_to_bundle.
type CompareSourceToBundleResult struct {
	ComparisonID           string                 `json:"comparison_id"`
	LeftGraphID            string                 `json:"left_graph_id"`
	RightGraphID           string                 `json:"right_graph_id"`
	Items                  []SourceMapping        `json:"items"`
	UnmappedCurrentNodeIDs []string               `json:"unmapped_current_node_ids"`
	Summary                map[string]int         `json:"summary"` // items by status, split and merged included
	Coverage               SourceToBundleCoverage `json:"coverage"`
}

// CompareJavascriptExportShapesInputLimits is part of the input of compare_javascript_export_shapes.
type CompareJavascriptExportShapesInputLimits struct {
	MaxChanges int `json:"max_changes,omitempty"`
}

// CompareJavascriptExportShapesInput is the input of compare_javascript_export_shapes.
type CompareJavascriptExportShapesInput struct {
	Left            json.RawMessage                           `json:"left"`
	Right           json.RawMessage                           `json:"right"`
	LeftModulePath  string                                    `json:"left_module_path"`
	RightModulePath string                                    `json:"right_module_path"`
	LeftExportName  string                                    `json:"left_export_name,omitempty"`
	Limits          *CompareJavascriptExportShapesInputLimits `json:"limits,omitempty"`
	RightExportName string                                    `json:"right_export_name,omitempty"`
}

// ExportModuleSide is the module compare_javascript_export_shapes selected
// on one side.
type ExportModuleSide struct {
	Status         string   `json:"status"` // selected, not-found, ambiguous
	SelectedNodeID *string  `json:"selected_node_id"`
	Candidates     []string `json:"candidates"`
}

// ExportValue is one side of an export change: the export's value shape as
// the analysis recorded it ({kind, params, rest}, kept as recorded).
type ExportValue struct {
	Present bool           `json:"present"`
	Value   map[string]any `json:"value"`
}

// ExportChange is one export name compared.
type ExportChange struct {
	ChangeID string       `json:"change_id"` // Digest of the change without it
	Path     []string     `json:"path"`
	Status   string       `json:"status"` // added, removed, changed, unchanged, unknown
	Left     *ExportValue `json:"left"`   // null when absent on that side
	Right    *ExportValue `json:"right"`
}

// ExportRuntimeValidation says the comparison is static.
type ExportRuntimeValidation struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// ExportCoverage is compare_javascript_export_shapes' coverage.
type ExportCoverage struct {
	Status       string       `json:"status"`
	Truncated    bool         `json:"truncated"`
	OmittedCount *int         `json:"omitted_count"`
	Limits       []GraphLimit `json:"limits"`
	Basis        string       `json:"basis"`
}

// CompareJavascriptExportShapesResult is the result of compare_javascript_export_shapes.
type CompareJavascriptExportShapesResult struct {
	ComparisonID      string                  `json:"comparison_id"`
	Left              ExportModuleSide        `json:"left"`
	Right             ExportModuleSide        `json:"right"`
	Changes           []ExportChange          `json:"changes"`
	Summary           map[string]int          `json:"summary"` // changes by status
	RuntimeValidation ExportRuntimeValidation `json:"runtime_validation"`
	Coverage          ExportCoverage          `json:"coverage"`
}

// BuildReconstructionObligationLedgerInputLimits is part of the input of build_reconstruction_obligation_ledger.
type BuildReconstructionObligationLedgerInputLimits struct {
	MaxObligations int `json:"max_obligations,omitempty"`
}

// BuildReconstructionObligationLedgerInput is the input of build_reconstruction_obligation_ledger.
type BuildReconstructionObligationLedgerInput struct {
	Trace       json.RawMessage                                 `json:"trace"`
	Application json.RawMessage                                 `json:"application"`
	Limits      *BuildReconstructionObligationLedgerInputLimits `json:"limits,omitempty"`
}

// LedgerSummary counts a ledger's obligations by status and by kind.
type LedgerSummary struct {
	Counts map[string]int `json:"counts"`  // total, evidenced, partial, unknown
	ByKind map[string]int `json:"by_kind"` // obligations by kind
}

// ReconstructionCoverage says whether a limit cut a ledger or evaluation.
type ReconstructionCoverage struct {
	Status    string `json:"status"`
	Truncated bool   `json:"truncated"`
}

// BuildReconstructionObligationLedgerResult is the result of build_reconstruction_obligation_ledger.
// Obligations are open records (their match member depends on the kind),
// so they stay maps.
type BuildReconstructionObligationLedgerResult struct {
	LedgerID      string                 `json:"ledger_id"`
	SourceTraceID string                 `json:"source_trace_id"`
	SourceGraphID string                 `json:"source_graph_id"`
	Obligations   []map[string]any       `json:"obligations"`
	Summary       LedgerSummary          `json:"summary"`
	Coverage      ReconstructionCoverage `json:"coverage"`
}

// EvaluateReconstructionCoverageInput is the input of evaluate_reconstruction_coverage.
type EvaluateReconstructionCoverageInput struct {
	Ledger         json.RawMessage `json:"ledger"`
	Reconstruction json.RawMessage `json:"reconstruction"`
}

// CoverageItem is one obligation evaluated against a reconstruction.
type CoverageItem struct {
	ObligationID any    `json:"obligation_id"` // as the ledger records it
	Kind         string `json:"kind"`
	Key          string `json:"key"`
	Status       string `json:"status"` // covered, missing, unknown
}

// CoverageSummary counts an evaluation.
type CoverageSummary struct {
	Counts       map[string]int `json:"counts"`
	Total        int            `json:"total"`
	CoveredRatio float64        `json:"covered_ratio"` // covered / total, to 4 decimals
}

// EvaluateReconstructionCoverageResult is the result of evaluate_reconstruction_coverage.
type EvaluateReconstructionCoverageResult struct {
	EvaluationID          string                 `json:"evaluation_id"`
	LedgerID              string                 `json:"ledger_id"`
	ReconstructionGraphID string                 `json:"reconstruction_graph_id"`
	Items                 []CoverageItem         `json:"items"`
	Summary               CoverageSummary        `json:"summary"`
	Coverage              ReconstructionCoverage `json:"coverage"`
}

var operationTypes = map[string]core.Types{
	"analyze_javascript_application":         core.TypesOf[analyzeArgs, Application](),
	"trace_application_feature":              core.TypesOf[TraceApplicationFeatureInput, TraceApplicationFeatureResult](),
	"trace_javascript_semantics":             core.TypesOf[TraceJavascriptSemanticsInput, TraceJavascriptSemanticsResult](),
	"compare_application_versions":           core.TypesOf[CompareApplicationVersionsInput, CompareApplicationVersionsResult](),
	"compare_source_to_bundle":               core.TypesOf[CompareSourceToBundleInput, CompareSourceToBundleResult](),
	"compare_javascript_export_shapes":       core.TypesOf[CompareJavascriptExportShapesInput, CompareJavascriptExportShapesResult](),
	"build_reconstruction_obligation_ledger": core.TypesOf[BuildReconstructionObligationLedgerInput, BuildReconstructionObligationLedgerResult](),
	"evaluate_reconstruction_coverage":       core.TypesOf[EvaluateReconstructionCoverageInput, EvaluateReconstructionCoverageResult](),
}
