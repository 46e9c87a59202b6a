package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// builtIn stands for rea-native in the kernel's selection: it carries the
// built-in id and every capability but decompile.
type builtIn struct {
	*portstest.CodeFake
	openErr error
}

func newBuiltIn() *builtIn {
	f := &portstest.CodeFake{ID: core.BuiltInProviderID, Formats: []string{"elf"}}
	for _, c := range ports.AllCapabilities() {
		if c != ports.CapDecompile {
			f.Declared = append(f.Declared, c)
		}
	}
	return &builtIn{CodeFake: f}
}

// noDecompiler is an analysis with every code capability but Decompiler.
type noDecompiler struct {
	ports.Analysis
	ports.DocumentLister
	ports.SegmentLister
	ports.ProcedureLister
	ports.NameLister
	ports.StringLister
	ports.Disassembler
	ports.FunctionAnalyzer
	ports.CrossReferencer
	ports.ByteReader
	ports.SignatureReader
	ports.ValueFlowAnalyzer
}

func (b *builtIn) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	if b.openErr != nil {
		return nil, b.openErr
	}
	a, err := b.CodeFake.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	c := a.(*portstest.CodeAnalysis)
	return noDecompiler{c, c, c, c, c, c, c, c, c, c, c, c}, nil
}

// decompiler is a second ELF-capable engine that decompiles.
func decompiler(id string) *portstest.CodeFake {
	return &portstest.CodeFake{ID: id, Formats: []string{"elf"}}
}

// notInstalled is an engine registered but unavailable on this host.
type notInstalled struct{ *portstest.CodeFake }

func (notInstalled) Availability(context.Context) ports.Availability {
	return ports.Availability{Code: "executable_missing", Reason: "engine not installed"}
}

// failing opens nothing: its engine fails at run time.
type failing struct{ *portstest.CodeFake }

func (f failing) Open(context.Context, ports.Target) (ports.Analysis, error) {
	return nil, fmt.Errorf("%s: engine crashed: %w", f.ID, ports.ErrUnavailable)
}

func selectionSession(t *testing.T, cat *core.Catalog, def string, providers ...ports.Provider) *core.Session {
	t.Helper()
	reg, err := core.NewRegistry(providers, &core.RegistryOptions{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	return core.NewSession(cat, reg, &core.SessionOptions{Server: core.ServerIdentity{Version: "test"}})
}

func availabilityOf(t *testing.T, s *core.Session, tool string) map[string]any {
	t.Helper()
	out, err := callJSON(t, s, "binary_session", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range out["result"].(map[string]any)["tool_availability"].([]any) {
		if m := x.(map[string]any); m["name"] == tool {
			return m
		}
	}
	t.Fatalf("no availability for %s", tool)
	return nil
}

func openedWith(t *testing.T, s *core.Session, args map[string]any) (string, string, *core.Error) {
	t.Helper()
	out, err := callJSON(t, s, "open_binary", args)
	if err != nil {
		return "", "", err
	}
	res := out["result"].(map[string]any)
	p, _ := res["provider"].(map[string]any)
	if p == nil {
		return "", "", nil
	}
	return p["id"].(string), res["selection_source"].(string), nil
}

func TestSelectionAmongEngines(t *testing.T) {
	cat := catalog(t)
	path := elfFile(t)

	t.Run("auto picks the built-in engine", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", decompiler("fake-dec"), newBuiltIn())
		id, source, err := openedWith(t, s, map[string]any{"path": path})
		is.True(err == nil)
		is.Equal(id, core.BuiltInProviderID)
		is.Equal(source, core.SourceAutoBuiltIn)
		// The main job works: a workflow runs on the built-in engine.
		_, err = callJSON(t, s, "binary_overview", map[string]any{})
		is.True(err == nil)
	})

	t.Run("an explicit choice wins", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", decompiler("fake-dec"), newBuiltIn())
		id, source, err := openedWith(t, s, map[string]any{"path": path, "provider_id": "fake-dec"})
		is.True(err == nil)
		is.Equal(id, "fake-dec")
		is.Equal(source, core.SourceRequest)
		is.Equal(availabilityOf(t, s, "procedure_pseudo_code")["available"], true)
		is.Equal(availabilityOf(t, s, "batch_decompile")["available"], true)

		s = selectionSession(t, cat, "fake-dec", decompiler("fake-dec"), newBuiltIn())
		id, source, err = openedWith(t, s, map[string]any{"path": path})
		is.True(err == nil)
		is.Equal(id, "fake-dec")
		is.Equal(source, core.SourceEnvironment)

		// A request overrides the configured default.
		id, source, err = openedWith(t, s, map[string]any{"path": path, "provider_id": core.BuiltInProviderID})
		is.True(err == nil)
		is.Equal(id, core.BuiltInProviderID)
		is.Equal(source, core.SourceRequest)
	})

	t.Run("decompile availability names the engine that decompiles", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", decompiler("fake-dec"), newBuiltIn())
		_, _, err := openedWith(t, s, map[string]any{"path": path})
		is.True(err == nil)
		for _, tool := range []string{"procedure_pseudo_code", "batch_decompile"} {
			av := availabilityOf(t, s, tool)
			is.Equal(av["available"], false)
			rem, _ := av["remediation"].(string)
			if !strings.Contains(rem, `fake-dec offers decompile and is installed`) || !strings.Contains(rem, `provider_id "fake-dec"`) {
				t.Errorf("%s remediation %q does not name fake-dec as installed", tool, rem)
			}
		}
		_, e := callJSON(t, s, "procedure_pseudo_code", map[string]any{"procedure": "main"})
		is.True(e != nil)
		is.Equal(e.Code, core.CodeCapabilityUnavailable)
		is.Equal(e.Details["reason"], "decompiler_unavailable")
		is.True(strings.Contains(e.Remediation, `provider_id "fake-dec"`))
		offered, _ := json.Marshal(e.Details["offered_by"])
		is.Equal(string(offered), `[{"installed":true,"provider_id":"fake-dec"}]`)
	})

	t.Run("an engine that is not installed is named as such", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", notInstalled{decompiler("fake-dec")}, newBuiltIn())
		id, source, err := openedWith(t, s, map[string]any{"path": path})
		is.True(err == nil)
		is.Equal(id, core.BuiltInProviderID)
		is.Equal(source, core.SourceAutoSingleCandidate) // the other is not usable
		rem := availabilityOf(t, s, "procedure_pseudo_code")["remediation"].(string)
		is.True(strings.Contains(rem, "fake-dec offers decompile but is not installed here (engine not installed)"))
		is.True(strings.Contains(rem, "rea doctor"))
	})

	t.Run("no decompiler registered", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", newBuiltIn())
		_, _, err := openedWith(t, s, map[string]any{"path": path})
		is.True(err == nil)
		for _, tool := range []string{"procedure_pseudo_code", "batch_decompile"} {
			av := availabilityOf(t, s, tool)
			is.Equal(av["available"], false)
			rem := av["remediation"].(string)
			is.True(strings.Contains(rem, "No registered engine offers decompile"))
			is.True(!strings.Contains(strings.ToLower(rem), "ghidra"))
		}
		// batch_decompile still answers, item by item, that nothing decompiles.
		b := callResult(t, s, "batch_decompile", `{"addresses":["main"]}`)
		is.Equal(b["summary"].(map[string]any)["unavailable"], float64(1))
		_, e := callJSON(t, s, "procedure_pseudo_code", map[string]any{"procedure": "main"})
		is.Equal(e.Code, core.CodeCapabilityUnavailable)
		is.True(strings.Contains(e.Remediation, "No registered engine offers decompile"))
		is.True(!strings.Contains(strings.ToLower(e.Remediation), "ghidra"))
	})

	t.Run("remaining ambiguity is a typed error with candidates", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", decompiler("fake-b"), decompiler("fake-a"))
		_, _, err := openedWith(t, s, map[string]any{"path": path})
		is.True(err != nil)
		is.Equal(err.Code, core.CodeCapabilityUnavailable)
		is.Equal(err.Details["selection_reason"], "ambiguous")
		cands := err.Details["candidates"].([]map[string]any)
		is.Equal(len(cands), 2)
		is.Equal(cands[0]["provider_id"], "fake-a")
		is.Equal(cands[1]["provider_id"], "fake-b")
		is.True(strings.Contains(err.Remediation, "fake-a, fake-b"))
	})

	t.Run("a selected provider is never replaced after a failure", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", failing{decompiler("fake-dec")}, newBuiltIn())
		_, _, err := openedWith(t, s, map[string]any{"path": path, "provider_id": "fake-dec"})
		is.True(err != nil)
		is.Equal(err.Details["provider_id"], "fake-dec")
		out, _ := callJSON(t, s, "binary_session", map[string]any{})
		is.Equal(out["result"].(map[string]any)["provider"], nil) // not bound to rea-native instead

		nat := newBuiltIn()
		nat.openErr = fmt.Errorf("built-in crashed: %w", ports.ErrUnavailable)
		s = selectionSession(t, cat, "", decompiler("fake-dec"), nat)
		_, _, err = openedWith(t, s, map[string]any{"path": path})
		is.True(err != nil)
		is.Equal(err.Details["provider_id"], core.BuiltInProviderID)
		is.True(errors.Is(err, ports.ErrUnavailable))
		out, _ = callJSON(t, s, "binary_session", map[string]any{})
		is.Equal(out["result"].(map[string]any)["provider"], nil) // not bound to fake-dec instead
	})
}
