package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// fakeCapturer returns a small finished capture of the requested scenario.
type fakeCapturer struct{}

func (fakeCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	sha := strings.Repeat("ab", 32)
	code, elapsed := 0, int64(5)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &ports.ProcessCapture{RunID: req.RunID, Scenario: req.Scenario,
		Executable: ports.ExecutableIdentity{Path: "/bin/sh", SelectedSHA256: sha, SHA256: sha, State: ports.IdentityUnchanged},
		StartedAt:  t0, CompletedAt: t0.Add(time.Second),
		Frames:               []ports.CaptureFrame{{Sequence: 0, AtMS: 1, Data: "hello\r\n"}},
		Exit:                 ports.CaptureExit{Reason: "exited", Exited: true, Code: &code, ElapsedMS: &elapsed},
		Settlement:           ports.Settlement{State: ports.SettlementQuiesced},
		Manifest:             ports.CaptureManifest{ProviderVersion: "3", Platform: "linux", Architecture: "amd64", StartedAt: t0, CompletedAt: t0.Add(time.Second)},
		NormalizationApplied: ports.NormalizationRecord{Version: "rea-capture-normalization-v1"}}, nil
}

// fakeTracer records one call of each breakpoint.
type fakeTracer struct{}

func (fakeTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	res := &ports.TraceResult{Architecture: "x86-64", Convention: ports.ConventionSysV, Coverage: ports.TraceCoverage{StopReason: "exited"},
		Exit: &ports.TraceExit{Code: new(int)}}
	for i, b := range req.Breakpoints {
		res.Breakpoints = append(res.Breakpoints, ports.TraceResolved{Address: b.Address, Name: b.Name})
		res.Hits = append(res.Hits, ports.TraceHit{Sequence: i, Breakpoint: i, Name: b.Name, Address: b.Address, Returned: true})
	}
	return res, nil
}

// Every process tool's handler returns its operation's Go result type
// (Types.Result or a pointer to it) as the Observation's Result, over a
// fake capturer, a fake provider and a fake tracer (issue 13).
func TestProcessHandlersReturnTheirResultTypes(t *testing.T) {
	fams := standard.Families()
	got := map[string][]reflect.Type{}
	var ops []*core.Operation
	for _, f := range fams {
		if f.Name != "process" {
			continue
		}
		for _, op := range f.Operations {
			ops = append(ops, op)
			h, name := op.Handler, op.Name
			op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
				out, err := h(ctx, c)
				if obs, ok := out.(*core.Observation); ok && err == nil {
					got[name] = append(got[name], reflect.TypeOf(obs.Result))
				}
				return out, err
			}
		}
	}
	call := caller(t, fams, &core.RegistryOptions{Capturer: fakeCapturer{}, Tracer: fakeTracer{}})
	a := call("capture_process_scenario", map[string]any{"executable": "/bin/sh", "arguments": []string{"-c", "echo hello"}})
	b := call("capture_process_scenario", map[string]any{"executable": "/bin/sh", "arguments": []string{"-c", "echo hello"},
		"events": []any{map[string]any{"type": "input", "at_ms": 1, "data": "x\n"}}})
	ref := func(r *core.Result) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}
	}
	call("compare_process_captures", map[string]any{"left": ref(a), "right": ref(b)})
	call("open_binary", map[string]any{"path": "/bin/true"})
	call("trace_native_calls", map[string]any{"procedures": []string{"main"}})
	for _, op := range ops {
		if len(got[op.Name]) == 0 {
			t.Errorf("%s was not run", op.Name)
		}
		for _, g := range got[op.Name] {
			if g != op.Types.Result && g != reflect.PointerTo(op.Types.Result) {
				t.Errorf("%s: the handler returned a %v, not its result type %s", op.Name, g, op.Types.Result)
			}
		}
	}
}

// callersTracer records one call of the first breakpoint from each of three
// places: the program itself, a library, and memory in no module.
type callersTracer struct{}

func (callersTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	res := &ports.TraceResult{Architecture: "x86-64", Convention: ports.ConventionSysV, Coverage: ports.TraceCoverage{StopReason: "exited"},
		Exit: &ports.TraceExit{Code: new(int)}, Modules: []ports.TraceModule{{Path: req.Launch.Path, LoadBias: 0x1000}}}
	b := req.Breakpoints[0]
	res.Breakpoints = append(res.Breakpoints, ports.TraceResolved{Address: b.Address, Name: b.Name})
	for i, c := range []struct {
		caller uint64
		module string
	}{{b.Address + 4, req.Launch.Path}, {0x29d90, "/lib/x86_64-linux-gnu/libc.so.6"}, {0x7fff12345678, ""}} {
		res.Hits = append(res.Hits, ports.TraceHit{Sequence: i, Name: b.Name, Address: b.Address, Caller: c.caller, CallerModule: c.module})
	}
	return res, nil
}

// A hit's caller module is null for the program, the library's path for a
// library (whose link-time address the caller is, in no procedure of the
// open analysis), and "" for memory in no module the tracer knows.
func TestTraceCallerModules(t *testing.T) {
	call := caller(t, standard.Families(), &core.RegistryOptions{Tracer: callersTracer{}})
	call("open_binary", map[string]any{"path": "/bin/true"})
	res := call("trace_native_calls", map[string]any{"procedures": []string{"main"}})
	var out struct {
		Hits []struct {
			Caller          *string `json:"caller"`
			CallerModule    *string `json:"caller_module"`
			CallerProcedure *struct {
				Name *string `json:"name"`
			} `json:"caller_procedure"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Hits) != 3 {
		t.Fatalf("%d hits", len(out.Hits))
	}
	h := out.Hits
	if h[0].CallerModule != nil || h[0].CallerProcedure == nil {
		t.Errorf("a caller in the program: module %v, procedure %v", h[0].CallerModule, h[0].CallerProcedure)
	}
	if h[1].CallerModule == nil || *h[1].CallerModule != "/lib/x86_64-linux-gnu/libc.so.6" || h[1].CallerProcedure != nil || *h[1].Caller != "0x29d90" {
		t.Errorf("a caller in libc: module %v, procedure %v", h[1].CallerModule, h[1].CallerProcedure)
	}
	if h[2].CallerModule == nil || *h[2].CallerModule != "" || h[2].CallerProcedure != nil {
		t.Errorf("a caller in no module: module %v, procedure %v", h[2].CallerModule, h[2].CallerProcedure)
	}
}

// cancelledTracer records one call of the first breakpoint, from inside the
// program, then fails as a cancelled trace does, with that hit as its
// partial result.
type cancelledTracer struct{}

func (cancelledTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	b := req.Breakpoints[0]
	res := &ports.TraceResult{Architecture: "x86-64", Convention: ports.ConventionSysV, Coverage: ports.TraceCoverage{StopReason: "cancelled"},
		Modules:     []ports.TraceModule{{Path: req.Launch.Path}},
		Breakpoints: []ports.TraceResolved{{Address: b.Address, Name: b.Name}},
		Hits:        []ports.TraceHit{{Name: b.Name, Address: b.Address, Caller: b.Address + 4, CallerModule: req.Launch.Path, ReturnSequence: -1}}}
	return nil, &ports.TraceError{Op: "trace", Err: context.Canceled, Partial: res}
}

// The partial observation of a failed trace is projected as a finished
// one is: the program's SHA-256, and each hit's procedure and caller
// procedure named from the open analysis (before, an agent reading a
// cancelled trace saw program.sha256 "" and every procedure null).
func TestTracePartialObservationNamesProcedures(t *testing.T) {
	cat, err := core.Assemble(standard.Families()...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, &core.RegistryOptions{Tracer: cancelledTracer{}})
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	if _, err := s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"/bin/true"}`), nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.Call(context.Background(), "trace_native_calls", json.RawMessage(`{"procedures":["main"]}`), nil)
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeCancelled {
		t.Fatalf("got %v, want a cancelled error", err)
	}
	raw, err := json.Marshal(ce.Details["partial_observation"])
	if err != nil {
		t.Fatal(err)
	}
	var po struct {
		Trace struct {
			Program struct {
				SHA256 string `json:"sha256"`
			} `json:"program"`
			Breakpoints []struct {
				Procedure *struct{ Name string } `json:"procedure"`
			} `json:"breakpoints"`
			Hits []struct {
				Procedure       *struct{ Name string } `json:"procedure"`
				CallerProcedure *struct{ Name string } `json:"caller_procedure"`
			} `json:"hits"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(raw, &po); err != nil {
		t.Fatal(err)
	}
	if len(po.Trace.Program.SHA256) != 64 {
		t.Errorf("program.sha256 %q, want the traced program's", po.Trace.Program.SHA256)
	}
	if len(po.Trace.Breakpoints) != 1 || po.Trace.Breakpoints[0].Procedure == nil || po.Trace.Breakpoints[0].Procedure.Name != "main" {
		t.Errorf("breakpoints %s", raw)
	}
	if len(po.Trace.Hits) != 1 || po.Trace.Hits[0].Procedure == nil || po.Trace.Hits[0].Procedure.Name != "main" ||
		po.Trace.Hits[0].CallerProcedure == nil || po.Trace.Hits[0].CallerProcedure.Name != "main" {
		t.Errorf("hits %s", raw)
	}
}

// entryTracer records one call of the program's entry point (the fake's
// _start at 0x1010) whose stack top is argc, 2, as it is when the loader
// jumps there.
type entryTracer struct{}

func (entryTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	b := req.Breakpoints[0]
	return &ports.TraceResult{Architecture: "x86-64", Convention: ports.ConventionSysV, Coverage: ports.TraceCoverage{StopReason: "exited"},
		Exit: &ports.TraceExit{Code: new(int)}, Modules: []ports.TraceModule{{Path: req.Launch.Path}},
		Breakpoints: []ports.TraceResolved{{Address: b.Address, Name: b.Name}},
		Hits:        []ports.TraceHit{{Name: b.Name, Address: b.Address, Caller: 2, ReturnAddress: 2, ReturnSequence: -1}}}, nil
}

// Nothing calls an ELF program's entry point: the loader jumps there, and
// the word on the stack is argc, not a return address. Before, a hit of
// _start had caller "0x2" in caller_module "".
func TestTraceEntryPointHasNoCaller(t *testing.T) {
	call := caller(t, standard.Families(), &core.RegistryOptions{Tracer: entryTracer{}})
	call("open_binary", map[string]any{"path": "/bin/true"})
	res := call("trace_native_calls", map[string]any{"procedures": []string{"_start"}})
	var out struct {
		Hits []map[string]any `json:"hits"`
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Hits) != 1 {
		t.Fatalf("%d hits", len(out.Hits))
	}
	for _, k := range []string{"caller", "call_site", "caller_module", "caller_procedure"} {
		if v, ok := out.Hits[0][k]; !ok || v != nil {
			t.Errorf("%s = %v, want null", k, v)
		}
	}
}

// A pid that runs nothing, or a program path that does not exist, is named
// with advice about that argument. Before, both answered target_unavailable
// with the kernel's default advice "Call open_binary with a readable file
// path first", though a target was open.
func TestTraceUnreadableProgramAdvice(t *testing.T) {
	cat, err := core.Assemble(standard.Families()...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, &core.RegistryOptions{Tracer: fakeTracer{}})
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	if _, err := s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"/bin/true"}`), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, want string }{
		{`{"procedures":["main"],"attach_pid":2147483647}`, "attach_pid"},
		{`{"procedures":["main"],"program":"/nonexistent/prog"}`, "program"},
	} {
		_, err := s.Call(context.Background(), "trace_native_calls", json.RawMessage(c.args), nil)
		var ce *core.Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: got %v", c.args, err)
		}
		t.Logf("%s: %s / %s", c.args, ce.Message, ce.Envelope().Error.Remediation.Action)
		if a := ce.Envelope().Error.Remediation.Action; !strings.Contains(a, c.want) || strings.Contains(a, "open_binary with a readable") {
			t.Errorf("%s: advice %q does not name %s", c.args, a, c.want)
		}
	}
}
