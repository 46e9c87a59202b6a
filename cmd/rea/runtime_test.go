package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp/cdptest"
)

func fixtureDir(t *testing.T, name string) string {
	d, err := filepath.Abs(filepath.Join("..", "..", "adapters", "cdp", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	d, _ = filepath.EvalSymlinks(d)
	return d
}

// TestLiveNodeReconciledOverMCP observes the Node fixture (ES modules,
// CommonJS, a worker, a dynamic import) through MCP, analyzes it
// statically and reconciles the two in one connection.
func TestLiveNodeReconciledOverMCP(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := fixtureDir(t, "nodeapp")
	p, err := cdptest.StartNode(ctx, dir, "main.mjs", "ready")
	if err != nil {
		t.Skipf("node is not usable here: %v", err)
	}
	defer func() { is.NoErr(p.Stop(ctx)) }()
	select {
	case <-p.Ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the fixture never became ready")
	}
	cs := mcpClient(t)
	_, list := evidence(t, call(t, cs, "list_javascript_runtime_targets", map[string]any{"inspector_endpoint": p.Endpoint, "allowed_file_roots": []string{dir}}))
	is.Equal(len(list["targets"].(map[string]any)["items"].([]any)), 1)
	obsEv, obs := evidence(t, call(t, cs, "observe_javascript_runtime", map[string]any{"inspector_endpoint": p.Endpoint, "target_id": p.TargetID,
		"runtime_kind": "node", "allowed_file_roots": []string{dir}}))
	is.Equal(obsEv.Provider.ID, "rea-v8-inspector")
	is.True(len(obs["scripts"].(map[string]any)["items"].([]any)) >= 4)
	anEv, _ := evidence(t, call(t, cs, "analyze_javascript_application", map[string]any{"path": dir}))
	recEv, rec := evidence(t, call(t, cs, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": map[string]any{"kind": "retained-evidence", "evidence_id": string(anEv.EvidenceID)}}},
		"runtime_observations": []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(obsEv.EvidenceID)}},
	}))
	is.Equal(recEv.PredicateType, "rea.javascript-runtime-reconciliation/v1")
	states := map[string]string{}
	for _, s := range rec["static_load_states"].([]any) {
		m := s.(map[string]any)
		states[m["path"].(string)] = m["state"].(string)
	}
	for _, loaded := range []string{"main.mjs", "lib/esm.mjs", "lib/common.cjs", "lib/lazy.mjs"} {
		is.Equal(states[loaded], "loaded")
	}
	is.Equal(states["lib/never.mjs"], "not-observed-in-capture")
	is.Equal(states["lib/worker.mjs"], "unknown") // another isolate
	for _, it := range rec["reconciliations"].([]any) {
		m := it.(map[string]any)
		is.Equal(m["status"], "matched")
		is.Equal(m["basis"], "content-sha256")
	}

	// CLI parity: readable text.
	out, _, code := runCLI(t, "list-javascript-runtime-targets", p.Endpoint)
	is.Equal(code, 0)
	is.True(strings.Contains(out, p.TargetID))
	out, _, code = runCLI(t, "observe-javascript-runtime", p.Endpoint, p.TargetID, "--runtime-kind", "node")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "lib/lazy.mjs"))
}

// TestLiveBundleResidentInLoadedAsset runs the bundle fixture (main.js
// loads only dist/bundle.js, an esbuild bundle of src/ with a linked
// source map) and reconciles its static analysis with the observation:
// the bundle is loaded, the modules bundled in it and the original
// sources its map lists are resident-in-loaded-asset, and the original
// files themselves, never loaded, are not-observed-in-capture.
func TestLiveBundleResidentInLoadedAsset(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir := fixtureDir(t, "bundleapp")
	p, err := cdptest.StartNode(ctx, dir, "main.js", "ready")
	if err != nil {
		t.Skipf("node is not usable here: %v", err)
	}
	defer func() { is.NoErr(p.Stop(ctx)) }()
	select {
	case <-p.Ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the fixture never became ready")
	}
	cs := mcpClient(t)
	obsEv, _ := evidence(t, call(t, cs, "observe_javascript_runtime", map[string]any{"inspector_endpoint": p.Endpoint, "target_id": p.TargetID,
		"runtime_kind": "node", "allowed_file_roots": []string{dir}}))
	anEv, _ := evidence(t, call(t, cs, "analyze_javascript_application", map[string]any{"path": dir}))
	_, rec := evidence(t, call(t, cs, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": map[string]any{"kind": "retained-evidence", "evidence_id": string(anEv.EvidenceID)}}},
		"runtime_observations": []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(obsEv.EvidenceID)}},
		"detail":               "complete", // the resident entries are listed only then
	}))
	states := map[string]string{}
	var bundled, sources []string
	for _, s := range rec["static_load_states"].([]any) {
		m := s.(map[string]any)
		path, state := m["path"].(string), m["state"].(string)
		states[path] = state
		switch {
		case strings.HasPrefix(path, "dist/bundle.js#source:"):
			sources = append(sources, path)
			is.Equal(state, "resident-in-loaded-asset")
			is.Equal(len(m["runtime_node_ids"].([]any)), 1)
		case strings.HasPrefix(path, "dist/bundle.js#"):
			bundled = append(bundled, path)
			is.Equal(state, "resident-in-loaded-asset")
		}
	}
	is.Equal(states["main.js"], "loaded")
	is.Equal(states["dist/bundle.js"], "loaded")
	is.Equal(len(bundled), 2) // src/math.js and src/format.js, wrapped by __commonJS
	is.Equal(len(sources), 3) // the map lists src/math.js, src/format.js, src/index.js
	// A path names the asset and the source as the map names it, with
	// nothing run on after it (the node id is in static_node_id).
	slices.Sort(sources)
	is.Equal(sources, []string{"dist/bundle.js#source:../src/format.js", "dist/bundle.js#source:../src/index.js", "dist/bundle.js#source:../src/math.js"})
	for _, b := range bundled {
		is.True(strings.HasSuffix(b, ".js")) // the module id ends the path
	}
	for _, f := range []string{"src/index.js", "src/math.js", "src/format.js"} {
		is.Equal(states[f], "not-observed-in-capture")
	}
	is.Equal(rec["summary"].(map[string]any)["load_state_resident_in_loaded_asset"], 5.0)
}

// ownedFixtureProcesses lists live processes that carry a supervisor run
// ID, run the fake Electron of this repository and were started by this
// test: their environment names its own TMPDIR (the Electron launch passes
// TMPDIR on). Another rea run's fixture, on the same machine at the same
// time, is not this test's.
func ownedFixtureProcesses(t *testing.T, marker, tmp string) []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	var out []string
	for _, e := range ents {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("REA_PROCESS_RUN_ID=")) || !slices.Contains(strings.Split(string(env), "\x00"), "TMPDIR="+tmp) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmd, []byte(marker)) {
			out = append(out, e.Name()+" "+string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// TestElectronFixtureCapturedAndReconciled analyzes the Electron-shaped
// fixture statically, captures a click scenario (a real Electron when
// REA_TEST_ELECTRON names one, else the fake Electron that runs the real
// hook in Node) and reconciles: the clicked IPC channel is tied to the
// static channel node. No owned process or temporary directory remains.
func TestElectronFixtureCapturedAndReconciled(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	is := is.New(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	app := fixtureDir(t, "electronapp")
	exe := os.Getenv("REA_TEST_ELECTRON")
	lane := "live Electron"
	if exe == "" {
		exe = filepath.Join(fixtureDir(t, "fake-electron"), "electron")
		lane = "fake Electron (REA_TEST_ELECTRON unset)"
	}
	t.Log("lane:", lane)
	cs := mcpClient(t)
	anEv, an := evidence(t, call(t, cs, "analyze_javascript_application", map[string]any{"path": app}))
	is.True(strings.Contains(string(anEv.NormalizedResult), `"dialog:open"`))
	_ = an
	scEv, sc := evidence(t, call(t, cs, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": exe, "application_path": app,
		"actions": []any{map[string]any{"step_id": "open", "kind": "click", "selector": "#open"}}}))
	is.Equal(scEv.PredicateType, "rea.electron-active-scenario/v1")
	is.Equal(sc["actions"].([]any)[0].(map[string]any)["status"], "completed")
	if left := ownedFixtureProcesses(t, "fake-electron", tmp); len(left) > 0 {
		t.Errorf("owned processes survive: %v", left)
	}
	// The scenario's directories (rea-electron-*) are made under TMPDIR,
	// this test's own: another rea run's under /tmp are not this test's.
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("temporary directories survive: %v", names)
	}
	_, rec := evidence(t, call(t, cs, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": map[string]any{"kind": "retained-evidence", "evidence_id": string(anEv.EvidenceID)}}},
		"runtime_observations": []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(scEv.EvidenceID)}},
	}))
	tied := false
	for _, it := range rec["reconciliations"].([]any) {
		m := it.(map[string]any)
		if m["entity_kind"] == "ipc-channel" && m["status"] == "matched" && m["static_node_id"] != nil {
			tied = true
		}
	}
	is.True(tied)
	edges := rec["graph"].(map[string]any)["edges"].([]any)
	is.True(len(edges) >= 1)
}
