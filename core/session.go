package core

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"rea/ports"
)

// ServerIdentity describes the running rea for binary_session.
type ServerIdentity struct {
	PackageName   string
	Version       string
	RootPath      string
	BuildCommit   string
	CommandPath   string
	StartedAt     time.Time
	SDKServer     string
	SDKClientTest string
}

// ClientInfo is what the front end knows of its client.
type ClientInfo struct {
	Name            string
	Version         string
	ProtocolVersion string
	Features        ClientFeatures
}

// ClientFeatures are the negotiated client capabilities rea cares about.
type ClientFeatures struct {
	ElicitationForm bool `json:"elicitation_form"`
	ElicitationURL  bool `json:"elicitation_url"`
	Roots           bool `json:"roots"`
	Sampling        bool `json:"sampling"`
}

// SessionOptions configure a Session.
type SessionOptions struct {
	Server ServerIdentity
	Logger *slog.Logger
}

// Session is one connection's state: the open target, the provider binding,
// the analysis run and the Evidence ledger. Calls may run concurrently.
type Session struct {
	cat    *Catalog
	reg    *Registry
	ledger *Ledger
	opts   SessionOptions

	mu       sync.Mutex
	target   *ports.Target
	binding  *Binding
	analysis ports.Analysis
	profile  *Profile
	runID    string
	inflight atomic.Int64
	users    map[ports.Analysis]int  // calls in flight per analysis (acquire, release)
	retiring map[ports.Analysis]bool // unbound analyses closed by their last user
	// retained holds this connection's residual unknowns and bundle
	// snapshots (core/bundle_state.go); close_binary clears it with the ledger.
	retained retainedState
	// state holds the families' per-session values (Call.State).
	state familyState
}

// NewSession starts an empty session.
func NewSession(cat *Catalog, reg *Registry, opts *SessionOptions) *Session {
	s := &Session{cat: cat, reg: reg, ledger: NewLedger()}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return s
}

// Catalog returns the session's catalog.
func (s *Session) Catalog() *Catalog { return s.cat }

// Ledger returns the session's Evidence ledger.
func (s *Session) Ledger() *Ledger { return s.ledger }

// CallOptions carry per-call context from the front end.
type CallOptions struct {
	Progress    Progress    // nil means no progress reporting
	Client      *ClientInfo // nil when the front end has no client identity
	ResultBytes int64       // the room for the result in one response (ResponseBudget.ResultBudget); 0 means the default budget's
}

// Result is a successful call.
type Result struct {
	Evidence *Evidence // set for Evidence operations
	Value    any       // set for session operations: the value under "result"
}

// StructuredJSON is the structured content: the Evidence record, or
// {"result": value}. It is also the text content.
func (r *Result) StructuredJSON() ([]byte, error) {
	if r.Evidence != nil {
		return r.Evidence.MarshalCanonical()
	}
	return MarshalNoEscape(map[string]any{"result": r.Value})
}

// Observation is what an Evidence operation's handler returns; core seals it
// into Evidence with the session's subject, provider and profile.
type Observation struct {
	Result      any
	Raw         any // nil becomes raw_result null
	Limitations []string
	Locations   []Location
	Links       []EvidenceID
	Confidence  string
	// Predicate and Authority override the defaults (rea.analysis,
	// shipped-artifact) for derived or controlled observations.
	Predicate string
	Authority string
	// Unbound marks results that do not depend on the open target or
	// provider (rea computed them from supplied data, about Subject if set).
	Unbound bool
	// Subject and Provider, when set, replace what the session would
	// supply: the observation is about other bytes than the open target
	// (a path argument, or a parent record). Provider set means a null
	// analysis_profile.
	Subject  *Subject
	Provider *ProviderRef
	// Profile, when set, replaces a bound session's analysis profile: the
	// call ran with other parameters than the profile it bound.
	Profile *Profile
	// Environment is where a dynamic observation ran (a browser), or nil.
	Environment *Environment
}

// Call is one validated invocation handed to a Handler.
type Call struct {
	Session     *Session
	Op          *Operation
	Args        map[string]any
	CallOptions // as the front end gave them (Progress never nil)

	bound bound // the target and binding this call started with
	// renamed lists analysts' names the result shows (Call.NoteRenamed).
	renamed renamed
	raw     json.RawMessage // the arguments as sent, after validation (Input)
}

// bound is what a call sees of the open target from start to finish: a
// concurrent open_binary or close_binary switches the session, never a call
// in flight (its analysis is closed when the last call using it ends).
type bound struct {
	target   *ports.Target
	binding  *Binding
	analysis ports.Analysis
	profile  *Profile
}

// Observe reports a status observation for this call.
func (c *Call) Observe(message string) { c.Progress.Observe(c.Op.Name, message) }

// Call validates args against the operation's canonical schema and runs it.
// Every failure is an *Error; a panic in a handler becomes
// execution_failure. Evidence is recorded in the ledger unless the call was
// cancelled before it completed.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage, o *CallOptions) (res *Result, err error) {
	var opts CallOptions
	if o != nil {
		opts = *o
	}
	if opts.Progress == nil {
		opts.Progress = nopProgress{}
	}
	op, ok := s.cat.Lookup(name)
	if !ok {
		return nil, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("unknown tool %q", name),
			Remediation: "List the tools with tools/list (or rea tools) and call one of them.",
			Details:     map[string]any{"operation": name, "issues": []Issue{{Path: []any{"name"}, Reason: ReasonInvalidValue, Message: "unknown tool " + name}}}}
	}
	m, err := s.cat.Validate(op, args)
	if err != nil {
		return nil, err
	}
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	opts.Progress.Observe(op.Name, "started")
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logger.Error("handler panic", "operation", op.Name, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, &Error{Code: CodeExecutionFailure, Message: fmt.Sprintf("%s: internal error: %v", op.Name, r),
				Details: map[string]any{"operation": op.Name, "reason": "panic"}}
		}
		if err != nil {
			err = AsError(op.Name, err)
			opts.Progress.Finish(op.Name, "failed: "+string(err.(*Error).Code))
		} else {
			opts.Progress.Finish(op.Name, "completed")
		}
	}()
	snap := s.acquire()
	defer s.release(snap.analysis)
	call := &Call{Session: s, Op: op, Args: m, CallOptions: opts, bound: snap, raw: args}
	if err := s.ready(ctx, op, snap); err != nil {
		return nil, err
	}
	notes := &ports.CallNotes{}
	out, err := op.Handler(ports.WithCallNotes(ports.WithMemory(ports.WithProgress(ctx, opts.Progress), newCallMemory()), notes), call)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if op.RequiresSession {
		return s.checked(op, &Result{Value: out})
	}
	obs, ok := out.(*Observation)
	if !ok {
		return nil, fmt.Errorf("%s: handler returned %T, not *Observation", op.Name, out)
	}
	ev, err := s.seal(op, m, call.withRenamed(withNotes(obs, notes.List())), snap)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := s.ledger.Record(ev); err != nil {
		return nil, err
	}
	return s.checked(op, &Result{Evidence: ev})
}

// checked applies the catalog's CheckOutputs setting.
func (s *Session) checked(op *Operation, r *Result) (*Result, error) {
	if !s.cat.checkOutputs {
		return r, nil
	}
	b, err := r.StructuredJSON()
	if err != nil {
		return nil, err
	}
	if err := op.CheckOutput(b); err != nil {
		return nil, err
	}
	return r, nil
}

// ready checks that the target and capabilities an operation needs exist.
func (s *Session) ready(ctx context.Context, op *Operation, snap bound) error {
	if !op.NeedsTarget && len(op.Needs) == 0 {
		return nil
	}
	t, b, a := snap.target, snap.binding, snap.analysis
	if t == nil {
		return &Error{Code: CodeTargetUnavailable, Message: op.Name + ": no target is open",
			Remediation: "Call open_binary with the path of the file to analyze first.",
			Details:     map[string]any{"operation": op.Name, "reason": "no_target"}}
	}
	if len(op.Needs) == 0 {
		return nil
	}
	if b == nil || a == nil {
		code := CodeProviderUnavailable
		if s.reg.noneSupports(ctx, *t) {
			code = CodeUnsupportedTarget
		}
		return &Error{Code: code, Message: fmt.Sprintf("%s: no analysis provider is bound to %s", op.Name, describeTarget(*t)),
			Details: map[string]any{"operation": op.Name, "reason": "no_provider_binding", "path": t.Path}}
	}
	for _, need := range op.Needs {
		if !offers(b, a, need) {
			reason := "missing_capability:" + string(need)
			if op.MissingReason != "" {
				reason = op.MissingReason
			}
			missing := []ports.Capability{need}
			elsewhere := s.reg.offersElsewhere(ctx, b, t, missing)
			alts := make([]map[string]any, len(elsewhere))
			for i, o := range elsewhere {
				alts[i] = map[string]any{"provider_id": o.ProviderID, "installed": o.Installed}
			}
			return &Error{Code: CodeCapabilityUnavailable,
				Message:     fmt.Sprintf("%s: provider %s does not offer %s", op.Name, b.Provider.Info().ID, need),
				Remediation: capabilityRemediation(elsewhere, missing, op.MissingRemediation),
				Details:     map[string]any{"provider_id": b.Provider.Info().ID, "operation": op.Name, "reason": reason, "offered_by": alts}}
		}
	}
	return nil
}

// missingCapabilities lists what op needs or wants that the binding lacks.
func missingCapabilities(op *Operation, b *Binding, a ports.Analysis) []ports.Capability {
	var out []ports.Capability
	for _, list := range [][]ports.Capability{op.Needs, op.Wants} {
		for _, c := range list {
			if !offers(b, a, c) && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// CapabilityRemediation is the advice for a bound provider that lacks
// caps: the registered engines that offer them (installed or not, and how
// to choose or get them), or, when none does, that none does followed by
// fallback. Families use it where a handler answers for a missing
// capability itself (batch_decompile's items).
func (c *Call) CapabilityRemediation(ctx context.Context, fallback string, caps ...ports.Capability) string {
	_, b, t := c.Bound()
	return capabilityRemediation(c.Session.reg.offersElsewhere(ctx, b, t, caps), caps, fallback)
}

// Capability names used in Operation.Needs: the ports capabilities, named
// here too so families can write core.CapProcedures.
const (
	CapDocuments   = ports.CapDocuments
	CapSegments    = ports.CapSegments
	CapProcedures  = ports.CapProcedures
	CapNames       = ports.CapNames
	CapStrings     = ports.CapStrings
	CapDisassemble = ports.CapDisassemble
	CapFunctions   = ports.CapFunctions
	CapReferences  = ports.CapReferences
	CapBytes       = ports.CapBytes
	CapSignatures  = ports.CapSignatures
	CapDecompile   = ports.CapDecompile
	CapValueFlow   = ports.CapValueFlow
	CapLayout      = ports.CapLayout
)

// reaProvider is rea itself, the provider of results it derives from
// supplied data.
func (s *Session) reaProvider() ProviderRef {
	v := s.opts.Server.Version
	return ProviderRef{ID: "rea", Name: "rea", Version: &v}
}

func (s *Session) seal(op *Operation, args map[string]any, obs *Observation, snap bound) (*Evidence, error) {
	params, err := CanonicalJSON(args)
	if err != nil {
		return nil, err
	}
	norm, err := CanonicalJSON(obs.Result)
	if err != nil {
		return nil, err
	}
	raw := json.RawMessage("null")
	if obs.Raw != nil {
		if raw, err = CanonicalJSON(obs.Raw); err != nil {
			return nil, err
		}
	}
	ev := &Evidence{Operation: op.Name, Parameters: params, NormalizedResult: norm, RawResult: raw,
		Confidence: obs.Confidence, Limitations: obs.Limitations, Locations: obs.Locations, EvidenceLinks: obs.Links,
		PredicateType: obs.Predicate, Authority: obs.Authority, Environment: obs.Environment}
	t, b, prof := snap.target, snap.binding, snap.profile
	switch {
	case obs.Unbound:
		ev.Provider = s.reaProvider()
		if obs.Subject == nil {
			ev.Limitations = append([]string{"No single artifact is this record's subject; its parameters and evidence links name what it covers."}, ev.Limitations...)
		}
	case b != nil:
		info := b.Provider.Info()
		v := prof.Provider.Version
		ev.Provider = ProviderRef{ID: info.ID, Name: info.Name, Version: &v}
		ev.AnalysisProfile = cmp.Or(obs.Profile, prof)
	default:
		ev.Provider = s.reaProvider()
	}
	if t != nil && !obs.Unbound {
		ev.Subject = NewSubject(t.Path, t.SHA256, t.Format, t.Architecture)
	}
	if obs.Provider != nil {
		ev.Provider, ev.AnalysisProfile = *obs.Provider, nil
	}
	if obs.Subject != nil {
		ev.Subject = obs.Subject
	}
	ev.Environment = obs.Environment
	if err := ev.sealCanonical(); err != nil {
		return nil, err
	}
	return ev, nil
}

// Close drains owned work, closes the provider and clears the ledger.
func (s *Session) Close(ctx context.Context) error {
	return s.closeTarget(ctx, true)
}

func (s *Session) closeTarget(ctx context.Context, clear bool) error {
	return s.closeTargetFor(ctx, clear, nil)
}

// closeTargetFor closes the open target for a call that started with
// caller (nil outside a call): the analysis is closed now unless other
// calls still use it, in which case the last of them closes it.
func (s *Session) closeTargetFor(ctx context.Context, clear bool, caller ports.Analysis) error {
	s.mu.Lock()
	a := s.analysis
	s.target, s.binding, s.analysis, s.profile = nil, nil, nil, nil
	s.mu.Unlock()
	err := s.retire(ctx, a, caller)
	if clear {
		s.ledger.Clear()
		s.retained.clear()
		s.state.clear()
	}
	if err != nil {
		var ce *ports.CleanupError
		if errors.As(err, &ce) {
			e := AsError("close_binary", err)
			e.Message = "close_binary: provider did not close cleanly: " + err.Error()
			return e
		}
		return &Error{Code: CodeCleanupIncomplete, Message: "close_binary: provider did not close cleanly: " + err.Error(), Err: err,
			Details: map[string]any{"operation": "close_binary", "cleanup": "incomplete", "resources": []string{"provider-session"}}}
	}
	return nil
}

// newRunID returns a random RFC 4122 version 4 UUID.
func newRunID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Analysis returns the bound analysis, or an error naming what is missing.
func (s *Session) boundAnalysis() (ports.Analysis, *Binding, *ports.Target) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.analysis, s.binding, s.target
}

// acquire snapshots the open target for a call and counts the call as a
// user of its analysis.
func (s *Session) acquire() bound {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := bound{target: s.target, binding: s.binding, analysis: s.analysis, profile: s.profile}
	if b.analysis != nil {
		if s.users == nil {
			s.users = map[ports.Analysis]int{}
		}
		s.users[b.analysis]++
	}
	return b
}

// release ends a call's use of a; the last user of a retired analysis
// closes it.
func (s *Session) release(a ports.Analysis) {
	if a == nil {
		return
	}
	s.mu.Lock()
	s.users[a]--
	last := s.users[a] <= 0
	if last {
		delete(s.users, a)
	}
	closeNow := last && s.retiring[a]
	if closeNow {
		delete(s.retiring, a)
	}
	s.mu.Unlock()
	if closeNow {
		if err := a.Close(context.Background()); err != nil {
			s.opts.Logger.Warn("provider did not close cleanly after its last call", "error", err)
		}
	}
}

// retire closes a, which the session no longer binds: now when no call
// other than caller uses it, else when the last such call ends (the close
// error is then logged, as no caller is left to receive it).
func (s *Session) retire(ctx context.Context, a, caller ports.Analysis) error {
	if a == nil {
		return nil
	}
	s.mu.Lock()
	users := s.users[a]
	if caller == a {
		users--
	}
	if users > 0 {
		if s.retiring == nil {
			s.retiring = map[ports.Analysis]bool{}
		}
		s.retiring[a] = true
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return a.Close(context.WithoutCancel(ctx))
}

// drain waits until the calling operation is the only one in flight, the
// context ends or the bound passes.
func (s *Session) drain(ctx context.Context, bound time.Duration) {
	deadline := time.Now().Add(bound)
	for s.inflight.Load() > 1 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
}

// RetainError records a failed call's complete error envelope as Evidence
// (predicate rea.error), so a diagnostic too large to deliver is kept.
func (s *Session) RetainError(op string, args json.RawMessage, envelope []byte) (*Evidence, error) {
	params := json.RawMessage(`{}`)
	if len(args) > 0 && json.Valid(args) && args[0] == '{' {
		params = args
	}
	ev := &Evidence{Operation: op, PredicateType: "rea.error", Parameters: params, NormalizedResult: envelope,
		Provider: s.reaProvider(), Confidence: ConfidenceObserved,
		Limitations: []string{"The operation failed; normalized_result is its complete error envelope."}}
	if err := ev.Seal(); err != nil {
		return nil, err
	}
	if _, err := s.ledger.Record(ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// withNotes adds the limitations engines noted during the call
// (ports.Note) that the handler did not already report.
func withNotes(obs *Observation, notes []string) *Observation {
	if len(notes) == 0 {
		return obs
	}
	have := make(map[string]bool, len(obs.Limitations))
	for _, l := range obs.Limitations {
		have[l] = true
	}
	o := *obs
	o.Limitations = append([]string(nil), obs.Limitations...)
	for _, n := range notes {
		if !have[n] {
			o.Limitations = append(o.Limitations, n)
		}
	}
	return &o
}
