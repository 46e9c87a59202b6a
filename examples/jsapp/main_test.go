package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// writeApp lays out a small Electron application: a package.json naming
// its main script, which opens a window with a preload and handles one IPC
// channel.
func writeApp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"package.json": `{"name":"demo","version":"1.0.0","main":"main.js"}`,
		"main.js": `const { app, BrowserWindow, ipcMain } = require("electron");
const path = require("path");
app.whenReady().then(() => {
  const w = new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js") } });
  w.loadFile("index.html");
});
ipcMain.handle("demo:ping", () => "pong");
`,
		"preload.js": `const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("demo", { ping: () => ipcRenderer.invoke("demo:ping") });
`,
		"index.html": `<!doctype html><title>demo</title>`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAnalyze(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(analyze(context.Background(), &out, writeApp(t)))
	text := out.String()
	is.True(strings.Contains(text, "(directory), root artifact "))
	is.True(strings.Contains(text, "evidence ev_"))
	is.True(strings.Contains(text, "  ipc_paired: 1\n"))      // demo:ping, handled and invoked
	is.True(strings.Contains(text, "  preload_scripts: 1\n")) // preload.js, from webPreferences
	is.True(strings.Contains(text, "  browser_windows: 1\n"))
	is.True(strings.Contains(text, "inventory: 5 contents at 5 paths\n")) // the root directory and its four files
	is.True(strings.Contains(text, "trace from main.js: "))
	is.True(analyze(context.Background(), &out, filepath.Join(t.TempDir(), "missing")) != nil)
}

func TestCompareVersions(t *testing.T) {
	is := is.New(t)
	older, newer := writeApp(t), writeApp(t)
	is.NoErr(os.WriteFile(filepath.Join(newer, "preload.js"), []byte(`const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("demo", { ping: () => ipcRenderer.invoke("demo:ping"), quit: () => ipcRenderer.send("demo:quit") });
`), 0o644))
	var out bytes.Buffer
	is.NoErr(analyze(context.Background(), &out, older, newer))
	if !strings.Contains(out.String(), "compared with "+newer+": ") || strings.Contains(out.String(), ": 0 added, 0 removed, 0 changed") {
		t.Fatalf("no change found:\n%s", out.String())
	}
}
