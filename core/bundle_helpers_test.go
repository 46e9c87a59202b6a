package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// bndLayoutProvider is a working fake provider that reads synthetic
// layouts: symbols named sym_N, plus two symbols named "dup".
type bndLayoutProvider struct{ symbols int }

func (p bndLayoutProvider) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "layout-fake", Name: "layout fake", Version: "1"}
}
func (bndLayoutProvider) Availability(context.Context) ports.Availability {
	return ports.Availability{Available: true}
}
func (bndLayoutProvider) Support(context.Context, ports.Target) ports.Support {
	return ports.Support{Code: "target_format_unsupported", Reason: "layouts only"}
}
func (bndLayoutProvider) Open(context.Context, ports.Target) (ports.Analysis, error) {
	return nil, ports.ErrUnsupported
}

func (p bndLayoutProvider) ReadLayout(ctx context.Context, r io.ReaderAt, size int64) (*ports.Layout, error) {
	var head [4]byte
	if n, _ := r.ReadAt(head[:], 0); n < 4 || string(head[:]) != "\x7fELF" {
		return nil, fmt.Errorf("fake: not ELF: %w", ports.ErrUnsupported)
	}
	l := &ports.Layout{Format: "elf", Machine: "EM_X86_64", Bits: 64, ByteOrder: "little", ImageType: "ET_DYN", Entry: 0x1040}
	l.Sections = []ports.LayoutSection{
		{Index: 0, Name: ports.LayoutName{Known: true, Table: ".shstrtab"}, Type: "SHT_NULL", Flags: []string{}},
		{Index: 1, Name: ports.LayoutName{Bytes: []byte(".text"), Known: true, Table: ".shstrtab", Offset: 1}, Type: "SHT_PROGBITS",
			Flags: []string{"SHF_ALLOC", "SHF_EXECINSTR"}, Address: 0x1000, Offset: 0, Size: 4, FileSize: 4, InFile: true},
		{Index: 2, Name: ports.LayoutName{Bytes: []byte("bad\xffname"), Known: true, Table: ".shstrtab", Offset: 7}, Type: "SHT_PROGBITS", Flags: []string{}},
	}
	l.Segments = []ports.LayoutSegment{{Index: 0, Type: "PT_LOAD", Read: true, Execute: true, InFile: true, FileSize: 4, MemSize: 4, SectionIndexesMapped: []int{1}}}
	for i := 0; i < p.symbols; i++ {
		l.Symbols = append(l.Symbols, ports.LayoutSymbol{Table: "symtab", Index: i + 1, Name: ports.LayoutName{Bytes: []byte(fmt.Sprintf("sym_%d", i)), Known: true, Table: ".strtab", Offset: uint64(i * 8)},
			Value: uint64(0x1000 + i*16), Size: 16, Type: "STT_FUNC", Binding: "STB_GLOBAL", Visibility: "STV_DEFAULT", SectionIndex: 1, Section: ".text"})
	}
	for i := 0; i < 2; i++ {
		l.Symbols = append(l.Symbols, ports.LayoutSymbol{Table: []string{"symtab", "dynsym"}[i], Index: 1, Name: ports.LayoutName{Bytes: []byte("dup"), Known: true, Table: ".strtab"},
			Type: "STT_OBJECT", Binding: "STB_LOCAL", Visibility: "STV_DEFAULT"})
	}
	l.Symbols = append(l.Symbols, ports.LayoutSymbol{Table: "symtab", Index: 99, Name: ports.LayoutName{Table: ".strtab", Offset: 1 << 20, UnknownReason: "offset-outside-string-table"}})
	l.Dynamic.GNUStack = &ports.LayoutSegment{Type: "PT_GNU_STACK", Read: true, Write: true}
	return l, nil
}

func bndSession(t *testing.T, providers ...ports.Provider) *core.Session {
	t.Helper()
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry(providers, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, &core.SessionOptions{Server: core.ServerIdentity{Version: "0.1.0"}})
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func bndArgs(t *testing.T, args any) json.RawMessage {
	t.Helper()
	if s, ok := args.(string); ok {
		return json.RawMessage(s)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// bndCall calls an operation that must succeed and returns its result as
// generic JSON: the normalized_result of Evidence or the session value.
func bndCall(t *testing.T, s *core.Session, name string, args any) (*core.Result, map[string]any) {
	t.Helper()
	res, err := s.Call(context.Background(), name, bndArgs(t, args), nil)
	if err != nil {
		t.Fatalf("%s: %s", name, core.AsError(name, err).JSON())
	}
	var raw []byte
	if res.Evidence != nil {
		raw = res.Evidence.NormalizedResult
	} else {
		raw, _ = json.Marshal(res.Value)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return res, m
}

// bndErr calls an operation that must fail and returns the canonical error.
func bndErr(t *testing.T, s *core.Session, name string, args any) *core.Error {
	t.Helper()
	_, err := s.Call(context.Background(), name, bndArgs(t, args), nil)
	if err == nil {
		t.Fatalf("%s %v: want an error", name, args)
	}
	return core.AsError(name, err)
}

// bndRecord seals a small record with n and payload into the ledger.
func bndRecord(t *testing.T, s *core.Session, n int, payload string) *core.Evidence {
	t.Helper()
	e := numbered(t, n, payload)
	if _, err := s.Ledger().Record(e); err != nil {
		t.Fatal(err)
	}
	return e
}

// bndAnalyzeFunction seals an analyze_function dossier shaped as
// CONTRACTS.md §17 describes it.
func bndAnalyzeFunction(t *testing.T, pseudocode string, callers int) *core.Evidence {
	t.Helper()
	items := make([]any, callers)
	for i := range items {
		items[i] = map[string]any{"address": fmt.Sprintf("0x%x", 0x2000+i), "name": fmt.Sprintf("caller_%d", i)}
	}
	v := "0.1.0"
	nr := map[string]any{
		"procedure":  map[string]any{"address": "0x1000", "name": "check_license", "signature": nil, "classification": nil, "locals": []any{}},
		"pseudocode": map[string]any{"text": pseudocode, "returned_chars": len([]rune(pseudocode)), "total_chars": len([]rune(pseudocode)), "truncated": false, "next_offset": nil},
		"callers":    map[string]any{"items": items, "returned": callers, "total": callers + 5, "truncated": true, "next_offset": callers},
		"callees":    map[string]any{"items": []any{}, "returned": 0, "total": 0, "truncated": false, "next_offset": nil},
		"native_api": map[string]any{"available": false, "reason": "no signature", "residual_unknowns": []any{}},
		"native_value_flow": map[string]any{"status": "observed", "truncated": true, "omitted_operations_lower_bound": 3,
			"known_omitted_inputs": nil, "known_omitted_edges": 2},
		"limitations": []any{"fixture"},
	}
	raw, _ := json.Marshal(nr)
	e := &core.Evidence{Subject: core.NewSubject("/bin/app", strings.Repeat("ab", 32), "elf", "x86_64"),
		Provider: core.ProviderRef{ID: "rea-native", Name: "rea built-in native analyzer", Version: &v}, Operation: "analyze_function",
		Parameters: json.RawMessage(`{"procedure":"check_license"}`), NormalizedResult: raw}
	if err := e.Seal(); err != nil {
		t.Fatal(err)
	}
	return e
}
