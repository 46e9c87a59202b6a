package portstest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
	"rea/ports/portstest"
)

// codeTarget writes the CodeFake's image to a file and returns its target.
func codeTarget(t *testing.T) ports.Target {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hello")
	if err := os.WriteFile(path, portstest.CodeFakeImage(), 0o600); err != nil {
		t.Fatal(err)
	}
	return portstest.CodeFakeTarget(path)
}

func TestCodeFakePassesRun(t *testing.T) {
	portstest.Run(t, portstest.NewCodeFake(), codeTarget(t))
}

func TestCodeFakeLayout(t *testing.T) {
	portstest.RunLayout(t, portstest.NewCodeFake(), portstest.CodeFakeImage())
}

func TestCodeFake(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	p := portstest.NewCodeFake()
	a, err := p.Open(ctx, codeTarget(t))
	is.NoErr(err)
	defer a.Close(ctx)
	is.Equal(ports.CapabilitiesOf(a), []ports.Capability{
		ports.CapDisassemble, ports.CapFunctions, ports.CapReferences, ports.CapBytes, ports.CapSignatures,
		ports.CapDecompile, ports.CapValueFlow, ports.CapDocuments, ports.CapSegments, ports.CapProcedures,
		ports.CapNames, ports.CapStrings, ports.CapSourceLines,
	})
	is.Equal(ports.ProviderCapabilitiesOf(p), []ports.Capability{ports.CapLayout})

	f, err := a.(ports.FunctionAnalyzer).Function(ctx, ports.FunctionRequest{Address: 0x1030})
	is.NoErr(err)
	is.Equal(f.InstructionCount, 9)
	is.Equal(len(f.Blocks), 3)
	is.Equal(f.Instructions[3].Text, "je 0x1044")

	b, err := a.(ports.ByteReader).ReadBytes(ctx, 0x2000, 64)
	is.NoErr(err)
	is.Equal(string(b), "hello, world\x00\x00\x00\x00") // stops at the end of .rodata

	refs, err := a.(ports.CrossReferencer).ReferencesTo(ctx, 0x1000, 0x1001)
	is.NoErr(err)
	is.Equal(refs, []ports.Reference{{From: 0x103f, To: 0x1000, Kind: ports.RefCall}})

	pc, err := a.(ports.Decompiler).Decompile(ctx, 0x1030)
	is.NoErr(err)
	is.True(strings.Contains(pc.Text, `puts("hello, world")`))

	vf, err := a.(ports.ValueFlowAnalyzer).ValueFlow(ctx, ports.FunctionRequest{Address: 0x1030, MaxInstructions: 4})
	is.NoErr(err)
	is.True(vf.Truncated)
	is.Equal(vf.OmittedOperations, 5)
	is.Equal(len(vf.Operations), 4)

	_, err = a.(ports.SignatureReader).Signature(ctx, 0x1010)
	is.True(errors.Is(err, ports.ErrNotFound)) // _start has no signature

	is.NoErr(a.Close(ctx))
	_, err = a.(ports.Disassembler).Disassemble(ctx, ports.DisassembleRequest{Address: 0x1000})
	is.True(err != nil) // closed
}

// recorder is a testing.TB that records failures instead of failing, so a
// test can show that a check fails. Everything else goes to the real test.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fail()             { r.Errorf("Fail") }
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errors) > 0
}

// declaring is a provider whose declaration is given.
type declaring struct {
	ports.Provider
	names []string
}

func (d declaring) Capabilities() []ports.Capability {
	out := make([]ports.Capability, len(d.names))
	for i, n := range d.names {
		out[i] = ports.Capability(n)
	}
	return out
}

// TestCodeFakeSourceLines: the fake maps main's addresses to lines, one
// of them in an inlined call, and nothing else.
func TestCodeFakeSourceLines(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a, err := portstest.NewCodeFake().Open(ctx, codeTarget(t))
	is.NoErr(err)
	defer a.Close(ctx)
	sl := a.(ports.SourceLocator)
	loc, err := sl.SourceAt(ctx, 0x1040)
	is.NoErr(err)
	is.Equal(loc, ports.SourceLocation{File: "/src/main.c", Line: 10, Column: 5, Function: "main",
		Inlined: []ports.InlinedCall{{Function: "say", CallFile: "/src/main.c", CallLine: 4, CallColumn: 9}}})
	loc, err = sl.SourceAt(ctx, 0x1030)
	is.NoErr(err)
	is.Equal(loc.Line, 2)
	is.Equal(len(loc.Inlined), 0)
	_, err = sl.SourceAt(ctx, 0x1010) // _start has no line
	is.True(errors.Is(err, ports.ErrNotFound))
}

func TestCheckCapabilities(t *testing.T) {
	lists := []string{"list_documents", "list_segments", "list_procedures", "list_names", "list_strings"}
	all := func(drop string, add ...string) []ports.Capability {
		var out []ports.Capability
		for _, c := range ports.AllCapabilities() {
			if string(c) != drop {
				out = append(out, c)
			}
		}
		for _, s := range add {
			out = append(out, ports.Capability(s))
		}
		return out
	}
	tests := []struct {
		name string
		p    ports.Provider
		want []string // substrings of the failures, in order; none means it passes
	}{
		{"code fake", portstest.NewCodeFake(), nil},
		{"declared in another order", &portstest.CodeFake{Declared: []ports.Capability{
			ports.CapLayout, ports.CapStrings, ports.CapNames, ports.CapProcedures, ports.CapSegments, ports.CapDocuments,
			ports.CapSourceLines, ports.CapValueFlow, ports.CapDecompile, ports.CapSignatures, ports.CapBytes, ports.CapReferences,
			ports.CapFunctions, ports.CapDisassemble}}, nil},
		{"decompile not declared", &portstest.CodeFake{Declared: all("decompile")},
			[]string{"implements Decompiler (on the analysis) but does not declare decompile"}},
		{"read_layout not declared", &portstest.CodeFake{Declared: all("read_layout")},
			[]string{"implements LayoutReader (on the provider) but does not declare read_layout"}},
		{"unknown name", &portstest.CodeFake{Declared: all("", "list_everything")},
			[]string{`declares "list_everything", which names no ports.Capability`}},
		{"declared twice", &portstest.CodeFake{Declared: all("", "signatures")},
			[]string{"declares signatures twice"}},
		{"lister fake declaring code", declaring{portstest.NewFake(), append(lists, "disassemble", "read_layout")},
			[]string{"declares disassemble but does not implement Disassembler (on the analysis)",
				"declares read_layout but does not implement LayoutReader (on the provider)"}},
		{"lister fake declaring nothing", declaring{portstest.NewFake(), nil},
			[]string{"implements DocumentLister (on the analysis) but does not declare list_documents",
				"implements SegmentLister", "implements ProcedureLister", "implements NameLister", "implements StringLister"}},
		{"lister fake declaring its lists", declaring{portstest.NewFake(), lists}, nil},
		{"no declaration", portstest.NewFake(), []string{"does not implement ports.CapabilityLister"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ctx := t.Context()
			a, err := tt.p.Open(ctx, ports.Target{Path: "x", Format: "elf"})
			is.NoErr(err)
			defer a.Close(ctx)
			rec := &recorder{TB: t}
			portstest.CheckCapabilities(rec, tt.p, a)
			is.Equal(len(rec.errors), len(tt.want)) // one failure per difference
			for i, w := range tt.want {
				if i < len(rec.errors) && !strings.Contains(rec.errors[i], w) {
					t.Errorf("failure %d: %q does not say %q", i, rec.errors[i], w)
				}
			}
			is.Equal(rec.Failed(), len(tt.want) > 0)
		})
	}
}
