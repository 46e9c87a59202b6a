package browser

import (
	"rea/core/web"

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

// ListBrowserTargetsResultBrowser is the browser identity from
// /json/version, as every browser result gives it.
type ListBrowserTargetsResultBrowser = WebBrowser

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
	Detail                     string   `json:"detail,omitempty"`                       // concise (default): DOM and accessibility cut to their first nodes; complete: every node.
}

// InspectWebPageResultAccessibilityNodeState is web.WebInspectionAccessibilityNodeState: the capture core/web compares.
type InspectWebPageResultAccessibilityNodeState = web.WebInspectionAccessibilityNodeState

// InspectWebPageResultAccessibilityNode is web.WebInspectionAccessibilityNode: the capture core/web compares.
type InspectWebPageResultAccessibilityNode = web.WebInspectionAccessibilityNode

// InspectWebPageResultAccessibilityTextCapture is web.WebInspectionAccessibilityTextCapture: the capture core/web compares.
type InspectWebPageResultAccessibilityTextCapture = web.WebInspectionAccessibilityTextCapture

// InspectWebPageResultAccessibility is web.WebInspectionAccessibility: the capture core/web compares.
type InspectWebPageResultAccessibility = web.WebInspectionAccessibility

// WebBrowser is part of the result of inspect_web_page.
// WebBrowser is web.WebBrowser: the capture core/web compares.
type WebBrowser = web.WebBrowser

// InspectWebPageResultCaptureWindow is web.WebInspectionCaptureWindow: the capture core/web compares.
type InspectWebPageResultCaptureWindow = web.WebInspectionCaptureWindow

// WebCompletenessDroppedEvents is web.WebCompletenessDroppedEvents: the capture core/web compares.
type WebCompletenessDroppedEvents = web.WebCompletenessDroppedEvents

// WebCompletenessExcludedItem is web.WebCompletenessExcludedItem: the capture core/web compares.
type WebCompletenessExcludedItem = web.WebCompletenessExcludedItem

// WebCompleteness is part of the result of inspect_web_page.
// WebCompleteness is web.WebCompleteness: the capture core/web compares.
type WebCompleteness = web.WebCompleteness

// InspectWebPageResultConsoleEventTextCaptureValue is web.WebInspectionConsoleEventTextCaptureValue: the capture core/web compares.
type InspectWebPageResultConsoleEventTextCaptureValue = web.WebInspectionConsoleEventTextCaptureValue

// InspectWebPageResultConsoleEventTextCapture is web.WebInspectionConsoleEventTextCapture: the capture core/web compares.
type InspectWebPageResultConsoleEventTextCapture = web.WebInspectionConsoleEventTextCapture

// InspectWebPageResultConsoleEvent is web.WebInspectionConsoleEvent: the capture core/web compares.
type InspectWebPageResultConsoleEvent = web.WebInspectionConsoleEvent

// InspectWebPageResultConsole is web.WebInspectionConsole: the capture core/web compares.
type InspectWebPageResultConsole = web.WebInspectionConsole

// InspectWebPageResultDOMNode is web.WebInspectionDOMNode: the capture core/web compares.
type InspectWebPageResultDOMNode = web.WebInspectionDOMNode

// InspectWebPageResultDOM is part of the result of inspect_web_page.
// InspectWebPageResultDOM is web.WebInspectionDOM: the capture core/web compares.
type InspectWebPageResultDOM = web.WebInspectionDOM

// InspectWebPageResultFrame is web.WebInspectionFrame: the capture core/web compares.
type InspectWebPageResultFrame = web.WebInspectionFrame

// InspectWebPageResultMetadataAgentHint is web.WebInspectionMetadataAgentHint: the capture core/web compares.
type InspectWebPageResultMetadataAgentHint = web.WebInspectionMetadataAgentHint

// InspectWebPageResultMetadataDOMUrl is web.WebInspectionMetadataDOMUrl: the capture core/web compares.
type InspectWebPageResultMetadataDOMUrl = web.WebInspectionMetadataDOMUrl

// InspectWebPageResultMetadataResponseCSPDirectiveSource is web.WebInspectionMetadataResponseCSPDirectiveSource: the capture core/web compares.
type InspectWebPageResultMetadataResponseCSPDirectiveSource = web.WebInspectionMetadataResponseCSPDirectiveSource

// InspectWebPageResultMetadataResponseCSPDirective is web.WebInspectionMetadataResponseCSPDirective: the capture core/web compares.
type InspectWebPageResultMetadataResponseCSPDirective = web.WebInspectionMetadataResponseCSPDirective

// InspectWebPageResultMetadataResponseCSP is web.WebInspectionMetadataResponseCSP: the capture core/web compares.
type InspectWebPageResultMetadataResponseCSP = web.WebInspectionMetadataResponseCSP

// InspectWebPageResultMetadataResponseLink is web.WebInspectionMetadataResponseLink: the capture core/web compares.
type InspectWebPageResultMetadataResponseLink = web.WebInspectionMetadataResponseLink

// InspectWebPageResultMetadataResponsePolicies is web.WebInspectionMetadataResponsePolicies: the capture core/web compares.
type InspectWebPageResultMetadataResponsePolicies = web.WebInspectionMetadataResponsePolicies

// InspectWebPageResultMetadataResponse is web.WebInspectionMetadataResponse: the capture core/web compares.
type InspectWebPageResultMetadataResponse = web.WebInspectionMetadataResponse

// InspectWebPageResultMetadata is part of the result of inspect_web_page.
// InspectWebPageResultMetadata is web.WebInspectionMetadata: the capture core/web compares.
type InspectWebPageResultMetadata = web.WebInspectionMetadata

// WebJSONShapeProperty is web.WebJSONShapeProperty: the capture core/web compares.
type WebJSONShapeProperty = web.WebJSONShapeProperty

// WebJSONShape is part of the result of inspect_web_page.
// WebJSONShape is web.WebJSONShape: the capture core/web compares.
type WebJSONShape = web.WebJSONShape

// InspectWebPageResultNetworkRequestBodyShapes is web.WebInspectionNetworkRequestBodyShapes: the capture core/web compares.
type InspectWebPageResultNetworkRequestBodyShapes = web.WebInspectionNetworkRequestBodyShapes

// InspectWebPageResultNetworkRequestInitiator is web.WebInspectionNetworkRequestInitiator: the capture core/web compares.
type InspectWebPageResultNetworkRequestInitiator = web.WebInspectionNetworkRequestInitiator

// InspectWebPageResultNetworkRequest is web.WebInspectionNetworkRequest: the capture core/web compares.
type InspectWebPageResultNetworkRequest = web.WebInspectionNetworkRequest

// InspectWebPageResultNetworkWebsocketEventPayloadShape is web.WebInspectionNetworkWebsocketEventPayloadShape: the capture core/web compares.
type InspectWebPageResultNetworkWebsocketEventPayloadShape = web.WebInspectionNetworkWebsocketEventPayloadShape

// InspectWebPageResultNetworkWebsocketEvent is web.WebInspectionNetworkWebsocketEvent: the capture core/web compares.
type InspectWebPageResultNetworkWebsocketEvent = web.WebInspectionNetworkWebsocketEvent

// InspectWebPageResultNetwork is part of the result of inspect_web_page.
// InspectWebPageResultNetwork is web.WebInspectionNetwork: the capture core/web compares.
type InspectWebPageResultNetwork = web.WebInspectionNetwork

// InspectWebPageResultResource is web.WebInspectionResource: the capture core/web compares.
type InspectWebPageResultResource = web.WebInspectionResource

// WebScript is web.WebScript: the capture core/web compares.
type WebScript = web.WebScript

// InspectWebPageResultScripts is web.WebInspectionScripts: the capture core/web compares.
type InspectWebPageResultScripts = web.WebInspectionScripts

// InspectWebPageResultStorageContentFingerprint is web.WebInspectionStorageContentFingerprint: the capture core/web compares.
type InspectWebPageResultStorageContentFingerprint = web.WebInspectionStorageContentFingerprint

// InspectWebPageResultStorage is web.WebInspectionStorage: the capture core/web compares.
type InspectWebPageResultStorage = web.WebInspectionStorage

// InspectWebPageResultTarget is web.WebInspectionTarget: the capture core/web compares.
type InspectWebPageResultTarget = web.WebInspectionTarget

// InspectWebPageResultWorker is web.WebInspectionWorker: the capture core/web compares.
type InspectWebPageResultWorker = web.WebInspectionWorker

// InspectWebPageResult is the result of inspect_web_page.
// InspectWebPageResult is web.WebInspection: the capture core/web compares.
type InspectWebPageResult = web.WebInspection

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
	HTTPStatus       *int    `json:"http_status"` // A commit's main document response status (a 404 page commits too); a redirect's 3xx; else null.
}

// ObserveWebSessionResult is the result of observe_web_session.
type ObserveWebSessionResult struct {
	SchemaVersion int                                   `json:"schema_version"`
	Browser       WebBrowser                            `json:"browser"`
	Target        ObserveWebSessionResultTarget         `json:"target"`
	Window        ObserveWebSessionResultWindow         `json:"window"`
	Timeline      []ObserveWebSessionResultTimelineItem `json:"timeline"`
	Completeness  WebCompleteness                       `json:"completeness"`
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

// DiscoverWebMCPToolsResultTarget is web.WebWebMCPDiscoveryTarget: the capture core/web compares.
type DiscoverWebMCPToolsResultTarget = web.WebWebMCPDiscoveryTarget

// DiscoverWebMCPToolsResultToolsItemAnnotations is web.WebWebMCPDiscoveryToolsItemAnnotations: the capture core/web compares.
type DiscoverWebMCPToolsResultToolsItemAnnotations = web.WebWebMCPDiscoveryToolsItemAnnotations

// DiscoverWebMCPToolsResultToolsItemRegistrationSource is web.WebWebMCPDiscoveryToolsItemRegistrationSource: the capture core/web compares.
type DiscoverWebMCPToolsResultToolsItemRegistrationSource = web.WebWebMCPDiscoveryToolsItemRegistrationSource

// DiscoverWebMCPToolsResultToolsItem is web.WebWebMCPDiscoveryToolsItem: the capture core/web compares.
type DiscoverWebMCPToolsResultToolsItem = web.WebWebMCPDiscoveryToolsItem

// DiscoverWebMCPToolsResultTools is web.WebWebMCPDiscoveryTools: the capture core/web compares.
type DiscoverWebMCPToolsResultTools = web.WebWebMCPDiscoveryTools

// DiscoverWebMCPToolsResult is the result of discover_webmcp_tools.
// DiscoverWebMCPToolsResult is web.WebWebMCPDiscovery: the capture core/web compares.
type DiscoverWebMCPToolsResult = web.WebWebMCPDiscovery

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
	TargetURL       string                 `json:"target_url"`
	ScriptsObserved int                    `json:"scripts_observed"`
	ScriptsAnalyzed int                    `json:"scripts_analyzed"`
	SourceArtifacts []BundleSourceArtifact `json:"source_artifacts"`
}

// BundleLocation is where a finding is: script, 1-based line, 0-based column
// in UTF-16 code units (rea's code locations), and where the script's
// fetched source map places it (null without an included map, or when the
// map names no source for that line up to that column).
type BundleLocation struct {
	ScriptKey string                  `json:"script_key"`
	Line      int                     `json:"line"`
	Column    int                     `json:"column"`
	Original  *BundleOriginalLocation `json:"original"`
}

// BundleOriginalLocation is a position in an original source, as a source
// map gives it: source as the map's sources list writes it (and
// original_sources lists it), 1-based line, 0-based column.
type BundleOriginalLocation struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// BundleSourceArtifact is one analyzed script's source (digest, no text).
type BundleSourceArtifact struct {
	ScriptKey     string `json:"script_key"`
	URL           string `json:"url"`
	SHA256        string `json:"sha256"`
	Bytes         int    `json:"bytes"`
	MediaType     string `json:"media_type"`
	TextAvailable bool   `json:"text_available"`
}

// BundleChunkNode is one analyzed script in the module graph.
type BundleChunkNode struct {
	ScriptKey      string `json:"script_key"`
	URL            string `json:"url"`
	ArtifactSHA256 string `json:"artifact_sha256"`
	Bytes          int    `json:"bytes"`
}

// BundleChunkEdge is one import of a script.
type BundleChunkEdge struct {
	FromScriptKey string         `json:"from_script_key"`
	Kind          string         `json:"kind"`
	Specifier     string         `json:"specifier"`
	ResolvedURL   *string        `json:"resolved_url"`
	Location      BundleLocation `json:"location"`
}

// BundleRoute is one route literal and how it was found.
type BundleRoute struct {
	ScriptKey string         `json:"script_key"`
	Value     string         `json:"value"`
	Detector  string         `json:"detector"`
	Location  BundleLocation `json:"location"`
}

// BundleEndpoint is one network endpoint literal, located at the call that
// sends it as V8 places that call (the callee's name, or new).
type BundleEndpoint struct {
	ScriptKey string         `json:"script_key"`
	Kind      string         `json:"kind"`
	Value     string         `json:"value"`
	Location  BundleLocation `json:"location"`
	// SendLocation is, for an xhr_open endpoint (located at its open()
	// call, where the URL is), the send() call of the same receiver that
	// follows it: where the request is made, so where V8 and
	// inspect_web_page's initiator place it. Absent when none was found.
	SendLocation *BundleLocation `json:"send_location,omitempty"`
	// SendUnpaired says, when no send_location is given although a send()
	// through the same name follows, which one and why it may be another
	// object's (the pairing reads names, not bindings).
	SendUnpaired string `json:"send_unpaired,omitempty"`
}

// BundleWebMCPDeclaration is one registerTool call found in a script.
type BundleWebMCPDeclaration struct {
	Name                string   `json:"name"`
	Description         string   `json:"description"`
	SchemaPropertyNames []string `json:"schema_property_names"`
	// SchemaPropertyNamesComplete is false when SchemaPropertyNames may
	// lack some: the schema (or its properties) has more properties than
	// the JavaScript engine keeps, or is not an object literal.
	SchemaPropertyNamesComplete bool           `json:"schema_property_names_complete"`
	Trust                       string         `json:"trust"`
	Location                    BundleLocation `json:"location"`
}

// BundleBasis is one piece of evidence for an inference.
type BundleBasis struct {
	ScriptKey      string `json:"script_key"`
	ArtifactSHA256 string `json:"artifact_sha256"`
	Line           int    `json:"line"`
	Column         int    `json:"column"`
	Detector       string `json:"detector"`
}

// BundleSourceMapArtifact is a fetched source map's bytes (digest, no text).
type BundleSourceMapArtifact struct {
	URI       string `json:"uri"`
	SHA256    string `json:"sha256"`
	Bytes     int    `json:"bytes"`
	MediaType string `json:"media_type"`
}

// BundleOriginalSourceArtifact is an original source's embedded content
// (digest, no text).
type BundleOriginalSourceArtifact struct {
	SHA256    string `json:"sha256"`
	Bytes     int    `json:"bytes"`
	MediaType string `json:"media_type"`
}

// BundleOriginalSource is one source a source map names.
type BundleOriginalSource struct {
	Source   string                        `json:"source"`
	Artifact *BundleOriginalSourceArtifact `json:"artifact"`
}

// BundleSourceMap is one script's source map as fetched.
type BundleSourceMap struct {
	ScriptKey       string                   `json:"script_key"`
	DeclaredURL     string                   `json:"declared_url"`
	Status          string                   `json:"status"`
	Artifact        *BundleSourceMapArtifact `json:"artifact"`
	OriginalSources []BundleOriginalSource   `json:"original_sources"`
	Limitation      *string                  `json:"limitation"`
}

// AnalyzeWebBundleResultObservationsChunks is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultObservationsChunks struct {
	Nodes []BundleChunkNode `json:"nodes"`
	Edges []BundleChunkEdge `json:"edges"`
}

// AnalyzeWebBundleResultObservationsSourceMaps is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultObservationsSourceMaps struct {
	Status    string            `json:"status"`
	Requested int               `json:"requested"`
	Processed int               `json:"processed"`
	Items     []BundleSourceMap `json:"items"`
}

// AnalyzeWebBundleResultObservations is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultObservations struct {
	Chunks             AnalyzeWebBundleResultObservationsChunks     `json:"chunks"`
	Routes             []BundleRoute                                `json:"routes"`
	Endpoints          []BundleEndpoint                             `json:"endpoints"`
	WebMCPDeclarations []BundleWebMCPDeclaration                    `json:"webmcp_declarations"`
	SourceMaps         AnalyzeWebBundleResultObservationsSourceMaps `json:"source_maps"`
}

// AnalyzeWebBundleResultInference is part of the result of analyze_web_bundle.
type AnalyzeWebBundleResultInference struct {
	Kind       string        `json:"kind"`
	Value      string        `json:"value"`
	Confidence string        `json:"confidence"`
	Basis      []BundleBasis `json:"basis"`
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
	Browser       WebBrowser                         `json:"browser"`
	Target        CaptureWebScreenshotResultTarget   `json:"target"`
	CapturedAt    string                             `json:"captured_at"`
	Viewport      CaptureWebScreenshotResultViewport `json:"viewport"`
	Artifact      CaptureWebScreenshotResultArtifact `json:"artifact"`
	Completeness  ScreenshotCompleteness             `json:"completeness"`
	Limitations   []string                           `json:"limitations"`
}

// ScreenshotCompleteness is a screenshot's completeness: always empty (a
// viewport capture is whole or fails).
type ScreenshotCompleteness struct{}

// CompareWebScreenshotsInputBefore is part of the input of compare_web_screenshots.
// A PNG screenshot artifact: the artifact of a capture_web_screenshot result (uri, sha256 and bytes are check...
type CompareWebScreenshotsInputBefore struct {
	DataBase64 string  `json:"data_base64"`
	Bytes      int     `json:"bytes,omitempty"`
	MediaType  string  `json:"media_type,omitempty"`
	SHA256     string  `json:"sha256,omitempty"`
	URI        *string `json:"uri,omitempty"` // checked when present, even empty
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
	DhashDistance *int     `json:"dhash_distance,omitempty"` // always written (pointers keep 0)
	MeanLumaDelta *float64 `json:"mean_luma_delta,omitempty"`
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
	Source   string  `json:"source"`
	SecretID string  `json:"secret_id,omitempty"`
	Value    *string `json:"value,omitempty"` // nil: absent (a literal needs it); "" is a value
}

// CaptureBrowserScenarioInputAction is part of the input of capture_browser_scenario.
type CaptureBrowserScenarioInputAction struct {
	StepID      string                                    `json:"step_id"`
	Action      string                                    `json:"action"`
	Destination string                                    `json:"destination,omitempty"` // goto: the URL.
	DurationMS  *int                                      `json:"duration_ms,omitempty"` // wait_for_timeout: how long (0 is a duration; wait_for_timeout needs one).
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

// CaptureBrowserScenarioResultBrowser is web.WebScenarioCaptureBrowser: the capture core/web compares.
type CaptureBrowserScenarioResultBrowser = web.WebScenarioCaptureBrowser

// CaptureBrowserScenarioResultEvents is web.WebScenarioCaptureEvents: the capture core/web compares.
type CaptureBrowserScenarioResultEvents = web.WebScenarioCaptureEvents

// CaptureBrowserScenarioResultScenario is web.WebScenarioCaptureScenario: the capture core/web compares.
type CaptureBrowserScenarioResultScenario = web.WebScenarioCaptureScenario

// WebSanitizedURL is part of the result of capture_browser_scenario.
// WebSanitizedURL is web.WebSanitizedURL: the capture core/web compares.
type WebSanitizedURL = web.WebSanitizedURL

// WebScenarioArtifacts is part of the result of capture_browser_scenario.
// WebScenarioArtifacts is web.WebScenarioArtifacts: the capture core/web compares.
type WebScenarioArtifacts = web.WebScenarioArtifacts

// WebScenarioStep is web.WebScenarioStep: the capture core/web compares.
type WebScenarioStep = web.WebScenarioStep

// CaptureBrowserScenarioResult is the result of capture_browser_scenario.
// CaptureBrowserScenarioResult is web.WebScenarioCapture: the capture core/web compares.
type CaptureBrowserScenarioResult = web.WebScenarioCapture

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
