package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
)

// SDKVersion is the go-sdk version this adapter is built and tested on.
const SDKVersion = "github.com/modelcontextprotocol/go-sdk v1.8.0"

// Options configure a Server. The zero value is usable.
type Options struct {
	Identity core.ServerIdentity
	Logger   *slog.Logger // stderr in production; never stdout
	// ProgressInterval is the minimum gap between intermediate progress
	// notifications; default 100 ms.
	ProgressInterval time.Duration
	// Budget bounds every result; zero means the default 10 MiB.
	Budget core.ResponseBudget
	// HTTP bounds the Streamable HTTP transport (ServeHTTP).
	HTTP HTTPOptions
}

// Server serves core's catalog over MCP. Each client connection gets its own
// core.Session (target, binding and Evidence ledger).
type Server struct {
	cat  *core.Catalog
	reg  *core.Registry
	opts Options
	sdk  *sdk.Server

	mu       sync.Mutex
	sessions map[*sdk.ServerSession]*core.Session
	logging  sync.Map // sdk.Session -> true once it sent logging/setLevel

	// stopping ends when the server stops (ServeHTTP's context): every
	// call still running is cancelled then, with errStopping as the cause,
	// so it cleans up and answers before the connections close.
	stopping context.Context
	stop     context.CancelFunc

	regMu       sync.Mutex
	registered  map[string]bool // the tools registered with the SDK
	presentOnce sync.Once
	tools       []*sdk.Tool // as tools/list gives them (presented)
}

// errStopping is the cause of a call cancelled because the server stopped.
var errStopping = errors.New("the server is stopping")

// New builds a server for every operation in cat.
func New(cat *core.Catalog, reg *core.Registry, opts *Options) *Server {
	s := &Server{cat: cat, reg: reg, sessions: map[*sdk.ServerSession]*core.Session{}, registered: map[string]bool{}}
	s.stopping, s.stop = context.WithCancel(context.Background())
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if s.opts.ProgressInterval == 0 {
		s.opts.ProgressInterval = 100 * time.Millisecond
	}
	if s.opts.Budget.MaxResponseBytes == 0 {
		s.opts.Budget = core.ResponseBudget{MaxResponseBytes: core.DefaultMaxResponseBytes}
	}
	if s.opts.Identity.SDKServer == "" {
		s.opts.Identity.SDKServer = SDKVersion
	}
	version := s.opts.Identity.Version
	if version == "" {
		version = "devel"
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "rea", Title: "rea reverse-engineering server", Version: version}, &sdk.ServerOptions{
		Logger:       s.opts.Logger,
		PageSize:     10000,
		Instructions: "Call binary_session with {} to see tool availability, then open_binary with a path. Every success is content-addressed Evidence. Output schemas here are projections (a result's type and field names); rea tools NAME --format json prints a tool's complete one.",
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: false}, Logging: &sdk.LoggingCapabilities{},
			Resources: &sdk.ResourceCapabilities{ListChanged: false}, Prompts: &sdk.PromptCapabilities{ListChanged: false}},
	})
	// Each tool is kept in the SDK under an object-schema stand-in for its
	// input and no output schema: presenting every schema is the bulk of
	// start-up, and the SDK re-encodes and decodes a registered tool's
	// schemas while registering it (each decode with a fresh 32 KB buffer),
	// only to check that the input is an object schema and that no property
	// carries x-mcp-header. A tool is registered by the first tools/call
	// that names it, and tools/list answers with the presented tools, built
	// on the first listing (onDemand); the capabilities are declared above,
	// so initialize says the same. A server never asked about tools
	// registers and presents none. The catalog's tests check what the SDK
	// would have (TestAdvertisedSchemasPassSDKChecks) and that tools/list
	// carries the whole schemas (TestToolsListCarriesWholeSchemas).
	s.addResources()
	s.addPrompts()
	s.sdk.AddReceivingMiddleware(s.noteLogLevel, s.onDemand)
	return s
}

// register registers the named tools with the SDK (every tool when none
// is named), each once; a name not in the catalog is left to the SDK's
// unknown-tool error.
func (s *Server) register(names ...string) {
	s.regMu.Lock()
	defer s.regMu.Unlock()
	if names == nil {
		for _, op := range s.cat.Operations() {
			names = append(names, op.Name)
		}
	}
	for _, name := range names {
		if op, ok := s.cat.Lookup(name); ok && !s.registered[name] {
			s.sdk.AddTool(&sdk.Tool{Name: op.Name, InputSchema: objectSchema}, s.handler(op))
			s.registered[name] = true
		}
	}
}

// presented returns every tool as tools/list gives it, in the catalog's
// (name) order, presenting them on the first call: on every core, since a
// cold presentation (a catalog the embedded cache does not match) is slow.
func (s *Server) presented() []*sdk.Tool {
	s.presentOnce.Do(func() {
		ops := s.cat.Operations()
		tools := make([]*sdk.Tool, len(ops))
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					tools[i] = toolOf(s.cat, ops[i])
				}
			}()
		}
		for i := range ops {
			next <- i
		}
		close(next)
		wg.Wait()
		s.tools = tools
	})
	return s.tools
}

// onDemand registers the tool a tools/call names before the SDK looks it
// up, and answers tools/list with the presented tools in place of the
// stand-ins the SDK holds. Without a cursor that is every tool, sorted by
// name, as the SDK lists them (its page size exceeds the catalog, so it
// never hands out a cursor); a client's own cursor gets the SDK's answer
// about every tool.
func (s *Server) onDemand(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		whole := false
		switch p := req.GetParams().(type) {
		case *sdk.CallToolParamsRaw:
			if p != nil {
				s.register(p.Name)
			}
		case *sdk.ListToolsParams:
			whole = p == nil || p.Cursor == ""
			if !whole {
				s.register()
			}
		default:
			if strings.HasPrefix(method, "tools/") {
				s.register()
			}
		}
		res, err := next(ctx, method, req)
		list, ok := res.(*sdk.ListToolsResult)
		if !ok || err != nil || list == nil {
			return res, err
		}
		out := *list
		if whole {
			out.Tools = s.presented()
			return &out, nil
		}
		byName := map[string]*sdk.Tool{}
		for _, t := range s.presented() {
			byName[t.Name] = t
		}
		out.Tools = make([]*sdk.Tool, len(list.Tools))
		for i, t := range list.Tools {
			if out.Tools[i] = byName[t.Name]; out.Tools[i] == nil {
				out.Tools[i] = t
			}
		}
		return &out, nil
	}
}

// noteLogLevel remembers which connections chose a log level: rea sends log
// notifications only to those.
func (s *Server) noteLogLevel(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if method == "logging/setLevel" && err == nil {
			s.logging.Store(req.GetSession(), true)
		}
		return res, err
	}
}

// objectSchema stands in for every tool's input schema in the SDK's
// registry: a *jsonschema.Schema of type object, which the SDK checks
// without re-encoding it.
var objectSchema = &jsonschema.Schema{Type: "object"}

func toolOf(cat *core.Catalog, op *core.Operation) *sdk.Tool {
	a := op.Effects.Annotations()
	destructive, openWorld := a.Destructive, a.OpenWorld
	return &sdk.Tool{
		Name:         op.Name,
		Title:        op.Title,
		Description:  op.Description,
		InputSchema:  cat.AdvertisedInput(op),
		OutputSchema: op.OutputSchema(),
		// The title is the Tool's own (MCP 2025-06-18); annotations carry the
		// hints only, so tools/list does not repeat every title.
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: a.ReadOnly, DestructiveHint: &destructive,
			IdempotentHint: a.Idempotent, OpenWorldHint: &openWorld},
	}
}

// ServeStdio serves one connection over newline-delimited JSON-RPC on r and
// w (stdin and stdout) with the StdioTransport, which outlives bad frames.
//
// When ctx ends, the calls in flight are cancelled and answered (code
// cancelled, reason server_stopping) before the connection closes, as when
// the input ends.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	defer context.AfterFunc(ctx, s.stop)()
	return s.sdk.Run(context.WithoutCancel(ctx), &StdioTransport{Reader: r, Writer: w, Logger: s.opts.Logger, stop: ctx.Done()})
}

// Run serves one connection over t (for example &sdk.StdioTransport{})
// until the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.sdk.Run(ctx, t)
}

// Connect starts serving one connection over t and returns at once; tests
// use it with in-memory transports.
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.sdk.Connect(ctx, t, nil)
}

// session returns the core session of a connection, creating it on first use
// and closing it (provider and ledger) when the connection ends.
func (s *Server) session(ss *sdk.ServerSession) *core.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.sessions[ss]; ok {
		return cs
	}
	cs := core.NewSession(s.cat, s.reg, &core.SessionOptions{Server: s.opts.Identity, Logger: s.opts.Logger})
	s.sessions[ss] = cs
	if ss != nil {
		go func() {
			_ = ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
			s.logging.Delete(ss)
			_ = cs.Close(context.Background())
		}()
	}
	return cs
}

func (s *Server) handler(op *core.Operation) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.opts.Logger.Error("tool handler panic", "tool", op.Name, "panic", r, "stack", string(debug.Stack()))
				res, err = errorResultText((&core.Error{Code: core.CodeExecutionFailure,
					Message: fmt.Sprintf("%s: internal error: %v", op.Name, r),
					Details: map[string]any{"operation": op.Name, "reason": "panic"}}).JSON()), nil
			}
		}()
		cs := s.session(req.Session)
		log := s.clientLog(req.Session)
		log.Debug("call", "tool", op.Name)
		opts := &core.CallOptions{Client: clientInfo(req), ResultBytes: s.opts.Budget.ResultBudget()}
		if tok := req.Params.GetProgressToken(); tok != nil {
			opts.Progress = newProgress(ctx, req.Session, tok, s.opts.ProgressInterval)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(s.stopping, func() { cancel(errStopping) })()
		out, cerr := cs.Call(ctx, op.Name, req.Params.Arguments, opts)
		if cerr != nil {
			e := core.AsError(op.Name, cerr)
			if e.Code == core.CodeCancelled && errors.Is(context.Cause(ctx), errStopping) {
				e.Message = op.Name + ": cancelled: the server is stopping (it was sent SIGTERM or SIGINT); what the call started was stopped and cleaned up"
				e.Remediation = "Call again once rea serve runs again."
				e.Details = map[string]any{"operation": op.Name, "reason": "server_stopping"}
			}
			log.Warn("call failed", "tool", op.Name, "code", string(e.Code), "message", e.Message)
			return s.errorResult(cs, op.Name, req.Params.Arguments, e), nil
		}
		if out.Evidence != nil {
			log.Info("evidence", "tool", op.Name, "evidence_id", string(out.Evidence.EvidenceID))
		}
		j, jerr := out.StructuredJSON()
		if jerr != nil {
			return s.errorResult(cs, op.Name, req.Params.Arguments, core.AsError(op.Name, jerr)), nil
		}
		if berr := s.opts.Budget.CheckSuccess(op.Name, out, j, out.Evidence != nil); berr != nil {
			// The Evidence is complete in the ledger; only delivery failed.
			return s.errorResult(cs, op.Name, req.Params.Arguments, berr), nil
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: string(j)}},
			StructuredContent: json.RawMessage(j),
		}, nil
	}
}

// clientLog logs to the client as MCP notifications/message, at or above
// the level the client chose with logging/setLevel (none before it does): a
// debug line per call, an info line per Evidence record, a warning per
// failed call.
func (s *Server) clientLog(ss *sdk.ServerSession) *slog.Logger {
	if _, ok := s.logging.Load(ss); !ok || ss == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(sdk.NewLoggingHandler(ss, &sdk.LoggingHandlerOptions{LoggerName: "rea"}))
}

// errorResult delivers e, or, when its text exceeds the budget, retains it
// as Evidence and delivers a bounded diagnostic naming it.
func (s *Server) errorResult(cs *core.Session, op string, args json.RawMessage, e *core.Error) *sdk.CallToolResult {
	text := e.JSON()
	if berr := s.opts.Budget.CheckError(op, text, func() (*core.Evidence, error) { return cs.RetainError(op, args, text) }); berr != nil {
		text = berr.JSON()
	}
	return errorResultText(text)
}

// errorResultText is the one shape of a failed call: isError, the envelope
// JSON as the only text, and no structured content.
func errorResultText(text []byte) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(text)}}}
}

func clientInfo(req *sdk.CallToolRequest) *core.ClientInfo {
	ci := &core.ClientInfo{}
	if req.Session == nil {
		return ci
	}
	if impl := req.ClientInfo(); impl != nil {
		ci.Name, ci.Version = impl.Name, impl.Version
	}
	ci.ProtocolVersion = req.ProtocolVersion()
	if caps := req.ClientCapabilities(); caps != nil {
		if caps.Elicitation != nil {
			ci.Features.ElicitationForm = caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
			ci.Features.ElicitationURL = caps.Elicitation.URL != nil
		}
		ci.Features.Roots = caps.RootsV2 != nil || caps.Roots.ListChanged
		ci.Features.Sampling = caps.Sampling != nil
	}
	return ci
}
