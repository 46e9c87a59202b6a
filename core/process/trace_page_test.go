package process_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// loopTracer reports n calls of the first requested procedure, as a loop
// calling it n times would.
type loopTracer struct{ n int }

func (l loopTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	b := req.Breakpoints[0]
	res := &ports.TraceResult{Architecture: "x86-64", Convention: ports.ConventionSysV, Exit: &ports.TraceExit{Code: new(int)},
		Coverage:    ports.TraceCoverage{StopReason: "exited"},
		Modules:     []ports.TraceModule{{Path: req.Launch.Path}},
		Breakpoints: []ports.TraceResolved{{Address: b.Address, RuntimeAddress: b.Address, Name: b.Name}}}
	for i := range l.n {
		res.Hits = append(res.Hits, ports.TraceHit{Sequence: i, Breakpoint: 0, Name: b.Name, Address: b.Address, RuntimeAddress: b.Address,
			MainThread: true, Arguments: []ports.TraceRegister{{Name: "rdi", Value: uint64(i)}, {Name: "rsi", Value: 0x2004}},
			ReturnAddress: 0x1161, Caller: 0x1161, Returned: true, ReturnValue: uint64(3 * i)})
	}
	return res, nil
}

// A trace of a procedure a loop called 3000 times is, by default, a first
// page of its hits with every procedure's hit count, saying so and how to
// get every hit; "detail":"complete" returns them all, and the page links
// the complete trace. Before, the default result listed every hit: 1.8 MB
// of text for 3000 calls of a two-argument function, and at the default
// max_hits of 10000 more than the 10 MiB response budget.
func TestTraceNativeCallsPagesManyHits(t *testing.T) {
	is := is.New(t)
	cat, err := core.Assemble(standard.Families()...)
	is.NoErr(err)
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, &core.RegistryOptions{Tracer: loopTracer{3000}})
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	_, err = s.Call(ctx, "open_binary", json.RawMessage(`{"path":"/bin/true"}`), nil)
	is.NoErr(err)
	type result struct {
		Breakpoints []struct {
			Hits *int `json:"hits"`
		}
		Hits     []json.RawMessage
		Coverage struct {
			HitsRecorded *int `json:"hits_recorded"`
		}
	}
	page, err := s.Call(ctx, "trace_native_calls", json.RawMessage(`{"procedures":["puts@plt"]}`), nil)
	is.NoErr(err)
	var p result
	is.NoErr(json.Unmarshal(page.Evidence.NormalizedResult, &p))
	if n := len(page.Evidence.NormalizedResult); n > 20000 {
		t.Errorf("the default trace of 3000 hits is %d bytes (%d hits listed)", n, len(p.Hits))
	}
	if len(p.Hits) == 0 || len(p.Hits) >= 3000 {
		t.Errorf("the default trace lists %d of 3000 hits", len(p.Hits))
	}
	if p.Coverage.HitsRecorded == nil || *p.Coverage.HitsRecorded != 3000 || len(p.Breakpoints) != 1 || p.Breakpoints[0].Hits == nil || *p.Breakpoints[0].Hits != 3000 {
		t.Errorf("the page does not count the hits: %.300s", page.Evidence.NormalizedResult)
	}
	said := false
	for _, l := range page.Evidence.Limitations {
		said = said || (strings.Contains(l, "3000") && strings.Contains(l, `"detail":"complete"`) && strings.Contains(l, "evidence_links[0]"))
	}
	if !said {
		t.Errorf("no limitation says the hits are a page and how to get every hit: %q", page.Evidence.Limitations)
	}
	full, err := s.Call(ctx, "trace_native_calls", json.RawMessage(`{"procedures":["puts@plt"],"detail":"complete"}`), nil)
	is.NoErr(err)
	var f result
	is.NoErr(json.Unmarshal(full.Evidence.NormalizedResult, &f))
	is.Equal(len(f.Hits), 3000)
	is.True(len(page.Evidence.EvidenceLinks) > 0)
	is.Equal(page.Evidence.EvidenceLinks[0], full.Evidence.EvidenceID) // the page links the complete trace

	// A trace with few hits is as it was: every hit, no counts added.
	reg2, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, &core.RegistryOptions{Tracer: loopTracer{3}})
	is.NoErr(err)
	s2 := core.NewSession(cat, reg2, nil)
	t.Cleanup(func() { s2.Close(context.Background()) })
	_, err = s2.Call(ctx, "open_binary", json.RawMessage(`{"path":"/bin/true"}`), nil)
	is.NoErr(err)
	small, err := s2.Call(ctx, "trace_native_calls", json.RawMessage(`{"procedures":["puts@plt"]}`), nil)
	is.NoErr(err)
	var sm result
	is.NoErr(json.Unmarshal(small.Evidence.NormalizedResult, &sm))
	is.Equal(len(sm.Hits), 3)
	is.True(sm.Coverage.HitsRecorded == nil && sm.Breakpoints[0].Hits == nil)
	is.Equal(len(small.Evidence.EvidenceLinks), 0)
}

// wideTracer resolves every requested breakpoint and reports n calls of
// the first.
type wideTracer struct{ n int }

func (w wideTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	res, _ := loopTracer(w).TraceCalls(ctx, req)
	res.Breakpoints = nil
	for _, b := range req.Breakpoints {
		res.Breakpoints = append(res.Breakpoints, ports.TraceResolved{Address: b.Address, RuntimeAddress: b.Address, Name: b.Name})
	}
	return res, nil
}

// A trace of many procedures with few hits lists every hit: its size is
// the breakpoints the caller asked for, which a page of hits would not
// shrink. Before this was checked, 400 breakpoints and 8 hits gave a page
// of 1 hit.
func TestTraceNativeCallsFewHitsAreNotPaged(t *testing.T) {
	is := is.New(t)
	cat, err := core.Assemble(standard.Families()...)
	is.NoErr(err)
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, &core.RegistryOptions{Tracer: wideTracer{8}})
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	_, err = s.Call(ctx, "open_binary", json.RawMessage(`{"path":"/bin/true"}`), nil)
	is.NoErr(err)
	var procs []string
	for a := 0x1030; a < 0x1030+0x18; a++ {
		for range 8 {
			procs = append(procs, "0x"+strconv.FormatInt(int64(a), 16))
		}
	}
	raw, _ := json.Marshal(map[string]any{"procedures": procs})
	res, err := s.Call(ctx, "trace_native_calls", raw, nil)
	is.NoErr(err)
	var r struct{ Hits []json.RawMessage }
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &r))
	if len(res.Evidence.NormalizedResult) <= 16<<10 {
		t.Fatalf("the result is %d bytes: too small to test", len(res.Evidence.NormalizedResult))
	}
	is.Equal(len(r.Hits), 8)
	is.Equal(len(res.Evidence.EvidenceLinks), 0)
}

// BenchmarkTraceNativeCallsPage is a default (concise) trace of a loop's
// 10,000 calls, the default max_hits: the page, with the complete trace
// sealed and retained beside it.
func BenchmarkTraceNativeCallsPage(b *testing.B) {
	cat, err := core.Assemble(standard.Families()...)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, &core.RegistryOptions{Tracer: loopTracer{10000}})
	if err != nil {
		b.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	b.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	if _, err := s.Call(ctx, "open_binary", json.RawMessage(`{"path":"/bin/true"}`), nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Call(ctx, "trace_native_calls", json.RawMessage(`{"procedures":["puts@plt"]}`), nil); err != nil {
			b.Fatal(err)
		}
	}
}
