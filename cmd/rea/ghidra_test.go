package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// The Ghidra engine over MCP stdio, with the built rea and the adapter's
// fake analyzeHeadless (adapters/ghidra/testdata/fakeghidra) installed in a
// fake GHIDRA_INSTALL_DIR. The tests Hopper shares (startup, waiting
// notices, cleanup) are in engine_stdio_test.go; the waiting-notice interval
// is the product's 10 s (no knob shortens it), so the slow start there takes
// about 25 s, for both engines at once.

var (
	fakeGhidraOnce sync.Once
	fakeGhidraBin  string
	fakeGhidraErr  error
)

// fakeGhidra builds the fake engine once per test binary.
func fakeGhidra(t *testing.T) string {
	t.Helper()
	fakeGhidraOnce.Do(func() {
		dir := filepath.Join(filepath.Dir(reaBin), "fakeghidra")
		if err := os.Mkdir(dir, 0o755); err != nil {
			fakeGhidraErr = err
			return
		}
		fakeGhidraBin = filepath.Join(dir, "analyzeHeadless")
		out, err := exec.Command("go", "build", "-o", fakeGhidraBin, "rea/adapters/ghidra/testdata/fakeghidra").CombinedOutput()
		if err != nil {
			fakeGhidraErr = &buildError{what: "Ghidra", err: err, out: string(out)}
		}
	})
	if fakeGhidraErr != nil {
		t.Fatal(fakeGhidraErr)
	}
	return fakeGhidraBin
}

// newGhidraHost is a host whose GHIDRA_INSTALL_DIR is a fake installation
// (the fake analyzeHeadless, a stub JDK) answering from the adapter's
// fixture transcript; env is added to rea serve's environment.
func newGhidraHost(t *testing.T, env ...string) *engineHost {
	t.Helper()
	fake := fakeGhidra(t)
	h, dir := newEngineHost(t, "ghidra", "FAKE_GHIDRA")
	install, jdk := filepath.Join(dir, "ghidra"), filepath.Join(dir, "jdk")
	for _, d := range []string{filepath.Join(install, "Ghidra"), filepath.Join(install, "support"), filepath.Join(jdk, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(install, "Ghidra", "application.properties"), "application.name=Ghidra\napplication.version=12.1.4\n", 0o644)
	if err := os.Symlink(fake, filepath.Join(install, "support", "analyzeHeadless")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(jdk, "bin", "java"), "#!/bin/sh\nexit 0\n", 0o755)
	write(filepath.Join(jdk, "bin", "javac"), "#!/bin/sh\nexit 0\n", 0o755)
	transcript, err := filepath.Abs("../../adapters/ghidra/testdata/fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	h.serve(func(k string) bool {
		return k == "GHIDRA_INSTALL_DIR" || k == "JAVA_HOME" || k == "REA_GHIDRA_STARTUP_TIMEOUT_MS"
	}, append([]string{"GHIDRA_INSTALL_DIR=" + install, "JAVA_HOME=" + jdk, "FAKE_GHIDRA_TRANSCRIPT=" + transcript}, env...))
	return h
}

func overviewProvider(t *testing.T, text string) (provider string, procedures float64) {
	t.Helper()
	var ev core.Evidence
	if err := json.Unmarshal([]byte(text), &ev); err != nil {
		t.Fatalf("not Evidence: %v\n%s", err, text)
	}
	var m map[string]any
	json.Unmarshal(ev.NormalizedResult, &m)
	n, _ := m["procedure_count"].(float64)
	return ev.Provider.ID, n
}

func errorOf(t *testing.T, text string) core.EnvelopeBody {
	t.Helper()
	var env core.Envelope
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Fatalf("not an error envelope: %v\n%s", err, text)
	}
	return env.Error
}

// TestGhidraWaitingNoticesOverStdio: a cold first binary_overview whose
// engine takes longer than 20 s to be ready gets waiting notices every
// 10 s when it carries a progress token, none without one, and the same
// result either way. It runs in parallel with Hopper's.
func TestGhidraWaitingNoticesOverStdio(t *testing.T) {
	testWaitingNoticesOverStdio(t, ghidraKind)
}

// TestGhidraNativeAPIOverStdio: inspect_native_api on a Ghidra session
// takes the prototype from the decompiler's HighFunction (the bridge's
// native_api), and the function database's where the decompiler fails.
func TestGhidraNativeAPIOverStdio(t *testing.T) {
	is := is.New(t)
	h := newGhidraHost(t)
	h.open()
	api := func(procedure string) map[string]any {
		text, isErr := h.mustCall("inspect_native_api", map[string]any{"procedure": procedure}, "")
		is.True(!isErr) // text
		var e core.Evidence
		is.NoErr(json.Unmarshal([]byte(text), &e))
		var r struct {
			NativeAPI map[string]any `json:"native_api"`
		}
		is.NoErr(json.Unmarshal(e.NormalizedResult, &r))
		return r.NativeAPI
	}
	helper := api("0x401040")
	is.Equal(helper["signature_source"], "ghidra-high-function")
	is.Equal(helper["parameters"], []any{map[string]any{"name": "s", "type": "char *", "location": "rdi"}})
	is.Equal(api("0x401080")["signature_source"], "ghidra-function-database") // decompile_failed on the thunk
	_, isErr := h.mustCall("close_binary", map[string]any{}, "")
	is.True(!isErr) // close_binary
	roots, live := h.settle()
	is.Equal(len(roots), 0)
	is.Equal(len(live), 0)
}

// TestGhidraJumpTablesOverStdio: the decompiler's jump tables (the
// bridge's native_api: data sources and case mappings, each list with its
// total and truncation) reach analyze_function's dossier and
// inspect_native_api over MCP stdio. The fixture's helper (0x401040, one
// block) has no switch, so this test replays the fixture with the helper's
// native_api answer replaced by one carrying a synthetic switch at
// 0x401047: one table listed of five, and 3 of its 40 cases.
func TestGhidraJumpTablesOverStdio(t *testing.T) {
	is := is.New(t)
	const answer = `{"available":true,"provenance":"ghidra-high-function","calling_convention":"__stdcall","return_type":"void",` +
		`"variadic":false,"parameters":[],"parameters_total":0,"parameters_truncated":false,` +
		`"jump_tables":[{"switch_address":"0x401047","data_sources":[{"address":"0x402000","entry_size":4,"entries":40}],` +
		`"data_sources_total":1,"data_sources_truncated":false,` +
		`"mappings":[{"value":0,"target":"0x40104c"},{"value":1,"target":"0x401040"},{"value":null,"target":"0x40104c"}],` +
		`"mappings_total":40,"mappings_truncated":true}],"jump_tables_total":5,"jump_tables_truncated":true,` +
		`"pseudocode":{"classification":"decompiler-generated-non-source","compilable":false},` +
		`"limitations":["Ghidra's decompiler inferred these jump tables (HighFunction).","An indirect or computed jump whose targets Ghidra did not recover has no jump table here."]}`
	src, err := os.ReadFile("../../adapters/ghidra/testdata/fixture.jsonl")
	is.NoErr(err)
	lines := strings.Split(string(src), "\n")
	replaced := false
	for i := 0; i+1 < len(lines); i++ {
		if strings.Contains(lines[i], `native_api`) && strings.Contains(lines[i], `0x401040`) {
			resp := map[string]any{}
			is.NoErr(json.Unmarshal([]byte(lines[i+1]), &resp))
			resp["text"] = `{"id":0,"ok":true,"result":` + answer + "}\n"
			b, err := json.Marshal(resp)
			is.NoErr(err)
			lines[i+1], replaced = string(b), true
		}
	}
	is.True(replaced) // the fixture asks native_api for the helper
	transcript := filepath.Join(t.TempDir(), "switch.jsonl")
	is.NoErr(os.WriteFile(transcript, []byte(strings.Join(lines, "\n")), 0o644))

	// Every success is checked against the complete output schema.
	h := newGhidraHost(t, "FAKE_GHIDRA_TRANSCRIPT="+transcript, "REA_CHECK_OUTPUT_SCHEMAS=1")
	h.open()
	want := map[string]any{"block": "0x401040", "targets": []any{"0x401040", "0x40104c"},
		"switch": map[string]any{"address": "0x401047",
			"data_sources":       []any{map[string]any{"address": "0x402000", "entry_size": 4.0, "entries": 40.0}},
			"data_sources_total": 1.0, "data_sources_truncated": false,
			"mappings": []any{map[string]any{"value": 0.0, "target": "0x40104c"}, map[string]any{"value": 1.0, "target": "0x401040"},
				map[string]any{"value": nil, "target": "0x40104c"}},
			"mappings_total": 40.0, "mappings_truncated": true}}
	check := func(api map[string]any) {
		t.Helper()
		is.Equal(api["jump_tables"], []any{want})
		is.Equal(api["switches_total"], 5.0)
		is.Equal(api["switches_truncated"], true)
		is.True(slices.Contains(api["provenance"].([]any), any("switches:ghidra-high-function")))
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"analyze_function", map[string]any{"procedure": "0x401040", "detail": "complete"}},
		{"inspect_native_api", map[string]any{"procedure": "0x401040"}},
	} {
		text, isErr := h.mustCall(call.tool, call.args, "")
		is.True(!isErr) // text
		var e core.Evidence
		is.NoErr(json.Unmarshal([]byte(text), &e))
		var r struct {
			NativeAPI map[string]any `json:"native_api"`
		}
		is.NoErr(json.Unmarshal(e.NormalizedResult, &r))
		check(r.NativeAPI)
	}
	// A procedure whose HighFunction has no jump table says so (total 0),
	// and one whose signature came from the function database has no
	// switches members at all.
	text, isErr := h.mustCall("analyze_function", map[string]any{"procedure": "0x401000", "detail": "complete"}, "")
	is.True(!isErr) // text
	var e core.Evidence
	is.NoErr(json.Unmarshal([]byte(text), &e))
	var r struct {
		NativeAPI map[string]any `json:"native_api"`
	}
	is.NoErr(json.Unmarshal(e.NormalizedResult, &r))
	is.Equal(r.NativeAPI["jump_tables"], []any{})
	is.Equal(r.NativeAPI["switches_total"], 0.0)
	is.Equal(r.NativeAPI["switches_truncated"], false)
	text, isErr = h.mustCall("analyze_function", map[string]any{"procedure": "0x401080", "detail": "complete"}, "")
	is.True(!isErr) // text
	is.NoErr(json.Unmarshal([]byte(text), &e))
	r.NativeAPI = nil
	is.NoErr(json.Unmarshal(e.NormalizedResult, &r))
	_, has := r.NativeAPI["switches_total"]
	is.True(!has) // the thunk's signature is the function database's
	_, isErr = h.mustCall("close_binary", map[string]any{}, "")
	is.True(!isErr) // close_binary
	roots, live := h.settle()
	is.Equal(len(roots), 0)
	is.Equal(len(live), 0)
}

// TestGhidraFromTheCLI: with the fake Ghidra installed, `rea analyze`
// (auto) still runs on rea-native, `rea --provider ghidra analyze` runs on
// Ghidra, and the one-shot command leaves no engine or root behind.
func TestGhidraFromTheCLI(t *testing.T) {
	is := is.New(t)
	h := newGhidraHost(t)
	run := func(args ...string) core.Evidence { // analyze's JSON: {overview: Evidence, target}
		t.Helper()
		cmd := exec.Command(reaBin, args...)
		cmd.Env = h.env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("rea %v: %v\n%s", args, err, e.String())
		}
		var out struct{ Overview core.Evidence }
		is.NoErr(json.Unmarshal(o.Bytes(), &out))
		return out.Overview
	}
	is.Equal(run("--format", "json", "analyze", h.fixturePath).Provider.ID, "rea-native") // auto keeps the main job on rea-native
	is.Equal(len(h.launchers()), 0)                                                       // and starts no engine
	is.Equal(run("--format", "json", "--provider", "ghidra", "analyze", h.fixturePath).Provider.ID, "ghidra")
	is.Equal(len(h.launchers()), 1)
	roots, live := h.settle()
	is.Equal(len(roots), 0)
	is.Equal(len(live), 0)
}

// TestGhidraStartupOverStdio: cancellation during startup (then recovery
// and the analysis snapshot), a startup timeout, a crash, and an engine that
// leaves a process behind, each on its own connection with the fake engine.
func TestGhidraStartupOverStdio(t *testing.T) {
	testStartupOverStdio(t, ghidraKind)
}

// ghidraKind is how the shared engine tests drive the fake Ghidra.
var ghidraKind = engineKind{
	newHost: func(t *testing.T, env ...string) *engineHost { return newGhidraHost(t, env...) },
	name:    "Ghidra", fake: "FAKE_GHIDRA", timeoutEnv: "REA_GHIDRA_STARTUP_TIMEOUT_MS",
	waiting: "ghidra_startup: waiting for import, analysis and bridge readiness",
}
