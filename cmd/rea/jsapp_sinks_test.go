package main

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"rea/core"
	"rea/core/jsapp"
)

// A handler that renames or copies a file reaches both of its paths, as
// storage: fs.renameSync, fs.copyFile, fs.promises.rename and a rename
// imported from fs/promises. Before, none of these calls was in the graph:
// the move and copy channels had no storage edge.
func TestHandlerRenameAndCopyReachBothPaths(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"mv","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { ipcMain } = require("electron");
const fs = require("fs");
const { rename } = require("fs/promises");
const dir = process.env.HOME;
ipcMain.handle("move", (event, from, to) => fs.renameSync(from, dir + "/" + to));
ipcMain.handle("copy", (event, name) => fs.copyFile(dir + "/" + name, "/tmp/backup.txt", () => {}));
ipcMain.handle("archive", async (event, name) => { await fs.promises.rename(name, "/tmp/archive/" + name); });
ipcMain.handle("swap", (event, a) => rename(a, "/tmp/swap.txt"));
`})})
	reach := func(channel string) []string {
		var got []string
		for _, p := range traceOf(t, s, ev, map[string]any{"kind": "ipc-channel", "value": channel}, "outgoing") {
			if last := p.Labels[len(p.Labels)-1]; last != "main.js" {
				got = append(got, last)
			}
		}
		sort.Strings(got)
		return got
	}
	for ch, want := range map[string][]string{
		"move":    {"fs ${dir}/${to}", "fs.renameSync(from)"},
		"copy":    {"fs ${dir}/${name}", "fs /tmp/backup.txt"},
		"archive": {"fs /tmp/archive/${name}", "fs.promises.rename(name)"},
		"swap":    {"fs /tmp/swap.txt", "rename(a)"},
	} {
		if got := reach(ch); !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s reaches %q, want %q", ch, got, want)
		}
	}
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]int{}
	for _, e := range g.Edges {
		if e.Relation == "persists_to" {
			r, _ := e.Properties["role"].(string)
			roles[r]++
		}
	}
	if roles["source"] != 4 || roles["destination"] != 4 {
		t.Errorf("persists_to roles %v, want 4 sources and 4 destinations", roles)
	}
}

// A system API's node shows every argument the analyst needs, as the
// source writes them (an array too), and leaves out the callback and
// options the parse kept nothing of: spawn("git", ["push", remote]), not
// spawn("git"). Before, only the first argument was in the label, so two
// different commands of one program were one node.
func TestSystemAPIShowsItsArguments(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"args","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { spawn, execFile, exec } = require("child_process");
spawn("git", ["push", remote], { cwd: dir });
spawn("git", ["status"]);
execFile("/usr/bin/tar", ["-xf", file], (err) => {});
exec(cmd, (err, out) => {});
spawn("long", ["` + strings.Repeat("x", 200) + `"]);
`})})
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	literal := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Kind == "system-api" {
			label := *n.Observations[0].Label
			got = append(got, label)
			literal[label], _ = n.Observations[0].Properties["literal"].(bool)
		}
	}
	sort.Strings(got)
	long := `child_process.spawn("long", ["` + strings.Repeat("x", 200)
	want := []string{`child_process.exec(cmd)`, `child_process.execFile("/usr/bin/tar", ["-xf", file])`,
		`child_process.spawn("git", ["push", remote])`, `child_process.spawn("git", ["status"])`}
	if len(got) != 5 || !slices.Equal(got[:4], want) || !strings.HasPrefix(long, strings.TrimSuffix(got[4], "…)")) || len(got[4]) > 150 {
		t.Errorf("system APIs:\n got %q\nwant %q and a bounded %s…", got, want, long[:40])
	}
	if !literal[`child_process.spawn("git", ["status"])`] || literal[`child_process.spawn("git", ["push", remote])`] {
		t.Errorf("literal %v: want a constant command literal, a computed one not", literal)
	}
}

// A system API on a traced path is an obligation: the rebuilt app must
// make that call. A constant one (openExternal of a fixed URL) is
// evidenced and covered only by the same call; a computed one (exec(cmd))
// is partial, its argument known only as the source writes it, and
// covered by a call to the same API. Before, the ledger left system APIs
// out, so a re-implementation that no longer ran the command covered all.
func TestLedgerObligesSystemAPIs(t *testing.T) {
	v1 := map[string]string{
		"package.json": `{"name":"ob","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { ipcMain, shell } = require("electron");
const { exec } = require("child_process");
ipcMain.handle("run", (event, cmd) => exec(cmd));
ipcMain.handle("help", () => shell.openExternal("https://example.com/help"));
`,
	}
	v2 := maps.Clone(v1)
	v2["main.js"] = `const { ipcMain, shell } = require("electron");
const { exec } = require("child_process");
ipcMain.handle("run", (event, command) => exec(command));
ipcMain.handle("help", () => shell.openExternal("https://example.com/other"));
`
	v3 := maps.Clone(v1)
	v3["main.js"] = `const { ipcMain, shell } = require("electron");
ipcMain.handle("run", (event, cmd) => 0);
ipcMain.handle("help", () => shell.openExternal("https://example.com/help"));
`
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a1 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, v1)})
	tr := jaCall(t, s, "trace_application_feature", map[string]any{"application": ref(a1), "seed": map[string]any{"kind": "module", "value": "main.js"}})
	ledger := jaCall(t, s, "build_reconstruction_obligation_ledger", map[string]any{"application": ref(a1), "trace": ref(tr)})
	var led struct {
		Obligations []struct {
			Kind, Requirement, Status string
		} `json:"obligations"`
	}
	if err := json.Unmarshal(ledger.NormalizedResult, &led); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range led.Obligations {
		if o.Kind == "system-api" {
			got = append(got, o.Requirement+": "+o.Status)
		}
	}
	sort.Strings(got)
	want := []string{"call child_process.exec(cmd): partial", `call shell.openExternal("https://example.com/help"): evidenced`}
	if !slices.Equal(got, want) {
		t.Errorf("system-api obligations %q, want %q", got, want)
	}
	coverage := func(app map[string]string) []string {
		a := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, app)})
		ev := jaCall(t, s, "evaluate_reconstruction_coverage", map[string]any{"ledger": ref(ledger), "reconstruction": ref(a)})
		var cov struct {
			Items []struct{ Kind, Key, Status string } `json:"items"`
		}
		if err := json.Unmarshal(ev.NormalizedResult, &cov); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range cov.Items {
			if it.Kind == "system-api" {
				out = append(out, it.Key+" "+it.Status)
			}
		}
		sort.Strings(out)
		return out
	}
	for name, c := range map[string]struct {
		app  map[string]string
		want []string
	}{
		"itself":              {v1, []string{"child_process.exec covered", `shell.openExternal("https://example.com/help") covered`}},
		"renamed, other URL":  {v2, []string{"child_process.exec covered", `shell.openExternal("https://example.com/help") missing`}},
		"no longer runs cmds": {v3, []string{"child_process.exec missing", `shell.openExternal("https://example.com/help") covered`}},
	} {
		if got := coverage(c.app); !slices.Equal(got, c.want) {
			t.Errorf("%s: coverage %q, want %q", name, got, c.want)
		}
	}
}

// An incoming trace from a system API crosses the preload into the
// renderer that calls the API it exposes: shell.openExternal(url) < the
// handler < the channel < window.notes (whose member open invokes it) <
// renderer.js. The exposes edge points from the preload to the API, so
// before, the trace stopped at the preload and its window and never named
// the renderer.
func TestIncomingTraceCrossesThePreloadToTheRenderer(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, notesOpenApp)})
	var got []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "string", "value": "shell.openExternal", "match": "prefix"}, "incoming") {
		got = append(got, strings.Join(p.Labels, " < ")+" | "+strings.Join(p.Relations, ", "))
	}
	want := `shell.openExternal(url) < function ipcMain.handle("notes:open") handler in main.js < ipc notes:open < window.notes {open} < renderer.js < renderer process index.html | calls by, handles by, invokes by, calls by, loads by`
	if !slices.Contains(got, want) {
		t.Errorf("incoming trace from shell.openExternal:\n got %q\nwant a path %q", got, want)
	}
}
