package ports

import (
	"context"
	"time"
)

// Running JavaScript (BROWSER.md "JS runtime, V8 Inspector" and "Electron").
// A runtime observer attaches to a Node or Electron process someone else
// runs, over its loopback V8 inspector or CDP endpoint, or launches an
// Electron application it owns. Like the browser observer it returns raw,
// bounded observations; core derives keys, digests and Evidence.
//
// Failures are *BrowserError values with BROWSER.md §7's reasons (the V8,
// Electron and web tools share one vocabulary); invalid_request carries the
// request field at fault in Field ("inspector_endpoint", "cdp_endpoint",
// "application_path", ...). Every method is safe for concurrent use and
// opens and closes its own connections. A passive method returns a partial
// observation only inside a *PartialError, when its target went away.

// RuntimeTargetLister lists a V8 inspector endpoint's targets
// (list_javascript_runtime_targets).
type RuntimeTargetLister interface {
	ListRuntimeTargets(ctx context.Context, req RuntimeListRequest) (*RuntimeTargetList, error)
}

// RuntimeObserverCap observes one V8 inspector target passively
// (observe_javascript_runtime): it sends only Runtime.enable,
// Debugger.setSkipAllPauses{skip:true} and Debugger.enable{} (the skip again
// after the enable if the runtime refused it before), so a debugger
// statement does not stop the runtime during the window. A target lost
// during the window is an *PartialError[RuntimeObservation] carrying what
// was seen before.
type RuntimeObserverCap interface {
	ObserveRuntime(ctx context.Context, req RuntimeObserveRequest) (*RuntimeObservation, error)
}

// ElectronPageInspector lists an Electron application's file-gated page
// targets and inspects one passively (list_electron_targets,
// inspect_electron_page). A page lost during the observation window, or
// while a section is read after it, is an
// *PartialError[ElectronPageCapture] carrying what was seen before.
type ElectronPageInspector interface {
	ListElectronTargets(ctx context.Context, req ElectronListRequest) (*ElectronTargetList, error)
	InspectElectronPage(ctx context.Context, req ElectronInspectRequest) (*ElectronPageCapture, error)
}

// ElectronScenarioRunner launches an Electron application as an owned
// process group with a recording preload hook, runs scripted actions and
// removes every process and temporary directory it made
// (capture_electron_scenario). A failure to remove them is a BrowserError
// with code cleanup_failed, Cleanup "incomplete" and the kinds left in
// Resources. A failure after the hook connected (cleanup, a snapshot that
// never came, cancellation) is wrapped in an *ElectronScenarioError whose
// Partial holds what was observed so far.
type ElectronScenarioRunner interface {
	RunElectronScenario(ctx context.Context, req ElectronScenarioRequest) (*ElectronScenarioCapture, error)
}

// JavaScriptRuntimeObserver is everything one runtime engine offers.
type JavaScriptRuntimeObserver interface {
	Info() ProviderInfo
	RuntimeTargetLister
	RuntimeObserverCap
	ElectronPageInspector
	ElectronScenarioRunner
}

// RuntimeInfo is a V8 inspector's /json/version: product
// ("node.js/v20.1.0"), protocol version and, when the endpoint says, the
// V8 version ("" otherwise).
type RuntimeInfo struct {
	Product         string
	ProtocolVersion string
	V8Version       string
}

// RuntimeLocation is where a target or script lives. Kind is file (FilePath
// set, an existing absolute path after realpath), url (Origin and URL set,
// an in-scope http(s) URL), unresolved (ReportedURL and Reason set: a file
// URL that cannot be verified) or builtin (node: URLs; never in results).
type RuntimeLocation struct {
	Kind        string
	FilePath    string
	Origin      string
	URL         string
	ReportedURL string
	Reason      string
}

// RuntimeScope limits what a runtime call may observe: files under the
// roots (realpath'd) and URLs of the origins. Both empty means every
// verifiable file and no http(s) URL filter.
type RuntimeScope struct {
	AllowedFileRoots []string
	AllowedOrigins   []string
}

// RuntimeListRequest is list_javascript_runtime_targets' input.
type RuntimeListRequest struct {
	Endpoint string // inspector_endpoint
	Scope    RuntimeScope
}

// RuntimeTarget is one inspector target.
type RuntimeTarget struct {
	TargetID     string
	ProtocolType string // node | page | worker | ...
	Title        string
	Attached     bool
	Location     RuntimeLocation
}

// RuntimeTargetList is the listing, sorted by TargetID.
type RuntimeTargetList struct {
	Runtime     RuntimeInfo
	Targets     []RuntimeTarget
	Excluded    RuntimeListExclusions
	Limitations []string
}

// RuntimeListExclusions counts targets left out.
type RuntimeListExclusions struct {
	OutsideFileRoots    int
	OutsideOrigins      int
	UnsupportedLocation int
	Unconnectable       int
}

// RuntimeObserveRequest is observe_javascript_runtime's input. RuntimeKind
// is node | electron-main | electron-preload | electron-renderer, or "" when
// the caller did not declare one; a declared kind must fit the target's
// protocol type (node and electron-main need node, the others page).
type RuntimeObserveRequest struct {
	Endpoint    string
	TargetID    string
	Scope       RuntimeScope
	RuntimeKind string
	// ObservationMS is the window after the attach, at most 60000. 0
	// records only what the runtime reports on attach (the scripts and
	// contexts already there) and waits for nothing more.
	ObservationMS int
	Limits        RuntimeLimits
}

// PartialError is an observation or inspection that failed after the
// attach (the target or page went away mid-window): Err is the classified
// failure (a *BrowserError, disconnected), Partial what was seen before it,
// with a limitation saying when it broke off. observe_javascript_runtime's
// (T RuntimeObservation) and inspect_electron_page's (T ElectronPageCapture:
// the frames read at the attach, the scripts reported until the loss and
// the sections read after the window before it; the others are
// unavailable, and a limitation names the read that was lost).
type PartialError[T any] struct {
	Err     error
	Partial *T
}

func (e *PartialError[T]) Error() string { return e.Err.Error() }

func (e *PartialError[T]) Unwrap() error { return e.Err }

// RuntimeLimits bound an observation; zero means the default in brackets.
type RuntimeLimits struct {
	MaxEvents            int // 10000
	MaxScripts           int // 2000
	MaxContexts          int // 1000
	MaxLocationBytes     int // 16384
	MaxTotalMetadataSize int // 4 MiB
}

// RuntimeObservation is observe_javascript_runtime's raw result.
type RuntimeObservation struct {
	Runtime           RuntimeInfo
	Target            RuntimeTarget
	StartedAt         time.Time
	EndedAt           time.Time
	ObservationMS     int
	EventsObserved    int
	EventsRetained    int
	EventsDropped     int
	MetadataBytes     int
	TruncationReasons []string // max_events | max_scripts | max_execution_contexts | max_total_metadata_bytes
	Scripts           []RuntimeScript
	ScriptsObserved   int // scripts parsed, before exclusion and caps
	Excluded          RuntimeScriptExclusions
	Contexts          []RuntimeContext
	Limitations       []string
}

// RuntimeScript is one parsed script in scope.
type RuntimeScript struct {
	ScriptID  string
	ContextID int
	Location  RuntimeLocation
	// CDPHash is Debugger.scriptParsed's hash: for V8 the hex SHA-256 of
	// the script source text.
	CDPHash  string
	Length   int
	IsModule bool
	Failed   bool // Debugger.scriptFailedToParse
}

// RuntimeScriptExclusions counts scripts left out, by reason.
type RuntimeScriptExclusions struct {
	Builtin              int // node: and internal scripts without a URL
	OutsideFileRoots     int
	OutsideOrigins       int
	UnsupportedLocation  int
	InvalidProtocolValue int
}

// RuntimeContext is one execution context; State is live | destroyed.
type RuntimeContext struct {
	ContextID int
	Name      string
	Origin    string
	State     string
}

// ElectronListRequest is list_electron_targets' input.
type ElectronListRequest struct {
	Endpoint         string // cdp_endpoint
	AllowedFileRoots []string
}

// ElectronTarget is one file-gated page target.
type ElectronTarget struct {
	TargetID string
	Type     string
	Title    string
	FilePath string
	Attached bool
}

// ElectronTargetList is the listing, sorted by TargetID.
type ElectronTargetList struct {
	Browser  BrowserInfo
	Targets  []ElectronTarget
	Excluded struct {
		NonPage        int
		OutsideRoot    int
		UnsupportedURL int
		Unconnectable  int
	}
	Limitations []string
}

// ElectronInspectRequest is inspect_electron_page's input.
type ElectronInspectRequest struct {
	Endpoint             string
	TargetID             string
	AllowedFileRoots     []string
	ObservationMS        int // 0 reads the page at once, waiting for nothing
	IncludeScriptSources bool
	Limits               BrowserLimits // frames, DOM nodes, scripts, resources, workers, sources
}

// ElectronPageCapture is inspect_electron_page's raw observation. Frames,
// scripts and resources carry file paths (realpath'd, under the roots);
// anything else is excluded and counted.
type ElectronPageCapture struct {
	Browser       BrowserInfo
	Target        ElectronTarget
	CaptureWindow BrowserCaptureWindow
	Frames        []ElectronFrame
	DOM           BrowserDOM
	Scripts       []ElectronScript
	ScriptsTotal  int
	Resources     []ElectronResource
	Workers       []ElectronWorker
	Completeness  BrowserCompleteness
	Limitations   []string
}

// ElectronFrame is one gated frame, breadth first; frames of another site
// in their own renderer process come last.
type ElectronFrame struct {
	FrameID       string
	ParentFrameID string
	FilePath      string
	// NotCaptured names the sections that hold nothing of this frame: for
	// a frame in another renderer process (Chromium lists it only in
	// Target.getTargets), frames, dom, scripts and resources. Empty for a
	// frame of the page's own process.
	NotCaptured []string
}

// ElectronScript is one parsed script of a gated frame.
type ElectronScript struct {
	ScriptID string
	FrameID  string
	FilePath string
	CDPHash  string
	Length   int
	IsModule bool
	Language string
	Source   []byte // with IncludeScriptSources, within the limits
}

// ElectronResource is one gated resource.
type ElectronResource struct {
	FrameID     string
	FilePath    string
	Type        string
	MimeType    string
	ContentSize *float64
}

// ElectronWorker is one worker target of the page with a gated file.
type ElectronWorker struct {
	TargetID string
	Type     string
	FilePath string
}

// ElectronScenarioRequest is capture_electron_scenario's input. The
// executable, application and root are checked by the engine: the
// application must lie inside the root after realpath.
type ElectronScenarioRequest struct {
	ExecutablePath  string
	ApplicationPath string
	ApplicationRoot string // "" means the application's parent directory
	Args            []string
	Actions         []ElectronAction
	// Limits; zero means the default in brackets.
	DurationMS     int // 60000
	ActionMS       int // 5000
	MaxIPCEvents   int // 2000
	MaxEvents      int // 5000 runtime (effect) events
	MaxProcesses   int // 32
	MaxWindows     int // 32
	StartTimeoutMS int // 15000: how long the hook has to report ready
	RunID          string
}

// ElectronAction is one scripted action: click{Selector, WindowIndex},
// wait{DurationMS}, renderer-reload{WindowIndex}, renderer-crash
// {WindowIndex}, deep-link{Delivery open-url|second-instance, URL}.
type ElectronAction struct {
	StepID      string
	Kind        string
	Selector    string
	WindowIndex int
	DurationMS  int
	Delivery    string
	URL         string
}

// ElectronScenarioCapture is the raw result of a run.
type ElectronScenarioCapture struct {
	ExecutablePath  string
	ApplicationPath string
	ElectronVersion string
	Actions         []ElectronActionResult
	Windows         []ElectronWindow
	// Processes are those alive at the snapshot (app.getAppMetrics);
	// EndedProcesses those that went away before it, with their exit.
	Processes      []ElectronProcess
	ProcessesTrunc bool
	EndedProcesses []ElectronEndedProcess
	// Renderers are the live webContents with the hook's renderer half
	// attached or not (partial_attach when a loaded one is not).
	Renderers   []ElectronRenderer
	IPC         []ElectronEvent
	IPCObserved int
	Timeline    []ElectronEvent
	TimelineObs int
	// Status is complete | partial_attach | capture_truncated |
	// hook_conflict | target_exited.
	Status        string
	ObservedRoles []string
	Limitations   []string
}

// ElectronActionResult is one action; Status completed | failed | skipped.
type ElectronActionResult struct {
	StepID    string
	Kind      string
	Status    string
	Error     string
	ElapsedMS int64
}

// ElectronWindow is one BrowserWindow the hook saw.
type ElectronWindow struct {
	WindowID      int
	WebContentsID int
	URL           string
	Title         string
	Visible       bool
	Destroyed     bool
	Crashed       bool // its renderer process is gone (renderer-crash) and not reloaded
}

// ElectronRenderer is one live webContents' renderer at the end of a run:
// its process, whether a page finished loading since its last navigation
// or crash, whether the hook's renderer half attached since then, and
// whether it crashed. WindowID and PID are 0 when unknown.
type ElectronRenderer struct {
	WebContentsID int
	WindowID      int
	PID           int
	Loaded        bool
	Attached      bool
	Crashed       bool
}

// ElectronProcess is one owned process seen during the run.
type ElectronProcess struct {
	PID  int
	Role string // main | renderer | utility | unknown
}

// ElectronEndedProcess is an owned process that went away before the
// snapshot: a renderer (render-process-gone, with the pid it last had) or
// another child (child-process-gone, which names no pid: PID 0). Reason is
// Electron's ("crashed", "killed", "clean-exit", ...); ExitCode is nil when
// it gave none.
type ElectronEndedProcess struct {
	PID      int
	Role     string
	Reason   string
	ExitCode *int
}

// ElectronEvent is one recorded event: an IPC message or an effect
// (shell, navigation, permission, download, popup, updater, os). Phase is
// attempted | completed | blocked | failed | observed. ArgumentShapes are
// value-free type names ("string", "number", "object{a,b}"); values are
// never recorded.
type ElectronEvent struct {
	Sequence int
	Family   string // ipc | renderer | shell | navigation | permission | download | popup | updater | os
	// Kind, for IPC: send | invoke | sendSync | postMessage | sendToHost (a
	// renderer sent), on | once (a renderer listener was registered, no
	// shapes), receive (a message reached a renderer listener), handle | on
	// (the main process received), send (the main process sent). For the
	// renderer family: reload | crash (an action asked), did-finish-load,
	// render-process-gone, hook-attached. For effects: the API name.
	Kind           string
	Phase          string
	Channel        string
	Direction      string // renderer-to-main | main-to-renderer | "" for effects
	ArgumentShapes []string
	// Role is the process that saw the event (main | renderer), PID its
	// process id, WindowID and WebContentsID the window it concerns (the
	// sender's, for IPC the main process received); 0 when unknown.
	Role          string
	PID           int
	WindowID      int
	WebContentsID int
	ElapsedMS     int64
}

// ElectronScenarioError is a scenario that failed after the application's
// hook connected. Err is the failure (a *BrowserError; errors.As and
// AsBrowserError see through); Partial is the observation so far: the
// actions run, and the snapshot's windows, processes, IPC and timeline
// when one came, with Status cleanup_failed or capture_truncated and a
// limitation saying what is missing.
type ElectronScenarioError struct {
	Err     error
	Partial *ElectronScenarioCapture
}

func (e *ElectronScenarioError) Error() string { return e.Err.Error() }
func (e *ElectronScenarioError) Unwrap() error { return e.Err }

// IsCode reports whether err is a BrowserError with the code.
func IsCode(err error, code BrowserErrorCode) bool {
	be, ok := AsBrowserError(err)
	return ok && be.Code == code
}
