package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// writeAppZip stores the files of dir in a new ZIP archive under prefix, plus
// the extra entries given.
func writeAppZip(t *testing.T, archive, dir, prefix string, extra map[string]string) {
	t.Helper()
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	if dir != "" {
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			w, err := zw.Create(prefix + filepath.ToSlash(rel))
			if err != nil {
				return err
			}
			src, err := os.Open(p)
			if err != nil {
				return err
			}
			defer src.Close()
			_, err = io.Copy(w, src)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range extra {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A ZIP archive holding an application is analysed as the application
// (the same graph facts as its directory), so is a release ZIP holding the
// app's ASAR; a ZIP without JavaScript is refused naming the inventory, and
// rea analyze routes each by its content.
func TestJSAppZipApplications(t *testing.T) {
	is := is.New(t)
	tmp := t.TempDir()
	app := "testdata/jsapp/electron"

	plain := filepath.Join(tmp, "app.zip")
	writeAppZip(t, plain, app, "", nil)
	s := jaSession(t)
	dirEv := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": app})
	zipEv := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": plain})
	is.Equal(zipEv.Subject.Format, "zip")
	d, z := decodeApp(t, dirEv), decodeApp(t, zipEv)
	is.Equal(z.Electron, d.Electron)
	is.Equal(z.Summary, d.Summary)
	is.Equal(z.Statistics["javascript_assets"], d.Statistics["javascript_assets"])
	is.Equal(z.Statistics["graph_nodes"], d.Statistics["graph_nodes"])
	var dl, zl []string
	for _, l := range d.labels() {
		if !strings.HasPrefix(l, "artifact ") {
			dl = append(dl, l)
		}
	}
	for _, l := range z.labels() {
		if !strings.HasPrefix(l, "artifact ") {
			zl = append(zl, l)
		}
	}
	is.Equal(zl, dl)
	// The format can be asked for; asked of a directory it is refused.
	again := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": plain, "format": "zip"})
	is.Equal(decodeApp(t, again).Graph.GraphID, z.Graph.GraphID) // the parameters differ, the graph does not
	e := jaCallErr(t, s, t.Context(), "analyze_javascript_application", map[string]any{"path": app, "format": "zip"})
	is.Equal(e.Code, core.CodeUnsupportedTarget)

	// A release ZIP: the app's ASAR under resources, beside other files.
	archive := filepath.Join(tmp, "app.asar")
	packASAR(t, buildNPMApp(t, false, "production"), archive)
	asarBytes, err := os.ReadFile(archive)
	is.NoErr(err)
	release := filepath.Join(tmp, "release.zip")
	writeAppZip(t, release, "", "", map[string]string{"App/resources/app.asar": string(asarBytes), "App/LICENSE": "MIT\n"})
	rel := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": release}))
	is.Equal(rel.Electron["main"], []any{"App/resources/app.asar/main.js"})
	is.Equal(rel.Electron["ipc"].(map[string]any)["paired"], []any{"items:sort"})

	// No JavaScript: refused, naming the inventory.
	data := filepath.Join(tmp, "data.zip")
	writeAppZip(t, data, "", "", map[string]string{"data/readme.txt": "hello\n", "data/x.json": "{}"})
	e = jaCallErr(t, s, t.Context(), "analyze_javascript_application", map[string]any{"path": data})
	is.Equal(e.Code, core.CodeUnsupportedTarget)
	is.Equal(e.Details["reason"], "no_javascript")
	is.True(strings.Contains(e.Remediation, "inventory"))

	// rea analyze routes by content: the app ZIPs to the application
	// analysis, the data ZIP to the inventory.
	for _, c := range []struct{ path, want string }{{plain, "main main.js"}, {release, "main App/resources/app.asar/main.js"}, {data, "root       zip, 3 entries"}} {
		out, errOut, code := runCLI(t, "analyze", c.path)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("rea analyze %s: exit %d, output lacks %q:\n%s\n%s", filepath.Base(c.path), code, c.want, out, errOut)
		}
	}
}

// Two release ZIPs whose ASARs are named by version (app-1.asar,
// app-2.asar) hold the same app: compare_application_versions pairs
// main.js with main.js and the main process with the main process. Before,
// every path-keyed node was removed under app-1.asar/ and added under
// app-2.asar/, hiding the one channel that changed.
func TestVersionsInReleaseZIPsPairAcrossASARNames(t *testing.T) {
	is := is.New(t)
	v1 := map[string]string{
		"package.json": `{"name":"dogs","version":"1.0.0","main":"main.js"}`,
		"main.js": "const { app, BrowserWindow, ipcMain } = require('electron');\nipcMain.handle('dog:fetch', () => 1);\n" +
			"app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: require('path').join(__dirname, 'preload.js') } }));\n",
		"preload.js": "const { contextBridge, ipcRenderer } = require('electron');\n" +
			"contextBridge.exposeInMainWorld('dogs', { fetchDog: (n) => ipcRenderer.invoke('dog:fetch', n) });\n",
	}
	v2 := map[string]string{}
	for k, v := range v1 {
		v2[k] = strings.ReplaceAll(strings.Replace(v, "1.0.0", "2.0.0", 1), "dog:fetch", "dog:load")
	}
	release := func(files map[string]string, name string) string {
		holder := t.TempDir()
		packASAR(t, writeTree(t, files), filepath.Join(holder, name+".asar"))
		archive := filepath.Join(t.TempDir(), name+".zip")
		writeAppZip(t, archive, holder, "", nil)
		return archive
	}
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a1 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": release(v1, "app-1")})
	a2 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": release(v2, "app-2")})
	var res struct {
		Items []struct {
			NodeKind   string  `json:"node_kind"`
			Status     string  `json:"status"`
			LeftLabel  *string `json:"left_label"`
			RightLabel *string `json:"right_label"`
		} `json:"items"`
	}
	cv := jaCall(t, s, "compare_application_versions", map[string]any{"left": ref(a1), "right": ref(a2)})
	is.NoErr(json.Unmarshal(cv.NormalizedResult, &res))
	var oneSided []string
	for _, it := range res.Items {
		switch it.Status {
		case "added":
			oneSided = append(oneSided, "added "+it.NodeKind+" "+*it.RightLabel)
		case "removed":
			oneSided = append(oneSided, "removed "+it.NodeKind+" "+*it.LeftLabel)
		}
	}
	sort.Strings(oneSided)
	// The channel's inline handler is known by its registering call and
	// channel, so it goes and comes with the channel; main.js itself pairs.
	is.Equal(oneSided, []string{"added ipc-channel ipc dog:load",
		`added javascript-function function ipcMain.handle("dog:load") handler in app-2.asar/main.js`,
		"removed ipc-channel ipc dog:fetch",
		`removed javascript-function function ipcMain.handle("dog:fetch") handler in app-1.asar/main.js`})
}

// TestVersionsBareASARAgainstItsReleaseZIP: the same app as a bare ASAR and
// as a release ZIP holding it (app.asar at the ZIP's top) pairs every node:
// the ZIP's paths under app.asar/ are the ASAR's own, and a source map's
// source is the same source module whether its path resolves outside the
// bare ASAR or inside the ZIP. Before, the processes and the window were
// each removed from one side and added on the other, and the source module
// changed (outside_app against a resolved_path).
func TestVersionsBareASARAgainstItsReleaseZIP(t *testing.T) {
	is := is.New(t)
	files := map[string]string{
		"package.json": `{"name":"dogs","version":"1.0.0","main":"main.js"}`,
		"main.js": "const { app, BrowserWindow, ipcMain } = require('electron');\nipcMain.handle('dog:fetch', () => 1);\n" +
			"app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: require('path').join(__dirname, 'preload.js') } }));\n",
		"preload.js": "const { contextBridge, ipcRenderer } = require('electron');\n" +
			"contextBridge.exposeInMainWorld('dogs', { fetchDog: (n) => ipcRenderer.invoke('dog:fetch', n) });\n",
		// A map whose source lies above the ASAR: outside the bare ASAR's
		// root, inside the ZIP's.
		"renderer/bundle.js":     "console.log('dogs');\n//# sourceMappingURL=bundle.js.map\n",
		"renderer/bundle.js.map": `{"version":3,"sources":["../../src/dogs.ts"],"sourcesContent":["console.log('dogs')"],"mappings":"AAAA"}`,
	}
	holder := t.TempDir()
	bare := filepath.Join(holder, "app.asar")
	packASAR(t, writeTree(t, files), bare)
	archive := filepath.Join(t.TempDir(), "release.zip")
	writeAppZip(t, archive, holder, "", nil)
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a1 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": bare})
	a2 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive})
	for _, pair := range [][2]*core.Evidence{{a1, a2}, {a2, a1}} {
		var res struct {
			Items []struct {
				NodeKind string `json:"node_kind"`
				Status   string `json:"status"`
			} `json:"items"`
		}
		cv := jaCall(t, s, "compare_application_versions", map[string]any{"left": ref(pair[0]), "right": ref(pair[1])})
		is.NoErr(json.Unmarshal(cv.NormalizedResult, &res))
		var notSame []string
		for _, it := range res.Items {
			if it.Status != "unchanged" {
				notSame = append(notSame, it.Status+" "+it.NodeKind)
			}
		}
		sort.Strings(notSame)
		is.Equal(notSame, []string(nil))
	}
}

// TestJSAppZipSourceMapStaysInTheASAR: a sourceMappingURL in a file of an
// ASAR that a release ZIP holds resolves as it does in the bare ASAR,
// relative to the file's entry in the ASAR: ../y.map from the ASAR's
// top-level top.js is outside the ASAR (before, it read the map the ZIP
// holds beside the ASAR, App/resources/y.map), and ../x.map from
// dist/main.js is the ASAR's x.map in both.
func TestJSAppZipSourceMapStaysInTheASAR(t *testing.T) {
	is := is.New(t)
	files := map[string]string{
		"package.json": `{"name":"maps","version":"1.0.0","main":"dist/main.js"}`,
		"dist/main.js": "export function hello(a) { return a; }\n//# sourceMappingURL=../x.map\n",
		"top.js":       "export function top(a) { return a; }\n//# sourceMappingURL=../y.map\n",
		"x.map":        `{"version":3,"sources":["in-asar.ts"],"mappings":"AAAA"}`,
	}
	tmp := t.TempDir()
	bare := filepath.Join(tmp, "app.asar")
	packASAR(t, writeTree(t, files), bare)
	asarBytes, err := os.ReadFile(bare)
	is.NoErr(err)
	release := filepath.Join(tmp, "release.zip")
	writeAppZip(t, release, "", "", map[string]string{"App/resources/app.asar": string(asarBytes),
		"App/resources/y.map": `{"version":3,"sources":["beside-asar.ts"],"mappings":"AAAA"}`})
	s := jaSession(t)
	for _, c := range []struct{ input, prefix, outside string }{{bare, "", "the app"}, {release, "App/resources/app.asar/", "App/resources/app.asar"}} {
		r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": c.input}))
		var sources []string
		for _, n := range r.Graph.Nodes {
			if n.Kind == "source-module" {
				sources = append(sources, n.Identity["original_source"].(string))
			}
		}
		is.Equal(sources, []string{"in-asar.ts"}) // dist/main.js's ../x.map, and not beside-asar.ts
		found := false
		for _, u := range r.Unknowns {
			if u["path"] == c.prefix+"top.js" {
				found = true
				is.Equal(u["kind"], "external-source-map")
				is.Equal(u["detail"], "source map ../y.map is outside "+c.outside+"; not read")
			}
		}
		is.True(found) // top.js's map is named as not read
	}
}
