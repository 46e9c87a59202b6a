package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"rea/core"
	"rea/core/jsapp"
)

// notesApp is a small Electron application: a main process whose
// notes:export handler writes to a path it got from a dialog (a variable),
// a preload exposing the channel and a renderer calling it.
var notesApp = map[string]string{
	"package.json": `{"name":"notes","version":"1.0.0","main":"main.js"}`,
	"main.js": `const { app, BrowserWindow, ipcMain, dialog } = require("electron");
const fs = require("fs");
const path = require("path");

function createWindow() {
  const win = new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js") } });
  win.loadFile("index.html");
}

ipcMain.handle("notes:export", async (event, notes) => {
  const { filePath: p } = await dialog.showSaveDialog({});
  fs.writeFileSync(p, JSON.stringify(notes));
  return p;
});

app.whenReady().then(createWindow);
`,
	"preload.js": `const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("notes", { exportTo: (notes) => ipcRenderer.invoke("notes:export", notes) });
`,
	"index.html":  `<!doctype html><html><body><script src="renderer.js"></script></body></html>`,
	"renderer.js": "document.body.addEventListener(\"click\", () => window.notes.exportTo([]));\n",
}

type tracePath struct {
	Labels    []string         `json:"labels"`
	Relations []string         `json:"relations"`
	EdgeIDs   []string         `json:"edge_ids"`
	Locations []map[string]any `json:"locations"`
}

// traceNotesExport analyzes notesApp and traces the notes:export channel.
func traceNotesExport(t *testing.T) []tracePath {
	t.Helper()
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, notesApp)})
	tr := jaCall(t, s, "trace_application_feature", map[string]any{
		"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)},
		"seed":        map[string]any{"kind": "ipc-channel", "value": "notes:export"}})
	var out struct {
		Paths []tracePath `json:"paths"`
	}
	if err := json.Unmarshal(tr.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	return out.Paths
}

// A write to a path held in a variable is labelled with the call and what
// its argument is (the variable's name), not an empty template: before,
// the trace's step read "fs ${}".
func TestTraceNamesADynamicStoragePath(t *testing.T) {
	var labels []string
	for _, p := range traceNotesExport(t) {
		for i, r := range p.Relations {
			if r == "persists_to" {
				labels = append(labels, p.Labels[i+1])
			}
		}
	}
	if len(labels) != 1 || labels[0] != "fs.writeFileSync(p)" {
		t.Fatalf("persists_to steps are labelled %q, want [\"fs.writeFileSync(p)\"]", labels)
	}
}

// A call in a scope-hoisted bundle is attributed to the original source
// the map names at the call itself (ports.JSCall.Position, where V8 places
// it), not at its callee name's first use in the scope (CalleeOffset):
// here BrowserWindow is first used on a line from src/a.js and constructed
// on a line from src/b.js. Before, the window's calls edge came from
// src/a.js.
func TestMappedCallIsPlacedAtTheCall(t *testing.T) {
	bundle := "const { BrowserWindow } = require(\"electron\");\nfunction main() {\n  console.log(BrowserWindow.name);\n  return new BrowserWindow({ width: 1 });\n}\nmain();\n//# sourceMappingURL=main.js.map\n"
	smap := `{"version":3,"file":"main.js","sources":["src/a.js","src/b.js"],"names":[],"mappings":"AAAA;AACA;AACA;ACDA;ADCA"}`
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"w","main":"main.js","devDependencies":{"electron":"31"}}`, "main.js": bundle, "main.js.map": smap})})
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]*jsapp.Node{}
	for _, n := range g.Nodes {
		nodes[n.NodeID] = n
	}
	var from []string
	for _, e := range g.Edges {
		if e.Relation == "calls" && nodes[e.TargetNodeID].Kind == "browser-window" {
			n := nodes[e.SourceNodeID]
			from = append(from, n.Kind+" "+fmt.Sprint(n.Identity["original_source"], n.Identity["path"]))
		}
	}
	if len(from) != 1 || !strings.Contains(from[0], "src/b.js") {
		t.Fatalf("the window is made from %q, want the source module src/b.js", from)
	}
}

// Every step of a trace carries where its edge was seen: the file, offset,
// line and column by the convention the other JavaScript tools use. Before,
// the notes:export handler path was labels only. The handles step is at
// the channel's literal, the write at the call (writeFileSync: its path
// is a variable, so no literal places it).
func TestTraceStepsCarryTheirLocation(t *testing.T) {
	main := notesApp["main.js"]
	want := map[string]int{
		"handles":     strings.Index(main, `"notes:export"`),
		"persists_to": strings.Index(main, "writeFileSync(p"),
	}
	seen := map[string]bool{}
	for _, p := range traceNotesExport(t) {
		if len(p.Locations) != len(p.EdgeIDs) {
			t.Fatalf("path %v has %d locations for %d steps", p.Labels, len(p.Locations), len(p.EdgeIDs))
		}
		for i, r := range p.Relations {
			off, ok := want[r]
			if !ok {
				continue
			}
			seen[r] = true
			line, col := lineColumn(main, off)
			l := p.Locations[i]
			if l["path"] != "main.js" || l["offset"] != float64(off) || l["line"] != float64(line) || l["column"] != float64(col) {
				t.Errorf("%s step at %v, want main.js offset %d at %d:%d", r, l, off, line, col)
			}
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("steps seen %v, want %v", seen, want)
	}
}

// An app's bare ASAR against the release ZIP that holds it where Electron
// puts it (resources/app.asar) compares from the ASAR's root on both sides,
// and root_alignment says so. Before, the ZIP's paths kept their
// resources/app.asar/ prefix: the processes, windows and the package were
// added and removed, and every file's path changed.
func TestVersionsBareASARAgainstItsNestedASARInAZIP(t *testing.T) {
	holder := t.TempDir()
	bare := filepath.Join(holder, "app.asar")
	packASAR(t, writeTree(t, notesApp), bare)
	archive := filepath.Join(t.TempDir(), "notes.zip")
	writeAppZip(t, archive, holder, "resources/", nil)
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a1 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": bare})
	a2 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive})
	// The unpacked directory's paths start at the app as the bare ASAR's do.
	dir := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, notesApp)})
	for _, left := range []*core.Evidence{a1, dir} {
		compareFromTheASARRoot(t, s, ref(left), ref(a2))
	}
}

func compareFromTheASARRoot(t *testing.T, s *core.Session, left, right map[string]any) {
	t.Helper()
	var res struct {
		Items []struct {
			NodeKind   string            `json:"node_kind"`
			Status     string            `json:"status"`
			Dimensions map[string]string `json:"dimensions"`
		} `json:"items"`
		RootAlignment map[string]string `json:"root_alignment"`
	}
	cv := jaCall(t, s, "compare_application_versions", map[string]any{"left": left, "right": right})
	if err := json.Unmarshal(cv.NormalizedResult, &res); err != nil {
		t.Fatal(err)
	}
	var notSame []string
	for _, it := range res.Items {
		if it.Status != "unchanged" || it.Dimensions["path"] == "changed" {
			notSame = append(notSame, it.Status+" "+it.NodeKind+" path "+it.Dimensions["path"])
		}
	}
	if len(notSame) > 0 || len(res.Items) == 0 {
		t.Errorf("items not the same: %q of %d", notSame, len(res.Items))
	}
	if res.RootAlignment["left"] != "" || res.RootAlignment["right"] != "resources/app.asar" {
		t.Errorf("root_alignment %v, want right resources/app.asar", res.RootAlignment)
	}
}
