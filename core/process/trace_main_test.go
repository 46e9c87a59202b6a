package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// mainTracer records the request it was given and reports the hits before
// main the tracer would count.
type mainTracer struct{ got *ports.TraceRequest }

func (m mainTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	*m.got = req
	return &ports.TraceResult{Architecture: "x86-64", Convention: ports.ConventionSysV, Exit: &ports.TraceExit{Code: new(int)},
		Coverage: ports.TraceCoverage{StopReason: "exited", Notes: []string{"2 recorded hit(s) (sequence 0 to 1) came before main was entered"}},
		Modules:  []ports.TraceModule{{Path: req.Launch.Path}}}, nil
}

// trace_native_calls gives the tracer main's address, so the hits before
// main are counted, and from_main asks it to place the breakpoints there;
// from_main with attach_pid is refused, as main was entered long ago.
// Before, the tracer had no main, and a small max_hits on a static
// program's strcmp showed only the C library's start-up calls, unsaid.
func TestTraceFromMain(t *testing.T) {
	cat, err := core.Assemble(standard.Families()...)
	if err != nil {
		t.Fatal(err)
	}
	var got ports.TraceRequest
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, &core.RegistryOptions{Tracer: mainTracer{&got}})
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	if _, err := s.Call(ctx, "open_binary", json.RawMessage(`{"path":"/bin/true"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(ctx, "trace_native_calls", json.RawMessage(`{"procedures":["puts@plt"]}`), nil); err != nil {
		t.Fatal(err)
	}
	if got.Main != 0x1030 || got.FromMain {
		t.Errorf("without from_main: main %#x, from_main %v; want 0x1030, false", got.Main, got.FromMain)
	}
	got = ports.TraceRequest{}
	if _, err := s.Call(ctx, "trace_native_calls", json.RawMessage(`{"procedures":["puts@plt"],"from_main":true}`), nil); err != nil {
		t.Fatal(err)
	}
	if got.Main != 0x1030 || !got.FromMain {
		t.Errorf("from_main: main %#x, from_main %v; want 0x1030, true", got.Main, got.FromMain)
	}
	_, err = s.Call(ctx, "trace_native_calls", json.RawMessage(`{"procedures":["puts@plt"],"from_main":true,"attach_pid":`+itoa(os.Getpid())+`}`), nil)
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeInvalidRequest || !strings.Contains(ce.Error(), "attached process") {
		t.Errorf("from_main with attach_pid: %v, want invalid_request", err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
