package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"rea/adapters/cli"
	"rea/core"
	"rea/core/product"
)

// TestWireIsStable runs a fixed script of calls through the same catalog and
// registry rea serves (wire) and compares the product catalog digest and
// every Evidence ID with testdata/wire.golden.json. A changed ID means the
// wire changed: either a deliberate contract change (rewrite the golden with
// go test ./cmd/rea -run TestWireIsStable -update and say why in the commit)
// or an accident of refactoring.
//
// The script runs in a fresh working directory with relative paths, so the
// parameters (and with them the IDs) do not depend on where the test runs.
func TestWireIsStable(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: the native part of the script cannot be built")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "feature.c"))
	if err != nil {
		t.Fatal(err)
	}
	path, err := filepath.Abs(filepath.Join("testdata", "wire.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := wireDir(t)
	t.Chdir(dir)
	if err := os.WriteFile("feature.c", src, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O0", "-o", "feature", "feature.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	writeTreeFile(t, "tree/readme.txt", []byte("hello\n"))
	writeTreeFile(t, "tree/lib/addon.node", elfAddon())
	writeZip(t, "tree/pkg.zip", map[string][]byte{"a.txt": []byte("alpha"), "lib/b.js": []byte("module.exports = 1\n")})
	writeASAR(t, "tree/resources/app.asar", appASAR())
	for name, text := range map[string]string{
		"app/package.json": `{"name":"wire-app","version":"1.0.0","main":"main.js"}`,
		"app/main.js": "const { app, BrowserWindow, ipcMain } = require('electron')\n" +
			"const store = require('./store')\n" +
			"ipcMain.handle('notes:save', (e, n) => store.save(n))\n" +
			"app.whenReady().then(() => { new BrowserWindow({ webPreferences: { preload: __dirname + '/preload.js' } }).loadFile('index.html') })\n",
		"app/store.js":   "exports.save = function save(n) { return fetch('https://api.example.test/notes', { method: 'POST', body: n }) }\n",
		"app/preload.js": "const { contextBridge, ipcRenderer } = require('electron')\ncontextBridge.exposeInMainWorld('notes', { save: (n) => ipcRenderer.invoke('notes:save', n) })\n",
		"app/index.html": "<script src=\"renderer.js\"></script>\n",
		"app/renderer.js": "document.querySelector('#save').addEventListener('click', () => window.notes.save('x'))\n" +
			"localStorage.setItem('draft', 'x')\n",
	} {
		writeTreeFile(t, name, []byte(text))
	}

	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	a, err := wire(noEnv)
	if err != nil {
		t.Fatal(err)
	}
	pc := product.New(a.cat, a.reg, product.Info{
		Version: a.id.Version, SDKServer: a.id.SDKServer, SDKClient: a.id.SDKClientTest, CLICommands: cli.Commands})
	got := wireRecord{ProductCatalog: core.MustDigest(pc), Tools: a.cat.Identity().Tools}

	s := core.NewSession(a.cat, a.reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	call := func(label, name string, args any) *core.Evidence {
		t.Helper()
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Call(context.Background(), name, raw, nil)
		if err != nil {
			t.Fatalf("%s (%s): %s", label, name, core.AsError(name, err).JSON())
		}
		if dump := os.Getenv("REA_WIRE_DUMP"); dump != "" {
			// a directory to write each structured result to, to see what changed
			b, _ := res.StructuredJSON()
			os.WriteFile(filepath.Join(dump, fmt.Sprintf("%02d-%s.json", len(got.Calls), name)), b, 0o644)
		}
		if res.Evidence != nil {
			got.Calls = append(got.Calls, wireCall{Label: label, Operation: name, EvidenceID: string(res.Evidence.EvidenceID)})
		} else {
			b, err := res.StructuredJSON()
			if err != nil {
				t.Fatal(err)
			}
			if name == "open_binary" {
				b = runID.ReplaceAll(b, []byte(`"run_id":""`))
			}
			got.Calls = append(got.Calls, wireCall{Label: label, Operation: name, Value: core.MustDigest(json.RawMessage(b))})
		}
		return res.Evidence
	}
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}

	// native
	call("open", "open_binary", map[string]any{"path": "feature"})
	call("overview", "binary_overview", map[string]any{})
	call("strings", "list_strings", map[string]any{"limit": 20})
	call("search strings", "search_strings", map[string]any{"pattern": "unique"})
	call("procedures", "list_procedures", map[string]any{})
	call("segments", "list_segments", map[string]any{})
	found := call("string to code", "find_code_for_string", map[string]any{"query": "unique handler string"})
	var fc struct {
		Procedures []struct{ Address string }
	}
	if err := json.Unmarshal(found.NormalizedResult, &fc); err != nil || len(fc.Procedures) != 1 {
		t.Fatalf("find_code_for_string: %v %s", err, found.NormalizedResult)
	}
	dossier := call("dossier", "analyze_function", map[string]any{"procedure": fc.Procedures[0].Address, "include_assembly": true})
	call("dossier of main", "analyze_function", map[string]any{"procedure": "main"})
	call("call graph", "get_call_graph", map[string]any{"address": "main", "depth": 3})
	call("layout", "inspect_binary_layout", map[string]any{"path": filepath.Join(wd, "feature")})
	call("dossier view", "inspect_analysis_view", map[string]any{"source": ref(dossier), "view": map[string]any{"kind": "summary"}})
	call("unknown", "record_unknown", map[string]any{"question": "What does handler do with its argument?",
		"domain": "native.control-flow", "supporting_evidence_ids": []string{string(dossier.EvidenceID)}})
	call("native bundle summary", "get_evidence_bundle", map[string]any{"detail": "summary"})

	// artifact
	inv := call("inventory", "inventory_artifact", map[string]any{"path": "tree"})
	call("inspect artifact", "inspect_artifact", map[string]any{"path": "tree/pkg.zip"})
	call("compare artifacts", "compare_artifacts", map[string]any{"left": ref(inv), "right": ref(inv)})

	// JavaScript application
	app := call("application", "analyze_javascript_application", map[string]any{"path": "app"})
	call("application summary", "analyze_javascript_application", map[string]any{"path": "app", "detail": "summary"})
	call("application view", "inspect_analysis_view", map[string]any{"source": ref(app), "view": map[string]any{"kind": "summary"}})
	call("feature trace", "trace_application_feature", map[string]any{"application": ref(app),
		"seed": map[string]any{"kind": "ipc-channel", "value": "notes:save"}, "direction": "both"})

	// web capture comparison: the catalog's own examples
	web, ok := a.cat.Lookup("compare_web_captures")
	if !ok {
		t.Fatal("compare_web_captures is not in the catalog")
	}
	for i, ex := range web.Examples {
		if bytes.Contains(ex, []byte(`"retained-evidence"`)) {
			continue // placeholder evidence_ids: nothing in this ledger
		}
		var args any
		if err := json.Unmarshal(ex, &args); err != nil {
			t.Fatal(err)
		}
		call(fmt.Sprintf("web example %d", i), "compare_web_captures", args)
	}

	// bundle
	call("bundle", "get_evidence_bundle", map[string]any{})
	call("export", "export_evidence_bundle", map[string]any{"path": filepath.Join(wd, "bundle.json")})
	exported, err := os.ReadFile("bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	got.ExportedBundle = core.MustDigest(json.RawMessage(exported))

	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if updating() {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, b) {
		t.Errorf("the wire changed (catalog digest or Evidence IDs); got\n%s\nwant\n%s", b, want)
	}
}

type wireRecord struct {
	ProductCatalog string     `json:"product_catalog_sha256"`
	Tools          string     `json:"tools_sha256"`
	Calls          []wireCall `json:"calls"`
	ExportedBundle string     `json:"exported_bundle_sha256"`
}

type wireCall struct {
	Label      string `json:"label"`
	Operation  string `json:"operation"`
	EvidenceID string `json:"evidence_id,omitempty"`
	// Value is the digest of a session operation's structured result
	// (open_binary's random run_id left out).
	Value string `json:"value_sha256,omitempty"`
}

// wireDir is the script's working directory. Some arguments must be
// absolute paths and some results carry them, so the directory is fixed
// (not t.TempDir) and runs of this test on one machine, from any checkout,
// take turns through a lock file.
func wireDir(t *testing.T) string {
	t.Helper()
	const dir = "/tmp/rea-wire-golden"
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Skipf("the fixed working directory is not usable: %v", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	})
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

var runID = regexp.MustCompile(`"run_id":"[^"]*"`)
