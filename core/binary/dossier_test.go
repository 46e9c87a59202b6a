package binary_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// dossierFake is an engine with one procedure, f (0x1000-0x1020, eight
// 4-byte instructions in two blocks), called by g (0x1100), whose
// references are listed out of address order:
//
//	0x1010, 0x1004 -> "alpha" (0x2000)
//	0x1008         -> "beta"  (0x2008)
//	0x100c         -> "gamma" (0x2010)
//	0x1014         -> n1      (0x2100)
//	0x1018, 0x1000 -> n2      (0x2108)
type dossierFake struct{}

var dfProcs = []ports.Procedure{
	{Address: 0x1000, Name: "f", Size: 0x20, Source: "symbol"},
	{Address: 0x1100, Name: "g", Size: 0x10, Source: "symbol"},
}

var dfRefs = []ports.Reference{
	{From: 0x1010, To: 0x2000, Kind: ports.RefRead},
	{From: 0x1004, To: 0x2000, Kind: ports.RefRead},
	{From: 0x1008, To: 0x2008, Kind: ports.RefRead},
	{From: 0x100c, To: 0x2010, Kind: ports.RefRead},
	{From: 0x1014, To: 0x2100, Kind: ports.RefRead},
	{From: 0x1018, To: 0x2108, Kind: ports.RefWrite},
	{From: 0x1000, To: 0x2108, Kind: ports.RefRead},
	{From: 0x1104, To: 0x1000, Kind: ports.RefCall},
}

func (dossierFake) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "dossier-fake", Name: "dossier fake", Version: "1"}
}
func (dossierFake) Availability(context.Context) ports.Availability {
	return ports.Availability{Available: true}
}
func (dossierFake) Support(context.Context, ports.Target) ports.Support {
	return ports.Support{Supported: true}
}
func (dossierFake) Open(context.Context, ports.Target) (ports.Analysis, error) {
	return dossierFake{}, nil
}
func (dossierFake) Version() string             { return "1" }
func (dossierFake) Profile() ports.Profile      { return ports.Profile{SchemaVersion: 1} }
func (dossierFake) Close(context.Context) error { return nil }
func (dossierFake) Documents(context.Context) ([]ports.Document, error) {
	return []ports.Document{{Name: "prog", Format: "elf", Architecture: "x86_64", Entry: 0x1100, HasEntry: true}}, nil
}
func (dossierFake) Segments(context.Context) ([]ports.Segment, error) {
	return []ports.Segment{
		{Name: ".text", Kind: "section", Start: 0x1000, Size: 0x200, FileOffset: 0x1000, FileSize: 0x200, Perms: ports.Permissions{Read: true, Execute: true}},
		{Name: ".data", Kind: "section", Start: 0x2000, Size: 0x200, FileOffset: 0x2000, FileSize: 0x200, Perms: ports.Permissions{Read: true, Write: true}},
	}, nil
}
func (dossierFake) Procedures(context.Context) ([]ports.Procedure, error) { return dfProcs, nil }
func (dossierFake) Names(context.Context) ([]ports.Name, error) {
	return []ports.Name{{Address: 0x1000, Name: "f", Kind: "function"}, {Address: 0x1100, Name: "g", Kind: "function"},
		{Address: 0x2100, Name: "n1", Kind: "object"}, {Address: 0x2108, Name: "n2", Kind: "object"}}, nil
}
func (dossierFake) Strings(context.Context) ([]ports.String, error) {
	var out []ports.String
	for i, v := range []string{"alpha", "beta", "gamma"} {
		a := uint64(0x2000 + 8*i)
		out = append(out, ports.String{Address: a, FileOffset: a, Value: v, Charset: "ascii", ByteLength: len(v), Section: ".data"})
	}
	return out, nil
}
func (dossierFake) FunctionRanges(context.Context) ([]ports.FunctionRange, error) {
	var out []ports.FunctionRange
	for _, p := range dfProcs {
		out = append(out, ports.FunctionRange{Start: p.Address, End: p.Address + p.Size, EndSource: "symbol"})
	}
	return out, nil
}
func (dossierFake) Function(_ context.Context, req ports.FunctionRequest) (ports.Function, error) {
	for _, p := range dfProcs {
		if p.Address != req.Address {
			continue
		}
		fn := ports.Function{FunctionRange: ports.FunctionRange{Start: p.Address, End: p.Address + p.Size, EndSource: "symbol"}, Syntax: "intel"}
		for a := p.Address; a < p.Address+p.Size; a += 4 {
			in := ports.Instruction{Address: a, Bytes: []byte{0x90, 0x90, 0x90, 0x90}, Mnemonic: "nop", Text: "nop"}
			if a+4 == p.Address+p.Size {
				in.Mnemonic, in.Flow, in.Text = "ret", ports.FlowReturn, "ret"
			}
			fn.Instructions = append(fn.Instructions, in)
			fn.InstructionCount++
		}
		mid := p.Address + p.Size/2
		fn.Blocks = []ports.BasicBlock{
			{Start: p.Address, End: mid, Instructions: int(p.Size / 8), Successors: []ports.Edge{{Kind: ports.EdgeFallthrough, Target: mid}}},
			{Start: mid, End: p.Address + p.Size, Instructions: int(p.Size / 8)},
		}
		return fn, nil
	}
	return ports.Function{}, ports.ErrNotFound
}
func (dossierFake) ReferencesFrom(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range dfRefs {
		if r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, nil
}
func (dossierFake) ReferencesTo(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range dfRefs {
		if r.To >= start && r.To < end {
			out = append(out, r)
		}
	}
	return out, nil
}

func dossierSession(t *testing.T) *core.Session {
	t.Helper()
	return fakeSession(t, dossierFake{})
}

// fakeSession is a session that checks its outputs against their schemas,
// with a target opened by the fake provider p.
func fakeSession(t *testing.T, p ports.Provider) *core.Session {
	t.Helper()
	target := "/usr/bin/ls" // any readable file: the fake ignores its bytes
	if _, err := os.Stat(target); err != nil {
		t.Skip("no /usr/bin/ls to open")
	}
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry([]ports.Provider{p}, nil)
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

func completeDossier(t *testing.T, s *core.Session, args string) map[string]any {
	t.Helper()
	res, err := s.Call(context.Background(), "analyze_function", json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("analyze_function %s: %v", args, err)
	}
	var m map[string]any
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// items returns collection name's items of dossier d.
func items(d map[string]any, name string) []map[string]any {
	var out []map[string]any
	for _, it := range d[name].(map[string]any)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func TestReferencedItemsCarryTheirSourceAddress(t *testing.T) {
	is := is.New(t)
	s := dossierSession(t)
	d := completeDossier(t, s, `{"procedure":"f","detail":"complete"}`)
	strs := items(d, "referenced_strings")
	is.Equal(len(strs), 3)
	is.Equal(strs[0]["value"], "alpha")
	is.Equal(strs[0]["source_address"], "0x1004") // the lowest of its two, though listed second
	is.Equal(strs[0]["from"], []any{"0x1010", "0x1004"})
	is.Equal(strs[1]["source_address"], "0x1008")
	is.Equal(strs[2]["source_address"], "0x100c")
	names := items(d, "referenced_names")
	is.Equal(len(names), 2)
	is.Equal(names[0]["name"], "n1")
	is.Equal(names[0]["source_address"], "0x1014")
	is.Equal(names[1]["name"], "n2")
	is.Equal(names[1]["source_address"], "0x1000")
	is.Equal(names[1]["kinds"], []any{ports.RefWrite, ports.RefRead})

	// The concise dossier keeps the field.
	c := completeDossier(t, s, `{"procedure":"f","limit":1}`)
	is.Equal(items(c, "referenced_strings")[0]["source_address"], "0x1004")
}

func TestCollectionOffsetPagesEachCollection(t *testing.T) {
	is := is.New(t)
	s := dossierSession(t)
	page := func(d map[string]any, name string) (first any, returned, next any) {
		c := d[name].(map[string]any)
		if its := c["items"].([]any); len(its) > 0 {
			first = its[0]
		}
		return first, c["returned"], c["next_offset"]
	}

	d := completeDossier(t, s, `{"procedure":"f","detail":"complete","limit":1,
		"collection_offset":{"referenced_strings":1,"referenced_names":1,"basic_blocks":1,"outgoing_references":5}}`)
	first, n, next := page(d, "referenced_strings")
	is.Equal(first.(map[string]any)["value"], "beta") // item 1 of 3
	is.Equal(n, 1.0)
	is.Equal(next, 2.0)
	first, _, next = page(d, "referenced_names")
	is.Equal(first.(map[string]any)["name"], "n2") // the last of 2
	is.Equal(next, nil)
	first, _, next = page(d, "basic_blocks")
	is.Equal(first.(map[string]any)["start"], "0x1010")
	is.Equal(next, nil)
	first, _, next = page(d, "outgoing_references")
	is.Equal(first.(map[string]any)["from"], "0x1018") // the sixth of seven references from f
	is.Equal(next, 6.0)
	// Collections the object leaves out start at 0.
	first, _, next = page(d, "callers")
	is.Equal(first.(map[string]any)["procedure"].(map[string]any)["name"], "g")
	is.Equal(next, nil)
	_, n, next = page(d, "incoming_references")
	is.Equal(n, 1.0)
	is.Equal(next, nil)

	// An offset past the end gives an empty page with its total.
	d = completeDossier(t, s, `{"procedure":"f","detail":"complete","collection_offset":{"referenced_strings":9}}`)
	c := d["referenced_strings"].(map[string]any)
	is.Equal(c["returned"], 0.0)
	is.Equal(c["total"], 3.0)
	is.Equal(len(items(d, "referenced_names")), 2)

	// The concise dossier pages from each collection's own offset.
	d = completeDossier(t, s, `{"procedure":"f","limit":1,"collection_offset":{"referenced_strings":2}}`)
	first, _, next = page(d, "referenced_strings")
	is.Equal(first.(map[string]any)["value"], "gamma")
	is.Equal(next, nil)
	first, _, next = page(d, "referenced_names")
	is.Equal(first.(map[string]any)["name"], "n1")
	is.Equal(next, 1.0)

	// One integer for every collection, an unknown collection and a
	// negative offset are invalid requests.
	for _, bad := range []string{`2`, `{"strings":1}`, `{"callers":-1}`, `{"callers":"1"}`} {
		_, err := s.Call(context.Background(), "analyze_function", json.RawMessage(`{"procedure":"f","collection_offset":`+bad+`}`), nil)
		is.True(err != nil) // bad
		is.Equal(core.AsError("analyze_function", err).Code, core.CodeInvalidRequest)
	}
}
