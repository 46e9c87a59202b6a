package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// unavailable is a provider that cannot run on this host.
type unavailable struct{ *portstest.Fake }

func (unavailable) Availability(context.Context) ports.Availability {
	return ports.Availability{Code: "executable_missing", Reason: "engine not installed"}
}

func fake(id string, formats ...string) *portstest.Fake {
	f := portstest.NewFake()
	f.ID, f.Formats = id, formats
	return f
}

func elfFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.elf")
	if err := os.WriteFile(p, append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 128)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func session(t *testing.T, def string, providers ...ports.Provider) *core.Session {
	t.Helper()
	reg, err := core.NewRegistry(providers, &core.RegistryOptions{Default: def})
	if err != nil {
		t.Fatal(err)
	}
	return core.NewSession(catalog(t), reg, &core.SessionOptions{Server: core.ServerIdentity{Version: "test"}})
}

func callJSON(t *testing.T, s *core.Session, name string, args any) (map[string]any, *core.Error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(context.Background(), name, raw, nil)
	if err != nil {
		return nil, core.AsError(name, err)
	}
	j, _ := res.StructuredJSON()
	var m map[string]any
	json.Unmarshal(j, &m)
	return m, nil
}

func TestProviderSelection(t *testing.T) {
	path := elfFile(t)
	cases := []struct {
		name      string
		def       string
		providers []ports.Provider
		requested string
		code      core.Code
		reason    string
		source    string
	}{
		{"single auto", "", []ports.Provider{fake("alpha")}, "", "", "", "auto-single-candidate"},
		{"ambiguous", "", []ports.Provider{fake("alpha"), fake("beta")}, "", core.CodeCapabilityUnavailable, "ambiguous", ""},
		{"explicit", "", []ports.Provider{fake("alpha"), fake("beta")}, "beta", "", "", "request"},
		{"environment", "beta", []ports.Provider{fake("alpha"), fake("beta")}, "", "", "", "environment"},
		{"unknown", "", []ports.Provider{fake("alpha")}, "ghidra", core.CodeCapabilityUnavailable, "unknown_provider", ""},
		{"unsupported", "", []ports.Provider{fake("alpha", "pe")}, "alpha", core.CodeCapabilityUnavailable, "target_unsupported", ""},
		{"unavailable", "", []ports.Provider{unavailable{fake("gamma")}}, "gamma", core.CodeProviderUnavailable, "provider_unavailable", ""},
		{"none usable, auto", "", []ports.Provider{fake("alpha", "pe")}, "", "", "", ""},
		{"configured default refuses target", "alpha", []ports.Provider{fake("alpha", "pe")}, "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			s := session(t, c.def, c.providers...)
			args := map[string]any{"path": path}
			if c.requested != "" {
				args["provider_id"] = c.requested
			}
			out, err := callJSON(t, s, "open_binary", args)
			if c.code != "" {
				is.True(err != nil)
				is.Equal(err.Code, c.code)
				is.Equal(err.Details["selection_reason"], c.reason)
				_, hasCandidates := err.Details["candidate_ids"]
				is.True(hasCandidates)
				return
			}
			is.True(err == nil)
			res := out["result"].(map[string]any)
			if c.source == "" {
				is.Equal(res["provider"], nil) // opened with a null binding
				_, e := callJSON(t, s, "list_segments", map[string]any{})
				is.True(e.Code == core.CodeUnsupportedTarget || e.Code == core.CodeProviderUnavailable)
				return
			}
			is.Equal(res["selection_source"], c.source)
		})
	}
}

func TestWorkflowsRunOnAnyEngine(t *testing.T) {
	is := is.New(t)
	f := fake("alpha")
	f.Segments = []ports.Segment{{Name: ".text", Kind: "section", Start: 0x1000, Size: 0x100, Perms: ports.Permissions{Read: true, Execute: true}}}
	f.Procedures = []ports.Procedure{{Address: 0x1000, Name: "main", Source: "symbol"}, {Address: 0x1040, Source: "call-target"}}
	f.Strings = []ports.String{{Address: 0x2000, Value: "hello", Charset: "ascii", ByteLength: 5}}
	s := session(t, "", f)
	_, err := callJSON(t, s, "open_binary", map[string]any{"path": elfFile(t)})
	is.True(err == nil)
	out, err := callJSON(t, s, "binary_overview", map[string]any{"detail": "detailed"})
	is.True(err == nil)
	is.Equal(out["provider"].(map[string]any)["id"], "alpha")
	res := out["normalized_result"].(map[string]any)
	is.Equal(res["procedure_count"], float64(2))
	is.Equal(res["procedures"].([]any)[1].(map[string]any)["value"], "sub_1040")
	is.Equal(res["name_count"], float64(len(f.Names)))

	sess, _ := callJSON(t, s, "binary_session", map[string]any{})
	r := sess["result"].(map[string]any)
	run := r["analysis_run"].(map[string]any)
	is.Equal(run["process_lineage"].(map[string]any)["status"], "not_observed")
	first := run["run_id"]
	callJSON(t, s, "open_binary", map[string]any{"path": elfFile(t)})
	sess, _ = callJSON(t, s, "binary_session", map[string]any{})
	is.True(sess["result"].(map[string]any)["analysis_run"].(map[string]any)["run_id"] != first)

	// Alignment expectations.
	sess, _ = callJSON(t, s, "binary_session", map[string]any{"expected_package_version": "test"})
	is.Equal(sess["result"].(map[string]any)["server_identity"].(map[string]any)["alignment"].(map[string]any)["state"], "aligned")
	sess, _ = callJSON(t, s, "binary_session", map[string]any{"expected_package_version": "9.9.9"})
	al := sess["result"].(map[string]any)["server_identity"].(map[string]any)["alignment"].(map[string]any)
	is.Equal(al["state"], "mcp_server_restart_required")
	is.Equal(al["reasons"], []any{"package_version_mismatch"})
	_, err = callJSON(t, s, "binary_session", map[string]any{"expected_server_path": "relative/rea"})
	is.Equal(err.Code, core.CodeInvalidRequest)
}

func TestCancelledCallRecordsNothing(t *testing.T) {
	is := is.New(t)
	s := session(t, "", fake("alpha"))
	_, err := callJSON(t, s, "open_binary", map[string]any{"path": elfFile(t)})
	is.True(err == nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, cerr := s.Call(ctx, "list_segments", json.RawMessage(`{}`), nil)
	is.Equal(core.AsError("list_segments", cerr).Code, core.CodeCancelled)
	n, _ := s.Ledger().Len()
	is.Equal(n, 0)
}
