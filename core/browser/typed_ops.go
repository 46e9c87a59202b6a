package browser

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// ListBrowserTargetsInput is the input of list_browser_targets.
type ListBrowserTargetsInput struct {
	CdpEndpoint    string   `json:"cdp_endpoint"`              // CDP HTTP endpoint of a browser on loopback: http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path,...
	AllowedOrigins []string `json:"allowed_origins,omitempty"` // Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (li...
}

// ListBrowserTargetsResultBrowser is part of the result of list_browser_targets.
// Browser identity from /json/version.
type ListBrowserTargetsResultBrowser struct {
	Product         string `json:"product"`
	ProtocolVersion string `json:"protocol_version"`
	Revision        string `json:"revision"`
	UserAgent       string `json:"user_agent"`
	JSVersion       string `json:"js_version"`
}

// ListBrowserTargetsResultTarget is part of the result of list_browser_targets.
type ListBrowserTargetsResultTarget struct {
	TargetID string  `json:"target_id"`
	Type     string  `json:"type"`
	Title    string  `json:"title"`
	URL      string  `json:"url"`
	Origin   *string `json:"origin"`
	Attached bool    `json:"attached"`
}

// ListBrowserTargetsResultExcluded is part of the result of list_browser_targets.
// Targets left out, by reason.
type ListBrowserTargetsResultExcluded struct {
	DisallowedOrigin int `json:"disallowed_origin"`
	UnsupportedURL   int `json:"unsupported_url"`
	NonPage          int `json:"non_page"`
	Unconnectable    int `json:"unconnectable"`
}

// ListBrowserTargetsResult is the result of list_browser_targets.
type ListBrowserTargetsResult struct {
	Browser     ListBrowserTargetsResultBrowser  `json:"browser"`  // Browser identity from /json/version.
	Targets     []ListBrowserTargetsResultTarget `json:"targets"`  // Connectable in-scope page targets sorted by target_id.
	Excluded    ListBrowserTargetsResultExcluded `json:"excluded"` // Targets left out, by reason.
	Limitations []string                         `json:"limitations"`
}

// InspectWebPageInput is the input of inspect_web_page.
type InspectWebPageInput struct {
	CdpEndpoint                string   `json:"cdp_endpoint"`                           // CDP HTTP endpoint of a browser on loopback: http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path,...
	TargetID                   string   `json:"target_id"`                              // Page target id from list_browser_targets.
	AllowedOrigins             []string `json:"allowed_origins,omitempty"`              // Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (li...
	IncludeAccessibilityText   *bool    `json:"include_accessibility_text,omitempty"`   // Keep accessibility names and descriptions (bounded).
	IncludeConsoleText         *bool    `json:"include_console_text,omitempty"`         // Keep primitive console argument text (bounded).
	IncludeJSONBodyShapes      *bool    `json:"include_json_body_shapes,omitempty"`     // Summarize JSON request and response bodies as value-free shapes.
	IncludeScriptSources       *bool    `json:"include_script_sources,omitempty"`       // Keep script sources (1 MiB each, 4 MiB in all) as rea://web-content artifacts.
	IncludeStorageFingerprints *bool    `json:"include_storage_fingerprints,omitempty"` // SHA-256 fingerprints of stored values (needs include_storage_keys).
	IncludeStorageKeys         *bool    `json:"include_storage_keys,omitempty"`         // List localStorage, sessionStorage, IndexedDB and Cache Storage names.
	IncludeWebsocketShapes     *bool    `json:"include_websocket_shapes,omitempty"`     // Summarize text WebSocket payloads as value-free shapes.
	ObservationMS              *int     `json:"observation_ms,omitempty"`               // Observation window in milliseconds.
}

// InspectWebPageResultAccessibilityNodeState is part of the result of inspect_web_page.
type InspectWebPageResultAccessibilityNodeState struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// InspectWebPageResultAccessibilityNode is part of the result of inspect_web_page.
type InspectWebPageResultAccessibilityNode struct {
	Description *string                                      `json:"description"`
	Ignored     bool                                         `json:"ignored"`
	Name        *string                                      `json:"name"`
	NodeID      string                                       `json:"node_id"`
	ParentID    *string                                      `json:"parent_id"`
	Role        *string                                      `json:"role"`
	States      []InspectWebPageResultAccessibilityNodeState `json:"states"`
}

// InspectWebPageResultAccessibilityTextCapture is part of the result of inspect_web_page.
type InspectWebPageResultAccessibilityTextCapture struct {
	ExcludedFields  int    `json:"excluded_fields"`
	RetainedBytes   int    `json:"retained_bytes"`
	Status          string `json:"status"`
	TruncatedFields int    `json:"truncated_fields,omitempty"`
}

// InspectWebPageResultAccessibility is part of the result of inspect_web_page.
type InspectWebPageResultAccessibility struct {
	Nodes       []InspectWebPageResultAccessibilityNode      `json:"nodes"`
	TextCapture InspectWebPageResultAccessibilityTextCapture `json:"text_capture"`
	TotalNodes  int                                          `json:"total_nodes"`
}

// WebBrowser is part of the result of inspect_web_page.
// Browser identity from /json/version.
type WebBrowser struct {
	JSVersion       string `json:"js_version"`
	Product         string `json:"product"`
	ProtocolVersion string `json:"protocol_version"`
	Revision        string `json:"revision"`
	UserAgent       string `json:"user_agent"`
}

// InspectWebPageResultCaptureWindow is part of the result of inspect_web_page.
type InspectWebPageResultCaptureWindow struct {
	EndedAt       string `json:"ended_at"` // ISO 8601 UTC time with milliseconds.
	ObservationMS int    `json:"observation_ms"`
	StartedAt     string `json:"started_at"` // ISO 8601 UTC time with milliseconds.
}

// WebCompletenessDroppedEvents is part of the result of inspect_web_page.
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

// WebCompletenessExcludedItem is part of the result of inspect_web_page.
type WebCompletenessExcludedItem struct {
	Count   *int   `json:"count"`
	Reason  string `json:"reason"`
	Section string `json:"section"`
}

// WebCompleteness is part of the result of inspect_web_page.
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

// InspectWebPageResultConsoleEventTextCaptureValue is part of the result of inspect_web_page.
type InspectWebPageResultConsoleEventTextCaptureValue struct {
	ArgumentIndex int    `json:"argument_index"`
	Text          string `json:"text"`
	Type          string `json:"type"`
}

// InspectWebPageResultConsoleEventTextCapture is part of the result of inspect_web_page.
type InspectWebPageResultConsoleEventTextCapture struct {
	RetainedBytes   int                                                `json:"retained_bytes"`
	Status          string                                             `json:"status"`
	Values          []InspectWebPageResultConsoleEventTextCaptureValue `json:"values"`
	TruncatedValues int                                                `json:"truncated_values,omitempty"`
}

// InspectWebPageResultConsoleEvent is part of the result of inspect_web_page.
type InspectWebPageResultConsoleEvent struct {
	ArgumentTypes []string                                    `json:"argument_types"`
	Column        *int                                        `json:"column"`
	Line          *int                                        `json:"line"`
	TextCapture   InspectWebPageResultConsoleEventTextCapture `json:"text_capture"`
	Timestamp     float64                                     `json:"timestamp"`
	Type          string                                      `json:"type"`
	URL           *string                                     `json:"url"`
}

// InspectWebPageResultConsole is part of the result of inspect_web_page.
type InspectWebPageResultConsole struct {
	CoverageStartedAt      string                             `json:"coverage_started_at"` // ISO 8601 UTC time with milliseconds.
	Events                 []InspectWebPageResultConsoleEvent `json:"events"`
	PriorActivityAvailable bool                               `json:"prior_activity_available"`
}

// InspectWebPageResultDOMNode is part of the result of inspect_web_page.
type InspectWebPageResultDOMNode struct {
	AttributeNames  []string `json:"attribute_names"`
	Index           int      `json:"index"`
	NodeName        string   `json:"node_name"`
	NodeType        int      `json:"node_type"`
	NodeValueLength int      `json:"node_value_length"`
	ParentIndex     int      `json:"parent_index"`
}

// InspectWebPageResultDOM is part of the result of inspect_web_page.
// Value-free DOM snapshot of in-scope documents.
type InspectWebPageResultDOM struct {
	Nodes      []InspectWebPageResultDOMNode `json:"nodes"`
	TotalNodes int                           `json:"total_nodes"` // Nodes in scope before the node limit.
}

// InspectWebPageResultFrame is part of the result of inspect_web_page.
type InspectWebPageResultFrame struct {
	FrameID       string  `json:"frame_id"`
	Origin        *string `json:"origin"`
	ParentFrameID *string `json:"parent_frame_id"`
	URL           string  `json:"url"`
}

// InspectWebPageResultMetadataAgentHint is part of the result of inspect_web_page.
type InspectWebPageResultMetadataAgentHint struct {
	Declaration string  `json:"declaration"`
	Mechanism   string  `json:"mechanism"`
	Trust       string  `json:"trust"`
	URL         *string `json:"url"`
}

// InspectWebPageResultMetadataDOMUrl is part of the result of inspect_web_page.
type InspectWebPageResultMetadataDOMUrl struct {
	Attribute        string  `json:"attribute"`
	DestinationScope string  `json:"destination_scope"`
	NodeIndex        int     `json:"node_index"`
	URL              *string `json:"url"`
}

// InspectWebPageResultMetadataResponseCSPDirectiveSource is part of the result of inspect_web_page.
type InspectWebPageResultMetadataResponseCSPDirectiveSource struct {
	Kind  string  `json:"kind"`
	Value *string `json:"value"`
}

// InspectWebPageResultMetadataResponseCSPDirective is part of the result of inspect_web_page.
type InspectWebPageResultMetadataResponseCSPDirective struct {
	Name    string                                                   `json:"name"`
	Sources []InspectWebPageResultMetadataResponseCSPDirectiveSource `json:"sources"`
}

// InspectWebPageResultMetadataResponseCSP is part of the result of inspect_web_page.
type InspectWebPageResultMetadataResponseCSP struct {
	Directives []InspectWebPageResultMetadataResponseCSPDirective `json:"directives"`
	HashCount  int                                                `json:"hash_count"`
	NonceCount int                                                `json:"nonce_count"`
}

// InspectWebPageResultMetadataResponseLink is part of the result of inspect_web_page.
type InspectWebPageResultMetadataResponseLink struct {
	As               *string  `json:"as"`
	Crossorigin      *string  `json:"crossorigin"`
	DestinationScope string   `json:"destination_scope"`
	Href             *string  `json:"href"`
	Rel              []string `json:"rel"`
	Type             *string  `json:"type"`
}

// InspectWebPageResultMetadataResponsePolicies is part of the result of inspect_web_page.
type InspectWebPageResultMetadataResponsePolicies struct {
	Coep                      *string  `json:"coep"`
	Coop                      *string  `json:"coop"`
	Corp                      *string  `json:"corp"`
	PermissionsPolicyFeatures []string `json:"permissions_policy_features"`
	ReferrerPolicy            *string  `json:"referrer_policy"`
	XContentTypeOptions       *string  `json:"x_content_type_options"`
}

// InspectWebPageResultMetadataResponse is part of the result of inspect_web_page.
type InspectWebPageResultMetadataResponse struct {
	ContentEncoding *string                                      `json:"content_encoding"`
	ContentLength   *int                                         `json:"content_length"`
	CSP             InspectWebPageResultMetadataResponseCSP      `json:"csp"`
	Links           []InspectWebPageResultMetadataResponseLink   `json:"links"`
	MimeType        *string                                      `json:"mime_type"`
	Policies        InspectWebPageResultMetadataResponsePolicies `json:"policies"`
	RequestID       string                                       `json:"request_id"`
	URL             string                                       `json:"url"`
}

// InspectWebPageResultMetadata is part of the result of inspect_web_page.
// Safe response metadata (header-derived, values discarded), DOM URLs and agent hints.
type InspectWebPageResultMetadata struct {
	AgentHints         []InspectWebPageResultMetadataAgentHint `json:"agent_hints"`
	DOMUrls            []InspectWebPageResultMetadataDOMUrl    `json:"dom_urls"`
	ExcludedDOMUrls    int                                     `json:"excluded_dom_urls"`
	HeadersAllowlisted bool                                    `json:"headers_allowlisted"`
	Responses          []InspectWebPageResultMetadataResponse  `json:"responses"`
}

// WebJSONShapeProperty is part of the result of inspect_web_page.
type WebJSONShapeProperty struct {
	Observations int      `json:"observations"`
	Path         string   `json:"path"` // JSON-pointer-like path; /* stands for array items.
	Types        []string `json:"types"`
}

// WebJSONShape is part of the result of inspect_web_page.
// Value-free structural summary of a JSON payload.
type WebJSONShape struct {
	MaxDepthObserved int                    `json:"max_depth_observed"`
	NodeCount        int                    `json:"node_count"`
	Properties       []WebJSONShapeProperty `json:"properties"`
	RootType         string                 `json:"root_type"`
	Truncated        bool                   `json:"truncated,omitempty"`
}

// InspectWebPageResultNetworkRequestBodyShapes is part of the result of inspect_web_page.
type InspectWebPageResultNetworkRequestBodyShapes struct {
	Request  *WebJSONShape `json:"request"`
	Response *WebJSONShape `json:"response"`
	Status   string        `json:"status"`
}

// InspectWebPageResultNetworkRequestInitiator is part of the result of inspect_web_page.
type InspectWebPageResultNetworkRequestInitiator struct {
	Column *int    `json:"column"`
	Line   *int    `json:"line"`
	Type   string  `json:"type"`
	URL    *string `json:"url"`
}

// InspectWebPageResultNetworkRequest is part of the result of inspect_web_page.
type InspectWebPageResultNetworkRequest struct {
	BodyShapes        InspectWebPageResultNetworkRequestBodyShapes `json:"body_shapes"`
	EncodedDataLength *float64                                     `json:"encoded_data_length"`
	Initiator         InspectWebPageResultNetworkRequestInitiator  `json:"initiator"`
	Method            string                                       `json:"method"`
	MimeType          *string                                      `json:"mime_type"`
	Origin            *string                                      `json:"origin"`
	RequestID         string                                       `json:"request_id"`
	ResourceType      *string                                      `json:"resource_type"`
	Status            *float64                                     `json:"status"`
	URL               string                                       `json:"url"`
	Redirects         []json.RawMessage                            `json:"redirects,omitempty"` // Redirect hops on this request id, in order.
}

// InspectWebPageResultNetworkWebsocketEventPayloadShape is part of the result of inspect_web_page.
type InspectWebPageResultNetworkWebsocketEventPayloadShape struct {
	Format    string        `json:"format"`
	JSONShape *WebJSONShape `json:"json_shape"`
	Truncated bool          `json:"truncated,omitempty"`
}

// InspectWebPageResultNetworkWebsocketEvent is part of the result of inspect_web_page.
type InspectWebPageResultNetworkWebsocketEvent struct {
	Direction    string                                                 `json:"direction"`
	Opcode       int                                                    `json:"opcode"`
	PayloadBytes int                                                    `json:"payload_bytes"`
	PayloadShape *InspectWebPageResultNetworkWebsocketEventPayloadShape `json:"payload_shape"`
	RequestID    string                                                 `json:"request_id"`
}

// InspectWebPageResultNetwork is part of the result of inspect_web_page.
// Network activity observed after attachment only.
type InspectWebPageResultNetwork struct {
	CoverageStartedAt      string                                      `json:"coverage_started_at"` // ISO 8601 UTC time with milliseconds.
	PriorActivityAvailable bool                                        `json:"prior_activity_available"`
	Requests               []InspectWebPageResultNetworkRequest        `json:"requests"`
	WebsocketEvents        []InspectWebPageResultNetworkWebsocketEvent `json:"websocket_events"`
}

// InspectWebPageResultResource is part of the result of inspect_web_page.
type InspectWebPageResultResource struct {
	ContentSize *float64 `json:"content_size"`
	MimeType    string   `json:"mime_type"`
	Origin      *string  `json:"origin"`
	ResourceKey string   `json:"resource_key"`
	Type        string   `json:"type"`
	URL         string   `json:"url"`
}

// WebScript is part of the result of inspect_web_page.
type WebScript struct {
	CdpHash                string          `json:"cdp_hash"`
	FrameID                *string         `json:"frame_id"`
	IsModule               bool            `json:"is_module"`
	Language               *string         `json:"language"`
	Length                 int             `json:"length"`
	Origin                 *string         `json:"origin"`
	ResourceReconciliation json.RawMessage `json:"resource_reconciliation"`
	ScriptKey              string          `json:"script_key"`
	Source                 json.RawMessage `json:"source"`
	SourceMapURL           *string         `json:"source_map_url"`
	URL                    string          `json:"url"`
}

// InspectWebPageResultScripts is part of the result of inspect_web_page.
type InspectWebPageResultScripts struct {
	Items []WebScript `json:"items"`
	Total int         `json:"total"` // All captured scripts, including any beyond items.
}

// InspectWebPageResultStorageContentFingerprint is part of the result of inspect_web_page.
type InspectWebPageResultStorageContentFingerprint struct {
	Complete       bool    `json:"complete"`
	IdentitySHA256 string  `json:"identity_sha256"`
	Scope          string  `json:"scope"`
	ValueSHA256    *string `json:"value_sha256"`
}

// InspectWebPageResultStorage is part of the result of inspect_web_page.
type InspectWebPageResultStorage struct {
	CacheNames           []string                                        `json:"cache_names"`
	ContentFingerprints  []InspectWebPageResultStorageContentFingerprint `json:"content_fingerprints"`
	FingerprintAlgorithm string                                          `json:"fingerprint_algorithm"`
	FingerprintsComplete bool                                            `json:"fingerprints_complete"`
	IndexedDbNames       []string                                        `json:"indexed_db_names"`
	LocalStorageKeys     []string                                        `json:"local_storage_keys"`
	Origin               string                                          `json:"origin"`
	QuotaBytes           *float64                                        `json:"quota_bytes"`
	SessionStorageKeys   []string                                        `json:"session_storage_keys"`
	UsageBytes           *float64                                        `json:"usage_bytes"`
	ValuesRedacted       bool                                            `json:"values_redacted"`
}

// InspectWebPageResultTarget is part of the result of inspect_web_page.
type InspectWebPageResultTarget struct {
	Attached bool   `json:"attached"`
	Origin   string `json:"origin"` // Origin of the target URL; empty for an unsupported URL.
	TargetID string `json:"target_id"`
	Title    string `json:"title"`
	Type     string `json:"type"`
	URL      string `json:"url"`
}

// InspectWebPageResultWorker is part of the result of inspect_web_page.
type InspectWebPageResultWorker struct {
	Attached       bool    `json:"attached"`
	OpenerTargetID *string `json:"opener_target_id"`
	Origin         *string `json:"origin"`
	ParentFrameID  *string `json:"parent_frame_id"`
	TargetID       string  `json:"target_id"`
	Type           string  `json:"type"`
	URL            string  `json:"url"`
}

// InspectWebPageResult is the result of inspect_web_page.
// The complete normalized_result of inspect_web_page.
type InspectWebPageResult struct {
	Accessibility InspectWebPageResultAccessibility `json:"accessibility"`
	Browser       WebBrowser                        `json:"browser"` // Browser identity from /json/version.
	CaptureWindow InspectWebPageResultCaptureWindow `json:"capture_window"`
	Completeness  WebCompleteness                   `json:"completeness"` // Section-level coverage of a bounded browser observation (BROWSER.md §4).
	Console       InspectWebPageResultConsole       `json:"console"`
	DOM           InspectWebPageResultDOM           `json:"dom"`    // Value-free DOM snapshot of in-scope documents.
	Frames        []InspectWebPageResultFrame       `json:"frames"` // Captured frames in pre-order; the first is the main frame.
	Limitations   []string                          `json:"limitations"`
	Metadata      InspectWebPageResultMetadata      `json:"metadata"` // Safe response metadata (header-derived, values discarded), DOM URLs and agent hints.
	Network       InspectWebPageResultNetwork       `json:"network"`  // Network activity observed after attachment only.
	Resources     []InspectWebPageResultResource    `json:"resources"`
	Scripts       InspectWebPageResultScripts       `json:"scripts"`
	Storage       InspectWebPageResultStorage       `json:"storage"`
	Target        InspectWebPageResultTarget        `json:"target"`
	Workers       []InspectWebPageResultWorker      `json:"workers"`
	SchemaVersion int                               `json:"schema_version,omitempty"`
}

// ObserveWebSessionInput is the input of observe_web_session.
type ObserveWebSessionInput struct {
	CdpEndpoint       string   `json:"cdp_endpoint"`                  // CDP HTTP endpoint of a browser on loopback: http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path,...
	TargetID          string   `json:"target_id"`                     // Page target id from list_browser_targets.
	AllowedOrigins    []string `json:"allowed_origins,omitempty"`     // Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (li...
	MaxTimelineEvents *int     `json:"max_timeline_events,omitempty"` // Timeline events kept; later ones are counted as dropped.
	ObservationMS     *int     `json:"observation_ms,omitempty"`      // Observation window in milliseconds.
}

// ObserveWebSessionResultTarget is part of the result of observe_web_session.
type ObserveWebSessionResultTarget struct {
	TargetID   string  `json:"target_id"`
	InitialURL string  `json:"initial_url"`
	FinalURL   *string `json:"final_url"` // null when the page left the scope or the target ended.
}

// ObserveWebSessionResultWindow is part of the result of observe_web_session.
type ObserveWebSessionResultWindow struct {
	ArmedAt     string `json:"armed_at"`
	EndedAt     string `json:"ended_at"`
	RequestedMS int    `json:"requested_ms"`
	EndReason   string `json:"end_reason"`
}

// ObserveWebSessionResultTimelineItem is part of the result of observe_web_session.
type ObserveWebSessionResultTimelineItem struct {
	Sequence         int     `json:"sequence"`
	Type             string  `json:"type"`
	Timestamp        string  `json:"timestamp"`
	FrameID          *string `json:"frame_id"`
	LoaderID         *string `json:"loader_id"`
	RequestID        *string `json:"request_id"`
	URL              *string `json:"url"`
	DestinationScope *string `json:"destination_scope"`
	Detail           *string `json:"detail"`
}

// ObserveWebSessionResult is the result of observe_web_session.
type ObserveWebSessionResult struct {
	SchemaVersion int                                   `json:"schema_version"`
	Browser       json.RawMessage                       `json:"browser"`
	Target        ObserveWebSessionResultTarget         `json:"target"`
	Window        ObserveWebSessionResultWindow         `json:"window"`
	Timeline      []ObserveWebSessionResultTimelineItem `json:"timeline"`
	Completeness  json.RawMessage                       `json:"completeness"`
	Limitations   []string                              `json:"limitations"`
}

// DiscoverWebMCPToolsInput is the input of discover_webmcp_tools.
type DiscoverWebMCPToolsInput struct {
	CdpEndpoint    string   `json:"cdp_endpoint"`               // CDP HTTP endpoint of a browser on loopback: http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path,...
	TargetID       string   `json:"target_id"`                  // Page target id from list_browser_targets.
	AllowedOrigins []string `json:"allowed_origins,omitempty"`  // Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (li...
	MaxSchemaBytes *int     `json:"max_schema_bytes,omitempty"` // Largest raw input schema kept per tool; a larger one is dropped and the tool kept.
	MaxTools       *int     `json:"max_tools,omitempty"`        // Tools kept; later ones are counted as dropped.
	ObservationMS  *int     `json:"observation_ms,omitempty"`   // How long to collect tool registrations after enabling the domain (at least 25 ms is waited).
}

// DiscoverWebMCPToolsResultTarget is part of the result of discover_webmcp_tools.
type DiscoverWebMCPToolsResultTarget struct {
	Origin   string `json:"origin"`
	TargetID string `json:"target_id"`
	URL      string `json:"url"`
}

// DiscoverWebMCPToolsResultToolsItemAnnotations is part of the result of discover_webmcp_tools.
type DiscoverWebMCPToolsResultToolsItemAnnotations struct {
	Autosubmit       *bool `json:"autosubmit"`
	ReadOnly         *bool `json:"read_only"`
	UntrustedContent *bool `json:"untrusted_content"`
}

// DiscoverWebMCPToolsResultToolsItemRegistrationSource is part of the result of discover_webmcp_tools.
type DiscoverWebMCPToolsResultToolsItemRegistrationSource struct {
	Column *int   `json:"column"`
	Line   *int   `json:"line"`
	URL    string `json:"url"`
}

// DiscoverWebMCPToolsResultToolsItem is part of the result of discover_webmcp_tools.
type DiscoverWebMCPToolsResultToolsItem struct {
	Annotations        DiscoverWebMCPToolsResultToolsItemAnnotations         `json:"annotations"`
	DeclarationKind    string                                                `json:"declaration_kind"`
	Description        string                                                `json:"description"`
	FrameID            string                                                `json:"frame_id"`
	FrameURL           string                                                `json:"frame_url"`
	InputSchema        json.RawMessage                                       `json:"input_schema"` // Raw page-declared input schema (untrusted JSON, any shape, refs unresolved) or null.
	InputSchemaSHA256  *string                                               `json:"input_schema_sha256"`
	Name               string                                                `json:"name"`
	OwnerOrigin        string                                                `json:"owner_origin"`
	RegistrationSource *DiscoverWebMCPToolsResultToolsItemRegistrationSource `json:"registration_source"`
	ToolKey            string                                                `json:"tool_key"`
	Trust              string                                                `json:"trust"`
}

// DiscoverWebMCPToolsResultTools is part of the result of discover_webmcp_tools.
type DiscoverWebMCPToolsResultTools struct {
	Items []DiscoverWebMCPToolsResultToolsItem `json:"items"`
	Total int                                  `json:"total"` // Kept plus dropped tools.
}

// DiscoverWebMCPToolsResult is the result of discover_webmcp_tools.
// The complete normalized_result of discover_webmcp_tools.
type DiscoverWebMCPToolsResult struct {
	Browser       WebBrowser                      `json:"browser"`      // Browser identity from /json/version.
	Completeness  WebCompleteness                 `json:"completeness"` // Section-level coverage of a bounded browser observation (BROWSER.md §4).
	Limitations   []string                        `json:"limitations"`
	Status        string                          `json:"status"` // unavailable when the browser has no WebMCP domain.
	Target        DiscoverWebMCPToolsResultTarget `json:"target"`
	Tools         DiscoverWebMCPToolsResultTools  `json:"tools"`
	SchemaVersion int                             `json:"schema_version,omitempty"`
}

// AnalyzeWebBundleInput is the input of analyze_web_bundle.
type AnalyzeWebBundleInput struct {
	CdpEndpoint                string   `json:"cdp_endpoint"`                           // CDP HTTP endpoint of a browser on loopback: http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path,...
	TargetID                   string   `json:"target_id"`                              // Page target id from list_browser_targets.
	AllowedOrigins             []string `json:"allowed_origins,omitempty"`              // Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (li...
	FetchSourceMaps            *bool    `json:"fetch_source_maps,omitempty"`            // Fetch the scripts' in-scope source maps (http(s) on an allowed origin, no credentials).
	IncludeAccessibilityText   *bool    `json:"include_accessibility_text,omitempty"`   // Keep accessibility names and descriptions (bounded).
	IncludeConsoleText         *bool    `json:"include_console_text,omitempty"`         // Keep primitive console argument text (bounded).
	IncludeJSONBodyShapes      *bool    `json:"include_json_body_shapes,omitempty"`     // Summarize JSON request and response bodies as value-free shapes.
	IncludeStorageFingerprints *bool    `json:"include_storage_fingerprints,omitempty"` // SHA-256 fingerprints of stored values (needs include_storage_keys).
	IncludeStorageKeys         *bool    `json:"include_storage_keys,omitempty"`         // List localStorage, sessionStorage, IndexedDB and Cache Storage names.
	IncludeWebsocketShapes     *bool    `json:"include_websocket_shapes,omitempty"`     // Summarize text WebSocket payloads as value-free shapes.
	MaxFindings                *int     `json:"max_findings,omitempty"`                 // Findings kept across edges, routes, endpoints and declarations; the rest are counted as dropped.
	ObservationMS              *int     `json:"observation_ms,omitempty"`               // Observation window in milliseconds.
}

// AnalyzeWebBundleResultCapture is part of the result of analyze_web_bundle.
// The underlying page capture: target URL, scripts observed and analyzed, source artifacts (digests, no text).
type AnalyzeWebBundleResultCapture struct {
	TargetURL       string            `json:"target_url"`
	ScriptsObserved int               `json:"scripts_observed"`
	ScriptsAnalyzed int               `json:"scripts_analyzed"`
	SourceArtifacts []json.RawMessage `json:"source_artifacts"`
}

// AnalyzeWebBundleResultObservationsChunks is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultObservationsChunks struct {
	Nodes []json.RawMessage `json:"nodes"`
	Edges []json.RawMessage `json:"edges"`
}

// AnalyzeWebBundleResultObservationsSourceMaps is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultObservationsSourceMaps struct {
	Status    string            `json:"status"`
	Requested int               `json:"requested"`
	Processed int               `json:"processed"`
	Items     []json.RawMessage `json:"items"`
}

// AnalyzeWebBundleResultObservations is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultObservations struct {
	Chunks             AnalyzeWebBundleResultObservationsChunks     `json:"chunks"`
	Routes             []json.RawMessage                            `json:"routes"`
	Endpoints          []json.RawMessage                            `json:"endpoints"`
	WebMCPDeclarations []json.RawMessage                            `json:"webmcp_declarations"`
	SourceMaps         AnalyzeWebBundleResultObservationsSourceMaps `json:"source_maps"`
}

// AnalyzeWebBundleResultInference is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultInference struct {
	Kind       string            `json:"kind"`
	Value      string            `json:"value"`
	Confidence string            `json:"confidence"`
	Basis      []json.RawMessage `json:"basis"`
}

// AnalyzeWebBundleResultUnknown is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultUnknown struct {
	Dimension          string   `json:"dimension"`
	Reason             string   `json:"reason"`
	AffectedScriptKeys []string `json:"affected_script_keys"`
}

// AnalyzeWebBundleResultCompleteness is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultCompleteness struct {
	Status          string `json:"status"`
	ParsedScripts   int    `json:"parsed_scripts"`
	ParseFailures   int    `json:"parse_failures"`
	DroppedFindings int    `json:"dropped_findings"`
}

// AnalyzeWebBundleResult is the result of analyze_web_bundle.
type AnalyzeWebBundleResult struct {
	SchemaVersion int                                `json:"schema_version"`
	Capture       AnalyzeWebBundleResultCapture      `json:"capture"` // The underlying page capture: target URL, scripts observed and analyzed, source artifacts (digests, no text).
	Observations  AnalyzeWebBundleResultObservations `json:"observations"`
	Inferences    []AnalyzeWebBundleResultInference  `json:"inferences"`
	Unknowns      []AnalyzeWebBundleResultUnknown    `json:"unknowns"`
	Completeness  AnalyzeWebBundleResultCompleteness `json:"completeness"`
	Limitations   []string                           `json:"limitations"`
}

// CaptureWebScreenshotInput is the input of capture_web_screenshot.
type CaptureWebScreenshotInput struct {
	CdpEndpoint       string   `json:"cdp_endpoint"`                  // CDP HTTP endpoint of a browser on loopback: http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path,...
	TargetID          string   `json:"target_id"`                     // Page target id from list_browser_targets.
	AllowedOrigins    []string `json:"allowed_origins,omitempty"`     // Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (li...
	MaximumImageBytes *int     `json:"maximum_image_bytes,omitempty"` // Largest PNG accepted; a larger one is truncated (payload_limit).
}

// CaptureWebScreenshotResultTarget is part of the result of capture_web_screenshot.
type CaptureWebScreenshotResultTarget struct {
	TargetID string `json:"target_id"`
	URL      string `json:"url"`
	Origin   string `json:"origin"`
}

// CaptureWebScreenshotResultViewport is part of the result of capture_web_screenshot.
type CaptureWebScreenshotResultViewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// CaptureWebScreenshotResultArtifact is part of the result of capture_web_screenshot.
type CaptureWebScreenshotResultArtifact struct {
	URI        string `json:"uri"`
	SHA256     string `json:"sha256"`
	Bytes      int    `json:"bytes"`
	MediaType  string `json:"media_type"`
	DataBase64 string `json:"data_base64"`
}

// CaptureWebScreenshotResult is the result of capture_web_screenshot.
type CaptureWebScreenshotResult struct {
	SchemaVersion int                                `json:"schema_version"`
	Browser       json.RawMessage                    `json:"browser"`
	Target        CaptureWebScreenshotResultTarget   `json:"target"`
	CapturedAt    string                             `json:"captured_at"`
	Viewport      CaptureWebScreenshotResultViewport `json:"viewport"`
	Artifact      CaptureWebScreenshotResultArtifact `json:"artifact"`
	Completeness  json.RawMessage                    `json:"completeness"`
	Limitations   []string                           `json:"limitations"`
}

// CompareWebScreenshotsInputBefore is part of the input of compare_web_screenshots.
// A PNG screenshot artifact: the artifact of a capture_web_screenshot result (uri, sha256 and bytes are check...
type CompareWebScreenshotsInputBefore struct {
	DataBase64 string `json:"data_base64"`
	Bytes      int    `json:"bytes,omitempty"`
	MediaType  string `json:"media_type,omitempty"`
	SHA256     string `json:"sha256,omitempty"`
	URI        string `json:"uri,omitempty"`
}

// CompareWebScreenshotsInput is the input of compare_web_screenshots.
type CompareWebScreenshotsInput struct {
	Before           CompareWebScreenshotsInputBefore `json:"before"`                      // A PNG screenshot artifact: the artifact of a capture_web_screenshot result (uri, sha256 and bytes are check...
	After            CompareWebScreenshotsInputBefore `json:"after"`                       // A PNG screenshot artifact: the artifact of a capture_web_screenshot result (uri, sha256 and bytes are check...
	ChannelThreshold *int                             `json:"channel_threshold,omitempty"` // Largest per-channel difference still counted as unchanged.
	MaximumPixels    *int                             `json:"maximum_pixels,omitempty"`    // Largest image (width × height) decoded.
}

// CompareWebScreenshotsResultBefore is part of the result of compare_web_screenshots.
type CompareWebScreenshotsResultBefore struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	SHA256 string `json:"sha256"`
}

// CompareWebScreenshotsResultPerceptual is part of the result of compare_web_screenshots.
// Luminance-based difference: mean absolute luma difference (0..255) and the Hamming distance of 64-bit diffe...
type CompareWebScreenshotsResultPerceptual struct {
	DhashDistance int     `json:"dhash_distance,omitempty"`
	MeanLumaDelta float64 `json:"mean_luma_delta,omitempty"`
}

// CompareWebScreenshotsResultRegion is part of the result of compare_web_screenshots.
type CompareWebScreenshotsResultRegion struct {
	X             int `json:"x"`
	Y             int `json:"y"`
	Width         int `json:"width"`
	Height        int `json:"height"`
	ChangedPixels int `json:"changed_pixels"`
}

// CompareWebScreenshotsResult is the result of compare_web_screenshots.
type CompareWebScreenshotsResult struct {
	SchemaVersion       int                                    `json:"schema_version"`
	Status              string                                 `json:"status"`
	Before              CompareWebScreenshotsResultBefore      `json:"before"`
	After               CompareWebScreenshotsResultBefore      `json:"after"`
	ChannelThreshold    int                                    `json:"channel_threshold"`
	ComparedPixels      int                                    `json:"compared_pixels"`
	ChangedPixels       *int                                   `json:"changed_pixels"`
	ChangedRatio        *float64                               `json:"changed_ratio"`
	MaximumChannelDelta *int                                   `json:"maximum_channel_delta"`
	MeanChannelDelta    *float64                               `json:"mean_channel_delta"`
	Perceptual          *CompareWebScreenshotsResultPerceptual `json:"perceptual"` // Luminance-based difference: mean absolute luma difference (0..255) and the Hamming distance of 64-bit diffe...
	Regions             []CompareWebScreenshotsResultRegion    `json:"regions"`    // Bounding boxes of connected changed areas (8-pixel cells), largest first.
	OmittedRegions      int                                    `json:"omitted_regions"`
	Limitations         []string                               `json:"limitations"`
}

// CaptureBrowserScenarioInputBrowser is part of the input of capture_browser_scenario.
// The owned browser to launch.
type CaptureBrowserScenarioInputBrowser struct {
	Mode           string `json:"mode"`
	ExecutablePath string `json:"executable_path,omitempty"` // Chromium executable; absent picks chromium from PATH.
	Headless       *bool  `json:"headless,omitempty"`
}

// CaptureBrowserScenarioInputStartURLQueryItem is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputStartURLQueryItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CaptureBrowserScenarioInputStartURL is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputStartURL struct {
	URL   string                                         `json:"url"` // http(s) URL without userinfo.
	Query []CaptureBrowserScenarioInputStartURLQueryItem `json:"query,omitempty"`
}

// CaptureBrowserScenarioInputActionLocatorCSS is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputActionLocatorCSS struct {
	Selector string `json:"selector"`
}

// CaptureBrowserScenarioInputActionLocator is part of the input of capture_browser_scenario.
// click, fill: the element.
type CaptureBrowserScenarioInputActionLocator struct {
	CSS CaptureBrowserScenarioInputActionLocatorCSS `json:"css"`
}

// CaptureBrowserScenarioInputActionValue is part of the input of capture_browser_scenario.
// fill: a literal or a declared secret.
type CaptureBrowserScenarioInputActionValue struct {
	Source   string `json:"source"`
	SecretID string `json:"secret_id,omitempty"`
	Value    string `json:"value,omitempty"`
}

// CaptureBrowserScenarioInputAction is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputAction struct {
	StepID      string                                    `json:"step_id"`
	Action      string                                    `json:"action"`
	Destination string                                    `json:"destination,omitempty"` // goto: the URL.
	DurationMS  int                                       `json:"duration_ms,omitempty"` // wait_for_timeout: how long.
	Locator     *CaptureBrowserScenarioInputActionLocator `json:"locator,omitempty"`     // click, fill: the element.
	TimeoutMS   int                                       `json:"timeout_ms,omitempty"`
	Value       *CaptureBrowserScenarioInputActionValue   `json:"value,omitempty"` // fill: a literal or a declared secret.
}

// CaptureBrowserScenarioInputCapture is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputCapture struct {
	AfterEachStep []string `json:"after_each_step,omitempty"`
	AtEnd         []string `json:"at_end,omitempty"`
}

// CaptureBrowserScenarioInputEnvironmentViewport is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputEnvironmentViewport struct {
	DeviceScaleFactor *float64 `json:"device_scale_factor,omitempty"`
	Height            *int     `json:"height,omitempty"`
	Width             *int     `json:"width,omitempty"`
}

// CaptureBrowserScenarioInputEnvironment is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputEnvironment struct {
	Viewport *CaptureBrowserScenarioInputEnvironmentViewport `json:"viewport,omitempty"`
}

// CaptureBrowserScenarioInputLimits is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputLimits struct {
	DurationMS    *int `json:"duration_ms,omitempty"`
	MaxEvents     *int `json:"max_events,omitempty"`
	StepTimeoutMS *int `json:"step_timeout_ms,omitempty"`
}

// CaptureBrowserScenarioInputSecret is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputSecret struct {
	SecretID            string `json:"secret_id"`
	EnvironmentVariable string `json:"environment_variable"`
}

// CaptureBrowserScenarioInput is the input of capture_browser_scenario.
type CaptureBrowserScenarioInput struct {
	Browser        CaptureBrowserScenarioInputBrowser      `json:"browser"` // The owned browser to launch.
	StartURL       CaptureBrowserScenarioInputStartURL     `json:"start_url"`
	Actions        []CaptureBrowserScenarioInputAction     `json:"actions"`                   // Steps in order; after a failure later steps are cancelled.
	AllowedOrigins []string                                `json:"allowed_origins,omitempty"` // Exact http(s) origins in scope; empty or absent scopes a per-target call to the target's current origin (li...
	Capture        *CaptureBrowserScenarioInputCapture     `json:"capture,omitempty"`
	Environment    *CaptureBrowserScenarioInputEnvironment `json:"environment,omitempty"`
	Limits         *CaptureBrowserScenarioInputLimits      `json:"limits,omitempty"`
	Secrets        []CaptureBrowserScenarioInputSecret     `json:"secrets,omitempty"`
}

// CaptureBrowserScenarioResultBrowser is part of the result of capture_browser_scenario.
type CaptureBrowserScenarioResultBrowser struct {
	Cleanup          string `json:"cleanup"`
	Mode             string `json:"mode"`
	ProcessOwnership string `json:"process_ownership"`
	Product          string `json:"product"`
	Version          string `json:"version"`
}

// CaptureBrowserScenarioResultEvents is part of the result of capture_browser_scenario.
type CaptureBrowserScenarioResultEvents struct {
	Dropped  int               `json:"dropped"`
	Items    []json.RawMessage `json:"items"`
	Retained int               `json:"retained"` // Number of items.
}

// CaptureBrowserScenarioResultScenario is part of the result of capture_browser_scenario.
type CaptureBrowserScenarioResultScenario struct {
	ActionCount      int      `json:"action_count"`
	AllowedOrigins   []string `json:"allowed_origins"`
	SecretReferences []string `json:"secret_references"`
	StartOrigin      string   `json:"start_origin"`
}

// WebSanitizedURL is part of the result of capture_browser_scenario.
// A sanitized browser URL.
type WebSanitizedURL struct {
	Origin              *string  `json:"origin"`
	QueryParameterNames []string `json:"query_parameter_names"`
	Redacted            bool     `json:"redacted"`
	URL                 string   `json:"url"`
}

// WebScenarioArtifacts is part of the result of capture_browser_scenario.
// Artifacts captured after the step; each is captured, not_requested, missing or truncated.
type WebScenarioArtifacts struct {
	Accessibility json.RawMessage `json:"accessibility"`
	DOM           json.RawMessage `json:"dom"`
	History       json.RawMessage `json:"history"`
	Screenshot    json.RawMessage `json:"screenshot"`
	Storage       json.RawMessage `json:"storage"`
	URL           json.RawMessage `json:"url"`
}

// WebScenarioStep is part of the result of capture_browser_scenario.
type WebScenarioStep struct {
	Action             string               `json:"action"`
	AfterURL           WebSanitizedURL      `json:"after_url"`    // A sanitized browser URL.
	Artifacts          WebScenarioArtifacts `json:"artifacts"`    // Artifacts captured after the step; each is captured, not_requested, missing or truncated.
	BeforeURL          WebSanitizedURL      `json:"before_url"`   // A sanitized browser URL.
	Completeness       json.RawMessage      `json:"completeness"` // Scenario coverage; only a complete capture or step is equality-eligible.
	ElapsedMS          int                  `json:"elapsed_ms"`
	Error              *string              `json:"error"`                // null exactly when the step completed.
	EventSequenceEnd   int                  `json:"event_sequence_end"`   // Last event sequence of the step; start-1 when the step saw no events.
	EventSequenceStart int                  `json:"event_sequence_start"` // First event sequence of the step.
	Status             string               `json:"status"`
	StepID             string               `json:"step_id"` // Stable step identity used for alignment.
	StepIndex          int                  `json:"step_index"`
}

// CaptureBrowserScenarioResult is the result of capture_browser_scenario.
// The complete normalized_result of capture_browser_scenario.
type CaptureBrowserScenarioResult struct {
	Browser       CaptureBrowserScenarioResultBrowser  `json:"browser"`
	Completeness  json.RawMessage                      `json:"completeness"` // Scenario coverage; only a complete capture or step is equality-eligible.
	DurationMS    int                                  `json:"duration_ms"`
	Events        CaptureBrowserScenarioResultEvents   `json:"events"`
	Limitations   []string                             `json:"limitations"`
	Scenario      CaptureBrowserScenarioResultScenario `json:"scenario"`
	SchemaVersion int                                  `json:"schema_version"`
	Steps         []WebScenarioStep                    `json:"steps"` // The start step (index 0) and one step per action.
}

var operationTypes = map[string]core.Types{
	"list_browser_targets":     core.TypesOf[ListBrowserTargetsInput, ListBrowserTargetsResult](),
	"inspect_web_page":         core.TypesOf[InspectWebPageInput, InspectWebPageResult](),
	"observe_web_session":      core.TypesOf[ObserveWebSessionInput, ObserveWebSessionResult](),
	"discover_webmcp_tools":    core.TypesOf[DiscoverWebMCPToolsInput, DiscoverWebMCPToolsResult](),
	"analyze_web_bundle":       core.TypesOf[AnalyzeWebBundleInput, AnalyzeWebBundleResult](),
	"capture_web_screenshot":   core.TypesOf[CaptureWebScreenshotInput, CaptureWebScreenshotResult](),
	"compare_web_screenshots":  core.TypesOf[CompareWebScreenshotsInput, CompareWebScreenshotsResult](),
	"capture_browser_scenario": core.TypesOf[CaptureBrowserScenarioInput, CaptureBrowserScenarioResult](),
}
