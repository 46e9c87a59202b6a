package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// notesOpenApp: a renderer calls window.notes.open, a member the preload
// exposes, whose body invokes notes:open; main.js handles the channel by
// opening the URL.
var notesOpenApp = map[string]string{
	"package.json": `{"name":"open","main":"main.js","devDependencies":{"electron":"31"}}`,
	"main.js": `const { app, BrowserWindow, ipcMain, shell } = require("electron");
const path = require("path");
app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js") } }).loadFile("index.html"));
ipcMain.handle("notes:open", (event, url) => shell.openExternal(url));
`,
	"preload.js": `const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("notes", { open: (url) => ipcRenderer.invoke("notes:open", url) });
`,
	"index.html":  `<!doctype html><script src="renderer.js"></script>`,
	"renderer.js": "document.querySelector(\"a\").onclick = (e) => window.notes.open(e.target.href);\n",
}

// An outgoing trace from a renderer file goes renderer -> window.notes ->
// ipc channel -> handler -> sink in one path: the way the incoming trace
// from the sink comes back (TestIncomingTraceCrossesThePreloadToTheRenderer).
func TestOutgoingTraceFromTheRendererReachesTheSink(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, notesOpenApp)})
	for _, dir := range []string{"outgoing", "both"} {
		var got []string
		for _, p := range traceOf(t, s, ev, map[string]any{"kind": "module", "value": "renderer.js"}, dir) {
			got = append(got, strings.Join(p.Labels, " > ")+" | "+strings.Join(p.Relations, ", "))
		}
		want := `renderer.js > window.notes {open} > ipc notes:open > function ipcMain.handle("notes:open") handler in main.js > shell.openExternal(url) | calls, invokes, handles, calls`
		if !slices.Contains(got, want) {
			t.Errorf("%s trace from renderer.js:\n got %q\nwant a path %q", dir, got, want)
		}
	}
}

// traceCut is the part of a trace's coverage that says what cut it.
type traceCut struct {
	Status    string `json:"status"`
	Truncated bool   `json:"truncated"`
	CutBy     []struct {
		Limit string `json:"limit"`
		Value int    `json:"value"`
		Left  int    `json:"left"`
		Unit  string `json:"unit"`
	} `json:"cut_by"`
}

// A trace says which of its limits cut it and what each left out, or, when
// it ran out of edges, nothing: before, a trace max_depth ended said
// "complete", as if the handler and its sink beyond were not there.
func TestTraceSaysWhichLimitCutIt(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, notesOpenApp)})
	trace := func(dir string, limits map[string]any) (traceCut, string) {
		t.Helper()
		args := map[string]any{"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)},
			"seed": map[string]any{"kind": "module", "value": "renderer.js"}, "direction": dir}
		if limits != nil {
			args["limits"] = limits
		}
		tr := jaCall(t, s, "trace_application_feature", args)
		var out struct {
			Coverage traceCut `json:"coverage"`
		}
		if err := json.Unmarshal(tr.NormalizedResult, &out); err != nil {
			t.Fatal(err)
		}
		stopped := ""
		for _, l := range tr.Limitations {
			if strings.HasPrefix(l, "The trace stopped: ") {
				stopped = l
			}
		}
		return out.Coverage, stopped
	}
	cut := func(c traceCut) []string {
		var out []string
		for _, x := range c.CutBy {
			out = append(out, fmt.Sprintf("%s %d left %d %s", x.Limit, x.Value, x.Left, x.Unit))
		}
		return out
	}
	// renderer.js > window.notes > ipc notes:open, and two steps beyond.
	c, l := trace("outgoing", map[string]any{"max_depth": 2})
	if c.Status != "partial" || !c.Truncated || !slices.Equal(cut(c), []string{"max_depth 2 left 1 edges"}) {
		t.Errorf("max_depth 2: coverage %+v, want partial, cut by max_depth leaving the handles edge", c)
	}
	if !strings.Contains(l, "max_depth (2)") || strings.Contains(l, "max_nodes") {
		t.Errorf("max_depth 2: limitation %q, want it to name max_depth (2) alone", l)
	}
	c, l = trace("outgoing", map[string]any{"max_nodes": 3})
	if c.Status != "partial" || !slices.Equal(cut(c), []string{"max_nodes 3 left 1 nodes"}) || !strings.Contains(l, "max_nodes (3)") {
		t.Errorf("max_nodes 3: coverage %+v, limitation %q, want cut by max_nodes", c, l)
	}
	c, l = trace("both", map[string]any{"max_paths": 1})
	if c.Status != "partial" || len(c.CutBy) != 1 || c.CutBy[0].Limit != "max_paths" || c.CutBy[0].Left < 1 || !strings.Contains(l, "max_paths (1)") {
		t.Errorf("max_paths 1: coverage %+v, limitation %q, want cut by max_paths", c, l)
	}
	// Ran out of edges: complete, nothing cut, nothing said.
	c, l = trace("outgoing", nil)
	if c.Status != "complete" || c.Truncated || len(c.CutBy) != 0 || l != "" {
		t.Errorf("default limits: coverage %+v, limitation %q, want complete", c, l)
	}
	// Exactly as deep as the path: the depth reached ends no edge.
	c, _ = trace("outgoing", map[string]any{"max_depth": 4})
	if c.Status != "complete" || len(c.CutBy) != 0 {
		t.Errorf("max_depth 4: coverage %+v, want complete", c)
	}
}

// A seed that matches nothing names the seeds closest to it that match,
// ready to pass: the same value as another seed kind, the same kind as a
// substring whatever the case, a near spelling; before, the trace said
// only that it was empty.
func TestEmptyTraceSuggestsSeeds(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, notesOpenApp)})
	suggest := func(seed map[string]any) ([]string, string) {
		t.Helper()
		tr := jaCall(t, s, "trace_application_feature", map[string]any{
			"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}, "seed": seed})
		var out struct {
			SeedMatches []any `json:"seed_matches"`
			Suggestions []struct {
				Seed    map[string]any    `json:"seed"`
				Matches int               `json:"matches"`
				Example map[string]string `json:"example"`
			} `json:"suggestions"`
		}
		if err := json.Unmarshal(tr.NormalizedResult, &out); err != nil {
			t.Fatal(err)
		}
		if len(out.SeedMatches) != 0 {
			t.Fatalf("seed %v matched %v", seed, out.SeedMatches)
		}
		var got []string
		for _, x := range out.Suggestions {
			got = append(got, fmt.Sprintf("%v %q %v %v", x.Seed["kind"], x.Seed["value"], x.Seed["match"], x.Seed["case_sensitive"]))
		}
		note := ""
		for _, l := range tr.Limitations {
			if strings.HasPrefix(l, "No node matches the seed") {
				note = l
			}
		}
		return got, note
	}
	for _, c := range []struct {
		seed map[string]any
		want string
	}{
		{map[string]any{"kind": "module", "value": "notes:open"}, `ipc-channel "notes:open" exact true`},
		{map[string]any{"kind": "ipc-channel", "value": "notes:opne"}, `ipc-channel "notes:open" exact true`},
		{map[string]any{"kind": "module", "value": "Renderer"}, `module "Renderer" substring false`},
		{map[string]any{"kind": "api", "value": "notes.opne"}, `api "notes.open" exact true`},
	} {
		got, note := suggest(c.seed)
		if !slices.Contains(got, c.want) {
			t.Errorf("seed %v: suggestions %q, want %s among them", c.seed, got, c.want)
		}
		if !strings.Contains(note, "Seeds that match") {
			t.Errorf("seed %v: limitation %q, want it to name the suggestions", c.seed, note)
		}
	}
	// The specific kind before the string seed that any text matches.
	if got, _ := suggest(map[string]any{"kind": "module", "value": "notes:open"}); len(got) < 2 || got[0] != `ipc-channel "notes:open" exact true` {
		t.Errorf("seed module notes:open: suggestions %q, want the channel first and the string seed after", got)
	}
	got, note := suggest(map[string]any{"kind": "ipc-channel", "value": "zqxjv"})
	if len(got) != 0 || !strings.Contains(note, "nor any seed close to it") {
		t.Errorf("an unlike seed: suggestions %q, limitation %q, want none and a limitation saying so", got, note)
	}
}

// A renderer's call of one member of an exposed API leads on through that
// member alone: renderer.js calls window.notes.open, not window.notes.log,
// so its trace reaches notes:open and not notes:log, and notes:log's
// incoming trace does not reach renderer.js. Before, the API was one node
// the walk went through whole, and each trace named the other member's
// channel or caller as if the renderer used it.
func TestTraceKeepsTheMemberOfAnExposedAPI(t *testing.T) {
	app := maps.Clone(notesOpenApp)
	app["main.js"] += "ipcMain.on(\"notes:log\", (event, m) => console.log(m));\n"
	app["preload.js"] = `const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("notes", { open: (url) => ipcRenderer.invoke("notes:open", url), log: (m) => ipcRenderer.send("notes:log", m) });
`
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, app)})
	// steps: does a path of the trace step from label a to label b?
	steps := func(seed map[string]any, dir, a, b string) bool {
		for _, p := range traceOf(t, s, ev, seed, dir) {
			for i := 1; i < len(p.Labels); i++ {
				if p.Labels[i-1] == a && p.Labels[i] == b {
					return true
				}
			}
		}
		return false
	}
	const api = "window.notes {log, open}"
	renderer := map[string]any{"kind": "module", "value": "renderer.js"}
	for _, dir := range []string{"outgoing", "both"} {
		if !steps(renderer, dir, api, "ipc notes:open") || steps(renderer, dir, api, "ipc notes:log") {
			t.Errorf("%s trace from renderer.js: want window.notes > ipc notes:open and not > ipc notes:log", dir)
		}
	}
	if steps(map[string]any{"kind": "ipc-channel", "value": "notes:log"}, "incoming", api, "renderer.js") {
		t.Errorf("incoming trace from notes:log reaches renderer.js through window.notes, whose log renderer.js never calls")
	}
	if !steps(map[string]any{"kind": "ipc-channel", "value": "notes:open"}, "incoming", api, "renderer.js") {
		t.Errorf("incoming trace from notes:open does not reach renderer.js, which calls window.notes.open")
	}
}
