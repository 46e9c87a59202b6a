package runtime

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

var operationTypes = map[string]core.Types{
	"list_javascript_runtime_targets": core.TypesOf[ListJavaScriptRuntimeTargetsInput, ListJavaScriptRuntimeTargetsResult](),
	"observe_javascript_runtime":      core.TypesOf[ObserveJavaScriptRuntimeInput, ObserveJavaScriptRuntimeResult](),
	"list_electron_targets":           core.TypesOf[ListElectronTargetsInput, ListElectronTargetsResult](),
	"inspect_electron_page":           core.TypesOf[InspectElectronPageInput, InspectElectronPageResult](),
	"capture_electron_scenario":       core.TypesOf[CaptureElectronScenarioInput, CaptureElectronScenarioResult](),
	"reconcile_javascript_runtime":    core.TypesOf[ReconcileJavaScriptRuntimeInput, ReconcileJavaScriptRuntimeResult](),
}

// ---- shared parts

// RuntimeInfo is the V8 runtime identity (/json/version of an inspector).
type RuntimeInfo struct {
	Product         string  `json:"product"`
	ProtocolVersion string  `json:"protocol_version"`
	V8Version       *string `json:"v8_version"`
}

// RuntimeLocation is a file-gated script or target location: a file, an
// in-scope URL, or unresolved with the reason.
type RuntimeLocation struct {
	Kind         string  `json:"kind"`                    // file, url or unresolved
	FilePath     *string `json:"file_path,omitempty"`     // file
	Origin       *string `json:"origin,omitempty"`        // url
	SanitizedURL *string `json:"sanitized_url,omitempty"` // url
	ReportedURL  *string `json:"reported_url,omitempty"`  // unresolved
	Reason       *string `json:"reason,omitempty"`        // unresolved
}

// ElectronBrowser is an Electron application's browser identity.
type ElectronBrowser struct {
	Product         string `json:"product"`
	ProtocolVersion string `json:"protocol_version"`
	Revision        string `json:"revision"`
	UserAgent       string `json:"user_agent"`
	JSVersion       string `json:"js_version"`
}

// TargetPage is the offset/limit paging of a target list.
type TargetPage[T any] struct {
	Items      []T  `json:"items"`
	Total      int  `json:"total"`
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	NextOffset *int `json:"next_offset"` // null on the last page
}

// ---- list_javascript_runtime_targets

// ListJavaScriptRuntimeTargetsInput is the input of list_javascript_runtime_targets.
type ListJavaScriptRuntimeTargetsInput struct {
	InspectorEndpoint string   `json:"inspector_endpoint"`
	AllowedFileRoots  []string `json:"allowed_file_roots,omitempty"`
	AllowedOrigins    []string `json:"allowed_origins,omitempty"`
	Offset            *int     `json:"offset,omitempty"`
	Limit             *int     `json:"limit,omitempty"`
}

// RuntimeTarget is one target of list_javascript_runtime_targets.
type RuntimeTarget struct {
	TargetID     string          `json:"target_id"`
	ProtocolType string          `json:"protocol_type"`
	Title        string          `json:"title"`
	Attached     bool            `json:"attached"`
	Location     RuntimeLocation `json:"location"`
}

// RuntimeTargetsExcluded counts the targets left out, by reason.
type RuntimeTargetsExcluded struct {
	OutsideFileRoots    int `json:"outside_file_roots"`
	OutsideOrigins      int `json:"outside_origins"`
	UnsupportedLocation int `json:"unsupported_location"`
	Unconnectable       int `json:"unconnectable"`
}

// ListJavaScriptRuntimeTargetsResult is the result of list_javascript_runtime_targets.
type ListJavaScriptRuntimeTargetsResult struct {
	SchemaVersion int                       `json:"schema_version"`
	Runtime       RuntimeInfo               `json:"runtime"`
	Targets       TargetPage[RuntimeTarget] `json:"targets"`
	Excluded      RuntimeTargetsExcluded    `json:"excluded"`
	Limitations   []string                  `json:"limitations"`
}

// ---- observe_javascript_runtime

// ObserveJavaScriptRuntimeLimits caps an observation.
type ObserveJavaScriptRuntimeLimits struct {
	MaxEvents             *int `json:"max_events,omitempty"`
	MaxScripts            *int `json:"max_scripts,omitempty"`
	MaxExecutionContexts  *int `json:"max_execution_contexts,omitempty"`
	MaxLocationBytes      *int `json:"max_location_bytes,omitempty"`
	MaxTotalMetadataBytes *int `json:"max_total_metadata_bytes,omitempty"`
}

// ObserveJavaScriptRuntimeInput is the input of observe_javascript_runtime.
type ObserveJavaScriptRuntimeInput struct {
	InspectorEndpoint string                          `json:"inspector_endpoint"`
	TargetID          string                          `json:"target_id"`
	AllowedFileRoots  []string                        `json:"allowed_file_roots,omitempty"`
	AllowedOrigins    []string                        `json:"allowed_origins,omitempty"`
	RuntimeKind       string                          `json:"runtime_kind,omitempty"` // node, electron-main, electron-preload or electron-renderer
	ObservationMS     *int                            `json:"observation_ms,omitempty"`
	Limits            *ObserveJavaScriptRuntimeLimits `json:"limits,omitempty"`
}

// ObservedRuntimeTarget is the target an observation attached to.
type ObservedRuntimeTarget struct {
	TargetID             string          `json:"target_id"`
	ProtocolType         string          `json:"protocol_type"`
	Title                string          `json:"title"`
	Location             RuntimeLocation `json:"location"`
	RuntimeKind          string          `json:"runtime_kind"`
	RuntimeKindAuthority string          `json:"runtime_kind_authority"`
}

// RuntimeCapture is an observation's window and event accounting.
type RuntimeCapture struct {
	ObservationMS         int      `json:"observation_ms"`
	StartedAt             string   `json:"started_at"`
	EndedAt               string   `json:"ended_at"`
	EventsObserved        int      `json:"events_observed"`
	EventsRetained        int      `json:"events_retained"`
	EventsDropped         int      `json:"events_dropped"`
	MetadataBytesRetained int      `json:"metadata_bytes_retained"`
	Truncated             bool     `json:"truncated"`
	TruncationReasons     []string `json:"truncation_reasons"`
}

// RuntimeScript is one loaded script of an observation.
type RuntimeScript struct {
	ScriptKey           string          `json:"script_key"`
	Location            RuntimeLocation `json:"location"`
	ExecutionContextKey *string         `json:"execution_context_key"`
	CDPHash             string          `json:"cdp_hash"`
	Length              int             `json:"length"`
	IsModule            bool            `json:"is_module"`
	Status              string          `json:"status"` // observed-loaded or observed-failed-to-parse
}

// RuntimeScriptsExcluded counts the scripts left out, by reason.
type RuntimeScriptsExcluded struct {
	Builtin              int `json:"builtin"`
	OutsideFileRoots     int `json:"outside_file_roots"`
	OutsideOrigins       int `json:"outside_origins"`
	UnsupportedLocation  int `json:"unsupported_location"`
	InvalidProtocolValue int `json:"invalid_protocol_value"`
}

// RuntimeScripts are an observation's scripts.
type RuntimeScripts struct {
	Items         []RuntimeScript        `json:"items"`
	ObservedTotal int                    `json:"observed_total"`
	Excluded      RuntimeScriptsExcluded `json:"excluded"`
}

// RuntimeExecutionContext is one execution context of an observation.
type RuntimeExecutionContext struct {
	ContextKey string  `json:"context_key"`
	State      string  `json:"state"` // live or destroyed
	Name       *string `json:"name"`
	Origin     *string `json:"origin"`
}

// ObserveJavaScriptRuntimeResult is the result of observe_javascript_runtime.
type ObserveJavaScriptRuntimeResult struct {
	SchemaVersion                     int                       `json:"schema_version"`
	Runtime                           RuntimeInfo               `json:"runtime"`
	Target                            ObservedRuntimeTarget     `json:"target"`
	Capture                           RuntimeCapture            `json:"capture"`
	Scripts                           RuntimeScripts            `json:"scripts"`
	ExecutionContexts                 []RuntimeExecutionContext `json:"execution_contexts"`
	DirectlyObserved                  []string                  `json:"directly_observed"`
	UnavailableWithoutInstrumentation []string                  `json:"unavailable_without_instrumentation"`
	Unknowns                          []string                  `json:"unknowns"`
	Limitations                       []string                  `json:"limitations"`
}

// ---- list_electron_targets

// ListElectronTargetsInput is the input of list_electron_targets.
type ListElectronTargetsInput struct {
	CdpEndpoint      string   `json:"cdp_endpoint"`
	AllowedFileRoots []string `json:"allowed_file_roots,omitempty"`
	Offset           *int     `json:"offset,omitempty"`
	Limit            *int     `json:"limit,omitempty"`
}

// ElectronTarget is one page target of an Electron application.
type ElectronTarget struct {
	TargetID string `json:"target_id"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	FilePath string `json:"file_path"`
	Attached bool   `json:"attached"`
}

// ElectronTargetsExcluded counts the targets left out, by reason.
type ElectronTargetsExcluded struct {
	NonPage        int `json:"non_page"`
	OutsideRoot    int `json:"outside_root"`
	UnsupportedURL int `json:"unsupported_url"`
	Unconnectable  int `json:"unconnectable"`
}

// ListElectronTargetsResult is the result of list_electron_targets.
type ListElectronTargetsResult struct {
	SchemaVersion int                        `json:"schema_version"`
	Browser       ElectronBrowser            `json:"browser"`
	Targets       TargetPage[ElectronTarget] `json:"targets"`
	Excluded      ElectronTargetsExcluded    `json:"excluded"`
	Limitations   []string                   `json:"limitations"`
}

// ---- inspect_electron_page

// InspectElectronPageLimits caps a page capture.
type InspectElectronPageLimits struct {
	MaxFrames    *int `json:"max_frames,omitempty"`
	MaxDOMNodes  *int `json:"max_dom_nodes,omitempty"`
	MaxScripts   *int `json:"max_scripts,omitempty"`
	MaxResources *int `json:"max_resources,omitempty"`
	MaxWorkers   *int `json:"max_workers,omitempty"`
}

// InspectElectronPageInput is the input of inspect_electron_page.
type InspectElectronPageInput struct {
	CdpEndpoint          string                     `json:"cdp_endpoint"`
	TargetID             string                     `json:"target_id"`
	AllowedFileRoots     []string                   `json:"allowed_file_roots,omitempty"`
	ObservationMS        *int                       `json:"observation_ms,omitempty"`
	IncludeScriptSources *bool                      `json:"include_script_sources,omitempty"`
	Limits               *InspectElectronPageLimits `json:"limits,omitempty"`
}

// ElectronCaptureWindow is a page capture's observation window.
type ElectronCaptureWindow struct {
	StartedAt     string `json:"started_at"` // RFC 3339 UTC
	EndedAt       string `json:"ended_at"`   // RFC 3339 UTC
	ObservationMS int    `json:"observation_ms"`
}

// ElectronExcluded is a section's observations left out by policy.
type ElectronExcluded struct {
	Section string `json:"section"`
	Reason  string `json:"reason"`
	Count   int    `json:"count"`
}

// ElectronUnavailable is a section the page could not provide.
type ElectronUnavailable struct {
	Section string `json:"section"`
	Reason  string `json:"reason"`
}

// ElectronCompleteness is a page capture's section coverage.
type ElectronCompleteness struct {
	Status      string                `json:"status"` // complete or partial
	Excluded    []ElectronExcluded    `json:"excluded"`
	Truncated   []string              `json:"truncated"`
	Unavailable []ElectronUnavailable `json:"unavailable"`
}

// ElectronFrame is one gated frame, breadth first.
type ElectronFrame struct {
	FrameID       string  `json:"frame_id"`
	ParentFrameID *string `json:"parent_frame_id"`
	FilePath      string  `json:"file_path"`
	// A frame in another renderer process: the sections that hold nothing of it.
	NotCaptured []string `json:"not_captured,omitempty"`
}

// ElectronDOMNode is one value-free DOM node.
type ElectronDOMNode struct {
	Index           int      `json:"index"`
	ParentIndex     int      `json:"parent_index"`
	NodeType        int      `json:"node_type"`
	NodeName        string   `json:"node_name"`
	NodeValueLength int      `json:"node_value_length"`
	AttributeNames  []string `json:"attribute_names"`
}

// ElectronDOM is a page's value-free DOM structure.
type ElectronDOM struct {
	TotalNodes int               `json:"total_nodes"`
	Nodes      []ElectronDOMNode `json:"nodes"`
}

// ElectronScriptSource is a kept script source.
type ElectronScriptSource struct {
	URI       string `json:"uri"` // rea://electron-content/sha256/HEX
	SHA256    string `json:"sha256"`
	Bytes     int    `json:"bytes"`
	MediaType string `json:"media_type"`
	Text      string `json:"text"`
}

// ElectronScript is one parsed script of a page.
type ElectronScript struct {
	ScriptKey string                `json:"script_key"`
	FrameID   *string               `json:"frame_id"`
	FilePath  string                `json:"file_path"`
	CDPHash   string                `json:"cdp_hash"`
	Length    int                   `json:"length"`
	IsModule  bool                  `json:"is_module"`
	Language  *string               `json:"language"`
	Source    *ElectronScriptSource `json:"source"` // null unless include_script_sources
}

// ElectronScripts are a page's scripts.
type ElectronScripts struct {
	Total int              `json:"total"`
	Items []ElectronScript `json:"items"`
}

// ElectronResource is one gated resource of a page.
type ElectronResource struct {
	ResourceKey string   `json:"resource_key"`
	FrameID     string   `json:"frame_id"`
	FilePath    string   `json:"file_path"`
	Type        string   `json:"type"`
	MimeType    string   `json:"mime_type"`
	ContentSize *float64 `json:"content_size"`
}

// ElectronWorker is one worker target of a page.
type ElectronWorker struct {
	TargetID string `json:"target_id"`
	Type     string `json:"type"`
	FilePath string `json:"file_path"`
}

// InspectElectronPageResult is the result of inspect_electron_page.
type InspectElectronPageResult struct {
	SchemaVersion int                   `json:"schema_version"`
	Browser       ElectronBrowser       `json:"browser"`
	Target        ElectronTarget        `json:"target"`
	CaptureWindow ElectronCaptureWindow `json:"capture_window"`
	Completeness  ElectronCompleteness  `json:"completeness"`
	Frames        []ElectronFrame       `json:"frames"`
	DOM           ElectronDOM           `json:"dom"`
	Scripts       ElectronScripts       `json:"scripts"`
	Resources     []ElectronResource    `json:"resources"`
	Workers       []ElectronWorker      `json:"workers"`
	Limitations   []string              `json:"limitations"`
}

// ---- capture_electron_scenario

// ElectronAction is one scripted action of a scenario.
type ElectronAction struct {
	StepID      string `json:"step_id"`
	Kind        string `json:"kind"` // click, wait, renderer-reload, renderer-crash or deep-link
	Selector    string `json:"selector,omitempty"`
	WindowIndex *int   `json:"window_index,omitempty"`
	DurationMS  *int   `json:"duration_ms,omitempty"`
	Delivery    string `json:"delivery,omitempty"` // open-url or second-instance
	URL         string `json:"url,omitempty"`
}

// CaptureElectronScenarioLimits caps a scenario.
type CaptureElectronScenarioLimits struct {
	DurationMS    *int `json:"duration_ms,omitempty"`
	ActionMS      *int `json:"action_ms,omitempty"`
	IPCEvents     *int `json:"ipc_events,omitempty"`
	RuntimeEvents *int `json:"runtime_events,omitempty"`
	Processes     *int `json:"processes,omitempty"`
	Windows       *int `json:"windows,omitempty"`
}

// CaptureElectronScenarioInput is the input of capture_electron_scenario.
type CaptureElectronScenarioInput struct {
	SchemaVersion   int                            `json:"schema_version"` // 1
	ExecutablePath  string                         `json:"executable_path"`
	ApplicationPath string                         `json:"application_path"`
	ApplicationRoot string                         `json:"application_root,omitempty"`
	Args            []string                       `json:"args,omitempty"`
	Actions         []ElectronAction               `json:"actions,omitempty"`
	Limits          *CaptureElectronScenarioLimits `json:"limits,omitempty"`
}

// ElectronApplication is the launched application.
type ElectronApplication struct {
	ExecutablePath   string  `json:"executable_path"`
	ApplicationPath  string  `json:"application_path"`
	ElectronVersion  *string `json:"electron_version"`
	ProcessOwnership string  `json:"process_ownership"`
	Cleanup          string  `json:"cleanup"`
}

// ElectronActionResult is how one action went.
type ElectronActionResult struct {
	StepID    string  `json:"step_id"`
	Kind      string  `json:"kind"`
	Status    string  `json:"status"`
	Error     *string `json:"error"`
	ElapsedMS int64   `json:"elapsed_ms"`
}

// ElectronWindow is one BrowserWindow of a scenario.
type ElectronWindow struct {
	WindowID      int    `json:"window_id"`
	WebContentsID int    `json:"web_contents_id"`
	URL           string `json:"url"`
	Title         string `json:"title"`
	Visible       bool   `json:"visible"`
	Destroyed     bool   `json:"destroyed"`
	Crashed       bool   `json:"crashed"`
}

// ElectronRenderer is one live webContents' renderer at the end of a
// scenario, and whether the hook's renderer half attached to it.
type ElectronRenderer struct {
	WebContentsID int  `json:"web_contents_id"`
	WindowID      *int `json:"window_id"`
	PID           *int `json:"pid"`
	Loaded        bool `json:"loaded"`
	Attached      bool `json:"attached"`
	Crashed       bool `json:"crashed"`
}

// ElectronProcess is one owned process of a scenario.
type ElectronProcess struct {
	PID  int    `json:"pid"`
	Role string `json:"role"`
}

// ElectronProcesses are a scenario's owned processes: Items those alive at
// the snapshot, Ended those that went away before it, with their exit.
type ElectronProcesses struct {
	Items     []ElectronProcess      `json:"items"`
	Truncated bool                   `json:"truncated"`
	Ended     []ElectronEndedProcess `json:"ended"`
}

// ElectronEndedProcess is an owned process gone before the snapshot. PID is
// null when Electron named none (child-process-gone); Reason and ExitCode
// are Electron's, null when it gave none.
type ElectronEndedProcess struct {
	PID      *int    `json:"pid"`
	Role     string  `json:"role"`
	Reason   *string `json:"reason"`
	ExitCode *int    `json:"exit_code"`
}

// ElectronEvent is one IPC message or effect of a scenario (argument
// shapes, never values).
type ElectronEvent struct {
	Sequence       int      `json:"sequence"`
	Family         string   `json:"family"`
	Kind           string   `json:"kind"`
	Phase          string   `json:"phase"`
	Channel        *string  `json:"channel"`
	Direction      *string  `json:"direction"`
	ArgumentShapes []string `json:"argument_shapes"`
	Role           *string  `json:"role"` // main or renderer: the process that saw it
	PID            *int     `json:"pid"`
	WindowID       *int     `json:"window_id"`
	WebContentsID  *int     `json:"web_contents_id"`
	ElapsedMS      int64    `json:"elapsed_ms"`
}

// ElectronEvents are a bounded event stream.
type ElectronEvents struct {
	Events    []ElectronEvent `json:"events"`
	Observed  int             `json:"observed"`
	Retained  int             `json:"retained"`
	Truncated bool            `json:"truncated"`
}

// ElectronCoverage is what a scenario saw.
type ElectronCoverage struct {
	Status                   string   `json:"status"`
	ObservedEventFamilies    []string `json:"observed_event_families"`
	UnavailableEventFamilies []string `json:"unavailable_event_families"`
	ObservedRoles            []string `json:"observed_roles"`
	PreCaptureActivity       string   `json:"pre_capture_activity"`
}

// CaptureElectronScenarioResult is the result of capture_electron_scenario.
type CaptureElectronScenarioResult struct {
	SchemaVersion int                    `json:"schema_version"`
	Application   ElectronApplication    `json:"application"`
	Actions       []ElectronActionResult `json:"actions"`
	Windows       []ElectronWindow       `json:"windows"`
	Processes     ElectronProcesses      `json:"processes"`
	Renderers     []ElectronRenderer     `json:"renderers"`
	IPC           ElectronEvents         `json:"ipc"`
	Timeline      ElectronEvents         `json:"timeline"`
	Coverage      ElectronCoverage       `json:"coverage"`
	Limitations   []string               `json:"limitations"`
}

// ---- reconcile_javascript_runtime

// RuntimeMapping says where runtime locations live in an analyzed artifact.
type RuntimeMapping struct {
	Kind           string `json:"kind"` // file-root or url-prefix
	Root           string `json:"root,omitempty"`
	Prefix         string `json:"prefix,omitempty"`
	ArtifactPrefix string `json:"artifact_prefix"`
}

// StaticLayer is one static analysis to reconcile against.
type StaticLayer struct {
	Role            string           `json:"role"`     // application, cache or assets
	Analysis        json.RawMessage  `json:"analysis"` // analyze_javascript_application Evidence, inline or retained
	RuntimeMappings []RuntimeMapping `json:"runtime_mappings,omitempty"`
}

// ReconcileLimits caps a reconciliation.
type ReconcileLimits struct {
	MaxRuntimeEntities     *int `json:"max_runtime_entities,omitempty"`
	MaxReconciliationItems *int `json:"max_reconciliation_items,omitempty"`
	MaxStaticLoadStates    *int `json:"max_static_load_states,omitempty"`
}

// ReconcileJavaScriptRuntimeInput is the input of reconcile_javascript_runtime.
type ReconcileJavaScriptRuntimeInput struct {
	StaticLayers        []StaticLayer     `json:"static_layers"`
	RuntimeObservations []json.RawMessage `json:"runtime_observations"` // Evidence, inline or retained
	Limits              *ReconcileLimits  `json:"limits,omitempty"`
	Detail              string            `json:"detail,omitempty"` // concise (default) or complete: whether resident-in-loaded-asset load states are listed
}

// ReconciledLayerMapping is a layer's mapping as the result echoes it.
type ReconciledLayerMapping struct {
	Kind           string  `json:"kind"`
	Root           *string `json:"root"`
	Prefix         *string `json:"prefix"`
	ArtifactPrefix string  `json:"artifact_prefix"`
}

// ReconciledLayer is one static layer of a reconciliation.
type ReconciledLayer struct {
	LayerID            string                   `json:"layer_id"`
	Role               string                   `json:"role"`
	EvidenceID         string                   `json:"evidence_id"`
	GraphID            string                   `json:"graph_id"`
	RootArtifactSHA256 string                   `json:"root_artifact_sha256"`
	InputPath          string                   `json:"input_path"`
	Format             string                   `json:"format"`
	RuntimeMappings    []ReconciledLayerMapping `json:"runtime_mappings"`
}

// ReconciledCapture is one runtime observation of a reconciliation.
type ReconciledCapture struct {
	EvidenceID    string `json:"evidence_id"`
	CaptureSHA256 string `json:"capture_sha256"`
	Kind          string `json:"kind"` // v8-inspector, electron, electron-active or browser
	TargetNodeID  string `json:"target_node_id"`
	Complete      bool   `json:"complete"`
}

// RuntimeGraphNode is a runtime target, script or IPC channel node.
type RuntimeGraphNode struct {
	NodeID            string `json:"node_id"`
	Kind              string `json:"kind"`
	CaptureEvidenceID string `json:"capture_evidence_id"`
	Label             string `json:"label"`
}

// RuntimeGraphEdge is an observed_as edge from a runtime node to a static one.
type RuntimeGraphEdge struct {
	EdgeID        string `json:"edge_id"`
	SourceNodeID  string `json:"source_node_id"`
	TargetNodeID  string `json:"target_node_id"`
	TargetLayerID string `json:"target_layer_id"`
	Relation      string `json:"relation"`
	Authority     string `json:"authority"`
	State         string `json:"state"`
	Basis         string `json:"basis"`
}

// RuntimeGraph is the runtime side of a reconciliation.
type RuntimeGraph struct {
	Nodes []RuntimeGraphNode `json:"nodes"`
	Edges []RuntimeGraphEdge `json:"edges"`
}

// Reconciliation is how one runtime entity matched the static layers.
type Reconciliation struct {
	ReconciliationID     string   `json:"reconciliation_id"`
	EntityKind           string   `json:"entity_kind"` // script or ipc-channel
	RuntimeNodeID        string   `json:"runtime_node_id"`
	StaticLayerID        *string  `json:"static_layer_id"`
	StaticNodeID         *string  `json:"static_node_id"`
	Status               string   `json:"status"` // matched, ambiguous, unmatched or unknown
	Basis                *string  `json:"basis"`
	Confidence           string   `json:"confidence"`
	Reason               string   `json:"reason"`
	CandidateStaticCount int      `json:"candidate_static_count"`
	CandidateStaticNodes []string `json:"candidate_static_nodes"`
}

// StaticLoadState is the load state of one application module.
type StaticLoadState struct {
	StaticLayerID  string   `json:"static_layer_id"`
	StaticNodeID   string   `json:"static_node_id"`
	Path           string   `json:"path"`
	State          string   `json:"state"`
	Reason         string   `json:"reason"`
	RuntimeNodeIDs []string `json:"runtime_node_ids"`
}

// SourceMapAuthority says source maps are not used for primary matching.
type SourceMapAuthority struct {
	UsedForPrimaryMatching bool   `json:"used_for_primary_matching"` // always false
	Reason                 string `json:"reason"`
}

// ReconcileCoverage is a reconciliation's coverage.
type ReconcileCoverage struct {
	Status                     string `json:"status"`
	OmittedRuntimeEntities     int    `json:"omitted_runtime_entities"`
	OmittedReconciliationItems int    `json:"omitted_reconciliation_items"`
	OmittedStaticLoadStates    int    `json:"omitted_static_load_states"`
}

// ReconcileJavaScriptRuntimeResult is the result of reconcile_javascript_runtime.
type ReconcileJavaScriptRuntimeResult struct {
	SchemaVersion      int                 `json:"schema_version"`
	ReconciliationID   string              `json:"reconciliation_id"`
	StaticLayers       []ReconciledLayer   `json:"static_layers"`
	RuntimeCaptures    []ReconciledCapture `json:"runtime_captures"`
	Graph              RuntimeGraph        `json:"graph"`
	Summary            map[string]int      `json:"summary"`
	Reconciliations    []Reconciliation    `json:"reconciliations"`
	StaticLoadStates   []StaticLoadState   `json:"static_load_states"`
	SourceMapAuthority SourceMapAuthority  `json:"source_map_authority"`
	Coverage           ReconcileCoverage   `json:"coverage"`
	EvidenceLinks      []string            `json:"evidence_links"`
	Limitations        []string            `json:"limitations"`
}
