package main

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"rea/core"
)

// storageApp writes files at paths computed at run time: main.js from two
// handlers (path.join(dir, name) and logFile), lib/store.js at an
// expression that reads the same as main.js's first but is another value
// in another file.
var storageApp = map[string]string{
	"package.json": `{"name":"store","main":"main.js","devDependencies":{"electron":"31"}}`,
	"main.js": `const { ipcMain } = require("electron");
const fs = require("fs");
const path = require("path");
const store = require("./lib/store");
const dir = process.env.HOME, logFile = dir + "/app.log";

ipcMain.handle("notes:save", (event, name, text) => {
  fs.writeFileSync(path.join(dir, name), text);
});

ipcMain.handle("notes:delete", (event, name) => {
  fs.unlinkSync(path.join(dir, name));
});

ipcMain.on("log:write", (event, line) => {
  fs.appendFileSync(logFile, line);
});
`,
	"lib/store.js": `const fs = require("fs");
const path = require("path");
const dir = process.env.BACKUP;
exports.save = (name, text) => fs.writeFileSync(path.join(dir, name), text);
`,
}

// storageTrace analyzes storageApp and runs one trace_application_feature.
func storageTrace(t *testing.T, seed map[string]any, direction string) []tracePath {
	t.Helper()
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, storageApp)})
	return traceOf(t, s, ev, seed, direction)
}

// channelPaths is each outgoing path of a trace from IPC channel ch of
// analysis ev, as its labels joined by " > ", sorted.
func channelPaths(t *testing.T, s *core.Session, ev *core.Evidence, ch string) []string {
	t.Helper()
	var got []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "ipc-channel", "value": ch}, "outgoing") {
		got = append(got, strings.Join(p.Labels, " > "))
	}
	slices.Sort(got)
	return got
}

// traceOf runs trace_application_feature on analysis ev.
func traceOf(t *testing.T, s *core.Session, ev *core.Evidence, seed map[string]any, direction string) []tracePath {
	t.Helper()
	tr := jaCall(t, s, "trace_application_feature", map[string]any{
		"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)},
		"seed":        seed, "direction": direction})
	var out struct {
		Paths []tracePath `json:"paths"`
	}
	if err := json.Unmarshal(tr.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	return out.Paths
}

// Each computed storage key is traced by its own expression, and each call
// on it by its own path: main.js's two keys and its two calls on the first
// (writeFileSync, unlinkSync) are three paths, each labelled with its call
// and placed at its line, and a string seed on an expression reaches that
// key's writer alone, not the other file whose expression reads the same.
// Before, every computed fs key of the app was one node, so main.js's trace
// showed one write (the first edge found) and the node led on to every
// other writer. A handler's calls go from the handler: main.js's trace
// reaches them through the handlers it defines.
func TestTraceReachesEachComputedStorageKey(t *testing.T) {
	main := storageApp["main.js"]
	var got []string
	for _, p := range storageTrace(t, map[string]any{"kind": "module", "value": "main.js"}, "outgoing") {
		for i, r := range p.Relations {
			if r == "persists_to" && p.Locations[i]["path"] == "main.js" {
				got = append(got, p.Labels[i+1]+" at "+jsonNumber(p.Locations[i]["line"]))
			}
		}
	}
	sort.Strings(got)
	line := func(text string) string {
		l, _ := lineColumn(main, strings.Index(main, text))
		return jsonNumber(float64(l))
	}
	want := []string{"fs.appendFileSync(logFile) at " + line("fs.appendFileSync"), "fs.unlinkSync(path.join(dir, name)) at " + line("fs.unlinkSync"),
		"fs.writeFileSync(path.join(dir, name)) at " + line("fs.writeFileSync")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("main.js's writes %q, want %q", got, want)
	}
	var ends []string
	for _, p := range storageTrace(t, map[string]any{"kind": "string", "value": "path.join(dir, name)", "match": "substring"}, "incoming") {
		ends = append(ends, strings.Join(p.Labels[:2], " <- "))
	}
	sort.Strings(ends)
	ends = slices.Compact(ends)
	// main.js's key is written by its two handlers. The two keys read
	// alike but for the file each is computed in.
	want = []string{
		`fs ${path.join(dir, name)} (storage in lib/store.js) <- lib/store.js`,
		`fs ${path.join(dir, name)} (storage in main.js) <- function ipcMain.handle("notes:delete") handler in main.js`,
		`fs ${path.join(dir, name)} (storage in main.js) <- function ipcMain.handle("notes:save") handler in main.js`}
	if !slices.Equal(ends, want) {
		t.Errorf("paths into the keys written at path.join(dir, name): %q; want %q", ends, want)
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
