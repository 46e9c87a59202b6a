package ports

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Browser observation (BROWSER.md). An observer attaches to a browser that
// someone else runs (the passive capabilities) or launches one it owns (the
// scenario runner). It returns raw observations: scoped to the declared
// origins, bounded, with exclusion and drop counts, but with no keys,
// digests, completeness status or Evidence; core derives those.
//
// Every method is safe for concurrent use; each call opens and closes its
// own connection. A call either returns its complete observation or an
// error: passive capabilities never return partial results.
//
// Field names follow BROWSER.md's result fields (Go spelling of the
// snake_case names) so core maps them one to one.

// BrowserTargetLister lists the targets of a CDP endpoint
// (list_browser_targets).
type BrowserTargetLister interface {
	ListTargets(ctx context.Context, req BrowserListRequest) (*BrowserTargetList, error)
}

// BrowserPageInspector captures one page target passively over an
// observation window (inspect_web_page, analyze_web_bundle).
type BrowserPageInspector interface {
	InspectPage(ctx context.Context, req BrowserInspectRequest) (*BrowserPageCapture, error)
}

// BrowserSessionObserver records a page's navigation timeline over a window
// (observe_web_session).
type BrowserSessionObserver interface {
	ObserveSession(ctx context.Context, req BrowserObserveRequest) (*BrowserSessionTimeline, error)
}

// WebMCPDiscoverer lists the WebMCP tools a page registers
// (discover_webmcp_tools). A browser without the WebMCP domain gives a
// result with Status "unavailable", not an error.
type WebMCPDiscoverer interface {
	DiscoverWebMCPTools(ctx context.Context, req WebMCPRequest) (*WebMCPDiscovery, error)
}

// BrowserScreenshotter captures the viewport of a page as PNG
// (capture_web_screenshot).
type BrowserScreenshotter interface {
	CaptureScreenshot(ctx context.Context, req BrowserScreenshotRequest) (*BrowserScreenshot, error)
}

// BrowserScenarioRunner launches a browser it owns with a fresh profile,
// runs scripted steps and removes every process and file it made
// (capture_browser_scenario).
type BrowserScenarioRunner interface {
	RunScenario(ctx context.Context, req BrowserScenarioRequest) (*BrowserScenarioCapture, error)
}

// SourceMapFetcher fetches an in-scope source map over HTTP for
// analyze_web_bundle's fetch_source_maps.
type SourceMapFetcher interface {
	FetchSourceMap(ctx context.Context, req SourceMapRequest) (*SourceMapFetch, error)
}

// BrowserObserver is everything one CDP engine offers.
type BrowserObserver interface {
	Info() ProviderInfo
	BrowserTargetLister
	BrowserPageInspector
	BrowserSessionObserver
	WebMCPDiscoverer
	BrowserScreenshotter
}

// BrowserErrorCode is a BROWSER.md §7 reason, plus invalid_request for an
// endpoint or request the engine rejects before any I/O.
type BrowserErrorCode string

// The reasons of BROWSER.md §7. core maps them to error codes:
// payload_limit → truncated; target_* → target_unavailable;
// endpoint_unreachable and disconnected → provider_unavailable; cancelled →
// cancelled; timeout → provider_timeout; invalid_request → invalid_request;
// cleanup_failed → cleanup_incomplete; the rest → unreadable_output.
const (
	BrowserInvalidRequest          BrowserErrorCode = "invalid_request"
	BrowserEndpointUnreachable     BrowserErrorCode = "endpoint_unreachable"
	BrowserInvalidEndpointResponse BrowserErrorCode = "invalid_endpoint_response"
	BrowserTargetNotFound          BrowserErrorCode = "target_not_found"
	BrowserTargetNotAllowed        BrowserErrorCode = "target_not_allowed"
	BrowserTargetChanged           BrowserErrorCode = "target_changed"
	BrowserProtocolError           BrowserErrorCode = "protocol_error"
	BrowserDisconnected            BrowserErrorCode = "disconnected"
	BrowserPayloadLimit            BrowserErrorCode = "payload_limit"
	BrowserProcessOwnership        BrowserErrorCode = "process_ownership_unavailable"
	BrowserCleanupFailed           BrowserErrorCode = "cleanup_failed"
	BrowserCancelled               BrowserErrorCode = "cancelled"
	BrowserTimeout                 BrowserErrorCode = "timeout"
	BrowserSecretUnavailable       BrowserErrorCode = "secret_unavailable"
)

// BrowserError is a classified failure of a browser capability. It matches
// context.Canceled when Code is cancelled, ErrTimeout when Code is timeout
// and ErrUnavailable for endpoint_unreachable and disconnected.
type BrowserError struct {
	Code BrowserErrorCode
	// Field names the request field at fault for invalid_request
	// ("cdp_endpoint", "target_id", ...).
	Field string
	Msg   string
	// Cleanup is "incomplete" when an owned resource could not be removed;
	// Resources then names the kinds left ("process", "profile_directory").
	Cleanup   string
	Resources []string
	Err       error
}

func (e *BrowserError) Error() string {
	s := string(e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *BrowserError) Unwrap() error { return e.Err }

// Is lets errors.Is classify a BrowserError with the ports sentinels.
func (e *BrowserError) Is(target error) bool {
	switch e.Code {
	case BrowserCancelled:
		return target == context.Canceled
	case BrowserTimeout:
		return target == ErrTimeout
	case BrowserEndpointUnreachable, BrowserDisconnected:
		return target == ErrUnavailable
	}
	return false
}

// AsBrowserError returns the BrowserError in err's chain, if any.
func AsBrowserError(err error) (*BrowserError, bool) {
	var be *BrowserError
	if errors.As(err, &be) {
		return be, true
	}
	return nil, false
}

// NewBrowserError is a shorthand for &BrowserError{Code, Msg}.
func NewBrowserError(code BrowserErrorCode, format string, args ...any) *BrowserError {
	return &BrowserError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// BrowserTargetRef names one target of one endpoint and the scope a
// per-target capability may observe.
type BrowserTargetRef struct {
	Endpoint string // cdp_endpoint, as the caller wrote it
	TargetID string
	// AllowedOrigins are exact http(s) origins; empty scopes the call to the
	// target's current origin.
	AllowedOrigins []string
}

// BrowserInfo is /json/version mapped to BROWSER.md's browser object.
type BrowserInfo struct {
	Product         string // Browser
	ProtocolVersion string // Protocol-Version
	Revision        string // WebKit-Version
	UserAgent       string // User-Agent
	JSVersion       string // V8-Version
}

// BrowserTarget is one /json/list entry. URL has its userinfo removed;
// Origin is "" when the URL has none (not http(s)).
type BrowserTarget struct {
	TargetID string
	Type     string
	Title    string
	URL      string
	Origin   string
	Attached bool
}

// BrowserListRequest is list_browser_targets' input.
type BrowserListRequest struct {
	Endpoint       string
	AllowedOrigins []string // empty: every http(s) page
}

// BrowserTargetList is list_browser_targets' raw result. Targets are the
// connectable in-scope pages sorted by TargetID.
type BrowserTargetList struct {
	Browser     BrowserInfo
	Targets     []BrowserTarget
	Excluded    BrowserListExclusions
	Limitations []string
}

// BrowserListExclusions counts the targets left out of a listing.
type BrowserListExclusions struct {
	DisallowedOrigin int
	UnsupportedURL   int
	NonPage          int
	Unconnectable    int
}

// BrowserInspectRequest is inspect_web_page's input. Zero limits take the
// engine's defaults.
type BrowserInspectRequest struct {
	Target                     BrowserTargetRef
	ObservationMS              int
	IncludeScriptSources       bool
	IncludeConsoleText         bool
	IncludeAccessibilityText   bool
	IncludeStorageKeys         bool
	IncludeStorageFingerprints bool // requires IncludeStorageKeys
	IncludeJSONBodyShapes      bool // request and response JSON bodies are returned raw (bounded)
	IncludeWebSocketShapes     bool // text frame payloads are returned raw (bounded)
	// ScriptsOnly leaves out what a script analysis does not read: no DOM
	// snapshot, accessibility tree or storage is taken, and DOM,
	// Accessibility and Storage come back empty. On a page with a large
	// document those are the slowest and largest replies: a DOM snapshot
	// over the 64 MiB message bound empties that section, and a document
	// over max_ax_nodes has its accessibility tree read node by node,
	// one command per node read.
	ScriptsOnly bool
	Limits      BrowserLimits
}

// BrowserLimits bound a capture. Zero means the default in brackets.
type BrowserLimits struct {
	MaxFrames            int   // 200
	MaxDOMNodes          int   // 2000
	MaxAXNodes           int   // 2000
	MaxScripts           int   // 200
	MaxResources         int   // 2000
	MaxWorkers           int   // 500
	MaxStorageKeys       int   // 1000
	MaxNetworkEvents     int   // 1000
	MaxConsoleEvents     int   // 200
	MaxWebSocketEvents   int   // 500
	MaxScriptSourceBytes int64 // 1 MiB per script
	MaxTotalSourceBytes  int64 // 4 MiB
	MaxTextFieldBytes    int   // 1 KiB per accessibility or console text
	MaxTotalTextBytes    int   // 64 KiB
	MaxJSONBodyBytes     int64 // 1 MiB per body
	MaxTotalJSONBytes    int64 // 4 MiB
	MaxWebSocketBytes    int64 // 64 KiB per frame payload kept
}

// BrowserCaptureWindow is when a capture observed events.
type BrowserCaptureWindow struct {
	StartedAt     time.Time
	EndedAt       time.Time
	ObservationMS int
}

// BrowserPageCapture is inspect_web_page's raw observation.
type BrowserPageCapture struct {
	Browser       BrowserInfo
	Target        BrowserTarget
	CaptureWindow BrowserCaptureWindow
	// AllowedOrigins is the scope the capture applied (normalized, sorted).
	AllowedOrigins []string
	Frames         []BrowserFrame
	DOM            BrowserDOM
	Accessibility  BrowserAccessibility
	Scripts        []BrowserScript
	ScriptsTotal   int // every captured script, before MaxScripts
	Resources      []BrowserResource
	Network        BrowserNetwork
	Console        []BrowserConsoleEvent
	Workers        []BrowserWorker
	Metadata       BrowserMetadata
	Storage        BrowserStorage
	Completeness   BrowserCompleteness
	Limitations    []string
}

// BrowserFrame is one frame, in pre-order of the frame tree.
type BrowserFrame struct {
	FrameID       string
	ParentFrameID string // "" for the main frame
	URL           string
	Origin        string
	// OutOfProcess marks a frame of another site that runs in its own
	// renderer process: the page's session lists it only as a target, so
	// the capture holds its id, parent, URL and origin and nothing of its
	// content.
	OutOfProcess bool
}

// BrowserDOM is the in-scope part of a DOMSnapshot: structure and attribute
// names, never text or attribute values.
type BrowserDOM struct {
	TotalNodes int
	Nodes      []BrowserDOMNode
	URLs       []BrowserDOMURL
	// LinkRels are rel values of <link> elements naming agent resources
	// (mcp, model-context, ai-plugin, service-desc), sorted and unique.
	LinkRels []string
}

// BrowserDOMNode is one node. ParentIndex is -1 for a document root;
// indexes are global over the kept documents.
type BrowserDOMNode struct {
	Index           int
	ParentIndex     int
	NodeType        int
	NodeName        string
	NodeValueLength int // UTF-16 units
	AttributeNames  []string
}

// BrowserDOMURL is a URL-bearing attribute (href src action formaction
// poster). URL is nil when it is outside the scope or unparseable.
type BrowserDOMURL struct {
	NodeIndex        int
	Attribute        string
	URL              *string
	DestinationScope string // approved | outside_policy | unsupported
}

// BrowserAccessibility is the accessibility tree of all captured frames.
type BrowserAccessibility struct {
	TotalNodes int
	Nodes      []BrowserAXNode
	// TextCapture is unavailable | not_approved | truncated | included.
	TextCapture     string
	RetainedBytes   int
	ExcludedFields  int
	TruncatedFields int
}

// BrowserAXNode is one accessibility node. Name and Description are nil
// unless text capture was requested.
type BrowserAXNode struct {
	NodeID      string
	ParentID    string
	FrameID     string
	Role        string
	Name        *string
	Description *string
	Ignored     bool
	States      []string // limited vocabulary, sorted
}

// BrowserScript is one parsed script (Debugger.scriptParsed).
type BrowserScript struct {
	ScriptID     string
	FrameID      string // "" when its execution context is unknown
	URL          string
	Origin       string
	CDPHash      string
	Length       int
	IsModule     bool
	Language     string
	SourceMapURL string // resolved against the script URL; "" when none or excluded
	// Source is set when sources were requested and fit the limits;
	// SourceReason says why not otherwise.
	Source       []byte
	SourceReason string
}

// BrowserResource is one Page.getResourceTree resource.
type BrowserResource struct {
	FrameID     string
	URL         string
	Origin      string
	Type        string
	MimeType    string
	ContentSize *float64
}

// BrowserNetwork is the network activity seen during the window.
type BrowserNetwork struct {
	Requests        []BrowserRequest
	WebSockets      []BrowserWebSocket
	WebSocketEvents []BrowserWebSocketEvent
	// CoverageStartedAt is when Network.enable took effect; activity before
	// it was not observed (PriorActivityAvailable is always false).
	CoverageStartedAt      time.Time
	PriorActivityAvailable bool
}

// BrowserRequest is one request chain.
type BrowserRequest struct {
	RequestID         string
	URL               string
	Origin            string
	Method            string
	ResourceType      string
	Status            *int
	MimeType          *string
	EncodedDataLength *float64
	Initiator         BrowserInitiator
	Redirects         []BrowserRedirect
	// Bodies are kept only with IncludeJSONBodyShapes and a JSON content
	// type; BodyStatus says what happened: not_approved | included |
	// unavailable | truncated.
	RequestBody        []byte
	ResponseBody       []byte
	RequestBodyStatus  string
	ResponseBodyStatus string
}

// BrowserRedirect is one hop of a redirect chain, in order.
type BrowserRedirect struct {
	URL    string
	Origin string
	Status int
}

// BrowserInitiator is who started a request. URL is nil when out of scope.
// Line is 1-based and Column 0-based in UTF-16 code units (rea's code
// locations; an engine converts CDP's 0-based lines).
type BrowserInitiator struct {
	Type   string
	URL    *string
	Line   *int
	Column *int
}

// BrowserWebSocket is one in-scope WebSocket.
type BrowserWebSocket struct {
	RequestID string
	URL       string
	Origin    string
}

// BrowserWebSocketEvent is one frame. Payload is kept only with
// IncludeWebSocketShapes for text frames within MaxWebSocketBytes.
type BrowserWebSocketEvent struct {
	RequestID    string
	Direction    string // sent | received
	Opcode       int
	PayloadBytes int
	Payload      []byte
	Truncated    bool
}

// BrowserConsoleEvent is one console API call from an in-scope script.
// Line (1-based, 0 when the browser gave none) and Column (0-based, UTF-16
// code units) locate the call in URL.
type BrowserConsoleEvent struct {
	Type          string
	Timestamp     float64
	ArgumentTypes []string
	URL           string
	Line          int
	Column        int
	// Values are the primitive arguments, only with IncludeConsoleText,
	// bounded by the text limits.
	Values          []BrowserConsoleValue
	TruncatedValues int
}

// BrowserConsoleValue is one primitive console argument.
type BrowserConsoleValue struct {
	ArgumentIndex int
	Type          string
	Text          string
}

// BrowserWorker is a worker target related to the page.
type BrowserWorker struct {
	TargetID       string
	Type           string
	URL            string
	Origin         string
	Attached       bool
	OpenerTargetID string
	// ParentFrameID is the frame the browser names; for a worker it names
	// none of (Chromium 148) that the page's auto-attach placed, the frame
	// of the announcing session: the main frame.
	ParentFrameID string
}

// BrowserMetadata holds the allowlisted response headers core turns into
// safe metadata (CSP, links, policies, agent hints).
type BrowserMetadata struct {
	Responses []BrowserResponseMetadata
}

// BrowserResponseMetadata is one in-scope response. Headers holds only the
// allowlisted names, lower-cased: content-length, content-encoding,
// content-security-policy, link, cross-origin-opener-policy,
// cross-origin-embedder-policy, cross-origin-resource-policy,
// referrer-policy, x-content-type-options, permissions-policy,
// x-model-context, x-webmcp, mcp-server.
type BrowserResponseMetadata struct {
	RequestID string
	URL       string
	MimeType  string
	Headers   map[string]string
}

// BrowserStorage is the main frame origin's storage. Values are never
// returned: fingerprints carry SHA-256 digests of them.
type BrowserStorage struct {
	Origin             string
	UsageBytes         *float64
	QuotaBytes         *float64
	LocalStorageKeys   []string
	SessionStorageKeys []string
	IndexedDBNames     []string
	CacheNames         []string
	Fingerprints       []BrowserStorageFingerprint
}

// BrowserStorageFingerprint is one stored value's digest. Identity holds
// the fields that name it (key, or domain/path/name/partition_key, or
// database/store); core hashes it. ValueSHA256 is the hex SHA-256 of the
// raw value bytes, "" when not computed.
type BrowserStorageFingerprint struct {
	Scope       string // local_storage | session_storage | cookie | indexed_db_schema | indexed_db_record | cache_entry
	Identity    map[string]string
	ValueSHA256 string
	Complete    bool
}

// BrowserCompleteness is what a capture could not or would not observe.
// core derives the completeness status from it.
type BrowserCompleteness struct {
	Excluded    []BrowserExclusion // sorted by section, reason
	Dropped     BrowserDropped
	Truncated   []string // sections, sorted and unique
	Unavailable []BrowserUnavailable
}

// BrowserExclusion counts items left out of a section for a reason
// (BROWSER.md §4's reasons).
type BrowserExclusion struct {
	Section string
	Reason  string
	Count   int
}

// BrowserUnavailable is a section the browser could not provide.
type BrowserUnavailable struct {
	Section string
	Reason  string // provider_unavailable | invalid_protocol_value
}

// BrowserDropped counts events dropped over a cap, by kind.
type BrowserDropped struct {
	Scripts              int
	NetworkRequests      int
	ConsoleEvents        int
	WebSocketConnections int
	WebSocketFrames      int
	WebMCPTools          int
	TimelineEvents       int
}

// BrowserObserveRequest is observe_web_session's input.
type BrowserObserveRequest struct {
	Target            BrowserTargetRef
	ObservationMS     int // 1..60000; 0 means 10000
	MaxTimelineEvents int // 0 means 2000
}

// BrowserSessionTimeline is observe_web_session's raw result.
type BrowserSessionTimeline struct {
	Browser        BrowserInfo
	Target         BrowserSessionTarget
	Window         BrowserSessionWindow
	AllowedOrigins []string
	Timeline       []BrowserTimelineEvent
	Dropped        BrowserDropped
	Limitations    []string
}

// BrowserSessionTarget is the observed target; FinalURL is nil when the
// page left the scope or the window ended early.
type BrowserSessionTarget struct {
	TargetID   string
	InitialURL string
	FinalURL   *string
}

// BrowserSessionWindow is the observation window. EndReason is
// window_elapsed | target_left_scope | target_terminated.
type BrowserSessionWindow struct {
	ArmedAt     time.Time
	EndedAt     time.Time
	RequestedMS int
	EndReason   string
}

// BrowserTimelineEvent is one main-frame event. Type is
// navigation_requested | navigation_committed | same_origin_reload |
// same_document_navigation | redirect | load_failed | lifecycle |
// target_terminated.
type BrowserTimelineEvent struct {
	Sequence         int
	Type             string
	Timestamp        time.Time
	FrameID          *string
	LoaderID         *string
	RequestID        *string
	URL              *string
	DestinationScope *string // approved | outside_policy | unsupported
	Detail           *string
	// HTTPStatus is the main document response's status on a commit
	// (navigation_committed, same_origin_reload) and the hop's 3xx on a
	// redirect; nil on other events, on an entry whose URL is out of scope,
	// and when no response was observed (a cached or about: document).
	HTTPStatus *int
}

// WebMCPRequest is discover_webmcp_tools' input.
type WebMCPRequest struct {
	Target        BrowserTargetRef
	ObservationMS int // 0 means 100; at least 25 is waited
	MaxTools      int // 0 means 500
	// MaxSchemaBytes bounds each tool's raw input schema (0 means 256 KiB);
	// a larger schema is dropped and the tool kept without it.
	MaxSchemaBytes int
}

// WebMCPDiscovery is discover_webmcp_tools' raw result.
type WebMCPDiscovery struct {
	Browser BrowserInfo
	Target  BrowserTarget
	// Status is available | unavailable; UnavailableReason says why.
	Status            string
	UnavailableReason string
	Tools             []WebMCPTool // sorted by FrameURL, Name
	Dropped           BrowserDropped
	Limitations       []string
}

// WebMCPTool is one registered tool. InputSchema is the page's raw,
// untrusted JSON (nil when absent or over the limit).
type WebMCPTool struct {
	Name               string
	Description        string
	FrameID            string
	FrameURL           string
	OwnerOrigin        string
	Declarative        bool // registered by a form element (numeric backendNodeId)
	InputSchema        []byte
	Annotations        WebMCPAnnotations
	RegistrationSource *BrowserSourceLocation
}

// WebMCPAnnotations are the tool's hints; nil when the page did not say.
type WebMCPAnnotations struct {
	ReadOnly         *bool
	UntrustedContent *bool
	Autosubmit       *bool
}

// BrowserSourceLocation is a script position: Line 1-based, Column 0-based
// in UTF-16 code units.
type BrowserSourceLocation struct {
	URL    string
	Line   int
	Column int
}

// BrowserScreenshotRequest is capture_web_screenshot's input.
type BrowserScreenshotRequest struct {
	Target        BrowserTargetRef
	MaxImageBytes int // 0 means 4 MiB; at most 8 MiB
}

// BrowserScreenshot is a viewport PNG. Width and Height come from its IHDR.
type BrowserScreenshot struct {
	Browser     BrowserInfo
	Target      BrowserTarget
	CapturedAt  time.Time
	Width       int
	Height      int
	PNG         []byte
	Limitations []string
}

// SourceMapRequest asks for one source map. URL must be http(s) on an
// allowed origin; redirects are followed up to five times, each re-checked.
type SourceMapRequest struct {
	URL            string
	AllowedOrigins []string
	MaxBytes       int64 // 0 means 4 MiB
}

// SourceMapFetch is a fetched map's bytes. Status is included |
// fetch_failed | policy_filtered | truncated; Body is set only when
// included. core checks that it is a v3 map.
type SourceMapFetch struct {
	URL    string
	Status string
	Reason string
	Body   []byte
}

// BrowserScenarioRequest is an owned scenario run.
type BrowserScenarioRequest struct {
	ExecutablePath string // "" picks chromium from PATH
	StartURL       string
	AllowedOrigins []string // empty: the start URL's origin
	Viewport       BrowserViewport
	Steps          []BrowserScenarioStep
	// CaptureAfterEachStep and CaptureAtEnd list artifacts: screenshot,
	// dom, accessibility, url, history, storage.
	CaptureAfterEachStep []string
	CaptureAtEnd         []string
	MaxEvents            int // 0 means 10000
	// Secrets name environment variables of the server whose values type
	// steps may use (SecretID); a missing variable is secret_unavailable.
	// Secret values never appear in the capture: events, DOM and
	// accessibility text show [REDACTED:<secret_id>] instead.
	Secrets []BrowserScenarioSecret
	// DurationMS bounds the whole run (0 means 60000); StepTimeoutMS each
	// step without its own (0 means 5000).
	DurationMS    int
	StepTimeoutMS int
}

// BrowserViewport is the emulated viewport; zero fields mean 1280×720×1.
type BrowserViewport struct {
	Width             int
	Height            int
	DeviceScaleFactor float64
}

// BrowserScenarioSecret is one declared secret.
type BrowserScenarioSecret struct {
	SecretID            string
	EnvironmentVariable string
}

// BrowserScenarioStep is one scripted action: navigate{URL}, click{Selector},
// type{Selector, Text or SecretID}, wait{DurationMS} (a CSS selector
// throughout).
type BrowserScenarioStep struct {
	StepID     string
	Action     string
	URL        string
	Selector   string
	Text       string
	SecretID   string
	DurationMS int
	TimeoutMS  int
}

// BrowserScenarioCapture is the raw result of a scenario run.
type BrowserScenarioCapture struct {
	Browser     BrowserScenarioBrowser
	StartOrigin string
	// AllowedOrigins is the scope applied, normalized and sorted.
	AllowedOrigins []string
	DurationMS     int64
	// Steps holds the start step (step_id "scenario_start", action
	// "goto_start") and one per requested step.
	Steps       []BrowserScenarioStepResult
	Events      []BrowserScenarioEvent
	Dropped     int
	Limitations []string
}

// BrowserScenarioBrowser describes the owned browser and its cleanup.
type BrowserScenarioBrowser struct {
	Mode             string // launch
	ProcessOwnership string // provider-owned
	Cleanup          string // terminated-owned-process
	Product          string
	Version          string
}

// BrowserScenarioStepResult is one step. Status is completed | failed |
// cancelled; steps after a failure are cancelled and not run.
type BrowserScenarioStepResult struct {
	StepIndex          int
	StepID             string
	Action             string
	Status             string
	Error              string
	ElapsedMS          int64
	BeforeURL          string
	AfterURL           string
	EventSequenceStart int // first event of the step, -1 when none
	EventSequenceEnd   int
	Artifacts          BrowserScenarioArtifacts
}

// BrowserScenarioArtifacts are the artifacts captured after a step; nil or
// empty means not requested, Missing names requested ones that could not be
// captured with the reason.
type BrowserScenarioArtifacts struct {
	Screenshot    []byte
	DOM           []byte // serialized HTML, ≤1 MiB
	Accessibility []byte // a deterministic text rendering of the AX tree; in Truncated when read in part (its last line says what was not)
	URL           *string
	History       *BrowserHistory
	Storage       *BrowserScenarioStorage
	Missing       map[string]string
	Truncated     []string
	// DOMBytes is the serialized HTML's whole size when Truncated lists
	// "dom" and DOM holds its first part (0: not measured).
	DOMBytes int
}

// BrowserScenarioStorage is what the page's origin stores after a step:
// the cookies sent to the page's URL and its localStorage and
// sessionStorage items, each value with the scenario's secrets already
// replaced (core keeps only a digest of it).
type BrowserScenarioStorage struct {
	Cookies        []BrowserStoredCookie
	LocalStorage   []BrowserStoredValue
	SessionStorage []BrowserStoredValue
}

// BrowserStoredValue is one stored name and value; HadSecret says that the
// value held a scenario secret (replaced in Value).
type BrowserStoredValue struct {
	Name      string
	Value     string
	HadSecret bool
}

// BrowserStoredCookie is one cookie; SameSite is Strict, Lax or None.
type BrowserStoredCookie struct {
	BrowserStoredValue
	Domain, Path     string
	Secure, HTTPOnly bool
	SameSite         string
}

// BrowserHistory is the page's navigation history.
type BrowserHistory struct {
	Length            int
	CurrentURL        string
	NavigationEntries []BrowserHistoryEntry
}

// BrowserHistoryEntry is one history entry; Type is navigate | reload |
// back_forward | prerender | unknown.
type BrowserHistoryEntry struct {
	Type string
	Name string // the entry's URL
}

// BrowserScenarioEvent is one event of an in-scope page, in receipt order.
// Kind is console | page-error | request | response | request-failed |
// websocket-opened | websocket-closed | websocket-frame-sent |
// websocket-frame-received | frame-navigated.
type BrowserScenarioEvent struct {
	Sequence  int
	StepIndex int
	Kind      string
	Level     string
	// Text is a console event's text, a page error's message, or a
	// WebSocket text frame's payload (at most 64 KiB, secrets redacted).
	Text         string
	Stack        string // page-error: the error's stack as the page reports it, "" when none
	Method       string
	HeaderNames  []string // request and response: the header names seen, never values
	URL          string   // WebSocket events: the socket's URL
	ResourceType string
	Status       int
	Failure      string
	// PayloadBytes is a WebSocket frame's payload size in bytes (a binary
	// frame's decoded size). PayloadBinary marks a frame that is not text
	// (its payload is never kept); PayloadTruncated a text payload cut to
	// 64 KiB in Text.
	PayloadBytes                    int
	PayloadBinary, PayloadTruncated bool
}
