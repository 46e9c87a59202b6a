package main

import (
	"slices"
	"sort"
	"strings"
	"testing"

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
