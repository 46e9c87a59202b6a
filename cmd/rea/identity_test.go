package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"rea/core"
)

// TestIdenticalBytesIdenticalIDs runs every Evidence-producing operation of
// every family (native workflows, artifact graph, JavaScript application,
// web comparison, bundles) on two copies of the same files in different
// directories, the native target under another file name too, and requires
// the same Evidence IDs: nothing derived from where the bytes were is part
// of a semantic projection. Operations that take a path get the same
// relative path, resolved in each copy's own directory, as an agent working
// in either copy would pass.
func TestIdenticalBytesIdenticalIDs(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: the native fixture cannot be built")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "feature.c"))
	if err != nil {
		t.Fatal(err)
	}
	build := t.TempDir()
	if err := os.WriteFile(filepath.Join(build, "feature.c"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O0", "-o", filepath.Join(build, "feature"), filepath.Join(build, "feature.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	exe, err := os.ReadFile(filepath.Join(build, "feature"))
	if err != nil {
		t.Fatal(err)
	}
	left := identityScript(t, filepath.Join(t.TempDir(), "one", "copy"), "feature", exe)
	right := identityScript(t, filepath.Join(t.TempDir(), "elsewhere"), "renamed-program", exe)
	if len(left) != len(right) {
		t.Fatalf("%d calls against %d", len(left), len(right))
	}
	for i := range left {
		if left[i] != right[i] {
			t.Errorf("%s: %s at one path, %s at the other", left[i].label, left[i].id, right[i].id)
		}
	}
}

type identityCall struct{ label, id string }

// identityScript lays the fixtures out in dir (the executable as exeName),
// runs the script with dir/work as the working directory and returns each
// Evidence ID.
func identityScript(t *testing.T, dir, exeName string, exe []byte) []identityCall {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The executable sits beside the working directory, so "." holds the
	// same files in both copies.
	exePath := filepath.Join(dir, exeName)
	if err := os.WriteFile(exePath, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	writeTreeFile(t, "tree/readme.txt", []byte("hello\n"))
	writeTreeFile(t, "tree/lib/addon.node", elfAddon())
	writeZip(t, "tree/pkg.zip", map[string][]byte{"a.txt": []byte("alpha"), "lib/b.js": []byte("module.exports = 1\n")})
	writeASAR(t, "tree/resources/app.asar", appASAR())
	for name, text := range map[string]string{
		"app/package.json": `{"name":"identity-app","version":"1.0.0","main":"main.js"}`,
		"app/main.js": "const { ipcMain } = require('electron')\nconst store = require('./store')\n" +
			"ipcMain.handle('notes:save', (e, n) => store.save(n))\n",
		"app/store.js": "exports.save = function save(n) { return fetch('https://api.example.test/notes', { method: 'POST', body: n }) }\n",
	} {
		writeTreeFile(t, name, []byte(text))
	}
	a, err := wire(noEnv)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(a.cat, a.reg, nil)
	defer s.Close(context.Background())
	var out []identityCall
	call := func(label, name string, args any) *core.Evidence {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(context.Background(), name, raw, nil)
		if err != nil {
			t.Fatalf("%s (%s): %s", label, name, core.AsError(name, err).JSON())
		}
		if res.Evidence != nil {
			out = append(out, identityCall{label, string(res.Evidence.EvidenceID)})
		}
		return res.Evidence
	}
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}

	// native, on the executable opened by its absolute path and file name
	call("open", "open_binary", map[string]any{"path": exePath})
	call("overview", "binary_overview", map[string]any{})
	call("overview detailed", "binary_overview", map[string]any{"detail": "detailed"})
	call("documents", "list_documents", map[string]any{})
	call("segments", "list_segments", map[string]any{})
	call("procedures", "list_procedures", map[string]any{})
	call("names", "list_names", map[string]any{})
	call("strings", "list_strings", map[string]any{})
	call("search strings", "search_strings", map[string]any{"pattern": "unique"})
	call("search procedures", "search_procedures", map[string]any{"pattern": "main"})
	call("string to code", "find_code_for_string", map[string]any{"query": "unique handler string"})
	dossier := call("dossier", "analyze_function", map[string]any{"procedure": "handler"})
	call("dossier complete", "analyze_function", map[string]any{"procedure": "main", "detail": "complete"})
	call("dossier view", "inspect_analysis_view", map[string]any{"source": ref(dossier), "view": map[string]any{"kind": "summary"}})
	call("call graph", "get_call_graph", map[string]any{"address": "main", "depth": 3})
	// inspect_binary_layout takes an absolute path, which is a parameter and
	// is echoed as artifact.path in its result: its identity is not yet
	// path-independent (see the note on path parameters in ARCHITECTURE.md).
	call("unknown", "record_unknown", map[string]any{"question": "What does handler do with its argument?",
		"domain": "native.control-flow", "supporting_evidence_ids": []string{string(dossier.EvidenceID)}})

	// artifact graph
	inv := call("inventory", "inventory_artifact", map[string]any{"path": "tree"})
	call("inspect zip", "inspect_artifact", map[string]any{"path": "tree/pkg.zip"})
	call("inspect asar", "inspect_artifact", map[string]any{"path": "tree/resources/app.asar"})
	call("compare artifacts", "compare_artifacts", map[string]any{"left": ref(inv), "right": ref(inv)})

	// JavaScript application
	app := call("application", "analyze_javascript_application", map[string]any{"path": "app"})
	call("application summary", "analyze_javascript_application", map[string]any{"path": "app", "detail": "summary"})
	call("application view", "inspect_analysis_view", map[string]any{"source": ref(app), "view": map[string]any{"kind": "summary"}})
	call("feature trace", "trace_application_feature", map[string]any{"application": ref(app),
		"seed": map[string]any{"kind": "ipc-channel", "value": "notes:save"}, "direction": "both"})

	// Then every example of every operation (web comparison inputs, the
	// code primitives and workflows, bundles, ...), against the same open
	// target; an example that fails must fail alike in both copies.
	for _, op := range a.cat.Operations() {
		if op.Name == "close_binary" || op.Name == "open_binary" || op.Name == "export_evidence_bundle" || op.Name == "extract_artifact" {
			continue // these change the session or write outside the copy
		}
		if op.Effects.LaunchesProcess {
			continue // live runs (a browser scenario, a process capture, a trace) observe a new run each time
		}
		for i, ex := range op.Examples {
			res, err := s.Call(context.Background(), op.Name, ex, nil)
			label := fmt.Sprintf("%s example %d", op.Name, i)
			switch {
			case err != nil:
				out = append(out, identityCall{label, "error " + string(core.AsError(op.Name, err).Code)})
			case res.Evidence != nil:
				out = append(out, identityCall{label, string(res.Evidence.EvidenceID)})
			}
		}
	}
	return out
}
