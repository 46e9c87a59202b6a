package main

import (
	"strings"
	"testing"
)

// windowApp is an Electron app whose main process makes a window with a
// preload named through path.join and loads a page whose script is a
// bundle with a source map.
var windowApp = map[string]string{
	"package.json": `{"name":"win","main":"main.js","devDependencies":{"electron":"31"}}`,
	"main.js": `const { app, BrowserWindow } = require("electron");
const path = require("path");

app.whenReady().then(() => {
  const win = new BrowserWindow({
    webPreferences: { preload: path.join(__dirname, "preload.js") },
  });
  win.loadFile("index.html");
});
`,
	"preload.js":    "const { contextBridge } = require(\"electron\");\ncontextBridge.exposeInMainWorld(\"w\", { ping: () => 1 });\n",
	"index.html":    "<!doctype html>\n<html>\n<body>\n  <script src=\"dist/r.js\"></script>\n</body>\n</html>\n",
	"dist/r.js":     "console.log(window.w.ping());\n//# sourceMappingURL=r.js.map\n",
	"dist/r.js.map": `{"version":3,"file":"r.js","sources":["../src/r.js"],"names":[],"mappings":"AAAA"}`,
}

// Every step of a trace is placed at its line and column or says why it
// cannot be: the preload's loads steps at the preload's path literal, the
// main process at its window's constructor, the page's script at its src
// attribute (an HTML document's line and column), the bundle's maps_to at
// its sourceMappingURL comment; a source map's contains step, from no
// statement, says so. Before, the preload and main process steps had no
// offset, the script and maps_to steps an offset and no line, and a step
// without a line said nothing about why.
func TestTraceStepsAreLocatedOrSayWhyNot(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, windowApp)})
	paths := traceOf(t, s, ev, map[string]any{"kind": "module", "value": "main.js"}, "outgoing")
	want := map[string]string{
		"preload process preload.js": `"preload.js"`,
		"preload.js":                 `"preload.js"`,
		"dist/r.js":                  `dist/r.js"`,
		"dist/r.js.map":              `r.js.map`,
	}
	seen := map[string]bool{}
	for _, p := range paths {
		for i, l := range p.Locations {
			label, rel := p.Labels[i+1], p.Relations[i]
			if l["line"] == nil {
				if r, _ := l["unknown_reason"].(string); r == "" {
					t.Errorf("%s step to %s at %v: no line and no unknown_reason", rel, label, l)
				}
				continue
			}
			path, _ := l["path"].(string)
			text := windowApp[path]
			off := int(l["offset"].(float64))
			line, col := lineColumn(text, off)
			if l["line"] != float64(line) || l["column"] != float64(col) {
				t.Errorf("%s step to %s at %v, want line %d column %d", rel, label, l, line, col)
			}
			if w, ok := want[label]; ok {
				seen[label] = true
				if !strings.HasPrefix(text[off:], w) {
					t.Errorf("%s step to %s at %q, want at %s", rel, label, text[off:min(off+20, len(text))], w)
				}
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("located steps %v, want all of %v", seen, want)
	}
}
