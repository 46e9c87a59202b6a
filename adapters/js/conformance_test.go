package js_test

import (
	"os"
	"path/filepath"
	"testing"

	"rea/adapters/js"
	"rea/ports/portstest"
)

// The engine runs the JavaScript conformance suite on hand-written sources
// of each module kind and on the committed esbuild outputs.
func TestJavaScriptConformance(t *testing.T) {
	samples := []portstest.JSSample{
		{Path: "main.js", Source: []byte("const {ipcMain: i} = require('electron');\ni.handle('ping', async () => 'pong');\nnew Worker(new URL('./w.js', import.meta.url));\n")},
		{Path: "module.mjs", Source: []byte("import x from './x.js';\nexport * from './y.js';\nexport default function f(a, b) { return import('./z.js'); }\n//# sourceMappingURL=module.mjs.map\n")},
		{Path: "bundle.js", Source: []byte(`(()=>{var e={12:(e,t,r)=>{r(34)},34:e=>{e.exports="x"}},t={};function r(o){var n=t[o];if(void 0!==n)return n.exports;var s=t[o]={exports:{}};return e[o](s,s.exports,r),s.exports}r(12)})();`)},
	}
	files, _ := filepath.Glob("testdata/esbuild/*.js")
	for _, name := range files[:min(len(files), 4)] {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, portstest.JSSample{Path: name, Source: b})
	}
	portstest.RunJavaScript(t, js.New(), samples...)
}
