package core_test

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// codeFake is an engine that answers the code primitives from a small
// hand-made program, and decompiles: the workflows must work with any engine
// that answers the primitives, not only rea-native.
//
//	0x1000 puts@plt       (import stub)
//	0x1030 main           calls handle_request (0x1040) and puts@plt (0x1050)
//	0x1070 handle_request reads "hello, world" (0x1074), calls logger (0x1078),
//	                      calls through rax (0x107c, unresolved)
//	0x1090 logger
type codeFake struct{ decompiles bool }

func (f *codeFake) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "code-fake", Name: "code fake", Version: "1"}
}
func (f *codeFake) Availability(context.Context) ports.Availability {
	return ports.Availability{Available: true}
}
func (f *codeFake) Support(context.Context, ports.Target) ports.Support {
	return ports.Support{Supported: true}
}
func (f *codeFake) Open(context.Context, ports.Target) (ports.Analysis, error) {
	if f.decompiles {
		return &decompilingFake{}, nil
	}
	return &fakeCode{}, nil
}

type fakeCode struct{}

type decompilingFake struct{ fakeCode }

func (*decompilingFake) Decompile(_ context.Context, addr uint64) (ports.Pseudocode, error) {
	return ports.Pseudocode{Text: "int handle_request(void) { logger(); return 0; }"}, nil
}

var fakeProcs = []ports.Procedure{
	{Address: 0x1000, Name: "puts@plt", Size: 0x10, Source: "plt", External: true, Thunk: true, ThunkTarget: "puts"},
	{Address: 0x1030, Name: "main", Size: 0x40, Source: "symbol"},
	{Address: 0x1070, Name: "handle_request", Size: 0x20, Source: "symbol"},
	{Address: 0x1090, Name: "logger", Size: 0x10, Source: "symbol"},
}

var fakeRefs = []ports.Reference{
	{From: 0x1040, To: 0x1070, Kind: ports.RefCall},
	{From: 0x1050, To: 0x1000, Kind: ports.RefCall},
	{From: 0x1074, To: 0x2000, Kind: ports.RefAddress},
	{From: 0x1078, To: 0x1090, Kind: ports.RefCall},
	{From: 0x107c, Kind: ports.RefCall, Unresolved: true, Operand: "rax"},
}

func (*fakeCode) Version() string             { return "1" }
func (*fakeCode) Profile() ports.Profile      { return ports.Profile{SchemaVersion: 1} }
func (*fakeCode) Close(context.Context) error { return nil }
func (*fakeCode) Documents(context.Context) ([]ports.Document, error) {
	return []ports.Document{{Name: "prog", Format: "elf", Architecture: "x86_64", Entry: 0x1030, HasEntry: true}}, nil
}
func (*fakeCode) Segments(context.Context) ([]ports.Segment, error) {
	return []ports.Segment{
		{Name: ".text", Kind: "section", Start: 0x1000, Size: 0x100, FileOffset: 0x1000, FileSize: 0x100, Perms: ports.Permissions{Read: true, Execute: true}},
		{Name: ".rodata", Kind: "section", Start: 0x2000, Size: 0x40, FileOffset: 0x2000, FileSize: 0x40, Perms: ports.Permissions{Read: true}},
	}, nil
}
func (*fakeCode) Procedures(context.Context) ([]ports.Procedure, error) { return fakeProcs, nil }
func (*fakeCode) Names(context.Context) ([]ports.Name, error) {
	return []ports.Name{{Address: 0x1030, Name: "main", Kind: "function"}, {Address: 0x2000, Name: "greeting", Kind: "object"}}, nil
}
func (*fakeCode) Strings(context.Context) ([]ports.String, error) {
	return []ports.String{{Address: 0x2000, FileOffset: 0x2000, Value: "hello, world", Charset: "ascii", ByteLength: 12, Section: ".rodata"}}, nil
}
func (*fakeCode) FunctionRanges(context.Context) ([]ports.FunctionRange, error) {
	var out []ports.FunctionRange
	for _, p := range fakeProcs {
		out = append(out, ports.FunctionRange{Start: p.Address, End: p.Address + p.Size, EndSource: "symbol"})
	}
	return out, nil
}

// Function: every procedure is a run of 4-byte instructions; the
// references of fakeRefs are its calls.
func (f *fakeCode) Function(_ context.Context, req ports.FunctionRequest) (ports.Function, error) {
	for _, p := range fakeProcs {
		if p.Address != req.Address {
			continue
		}
		fn := ports.Function{FunctionRange: ports.FunctionRange{Start: p.Address, End: p.Address + p.Size, EndSource: "symbol"}, Syntax: "intel"}
		for a := p.Address; a < p.Address+p.Size; a += 4 {
			in := ports.Instruction{Address: a, Bytes: []byte{0x90, 0x90, 0x90, 0x90}, Mnemonic: "nop", Text: "nop"}
			for _, r := range fakeRefs {
				if r.From == a && r.Kind == ports.RefCall {
					in.Mnemonic, in.Flow, in.Target, in.HasTarget, in.Text = "call", ports.FlowCall, r.To, !r.Unresolved, "call"
				}
			}
			if a+4 == p.Address+p.Size {
				in.Mnemonic, in.Flow, in.Text = "ret", ports.FlowReturn, "ret"
			}
			if req.MaxInstructions == 0 || len(fn.Instructions) < req.MaxInstructions {
				fn.Instructions = append(fn.Instructions, in)
			}
			fn.InstructionCount++
		}
		fn.Blocks = []ports.BasicBlock{{Start: fn.Start, End: fn.End, Instructions: fn.InstructionCount}}
		return fn, nil
	}
	return ports.Function{}, ports.ErrNotFound
}
func (*fakeCode) ReferencesFrom(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range fakeRefs {
		if r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, nil
}
func (*fakeCode) ReferencesTo(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range fakeRefs {
		if !r.Unresolved && r.To >= start && r.To < end {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out, nil
}

func codeSession(t *testing.T, decompiles bool) *core.Session {
	t.Helper()
	target := "/usr/bin/ls" // any readable executable: the fake ignores its bytes
	if _, err := os.Stat(target); err != nil {
		t.Skip("no /usr/bin/ls to open")
	}
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry([]ports.Provider{&codeFake{decompiles: decompiles}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	if _, err := s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"`+target+`"}`), nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func callResult(t *testing.T, s *core.Session, tool, args string) map[string]any {
	t.Helper()
	res, err := s.Call(context.Background(), tool, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var m map[string]any
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWorkflowsOverAnyEngine(t *testing.T) {
	is := is.New(t)
	s := codeSession(t, true)

	d := callResult(t, s, "analyze_function", `{"procedure":"handle_request","max_pseudocode_chars":5}`)
	callers := d["callers"].(map[string]any)["items"].([]any)
	is.Equal(len(callers), 1)
	is.Equal(callers[0].(map[string]any)["procedure"].(map[string]any)["name"], "main")
	callees := d["callees"].(map[string]any)["items"].([]any)
	is.Equal(len(callees), 1)
	is.Equal(callees[0].(map[string]any)["name"], "logger")
	is.Equal(int(d["unresolved_calls"].(map[string]any)["total"].(float64)), 1)
	strs := d["referenced_strings"].(map[string]any)["items"].([]any)
	is.Equal(strs[0].(map[string]any)["value"], "hello, world")
	p := d["pseudocode"].(map[string]any)
	is.Equal(p["available"], true)
	is.Equal(p["text"], "int h")
	is.Equal(p["truncated"], true)
	is.Equal(int(p["next_offset"].(float64)), 5)
	is.Equal(d["native_api"], nil) // the fake derives no signatures

	g := callResult(t, s, "get_call_graph", `{"address":"main","depth":2}`)
	is.Equal(len(g["nodes"].([]any)), 4) // main, handle_request, puts@plt, logger
	is.Equal(len(g["edges"].([]any)), 3)

	path := callResult(t, s, "trace_call_path", `{"start":"main","goal":"logger"}`)
	is.Equal(path["found"], true)
	var names []string
	for _, n := range path["path"].([]any) {
		names = append(names, n.(map[string]any)["name"].(string))
	}
	is.Equal(names, []string{"main", "handle_request", "logger"})
	back := callResult(t, s, "trace_call_path", `{"start":"logger","goal":"main","direction":"backward"}`)
	is.Equal(len(back["path"].([]any)), 3)

	f := callResult(t, s, "find_code_for_string", `{"query":"HELLO"}`)
	is.Equal(f["procedures"].([]any)[0].(map[string]any)["name"], "handle_request")

	tf := callResult(t, s, "trace_feature", `{"query":"hello"}`)
	is.True(len(tf["nodes"].([]any)) >= 3) // handle_request, its caller and callee

	b := callResult(t, s, "batch_decompile", `{"addresses":["handle_request","0x1030","nowhere"]}`)
	sum := b["summary"].(map[string]any)
	is.Equal(sum["decompiled"], 2.0)
	is.Equal(sum["error"], 1.0)

	x := callResult(t, s, "find_xrefs_to_name", `{"name":"puts"}`)
	is.Equal(int(x["total"].(float64)), 1)
}

func TestPseudoCodeUnavailableNamesNoUnregisteredEngine(t *testing.T) {
	is := is.New(t)
	s := codeSession(t, false)
	_, err := s.Call(context.Background(), "procedure_pseudo_code", json.RawMessage(`{"procedure":"main"}`), nil)
	e := core.AsError("procedure_pseudo_code", err)
	is.Equal(e.Code, core.CodeCapabilityUnavailable)
	is.True(len(e.Remediation) > 0)
	is.True(strings.Contains(e.Remediation, "No registered engine offers decompile"))
	is.True(!strings.Contains(strings.ToLower(e.Remediation), "ghidra"))
	d := callResult(t, s, "analyze_function", `{"procedure":"0x1074"}`) // an address inside handle_request
	is.Equal(d["procedure"].(map[string]any)["name"], "handle_request")
	is.Equal(d["pseudocode"].(map[string]any)["available"], false)
}
