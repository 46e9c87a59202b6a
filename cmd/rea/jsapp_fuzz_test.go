package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"rea/core"
)

// FuzzJSApp analyzes a small application whose package.json, entry
// script, a second script, the entry's source map and a page are
// untrusted bytes, through the wired JavaScript engine and the application
// build: the analysis answers, as content is never a request error, and
// nothing panics (a panic would come back as an internal error). Nearly
// every input reaches new code, and the fuzzer minimizes each such input
// for up to a minute: run it with -fuzzminimizetime 1x (about 40
// executions a second here, against fewer than ten in 40 seconds with the
// default).
func FuzzJSApp(f *testing.F) {
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "jsapp", p))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(read("electron/package.json"), read("electron/main.js"), read("electron/preload.js"), read("maps/indexed.js.map"), read("electron/index.html"))
	f.Add(read("npmapp/package.json"), read("npmapp/main.js"), read("npmapp/preload.js"), read("maps/garbage.js.map"), read("npmapp/index.html"))
	f.Add([]byte(`{"main":"main.js","exports":{".":"./lib/b.js"}}`), []byte("var a = require('./lib/b.js');\nvar b = 2;\n//# sourceMappingURL=main.js.map\n"), read("electron/renderer.js"),
		[]byte(`{"version":3,"sources":["a.ts"],"sourcesContent":["x"],"mappings":"AAAA;AACA"}`), []byte(`<script type="module" src="lib/b.js"></script>`))
	a, err := wire(noEnv)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, pkg, main, lib, sourceMap, page []byte) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "lib"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"package.json": pkg, "main.js": main, "lib/b.js": lib, "main.js.map": sourceMap, "index.html": page} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s := core.NewSession(a.cat, a.reg, nil)
		defer s.Close(context.Background())
		raw, _ := json.Marshal(map[string]any{"path": dir})
		if _, err := s.Call(context.Background(), "analyze_javascript_application", raw, nil); err != nil {
			t.Fatal(core.AsError("analyze_javascript_application", err).JSON())
		}
	})
}
