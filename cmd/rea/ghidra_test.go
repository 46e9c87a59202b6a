package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
	"rea/ports"
)

// The Ghidra engine over MCP stdio, with the built rea and the adapter's
// fake analyzeHeadless (adapters/ghidra/testdata/fakeghidra) installed in a
// fake GHIDRA_INSTALL_DIR. The waiting-notice interval is the product's
// 10 s: no knob shortens it, so the slow start below takes about 25 s.

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
			fakeGhidraErr = &buildError{err: err, out: string(out)}
		}
	})
	if fakeGhidraErr != nil {
		t.Fatal(fakeGhidraErr)
	}
	return fakeGhidraBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "building the fake Ghidra: " + e.err.Error() + "\n" + e.out
}

// ghidraHost is one rea serve process with a fake Ghidra installation, its
// own TMPDIR (where the engine's private roots go) and its own cache (where
// analysis snapshots go).
type ghidraHost struct {
	t            *testing.T
	tmp, starts  string
	cs           *sdk.ClientSession
	stderr       *bytes.Buffer
	mu           sync.Mutex
	notes        []*sdk.ProgressNotificationParams
	fixturePath  string
	fixtureBytes []byte
	env          []string // rea serve's environment (the fake installation)
}

func newGhidraHost(t *testing.T, env ...string) *ghidraHost {
	t.Helper()
	fake := fakeGhidra(t)
	// Unix socket paths are short (108 bytes): the host's directories go
	// directly under the test binary's TMPDIR, not under t.TempDir().
	dir, err := os.MkdirTemp("", "gh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := &ghidraHost{t: t, tmp: filepath.Join(dir, "t"), starts: filepath.Join(dir, "starts"), stderr: &bytes.Buffer{}}
	install, jdk, cache := filepath.Join(dir, "ghidra"), filepath.Join(dir, "jdk"), filepath.Join(dir, "cache")
	for _, d := range []string{h.tmp, cache, filepath.Join(install, "Ghidra"), filepath.Join(install, "support"), filepath.Join(jdk, "bin")} {
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
	// The target: a copy of ls (core identifies it as an x86-64 ELF
	// executable; the fake answers from its transcript whatever the bytes).
	b, err := os.ReadFile("/usr/bin/ls")
	if err != nil {
		t.Skip("no /usr/bin/ls to analyse")
	}
	h.fixtureBytes = b
	h.fixturePath = filepath.Join(dir, "target")
	write(h.fixturePath, string(b), 0o755)

	client := sdk.NewClient(&sdk.Implementation{Name: "ghidra-stdio-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.notes = append(h.notes, r.Params)
			h.mu.Unlock()
		},
	})
	cmd := exec.Command(reaBin, "serve")
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMPDIR", "XDG_CACHE_HOME", "GHIDRA_INSTALL_DIR", "JAVA_HOME", "REA_GHIDRA_STARTUP_TIMEOUT_MS":
			continue
		}
		if strings.HasPrefix(k, "FAKE_GHIDRA_") {
			continue
		}
		base = append(base, kv)
	}
	cmd.Env = append(append(base, "TMPDIR="+h.tmp, "XDG_CACHE_HOME="+cache, "GHIDRA_INSTALL_DIR="+install, "JAVA_HOME="+jdk,
		"FAKE_GHIDRA_TRANSCRIPT="+transcript, "FAKE_GHIDRA_STARTS="+h.starts), env...)
	cmd.Stderr = h.stderr
	h.env = cmd.Env
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.cs = cs
	t.Cleanup(func() {
		cs.Close()
		if strings.Contains(h.stderr.String(), "panic") {
			t.Errorf("rea panicked:\n%s", h.stderr.String())
		}
	})
	return h
}

// call runs a tool; token, when not empty, is the progress token.
func (h *ghidraHost) call(ctx context.Context, name string, args map[string]any, token string) (*sdk.CallToolResult, error) {
	p := &sdk.CallToolParams{Name: name, Arguments: args}
	if token != "" {
		p.SetProgressToken(token)
	}
	return h.cs.CallTool(ctx, p)
}

func (h *ghidraHost) mustCall(name string, args map[string]any, token string) (text string, isError bool) {
	h.t.Helper()
	res, err := h.call(context.Background(), name, args, token)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// waitNotes returns the notifications for token once the terminal one
// ("<tool>: completed" or "<tool>: failed") arrived: notifications may be
// read after the response they belong to. It gives up after 10 s.
func (h *ghidraHost) waitNotes(token string) []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := h.notesFor(token)
		if len(n) > 0 && (strings.HasSuffix(n[len(n)-1], ": completed") || strings.HasSuffix(n[len(n)-1], ": failed")) || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// notesFor returns the progress notifications received for token.
func (h *ghidraHost) notesFor(token string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, n := range h.notes {
		if n.ProgressToken == token {
			out = append(out, n.Message)
		}
	}
	return out
}

// roots lists the engine's private roots left in the host's TMPDIR.
func (h *ghidraHost) roots() []string {
	entries, _ := os.ReadDir(h.tmp)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "rea-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// launchers lists the fake engine's launcher PIDs, in start order.
func (h *ghidraHost) launchers() []int {
	b, _ := os.ReadFile(h.starts)
	var out []int
	for _, l := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(l); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// settle waits (bounded) until the engine's roots and processes are gone:
// a cancelled request gets no response, so the test cannot wait for one.
func (h *ghidraHost) settle() (roots []string, live []int) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		roots, live = h.roots(), nil
		for _, pid := range h.launchers() {
			if alive(pid) {
				live = append(live, pid)
			}
		}
		if (len(roots) == 0 && len(live) == 0) || time.Now().After(deadline) {
			return roots, live
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (h *ghidraHost) openGhidra() {
	h.t.Helper()
	text, isErr := h.mustCall("open_binary", map[string]any{"path": h.fixturePath, "provider_id": "ghidra"}, "")
	if isErr {
		h.t.Fatalf("open_binary with ghidra: %s", text)
	}
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
// result either way.
func TestGhidraWaitingNoticesOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("the product's 10 s waiting interval makes this test take about 25 s")
	}
	is := is.New(t)
	// Two hosts, one call each, at once: the same slow start with and
	// without a progress token.
	const delay = "FAKE_GHIDRA_DELAY_MS=24000"
	with, without := newGhidraHost(t, delay), newGhidraHost(t, delay)
	with.openGhidra()
	without.openGhidra()
	var wg sync.WaitGroup
	var withText, withoutText string
	var withErr, withoutErr bool
	wg.Add(2)
	go func() {
		defer wg.Done()
		withText, withErr = with.mustCall("binary_overview", map[string]any{}, "cold")
	}()
	go func() {
		defer wg.Done()
		withoutText, withoutErr = without.mustCall("binary_overview", map[string]any{}, "")
	}()
	wg.Wait()
	is.True(!withErr)    // withText
	is.True(!withoutErr) // withoutText
	p, n := overviewProvider(t, withText)
	is.Equal(p, "ghidra")
	is.True(n > 0)
	// Evidence is the same whichever connection and token: the same bytes,
	// the same engine answers, the same IDs (the copies' paths differ, and
	// are not part of the ID).
	var a, b core.Evidence
	is.NoErr(json.Unmarshal([]byte(withText), &a))
	is.NoErr(json.Unmarshal([]byte(withoutText), &b))
	is.Equal(a.EvidenceID, b.EvidenceID)
	is.Equal(string(a.NormalizedResult), string(b.NormalizedResult))

	var waiting []string
	for _, m := range with.waitNotes("cold") {
		if strings.HasPrefix(m, "ghidra_startup: waiting for import, analysis and bridge readiness") {
			waiting = append(waiting, m)
		}
	}
	if len(waiting) < 2 {
		t.Fatalf("want at least two waiting notices, got %q", with.notesFor("cold"))
	}
	is.True(strings.HasSuffix(waiting[0], "(10 s elapsed)")) // waiting[0]
	is.True(strings.HasSuffix(waiting[1], "(20 s elapsed)")) // waiting[1]
	all := with.notesFor("cold")
	is.Equal(all[len(all)-1], "binary_overview: completed")
	is.Equal(len(without.notesFor("")), 0)
	without.mu.Lock()
	is.Equal(len(without.notes), 0) // no token, no notifications at all
	without.mu.Unlock()

	// The engine stays up for the next query; close_binary stops it and
	// removes its root.
	text, isErr := with.mustCall("close_binary", map[string]any{}, "")
	is.True(!isErr) // text
	_ = text
	roots, live := with.settle()
	is.Equal(len(roots), 0) // roots
	is.Equal(len(live), 0)  // live
}

// TestGhidraNativeAPIOverStdio: inspect_native_api on a Ghidra session
// takes the prototype from the decompiler's HighFunction (the bridge's
// native_api), and the function database's where the decompiler fails.
func TestGhidraNativeAPIOverStdio(t *testing.T) {
	is := is.New(t)
	h := newGhidraHost(t)
	h.openGhidra()
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
	h.openGhidra()
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

// TestGhidraStartupOverStdio: cancellation during startup, a startup
// timeout and a crash, each on its own connection with the fake engine.
func TestGhidraStartupOverStdio(t *testing.T) {
	t.Run("cancel then close and reopen", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		h := newGhidraHost(t, "FAKE_GHIDRA_DELAY_MS=4000")
		h.openGhidra()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := h.call(ctx, "binary_overview", map[string]any{}, "c")
			done <- err
		}()
		// Cancel once the engine's launcher runs (it sleeps before binding).
		deadline := time.Now().Add(30 * time.Second)
		for len(h.launchers()) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		is.Equal(len(h.launchers()), 1)
		cancel()
		is.True(<-done != nil) // the client stopped waiting
		roots, live := h.settle()
		is.Equal(len(roots), 0) // no root, socket or project left: roots
		is.Equal(len(live), 0)  // no process left: live
		// The same connection recovers: close_binary, open_binary with
		// ghidra, and the first query starts a fresh engine.
		text, isErr := h.mustCall("close_binary", map[string]any{}, "")
		is.True(!isErr) // text
		h.openGhidra()
		text, isErr = h.mustCall("binary_overview", map[string]any{}, "")
		is.True(!isErr) // text
		first := text
		p, _ := overviewProvider(t, text)
		is.Equal(p, "ghidra")
		is.Equal(len(h.launchers()), 2)
		text, isErr = h.mustCall("close_binary", map[string]any{}, "")
		is.True(!isErr) // text
		roots, live = h.settle()
		is.Equal(len(roots), 0)
		is.Equal(len(live), 0)
		// The next session on the same bytes and profile answers from the
		// analysis snapshot under the cache, without starting Ghidra.
		h.openGhidra()
		again, isErr := h.mustCall("binary_overview", map[string]any{}, "")
		is.True(!isErr) // again
		is.Equal(len(h.launchers()), 2)
		// The same result, and the Evidence says where it came from
		// (PROVIDERS.md §5.3's limitation), so the record differs.
		var e1, e2 core.Evidence
		is.NoErr(json.Unmarshal([]byte(first), &e1))
		is.NoErr(json.Unmarshal([]byte(again), &e2))
		is.Equal(string(e2.NormalizedResult), string(e1.NormalizedResult))
		is.True(!slices.Contains(e1.Limitations, ports.SnapshotLimitation)) // a cold run is not from a snapshot
		is.True(slices.Contains(e2.Limitations, ports.SnapshotLimitation))  // the warm one says so
		is.True(e1.EvidenceID != e2.EvidenceID)
		is.Equal(len(h.roots()), 0)
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		h := newGhidraHost(t, "FAKE_GHIDRA_MODE=hang", "REA_GHIDRA_STARTUP_TIMEOUT_MS=1500")
		h.openGhidra()
		text, isErr := h.mustCall("binary_overview", map[string]any{}, "")
		is.True(isErr)
		e := errorOf(t, text)
		is.Equal(e.Code, core.CodeProviderTimeout)
		is.True(strings.Contains(text, "1500")) // the configured deadline: text
		roots, live := h.settle()
		is.Equal(len(roots), 0)
		is.Equal(len(live), 0)
	})
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		h := newGhidraHost(t, "FAKE_GHIDRA_MODE=crash")
		h.openGhidra()
		text, isErr := h.mustCall("binary_overview", map[string]any{}, "")
		is.True(isErr)
		e := errorOf(t, text)
		is.Equal(e.Code, core.CodeExecutionFailure)
		is.True(strings.Contains(text, "Ghidra exited before bridge startup")) // text
		// Never replaced by rea-native: the binding is still ghidra.
		sess, _ := h.mustCall("binary_session", map[string]any{}, "")
		var s struct{ Result map[string]any }
		is.NoErr(json.Unmarshal([]byte(sess), &s))
		binding := s.Result["analysis_provider_binding"].(map[string]any)
		is.Equal(binding["provider"].(map[string]any)["id"], "ghidra")
		roots, live := h.settle()
		is.Equal(len(roots), 0)
		is.Equal(len(live), 0)
	})
}
