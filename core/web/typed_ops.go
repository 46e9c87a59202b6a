package web

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// WebInspectionAccessibilityNodeState is part of the input of compare_web_captures.
type WebInspectionAccessibilityNodeState struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"` // boolean, number or string; inspect_web_page writes true (the state was reported)
}

// WebInspectionAccessibilityNode is part of the input of compare_web_captures.
type WebInspectionAccessibilityNode struct {
	Description *string                               `json:"description"`
	Ignored     bool                                  `json:"ignored"`
	Name        *string                               `json:"name"`
	NodeID      string                                `json:"node_id"`
	ParentID    *string                               `json:"parent_id"`
	Role        *string                               `json:"role"`
	States      []WebInspectionAccessibilityNodeState `json:"states"`
}

// WebInspectionAccessibilityTextCapture is part of the input of compare_web_captures.
type WebInspectionAccessibilityTextCapture struct {
	ExcludedFields  int    `json:"excluded_fields"`
	RetainedBytes   int    `json:"retained_bytes"`
	Status          string `json:"status"`
	TruncatedFields *int   `json:"truncated_fields,omitempty"` // optional in a capture; inspect_web_page always writes it
}

// WebInspectionAccessibility is part of the input of compare_web_captures.
type WebInspectionAccessibility struct {
	Nodes       []WebInspectionAccessibilityNode      `json:"nodes"`
	TextCapture WebInspectionAccessibilityTextCapture `json:"text_capture"`
	TotalNodes  int                                   `json:"total_nodes"`
}

// WebBrowser is part of the input of compare_web_captures.
// Browser identity from /json/version.
type WebBrowser struct {
	JSVersion       string `json:"js_version"`
	Product         string `json:"product"`
	ProtocolVersion string `json:"protocol_version"`
	Revision        string `json:"revision"`
	UserAgent       string `json:"user_agent"`
}

// WebInspectionCaptureWindow is part of the input of compare_web_captures.
type WebInspectionCaptureWindow struct {
	EndedAt       string `json:"ended_at"` // ISO 8601 UTC time with milliseconds.
	ObservationMS int    `json:"observation_ms"`
	StartedAt     string `json:"started_at"` // ISO 8601 UTC time with milliseconds.
}

// WebCompletenessDroppedEvents is part of the input of compare_web_captures.
type WebCompletenessDroppedEvents struct {
	ConsoleEvents        int `json:"console_events"`
	NetworkRequests      int `json:"network_requests"`
	Scripts              int `json:"scripts"`
	TimelineEvents       int `json:"timeline_events"`
	Total                int `json:"total"` // Sum of the per-kind dropped counts.
	WebMCPTools          int `json:"webmcp_tools"`
	WebsocketConnections int `json:"websocket_connections"`
	WebsocketFrames      int `json:"websocket_frames"`
}

// WebCompletenessExcludedItem is part of the input of compare_web_captures.
type WebCompletenessExcludedItem struct {
	Count   *int   `json:"count"`
	Reason  string `json:"reason"`
	Section string `json:"section"`
}

// WebCompleteness is part of the input of compare_web_captures.
// Section-level coverage of a bounded browser observation (BROWSER.md §4).
type WebCompleteness struct {
	AttachLimitedSections  []string                      `json:"attach_limited_sections"` // Sections observed only after attachment.
	Conditions             []string                      `json:"conditions"`
	DroppedEvents          WebCompletenessDroppedEvents  `json:"dropped_events"`
	Excluded               []WebCompletenessExcludedItem `json:"excluded"`
	PolicyFilteredSections []string                      `json:"policy_filtered_sections"` // Sections from which policy (origin scope, opt-in) excluded observations.
	Status                 string                        `json:"status"`                   // Overall coverage: truncated, then policy_filtered, then attach_limited, then complete_within_window.
	TruncatedSections      []string                      `json:"truncated_sections"`       // Sections cut by a limit.
	UnavailableSections    []string                      `json:"unavailable_sections"`     // Sections the browser could not provide.
}

// WebInspectionConsoleEventTextCaptureValue is part of the input of compare_web_captures.
type WebInspectionConsoleEventTextCaptureValue struct {
	ArgumentIndex int    `json:"argument_index"`
	Text          string `json:"text"`
	Type          string `json:"type"`
}

// WebInspectionConsoleEventTextCapture is part of the input of compare_web_captures.
type WebInspectionConsoleEventTextCapture struct {
	RetainedBytes   int                                         `json:"retained_bytes"`
	Status          string                                      `json:"status"`
	Values          []WebInspectionConsoleEventTextCaptureValue `json:"values"`
	TruncatedValues *int                                        `json:"truncated_values,omitempty"` // optional in a capture; inspect_web_page always writes it
}

// WebInspectionConsoleEvent is part of the input of compare_web_captures.
type WebInspectionConsoleEvent struct {
	ArgumentTypes []string                             `json:"argument_types"`
	Column        *int                                 `json:"column"`
	Line          *int                                 `json:"line"`
	TextCapture   WebInspectionConsoleEventTextCapture `json:"text_capture"`
	Timestamp     float64                              `json:"timestamp"`
	Type          string                               `json:"type"`
	URL           *string                              `json:"url"`
}

// WebInspectionConsole is part of the input of compare_web_captures.
type WebInspectionConsole struct {
	CoverageStartedAt      string                      `json:"coverage_started_at"` // ISO 8601 UTC time with milliseconds.
	Events                 []WebInspectionConsoleEvent `json:"events"`
	PriorActivityAvailable bool                        `json:"prior_activity_available"`
}

// WebInspectionDOMNode is part of the input of compare_web_captures.
type WebInspectionDOMNode struct {
	AttributeNames  []string `json:"attribute_names"`
	Index           int      `json:"index"`
	NodeName        string   `json:"node_name"`
	NodeType        int      `json:"node_type"`
	NodeValueLength int      `json:"node_value_length"`
	ParentIndex     int      `json:"parent_index"`
}

// WebInspectionDOM is part of the input of compare_web_captures.
// Value-free DOM snapshot of in-scope documents.
type WebInspectionDOM struct {
	Nodes      []WebInspectionDOMNode `json:"nodes"`
	TotalNodes int                    `json:"total_nodes"` // Nodes in scope before the node limit.
}

// WebInspectionFrame is part of the input of compare_web_captures.
type WebInspectionFrame struct {
	FrameID       string   `json:"frame_id"`
	NotCaptured   []string `json:"not_captured,omitempty"` // a frame in another renderer process: sections that leave it out
	Origin        *string  `json:"origin"`
	ParentFrameID *string  `json:"parent_frame_id"`
	URL           string   `json:"url"`
}

// WebInspectionMetadataAgentHint is part of the input of compare_web_captures.
type WebInspectionMetadataAgentHint struct {
	Declaration string  `json:"declaration"`
	Mechanism   string  `json:"mechanism"`
	Trust       string  `json:"trust"`
	URL         *string `json:"url"`
}

// WebInspectionMetadataDOMUrl is part of the input of compare_web_captures.
type WebInspectionMetadataDOMUrl struct {
	Attribute        string  `json:"attribute"`
	DestinationScope string  `json:"destination_scope"`
	NodeIndex        int     `json:"node_index"`
	URL              *string `json:"url"`
}

// WebInspectionMetadataResponseCSPDirectiveSource is part of the input of compare_web_captures.
type WebInspectionMetadataResponseCSPDirectiveSource struct {
	Kind  string  `json:"kind"`
	Value *string `json:"value"`
}

// WebInspectionMetadataResponseCSPDirective is part of the input of compare_web_captures.
type WebInspectionMetadataResponseCSPDirective struct {
	Name    string                                            `json:"name"`
	Sources []WebInspectionMetadataResponseCSPDirectiveSource `json:"sources"`
}

// WebInspectionMetadataResponseCSP is part of the input of compare_web_captures.
type WebInspectionMetadataResponseCSP struct {
	Directives []WebInspectionMetadataResponseCSPDirective `json:"directives"`
	HashCount  int                                         `json:"hash_count"`
	NonceCount int                                         `json:"nonce_count"`
}

// WebInspectionMetadataResponseLink is part of the input of compare_web_captures.
type WebInspectionMetadataResponseLink struct {
	As               *string  `json:"as"`
	Crossorigin      *string  `json:"crossorigin"`
	DestinationScope string   `json:"destination_scope"`
	Href             *string  `json:"href"`
	Rel              []string `json:"rel"`
	Type             *string  `json:"type"`
}

// WebInspectionMetadataResponsePolicies is part of the input of compare_web_captures.
type WebInspectionMetadataResponsePolicies struct {
	Coep                      *string  `json:"coep"`
	Coop                      *string  `json:"coop"`
	Corp                      *string  `json:"corp"`
	PermissionsPolicyFeatures []string `json:"permissions_policy_features"`
	ReferrerPolicy            *string  `json:"referrer_policy"`
	XContentTypeOptions       *string  `json:"x_content_type_options"`
}

// WebInspectionMetadataResponse is part of the input of compare_web_captures.
type WebInspectionMetadataResponse struct {
	ContentEncoding *string                               `json:"content_encoding"`
	ContentLength   *int                                  `json:"content_length"`
	CSP             WebInspectionMetadataResponseCSP      `json:"csp"`
	Links           []WebInspectionMetadataResponseLink   `json:"links"`
	MimeType        *string                               `json:"mime_type"`
	Policies        WebInspectionMetadataResponsePolicies `json:"policies"`
	RequestID       string                                `json:"request_id"`
	URL             string                                `json:"url"`
}

// WebInspectionMetadata is part of the input of compare_web_captures.
// Safe response metadata (header-derived, values discarded), DOM URLs and agent hints.
type WebInspectionMetadata struct {
	AgentHints         []WebInspectionMetadataAgentHint `json:"agent_hints"`
	DOMUrls            []WebInspectionMetadataDOMUrl    `json:"dom_urls"`
	ExcludedDOMUrls    int                              `json:"excluded_dom_urls"`
	HeadersAllowlisted bool                             `json:"headers_allowlisted"`
	Responses          []WebInspectionMetadataResponse  `json:"responses"`
}

// WebJSONShapeProperty is part of the input of compare_web_captures.
type WebJSONShapeProperty struct {
	Observations int      `json:"observations"`
	Path         string   `json:"path"` // JSON-pointer-like path; /* stands for array items.
	Types        []string `json:"types"`
}

// WebJSONShape is part of the input of compare_web_captures.
// Value-free structural summary of a JSON payload.
type WebJSONShape struct {
	MaxDepthObserved int                    `json:"max_depth_observed"`
	NodeCount        int                    `json:"node_count"`
	Properties       []WebJSONShapeProperty `json:"properties"`
	RootType         string                 `json:"root_type"`
	Truncated        *bool                  `json:"truncated,omitempty"` // optional in a capture; inspect_web_page always writes it
}

// WebInspectionNetworkRequestBodyShapes is part of the input of compare_web_captures.
type WebInspectionNetworkRequestBodyShapes struct {
	Request  *WebJSONShape `json:"request"`
	Response *WebJSONShape `json:"response"`
	Status   string        `json:"status"`
}

// WebInspectionNetworkRequestInitiator is part of the input of compare_web_captures.
type WebInspectionNetworkRequestInitiator struct {
	Column *int    `json:"column"`
	Line   *int    `json:"line"`
	Type   string  `json:"type"`
	URL    *string `json:"url"`
}

// WebInspectionNetworkRequest is part of the input of compare_web_captures.
type WebInspectionNetworkRequest struct {
	BodyShapes        WebInspectionNetworkRequestBodyShapes `json:"body_shapes"`
	EncodedDataLength *float64                              `json:"encoded_data_length"`
	Initiator         WebInspectionNetworkRequestInitiator  `json:"initiator"`
	Method            string                                `json:"method"`
	MimeType          *string                               `json:"mime_type"`
	Origin            *string                               `json:"origin"`
	RequestID         string                                `json:"request_id"`
	ResourceType      *string                               `json:"resource_type"`
	Status            *float64                              `json:"status"`
	URL               string                                `json:"url"`
	Redirects         *[]WebInspectionRedirect              `json:"redirects,omitempty"` // Redirect hops on this request id, in order (optional in a capture; inspect_web_page always writes the list, empty or not).
}

// WebInspectionRedirect is one redirect hop of a request (an open object
// in the schema; these are the fields inspect_web_page writes).
type WebInspectionRedirect struct {
	URL    string  `json:"url"`
	Origin *string `json:"origin"`
	Status int     `json:"status"`
}

// WebInspectionNetworkWebsocketEventPayloadShape is part of the input of compare_web_captures.
type WebInspectionNetworkWebsocketEventPayloadShape struct {
	Format    string        `json:"format"`
	JSONShape *WebJSONShape `json:"json_shape"`
	Truncated bool          `json:"truncated,omitempty"`
}

// WebInspectionNetworkWebsocketEvent is part of the input of compare_web_captures.
type WebInspectionNetworkWebsocketEvent struct {
	Direction    string                                          `json:"direction"`
	Opcode       int                                             `json:"opcode"`
	PayloadBytes int                                             `json:"payload_bytes"`
	PayloadShape *WebInspectionNetworkWebsocketEventPayloadShape `json:"payload_shape"`
	RequestID    string                                          `json:"request_id"`
}

// WebInspectionNetwork is part of the input of compare_web_captures.
// Network activity observed after attachment only.
type WebInspectionNetwork struct {
	CoverageStartedAt      string                               `json:"coverage_started_at"` // ISO 8601 UTC time with milliseconds.
	PriorActivityAvailable bool                                 `json:"prior_activity_available"`
	Requests               []WebInspectionNetworkRequest        `json:"requests"`
	WebsocketEvents        []WebInspectionNetworkWebsocketEvent `json:"websocket_events"`
	Websockets             *[]WebInspectionNetworkWebsocket     `json:"websockets,omitempty"` // The sockets seen opening, which websocket_events' request_id names (optional in a capture; inspect_web_page always writes the list).
}

// WebInspectionNetworkWebsocket is part of the input of compare_web_captures.
type WebInspectionNetworkWebsocket struct {
	Origin    *string `json:"origin"`
	RequestID string  `json:"request_id"`
	URL       string  `json:"url"`
}

// WebInspectionResource is part of the input of compare_web_captures.
type WebInspectionResource struct {
	ContentSize *float64 `json:"content_size"`
	MimeType    string   `json:"mime_type"`
	Origin      *string  `json:"origin"`
	ResourceKey string   `json:"resource_key"`
	Type        string   `json:"type"`
	URL         string   `json:"url"`
}

// WebScript is part of the input of compare_web_captures.
type WebScript struct {
	CdpHash                string  `json:"cdp_hash"`
	FrameID                *string `json:"frame_id"`
	IsModule               bool    `json:"is_module"`
	Language               *string `json:"language"`
	Length                 int     `json:"length"`
	Origin                 *string `json:"origin"`
	ResourceReconciliation any     `json:"resource_reconciliation"` // a union by status (exact, ambiguous, unmatched): inspect_web_page writes a struct per alternative; decoded, a map
	ScriptKey              string  `json:"script_key"`
	Source                 any     `json:"source"` // a union on included (the artifact, or the reason): as resource_reconciliation
	SourceMapURL           *string `json:"source_map_url"`
	URL                    string  `json:"url"`
}

// WebInspectionScripts is part of the input of compare_web_captures.
type WebInspectionScripts struct {
	Items []WebScript `json:"items"`
	Total int         `json:"total"` // All captured scripts, including any beyond items.
}

// WebInspectionStorageContentFingerprint is part of the input of compare_web_captures.
type WebInspectionStorageContentFingerprint struct {
	Complete       bool    `json:"complete"`
	IdentitySHA256 string  `json:"identity_sha256"`
	Scope          string  `json:"scope"`
	ValueSHA256    *string `json:"value_sha256"`
}

// WebInspectionStorage is part of the input of compare_web_captures.
type WebInspectionStorage struct {
	CacheNames           []string                                 `json:"cache_names"`
	ContentFingerprints  []WebInspectionStorageContentFingerprint `json:"content_fingerprints"`
	FingerprintAlgorithm string                                   `json:"fingerprint_algorithm"`
	FingerprintsComplete bool                                     `json:"fingerprints_complete"`
	IndexedDbNames       []string                                 `json:"indexed_db_names"`
	LocalStorageKeys     []string                                 `json:"local_storage_keys"`
	Origin               string                                   `json:"origin"`
	QuotaBytes           *float64                                 `json:"quota_bytes"`
	SessionStorageKeys   []string                                 `json:"session_storage_keys"`
	UsageBytes           *float64                                 `json:"usage_bytes"`
	ValuesRedacted       bool                                     `json:"values_redacted"`
}

// WebInspectionTarget is part of the input of compare_web_captures.
type WebInspectionTarget struct {
	Attached bool   `json:"attached"`
	Origin   string `json:"origin"` // Origin of the target URL; empty for an unsupported URL.
	TargetID string `json:"target_id"`
	Title    string `json:"title"`
	Type     string `json:"type"`
	URL      string `json:"url"`
}

// WebInspectionWorker is part of the input of compare_web_captures.
type WebInspectionWorker struct {
	Attached       bool    `json:"attached"`
	OpenerTargetID *string `json:"opener_target_id"`
	Origin         *string `json:"origin"`
	ParentFrameID  *string `json:"parent_frame_id"`
	TargetID       string  `json:"target_id"`
	Type           string  `json:"type"`
	URL            string  `json:"url"`
}

// WebInspection is part of the input of compare_web_captures.
// The complete normalized_result of inspect_web_page.
type WebInspection struct {
	Accessibility WebInspectionAccessibility `json:"accessibility"`
	Browser       WebBrowser                 `json:"browser"` // Browser identity from /json/version.
	CaptureWindow WebInspectionCaptureWindow `json:"capture_window"`
	Completeness  WebCompleteness            `json:"completeness"` // Section-level coverage of a bounded browser observation (BROWSER.md §4).
	Console       WebInspectionConsole       `json:"console"`
	DOM           WebInspectionDOM           `json:"dom"`    // Value-free DOM snapshot of in-scope documents.
	Frames        []WebInspectionFrame       `json:"frames"` // Captured frames in pre-order; the first is the main frame.
	Limitations   []string                   `json:"limitations"`
	Metadata      WebInspectionMetadata      `json:"metadata"` // Safe response metadata (header-derived, values discarded), DOM URLs and agent hints.
	Network       WebInspectionNetwork       `json:"network"`  // Network activity observed after attachment only.
	Resources     []WebInspectionResource    `json:"resources"`
	Scripts       WebInspectionScripts       `json:"scripts"`
	Storage       WebInspectionStorage       `json:"storage"`
	Target        WebInspectionTarget        `json:"target"`
	Workers       []WebInspectionWorker      `json:"workers"`
	SchemaVersion int                        `json:"schema_version,omitempty"`
	// ParentEvidenceID names the retained complete record behind a concise
	// result (inspect_web_page's default on a large page); empty otherwise.
	ParentEvidenceID string `json:"parent_evidence_id,omitempty"`
}

// WebWebMCPDiscoveryTarget is part of the input of compare_web_captures.
type WebWebMCPDiscoveryTarget struct {
	Origin   string `json:"origin"`
	TargetID string `json:"target_id"`
	URL      string `json:"url"`
}

// WebWebMCPDiscoveryToolsItemAnnotations is part of the input of compare_web_captures.
type WebWebMCPDiscoveryToolsItemAnnotations struct {
	Autosubmit       *bool `json:"autosubmit"`
	ReadOnly         *bool `json:"read_only"`
	UntrustedContent *bool `json:"untrusted_content"`
}

// WebWebMCPDiscoveryToolsItemRegistrationSource is part of the input of compare_web_captures.
type WebWebMCPDiscoveryToolsItemRegistrationSource struct {
	Column *int   `json:"column"`
	Line   *int   `json:"line"`
	URL    string `json:"url"`
}

// WebWebMCPDiscoveryToolsItem is part of the input of compare_web_captures.
type WebWebMCPDiscoveryToolsItem struct {
	Annotations        WebWebMCPDiscoveryToolsItemAnnotations         `json:"annotations"`
	DeclarationKind    string                                         `json:"declaration_kind"`
	Description        string                                         `json:"description"`
	FrameID            string                                         `json:"frame_id"`
	FrameURL           string                                         `json:"frame_url"`
	InputSchema        json.RawMessage                                `json:"input_schema"` // Raw page-declared input schema (untrusted JSON, any shape, refs unresolved) or null.
	InputSchemaSHA256  *string                                        `json:"input_schema_sha256"`
	Name               string                                         `json:"name"`
	OwnerOrigin        string                                         `json:"owner_origin"`
	RegistrationSource *WebWebMCPDiscoveryToolsItemRegistrationSource `json:"registration_source"`
	ToolKey            string                                         `json:"tool_key"`
	Trust              string                                         `json:"trust"`
}

// WebWebMCPDiscoveryTools is part of the input of compare_web_captures.
type WebWebMCPDiscoveryTools struct {
	Items []WebWebMCPDiscoveryToolsItem `json:"items"`
	Total int                           `json:"total"` // Kept plus dropped tools.
}

// WebWebMCPDiscovery is part of the input of compare_web_captures.
// The complete normalized_result of discover_webmcp_tools.
type WebWebMCPDiscovery struct {
	Browser       WebBrowser               `json:"browser"`      // Browser identity from /json/version.
	Completeness  WebCompleteness          `json:"completeness"` // Section-level coverage of a bounded browser observation (BROWSER.md §4).
	Limitations   []string                 `json:"limitations"`
	Status        string                   `json:"status"` // unavailable when the browser has no WebMCP domain.
	Target        WebWebMCPDiscoveryTarget `json:"target"`
	Tools         WebWebMCPDiscoveryTools  `json:"tools"`
	SchemaVersion int                      `json:"schema_version,omitempty"`
}

// WebPassiveCapture is part of the input of compare_web_captures.
// The later passive capture, shaped like before.
type WebPassiveCapture struct {
	Inspection WebInspection       `json:"inspection"`       // The complete normalized_result of inspect_web_page.
	WebMCP     *WebWebMCPDiscovery `json:"webmcp,omitempty"` // The complete normalized_result of discover_webmcp_tools for the same page, or null when none was captured.
}

// WebScenarioCaptureBrowser is part of the input of compare_web_captures.
type WebScenarioCaptureBrowser struct {
	Cleanup          string `json:"cleanup"`
	Mode             string `json:"mode"`
	ProcessOwnership string `json:"process_ownership"`
	Product          string `json:"product"`
	Version          string `json:"version"`
}

// WebScenarioCaptureEvents is part of the input of compare_web_captures.
type WebScenarioCaptureEvents struct {
	Dropped  int   `json:"dropped"`
	Items    []any `json:"items"`    // Events of several kinds (a union by kind): capture_browser_scenario writes a struct per kind; decoded, maps.
	Retained int   `json:"retained"` // Number of items.
}

// WebScenarioCaptureScenario is part of the input of compare_web_captures.
type WebScenarioCaptureScenario struct {
	ActionCount      int      `json:"action_count"`
	AllowedOrigins   []string `json:"allowed_origins"`
	SecretReferences []string `json:"secret_references"`
	StartOrigin      string   `json:"start_origin"`
}

// WebSanitizedURL is part of the input of compare_web_captures.
// A sanitized browser URL.
type WebSanitizedURL struct {
	Origin              *string  `json:"origin"`
	QueryParameterNames []string `json:"query_parameter_names"`
	Redacted            bool     `json:"redacted"`
	URL                 string   `json:"url"`
}

// WebScenarioArtifacts is part of the input of compare_web_captures.
// Artifacts captured after the step; each is captured, not_requested, missing or truncated
// (a union by state: capture_browser_scenario writes a struct per state; decoded, maps).
type WebScenarioArtifacts struct {
	Accessibility any `json:"accessibility"`
	DOM           any `json:"dom"`
	History       any `json:"history"`
	Screenshot    any `json:"screenshot"`
	Storage       any `json:"storage"`
	URL           any `json:"url"`
}

// WebScenarioStep is part of the input of compare_web_captures.
type WebScenarioStep struct {
	Action             string                  `json:"action"`
	AfterURL           WebSanitizedURL         `json:"after_url"`    // A sanitized browser URL.
	Artifacts          WebScenarioArtifacts    `json:"artifacts"`    // Artifacts captured after the step; each is captured, not_requested, missing or truncated.
	BeforeURL          WebSanitizedURL         `json:"before_url"`   // A sanitized browser URL.
	Completeness       WebScenarioCompleteness `json:"completeness"` // Scenario coverage; only a complete capture or step is equality-eligible.
	ElapsedMS          int64                   `json:"elapsed_ms"`
	Error              *string                 `json:"error"`                // null exactly when the step completed.
	EventSequenceEnd   int                     `json:"event_sequence_end"`   // Last event sequence of the step; start-1 when the step saw no events.
	EventSequenceStart int                     `json:"event_sequence_start"` // First event sequence of the step.
	Status             string                  `json:"status"`
	StepID             string                  `json:"step_id"` // Stable step identity used for alignment.
	StepIndex          int                     `json:"step_index"`
}

// WebScenarioCompleteness is a scenario capture's or step's coverage:
// complete (equality-eligible), incomplete (missing sections) or truncated.
type WebScenarioCompleteness struct {
	Status            string   `json:"status"`
	EqualityEligible  bool     `json:"equality_eligible"`
	MissingSections   []string `json:"missing_sections"`
	TruncatedSections []string `json:"truncated_sections"`
}

// WebScenarioCapture is part of the input of compare_web_captures.
// The later capture_browser_scenario result.
type WebScenarioCapture struct {
	Browser       WebScenarioCaptureBrowser  `json:"browser"`
	Completeness  WebScenarioCompleteness    `json:"completeness"` // Scenario coverage; only a complete capture or step is equality-eligible.
	DurationMS    int64                      `json:"duration_ms"`
	Events        WebScenarioCaptureEvents   `json:"events"`
	Limitations   []string                   `json:"limitations"`
	Scenario      WebScenarioCaptureScenario `json:"scenario"`
	SchemaVersion int                        `json:"schema_version"`
	Steps         []WebScenarioStep          `json:"steps"` // The start step (index 0) and one step per action.
}

// WebNormalizationRule is part of the input of compare_web_captures.
type WebNormalizationRule struct {
	Artifacts   []string `json:"artifacts"`   // Artifact families whose strings this rule rewrites (never screenshots).
	Match       string   `json:"match"`       // Exact literal to replace (not a regular expression).
	Replacement string   `json:"replacement"` // Replacement text.
	RuleID      string   `json:"rule_id"`     // Stable rule identity; rules run in rule_id order.
}

// WebNormalization is part of the input of compare_web_captures.
// Literal normalization rules applied to both captures before comparing; defaults to no rules.
type WebNormalization struct {
	Rules []WebNormalizationRule `json:"rules"` // Literal replacement rules; rule_id values are unique.
}

// CompareWebCapturesInput is the input of compare_web_captures.
// Compare two supplied browser captures: two passive page captures, or two browser scenario captures.
type CompareWebCapturesInput struct {
	After          *WebPassiveCapture  `json:"after,omitempty"`           // The later passive capture, shaped like before.
	AfterScenario  *WebScenarioCapture `json:"after_scenario,omitempty"`  // The later capture_browser_scenario result.
	Before         *WebPassiveCapture  `json:"before,omitempty"`          // The earlier passive capture: inspection (inspect_web_page result) and optional webmcp (discover_webmcp_tool...
	BeforeScenario *WebScenarioCapture `json:"before_scenario,omitempty"` // The earlier capture_browser_scenario result.
	MaxChanges     *int                `json:"max_changes,omitempty"`     // Maximum change records (passive) or artifact differences (scenario) to retain; the rest are counted as omit...
	Normalization  *WebNormalization   `json:"normalization,omitempty"`   // Literal normalization rules applied to both captures before comparing; defaults to no rules.
}

// WebTargetRef names the compared page.
type WebTargetRef struct {
	TargetID string `json:"target_id"`
	URL      string `json:"url"`
}

// WebChange is one changed item of a dimension.
type WebChange struct {
	Identity string  `json:"identity"`
	Change   string  `json:"change"`
	Before   *string `json:"before_sha256"`
	After    *string `json:"after_sha256"`
}

// WebDimension is one compared dimension: changed, unchanged or unknown.
type WebDimension struct {
	Status         string      `json:"status"`
	TotalChanges   int         `json:"total_changes"`
	Changes        []WebChange `json:"changes"`
	OmittedChanges int         `json:"omitted_changes"`
	Reason         *string     `json:"reason"`
}

// CompareWebCapturesResultDimensions is part of the result of compare_web_captures.
type CompareWebCapturesResultDimensions struct {
	Accessibility WebDimension `json:"accessibility"`
	DOMStructure  WebDimension `json:"dom_structure"`
	Metadata      WebDimension `json:"metadata"`
	Network       WebDimension `json:"network"`
	Resources     WebDimension `json:"resources"`
	Scripts       WebDimension `json:"scripts"`
	Storage       WebDimension `json:"storage"`
	WebMCP        WebDimension `json:"webmcp"`
}

// dimension returns the field of the named dimension (one of
// passiveDimensions), or nil.
func (d *CompareWebCapturesResultDimensions) dimension(name string) *WebDimension {
	switch name {
	case "accessibility":
		return &d.Accessibility
	case "dom_structure":
		return &d.DOMStructure
	case "metadata":
		return &d.Metadata
	case "network":
		return &d.Network
	case "resources":
		return &d.Resources
	case "scripts":
		return &d.Scripts
	case "storage":
		return &d.Storage
	case "webmcp":
		return &d.WebMCP
	}
	return nil
}

// CompareWebCapturesResult is the result of compare_web_captures for two
// passive captures (the first alternative of the result schema; two
// scenario captures give a CompareWebScenarioResult, the second).
type CompareWebCapturesResult struct {
	AfterTarget   WebTargetRef                       `json:"after_target"`
	BeforeTarget  WebTargetRef                       `json:"before_target"`
	Dimensions    CompareWebCapturesResultDimensions `json:"dimensions"`
	Limitations   []string                           `json:"limitations"`
	OverallStatus string                             `json:"overall_status"` // changed if any dimension changed, else unknown if any is unknown, else unchanged.
	SchemaVersion int                                `json:"schema_version"`
}

// WebScenarioNormalization is the committed normalization policy of a
// scenario comparison.
type WebScenarioNormalization struct {
	BuiltInRules []string               `json:"built_in_rules"`
	Rules        []WebNormalizationRule `json:"rules"`
	SHA256       string                 `json:"sha256"` // Digest of {built_in_rules, rules}.
}

// WebArtifactDiff is one artifact that differs (or cannot be compared)
// at an aligned step.
type WebArtifactDiff struct {
	Artifact    string  `json:"artifact"`
	Status      string  `json:"status"`
	BeforeState string  `json:"before_state"`
	AfterState  string  `json:"after_state"`
	BeforeSHA   *string `json:"before_sha256"`
	AfterSHA    *string `json:"after_sha256"`
	Reason      *string `json:"reason"`
}

// WebScenarioStepDiff is one aligned step's comparison.
type WebScenarioStepDiff struct {
	StepID          string            `json:"step_id"`
	BeforeIndex     int               `json:"before_step_index"`
	AfterIndex      int               `json:"after_step_index"`
	BeforeAction    string            `json:"before_action"`
	AfterAction     string            `json:"after_action"`
	Status          string            `json:"status"`
	ArtifactDiffs   []WebArtifactDiff `json:"artifact_diffs"`
	OmittedArtifact int               `json:"omitted_artifact_diffs"`
}

// WebAlignmentFailure is why a step could not be aligned.
type WebAlignmentFailure struct {
	Code   string  `json:"code"`
	StepID *string `json:"step_id"`
	Reason string  `json:"reason"`
}

// WebScenarioAlignment is how the two captures' steps lined up.
type WebScenarioAlignment struct {
	Status       string                `json:"status"`
	AlignedSteps int                   `json:"aligned_steps"`
	BeforeOnly   []string              `json:"before_only"`
	AfterOnly    []string              `json:"after_only"`
	Failures     []WebAlignmentFailure `json:"failures"`
}

// WebArtifactDiffCounts counts the artifact differences, retained and
// omitted by max_changes.
type WebArtifactDiffCounts struct {
	Total    int `json:"total"`
	Retained int `json:"retained"`
	Omitted  int `json:"omitted"`
}

// CompareWebScenarioResult is the result of compare_web_captures for two
// scenario captures (the result schema's second alternative).
type CompareWebScenarioResult struct {
	SchemaVersion  int                      `json:"schema_version"`
	ComparisonKind string                   `json:"comparison_kind"`
	OverallStatus  string                   `json:"overall_status"`
	Normalization  WebScenarioNormalization `json:"normalization"`
	Alignment      WebScenarioAlignment     `json:"alignment"`
	Steps          []WebScenarioStepDiff    `json:"steps"`
	ArtifactDiffs  WebArtifactDiffCounts    `json:"artifact_diffs"`
	Limitations    []string                 `json:"limitations"`
}

var operationTypes = map[string]core.Types{
	"compare_web_captures": core.TypesOf[CompareWebCapturesInput, CompareWebCapturesResult](),
}
