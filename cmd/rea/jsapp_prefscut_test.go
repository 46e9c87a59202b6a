package main

import (
	"fmt"
	"strings"
	"testing"
)

// A BrowserWindow whose options the engine cut (it keeps an object's
// first 32 properties) says on its node which security preferences may be
// set past the cut, and reports none of them as observed: here sandbox
// and contextIsolation are set to false past the cut. Before, the node
// just lacked them, read as Electron's defaults, and only the file's
// limitation hinted at it. So does one whose options or webPreferences
// are computed (a let, a call, a const object the file changes in place),
// which the analysis does not follow; a const bound to an object literal
// is read as if written inline.
func TestJSAppCutWebPreferencesAreMarked(t *testing.T) {
	var many []string
	for i := range 33 {
		many = append(many, fmt.Sprintf("k%d: %d", i, i))
	}
	pad := strings.Join(many, ", ")
	cases := []struct {
		name, opts string
		cut        []any // web_preferences_unseen; nil: none
		props      map[string]any
	}{
		{"webPreferences cut",
			`{ webPreferences: { nodeIntegration: true, ` + pad + `, sandbox: false, contextIsolation: false } }`,
			[]any{"contextIsolation", "sandbox", "webSecurity", "preload"}, map[string]any{"nodeIntegration": true}},
		{"options cut before webPreferences",
			`{ ` + pad + `, webPreferences: { sandbox: false } }`,
			[]any{"nodeIntegration", "contextIsolation", "sandbox", "webSecurity", "preload"}, map[string]any{}},
		{"whole",
			`{ webPreferences: { sandbox: false } }`,
			nil, map[string]any{"sandbox": false}},
		{"options in a const",
			`opts`,
			nil, map[string]any{"nodeIntegration": true}},
		{"webPreferences in a const",
			`{ webPreferences: prefsObj }`,
			nil, map[string]any{"sandbox": false, "contextIsolation": true}},
		{"options in a let",
			`lopts`,
			[]any{"nodeIntegration", "contextIsolation", "sandbox", "webSecurity", "preload"}, map[string]any{}},
		{"options in a const changed later",
			`later`,
			[]any{"nodeIntegration", "contextIsolation", "sandbox", "webSecurity", "preload"}, map[string]any{}},
		{"webPreferences computed",
			`{ width: 800, webPreferences: prefs() }`,
			[]any{"nodeIntegration", "contextIsolation", "sandbox", "webSecurity", "preload"}, map[string]any{}},
		{"no options: Electron's defaults",
			``,
			nil, map[string]any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{
				"package.json": `{"name":"w","main":"main.js"}`,
				"main.js": "const { app, BrowserWindow } = require('electron');\nconst opts = { webPreferences: { nodeIntegration: true } };\n" +
					"const prefsObj = { sandbox: false, contextIsolation: true };\nlet lopts = { webPreferences: { nodeIntegration: true } };\n" +
					"const later = { webPreferences: { nodeIntegration: true } };\n" +
					"function prefs() { return { sandbox: false }; }\napp.whenReady().then(() => new BrowserWindow(" + c.opts + "));\n" +
					"later.webPreferences.nodeIntegration = false;\n",
			})
			g, _ := labelledGraph(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": dir}))
			n := 0
			for _, nd := range g.Nodes {
				if nd.Kind != "browser-window" {
					continue
				}
				n++
				p := nd.Observations[0].Properties
				if got := fmt.Sprint(p["web_preferences_unseen"]); p["web_preferences_unseen"] != nil || c.cut != nil {
					if got != fmt.Sprint(c.cut) {
						t.Errorf("web_preferences_unseen = %s, want %v", got, c.cut)
					}
				}
				for _, k := range []string{"nodeIntegration", "contextIsolation", "sandbox", "webSecurity"} {
					if fmt.Sprint(p[k]) != fmt.Sprint(c.props[k]) {
						t.Errorf("%s = %v, want %v", k, p[k], c.props[k])
					}
				}
			}
			if n != 1 {
				t.Fatalf("%d browser-window nodes, want 1", n)
			}
		})
	}
}
