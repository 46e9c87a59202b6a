package jsapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// esbuildBin is the esbuild of the repository's node_modules, or skips.
func esbuildBin(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(wd, "..", "..", "node_modules", ".bin", "esbuild")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node_modules/.bin/esbuild is missing in CI: run npm ci")
		}
		t.Skip("node_modules/.bin/esbuild is missing: run npm ci at the repository root")
	}
	return bin
}

// conventionPos is the 0-based line (ended by \n, \r, \r\n, U+2028, U+2029)
// and UTF-16 column of byte offset off in text, computed apart from
// positionsAt.
func conventionPos(text string, off int) genPos {
	pre := text[:off]
	ends := regexp.MustCompile("\r\n|\r|\n|\u2028|\u2029").FindAllStringIndex(pre, -1)
	start := 0
	if len(ends) > 0 {
		start = ends[len(ends)-1][1]
	}
	return genPos{int32(len(ends)), int32(len(utf16.Encode([]rune(pre[start:]))))}
}

// TestMappedCallSitesUseSourceMapColumns: the positions source maps are
// read at (a call site's, keepFacts) are the ones relations get: UTF-16
// columns and lines ending at \r\n too. A minified esbuild bundle of
// sources with non-ASCII text and CRLF line ends, its own lines then ended
// with \r\n (a Windows checkout), puts each IPC call after non-ASCII
// literals on its one line: the map, read at the call's position, names
// the call's literal in its original source, at its line and column.
func TestMappedCallSitesUseSourceMapColumns(t *testing.T) {
	bin := esbuildBin(t)
	dir := t.TempDir()
	srcs := map[string]string{
		"src/a.js": "// Ünïcödé 😀 header\r\nconst s = window.x || \"é😀é“”\";\r\nexport function hello(n) {\r\n  return s + n;\r\n}\r\nipcRenderer.send(\"a:ch\", hello(\"ö\"));\r\n",
		"src/b.js": "// Ωmega\r\nimport { hello } from './a.js';\r\nconst t = '😀😀😀ü';\r\nhello(t); window.api.send('b:ch', t + 'ä');\r\n",
	}
	for name, text := range srcs {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.js")
	cmd := exec.Command(bin, filepath.Join(dir, "src/b.js"), "--bundle", "--minify", "--format=iife", "--sourcemap", "--charset=utf8", "--outfile="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, b)
	}
	bundle, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	mapText, err := os.ReadFile(out + ".map")
	if err != nil {
		t.Fatal(err)
	}
	crlf := strings.ReplaceAll(string(bundle), "\n", "\r\n")
	sm, err := parseSourceMap(mapText)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ callee, channel, src string }{
		{"ipcRenderer.send", "a:ch", "src/a.js"},
		{"window.api.send", "b:ch", "src/b.js"},
	} {
		off := strings.Index(crlf, `"`+tc.channel+`"`)
		if off < 0 {
			t.Fatalf("%s is not in the bundle:\n%s", tc.channel, crlf)
		}
		if !strings.ContainsFunc(crlf[strings.LastIndexByte(crlf[:off], '\n')+1:off], func(r rune) bool { return r > 0x7f }) {
			t.Fatalf("no non-ASCII text before %s on its line: the case tests nothing", tc.channel)
		}
		f := &ports.JSFacts{
			SourceMap: &ports.JSSourceMapRef{URL: "out.js.map"},
			Calls: []ports.JSCall{{Callee: tc.callee, Offset: int64(off), CalleeOffset: -1, InModule: -1,
				Args: []ports.JSValue{{Kind: ports.JSValString, Value: tc.channel, Offset: int64(off)}}}},
		}
		kept := keepFacts(f, []byte(crlf))
		pos, ok := kept.callAt(int64(off))
		if !ok {
			t.Fatalf("%s: the call site was not kept", tc.channel)
		}
		if want := conventionPos(crlf, off); pos != want {
			t.Errorf("%s: generated position %+v, want %+v", tc.channel, pos, want)
		}
		seg, ok := sm.originalAt(pos)
		if !ok || seg.src < 0 || !strings.HasSuffix(sm.Sources[seg.src], tc.src) {
			t.Fatalf("%s: the map names %+v at %+v (sources %v)", tc.channel, seg, pos, sm.Sources)
		}
		orig := srcs[tc.src]
		lit := strings.Index(orig, `"`+tc.channel+`"`)
		if lit < 0 {
			lit = strings.Index(orig, `'`+tc.channel+`'`)
		}
		if want := conventionPos(orig, lit); seg.sline != want.line || seg.scol != want.col {
			t.Errorf("%s: original %s:%d:%d, want %d:%d", tc.channel, tc.src, seg.sline, seg.scol, want.line, want.col)
		}
	}
	// The generated lines a map may name end as positions' lines do.
	for src, want := range map[string]int{crlf: strings.Count(crlf, "\n") + 1, "a\rb\u2028c\r\n\u2029d": 5, "": 1} {
		if got := kept(src); got != want {
			t.Errorf("%q: %d lines, want %d", src, got, want)
		}
	}
}

func kept(src string) int {
	return keepFacts(&ports.JSFacts{SourceMap: &ports.JSSourceMapRef{}}, []byte(src)).lines
}

// bundleEngine gives the facts of one file as written (a real bundle whose
// module table and worker the test locates), and the fake's elsewhere.
type bundleEngine struct {
	portstest.FakeJS
	path  string
	facts ports.JSFacts
}

func (e bundleEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	if filepath.Base(req.Path) != e.path {
		return e.FakeJS.Facts(ctx, req)
	}
	f := e.facts
	return &f, nil
}

// TestBundledModuleWorkerHasItsPosition: a worker a bundled module starts
// (new Worker inside an esbuild __commonJS module) is a semantic relation
// with the line and column of its specifier, as the asset's own relations
// are, and the original position the bundle's source map gives there.
func TestBundledModuleWorkerHasItsPosition(t *testing.T) {
	bin := esbuildBin(t)
	dir := t.TempDir()
	srcs := map[string]string{
		"src/w.cjs":   "// ωorker ü\r\nmodule.exports = function start() {\r\n  const label = \"é😀\" + Math.random(); console.log(label);\r\n  return new Worker(\"./worker.js\", { name: label });\r\n};\r\n",
		"src/main.js": "const start = require(\"./w.cjs\");\nstart();\n",
	}
	for name, text := range srcs {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	app := filepath.Join(dir, "app")
	cmd := exec.Command(bin, filepath.Join(dir, "src/main.js"), "--bundle", "--minify", "--format=iife", "--sourcemap", "--charset=utf8",
		"--outfile="+filepath.Join(app, "bundle.js"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(filepath.Join(app, "bundle.js"))
	if err != nil {
		t.Fatal(err)
	}
	bundle := strings.ReplaceAll(string(raw), "\n", "\r\n")
	if err := os.WriteFile(filepath.Join(app, "bundle.js"), []byte(bundle), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "worker.js"), []byte("self.onmessage = () => {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	off := strings.Index(bundle, `"./worker.js"`)
	start := strings.LastIndex(bundle[:off], "var ")
	end := off + strings.Index(bundle[off:], "});") + 3
	if off < 0 || start < 0 || !strings.Contains(bundle[start:off], "é😀") {
		t.Fatalf("the bundle is not as the test expects:\n%s", bundle)
	}
	facts := ports.JSFacts{
		Parsed: true, ModuleType: "script", Bundler: "esbuild",
		Modules:   []ports.JSBundledModule{{Bundler: "esbuild", ID: "esbuild:cjs:0123456789ab", Start: int64(start), End: int64(end)}},
		Imports:   []ports.JSImport{{Kind: ports.JSWorker, Specifier: "./worker.js", Offset: int64(off), InModule: 0}},
		SourceMap: &ports.JSSourceMapRef{URL: "bundle.js.map", Offset: int64(strings.Index(bundle, "//# sourceMappingURL"))},
	}
	res := analyzedWith(t, app, bundleEngine{path: "bundle.js", facts: facts})
	var found bool
	for _, r := range res.Semantic.Relations {
		if r["relation"] != ports.JSWorker {
			continue
		}
		found = true
		gen := conventionPos(bundle, off)
		if num(r["line"]) != int64(gen.line+1) || num(r["column"]) != int64(gen.col) {
			t.Errorf("worker relation at %v:%v, want %d:%d (%v)", r["line"], r["column"], gen.line+1, gen.col, r)
		}
		w := srcs["src/w.cjs"]
		orig := conventionPos(w, strings.Index(w, `"./worker.js"`))
		if num(r["original_line"]) != int64(orig.line+1) || num(r["original_column"]) != int64(orig.col) || r["original_node_id"] == nil {
			t.Errorf("worker relation's original %v %v:%v, want src/w.cjs:%d:%d (%v)", r["original_node_id"], r["original_line"], r["original_column"], orig.line+1, orig.col, r)
		}
	}
	if !found {
		t.Fatalf("no worker relation in %v", res.Semantic.Relations)
	}
	// The module's bounds, read in the map at UTF-16 columns, hold
	// src/w.cjs's segments alone (at byte columns its end, past "é😀",
	// took in main.js's code after it).
	var maps []string
	for _, e := range res.Graph.Edges {
		if n := res.nodeByID(e.SourceNodeID); e.Relation == "maps_to" && n != nil && n.Kind == "javascript-module" {
			maps = append(maps, fmt.Sprint(res.nodeByID(e.TargetNodeID).propString("original_source"), " ", e.Properties["segments_sources"]))
		}
	}
	if len(maps) != 1 || !strings.HasSuffix(maps[0], "src/w.cjs 1") {
		t.Errorf("the module maps to %v, want src/w.cjs alone", maps)
	}
}

// num is a decoded number cell, or -1.
func num(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case json.Number:
		i, err := n.Int64()
		if err == nil {
			return i
		}
	}
	return -1
}

// TestDynamicIPCChannelFrontierIsLocated: an IPC call whose channel is
// computed (ipcMain.handle(ch, ...)) has no literal to locate it; its
// unknown frontier is located at the callee, with the line and column of
// that offset, as its unknown is.
func TestDynamicIPCChannelFrontierIsLocated(t *testing.T) {
	dir := t.TempDir()
	src := "const { ipcMain } = require(\"electron\");\r\nconst ch = \"é😀\" + Date.now(); ipcMain.handle(ch, () => 1);\r\n"
	files := map[string]string{"package.json": `{"name":"d","main":"main.js","devDependencies":{"electron":"1"}}`, "main.js": src}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	callee := strings.Index(src, "handle(")
	facts := ports.JSFacts{
		Parsed: true, ModuleType: "commonjs",
		Imports: []ports.JSImport{{Kind: ports.JSRequire, Specifier: "electron", Offset: int64(strings.Index(src, `"electron"`)), InModule: -1, Names: []string{"ipcMain"}}},
		Calls: []ports.JSCall{{Callee: "ipcMain.handle", Module: "electron", Member: "ipcMain.handle", Offset: -1, CalleeOffset: int32(callee), Position: int32(callee), InModule: -1,
			Args: []ports.JSValue{{Kind: ports.JSValName, Value: "ch", Offset: int64(strings.Index(src, "ch, "))}, {Kind: ports.JSValFunction, Offset: -1}}}},
	}
	res := analyzedWith(t, dir, bundleEngine{path: "main.js", facts: facts})
	var found bool
	for _, f := range res.Semantic.Frontiers {
		if f["kind"] != "dynamic-ipc-channel" {
			continue
		}
		found = true
		pos := conventionPos(src, callee)
		if num(f["offset"]) != int64(callee) || num(f["line"]) != int64(pos.line+1) || num(f["column"]) != int64(pos.col) {
			t.Errorf("frontier %v, want offset %d at %d:%d", f, callee, pos.line+1, pos.col)
		}
	}
	if !found {
		t.Fatalf("no dynamic-ipc-channel frontier in %v", res.Semantic.Frontiers)
	}
}

// TestEmptyASARIsRefusedAsMalformed: a file named as an ASAR archive, or
// passed with format asar, whose bytes are not one (0 bytes, too few for
// the header, or another content) is refused as a malformed archive is,
// saying why; before, a 0-byte app.asar was "neither a directory, an ASAR
// archive, ... (it is file)".
func TestEmptyASARIsRefusedAsMalformed(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, format, data, why string
	}{
		{"app.asar", "auto", "", "it is empty (0 bytes)"},
		{"App.ASAR", "auto", "\x04\x00\x00\x00\x10", "its 5 bytes are too few"},
		{"app.asar", "asar", strings.Repeat("x", 64), "its first bytes are not an ASAR header"},
		{"main.js", "asar", "console.log(\"a plain script\");\n", "its first bytes are not an ASAR header"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		req := jsappRequest{op: "analyze_javascript_application", path: p, given: p, format: tc.format, policy: "fail",
			engine: portstest.FakeJS{}, observe: func(string) {}}
		_, err := analyzeJSApp(context.Background(), req)
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != core.CodeArtifactOperationFailed || ce.Details["reason"] != "format" || !strings.Contains(ce.Message, "is not an ASAR archive: "+tc.why) {
			t.Errorf("%s (%d bytes, format %s): %v", tc.name, len(tc.data), tc.format, err)
		}
		os.Remove(p)
	}
	// A JavaScript file is still an application of one file.
	p := filepath.Join(dir, "main.js")
	if err := os.WriteFile(p, []byte("console.log(1);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := jsappRequest{op: "analyze_javascript_application", path: p, given: p, format: "auto", policy: "fail", engine: portstest.FakeJS{}, observe: func(string) {}}
	if _, err := analyzeJSApp(context.Background(), req); err != nil {
		t.Errorf("main.js: %v", err)
	}
}

// multiEngine gives the facts of the files it names as written, and the
// fake's elsewhere.
type multiEngine struct {
	portstest.FakeJS
	facts map[string]ports.JSFacts
}

func (e multiEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, ok := e.facts[filepath.Base(req.Path)]
	if !ok {
		return e.FakeJS.Facts(ctx, req)
	}
	return &f, nil
}

// TestClauseExportHasNoBorrowedOriginal: a minified esbuild bundle ends
// with export{t as Store,r as formatPrice}, which its map does not map;
// the segment before it on the line is the last module's code, so the
// export has its bundle position and no original one (before, formatPrice
// was "defined" at the fetch call before the clause). An export whose name
// the map maps (esbuild's transform of a module) keeps its original, and
// so does one between two segments of its line (a compiled exports.f = f)
// or one at its declaration past its line's last segment (a map of line
// starts).
func TestClauseExportHasNoBorrowedOriginal(t *testing.T) {
	bin := esbuildBin(t)
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	srcs := map[string]string{
		"src/store.js": "export class Store { add(x) { return x; } }\nexport function formatPrice(c) { return (c / 100).toFixed(2) + \" €\"; }\n",
		"src/index.js": "import { Store, formatPrice } from \"./store.js\";\nconst s = new Store();\nfetch(\"/api/items\").then((r) => r.json());\nexport { Store, formatPrice };\n",
		"src/mod.js":   "// ü\nexport function formatName(a) { return a; }\n",
	}
	for name, text := range srcs {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{filepath.Join(dir, "src/index.js"), "--bundle", "--minify", "--format=esm", "--outfile=" + filepath.Join(app, "bundle.js")},
		{filepath.Join(dir, "src/mod.js"), "--outfile=" + filepath.Join(app, "mod.js")},
	} {
		if b, err := exec.Command(bin, append(args, "--sourcemap", "--charset=utf8")...).CombinedOutput(); err != nil {
			t.Fatalf("esbuild: %v\n%s", err, b)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(app, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// A compiled CommonJS export statement mapped from its start and its
	// right-hand name (tsc's shape): the export's name lies between the
	// two segments and takes the first, the declaration's line.
	cjs := "exports.formatName = formatName;\n//# sourceMappingURL=cjs.js.map\n"
	for name, text := range map[string]string{"cjs.js": cjs,
		"cjs.js.map": `{"version":3,"sources":["../src/cjs.ts"],"mappings":"AACA,qBAAgB"}`} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A bundle whose map maps line starts only (webpack's cheap maps): an
	// export placed at its declaration, past its line's one segment,
	// takes that segment, the declaration's statement.
	lines := "function parse1(a) {\n  return a;\n}\nexport { parse1 };\n//# sourceMappingURL=lines.js.map\n"
	for name, text := range map[string]string{"lines.js": lines,
		"lines.js.map": `{"version":3,"sources":["../src/lines.ts"],"mappings":"AAEA;AACA;AACA"}`} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bundle, mod := read("bundle.js"), read("mod.js")
	clause := strings.LastIndex(bundle, "export{")
	price := clause + strings.Index(bundle[clause:], "formatPrice")
	name := strings.Index(mod, "formatName")
	if clause < 0 || price < clause {
		t.Fatalf("no export clause in the bundle:\n%s", bundle)
	}
	ref := func(name, src string) *ports.JSSourceMapRef {
		return &ports.JSSourceMapRef{URL: name + ".map", Offset: int64(strings.Index(src, "//# sourceMappingURL"))}
	}
	engine := multiEngine{facts: map[string]ports.JSFacts{
		"bundle.js": {Parsed: true, ModuleType: "esm", Bundler: "esbuild", SourceMap: ref("bundle.js", bundle),
			Exports: []ports.JSExport{{Name: "formatPrice", Kind: "named", Offset: int64(price), Value: ports.JSValueShape{Kind: ports.JSValueFunction, Params: 1}, InClause: true}}},
		"lines.js": {Parsed: true, ModuleType: "esm", SourceMap: ref("lines.js", lines),
			Exports: []ports.JSExport{{Name: "parse1", Kind: "named", Offset: int64(strings.Index(lines, "parse1")), Value: ports.JSValueShape{Kind: ports.JSValueFunction, Params: 1}}}},
		"cjs.js": {Parsed: true, ModuleType: "commonjs", SourceMap: ref("cjs.js", cjs),
			Exports: []ports.JSExport{{Name: "formatName", Kind: "commonjs", Offset: int64(strings.Index(cjs, "formatName"))}}},
		"mod.js": {Parsed: true, ModuleType: "esm", SourceMap: ref("mod.js", mod),
			Exports: []ports.JSExport{{Name: "formatName", Kind: "named", Offset: int64(name), Value: ports.JSValueShape{Kind: ports.JSValueFunction, Params: 1}}}},
	}}
	res := analyzedWith(t, app, engine)
	seen := map[string]bool{}
	for _, r := range res.Semantic.Relations {
		switch r["name"] {
		case "formatPrice":
			seen["formatPrice"] = true
			if pos := conventionPos(bundle, price); num(r["line"]) != int64(pos.line+1) || num(r["column"]) != int64(pos.col) || r["original_line"] != nil {
				t.Errorf("formatPrice: %v; want the bundle's %d:%d and no original", r, pos.line+1, pos.col)
			}
		case "parse1":
			seen["parse1"] = true
			if num(r["line"]) != 1 || num(r["column"]) != 9 || num(r["original_line"]) != 3 || num(r["original_column"]) != 0 {
				t.Errorf("parse1: %v; want 1:9 in lines.js, the original 3:0", r)
			}
		case "formatName":
			if r["kind"] == "commonjs" {
				seen["cjs"] = true
				if num(r["original_line"]) != 2 || num(r["original_column"]) != 0 {
					t.Errorf("cjs.js formatName: %v; want the original 2:0", r)
				}
				continue
			}
			seen["formatName"] = true
			orig := conventionPos(srcs["src/mod.js"], strings.Index(srcs["src/mod.js"], "formatName"))
			if num(r["original_line"]) != int64(orig.line+1) || num(r["original_column"]) != int64(orig.col) {
				t.Errorf("formatName: %v; want the original %d:%d", r, orig.line+1, orig.col)
			}
		}
	}
	if !seen["formatPrice"] || !seen["formatName"] || !seen["cjs"] || !seen["parse1"] {
		t.Fatalf("relations %v", res.Semantic.Relations)
	}
}

func (r *appResult) nodeByID(id string) *Node {
	for _, n := range r.Graph.Nodes {
		if n.NodeID == id {
			return n
		}
	}
	return nil
}

// TestSourceMapURLStaysInItsArchive: a source map URL is resolved against
// the file's place in the innermost archive that holds it (a file of the
// app with entries beneath it), as for a bare ASAR, and one that climbs
// above that archive's root names no file, not one that the release ZIP
// holds beside the ASAR (before, ../y.map from the ASAR's top.js read
// App/resources/y.map); one that climbs above the input is outside the
// app. cmd/rea's TestJSAppZipApplications checks it on a real ZIP.
func TestSourceMapURLStaysInItsArchive(t *testing.T) {
	st := &jsappState{files: map[string]*jsFile{}}
	for _, p := range []string{"App/resources/app.asar", "App/resources/app.asar/top.js", "App/resources/app.asar/dist/main.js",
		"App/resources/app.asar/x.map", "App/resources/y.map", "App/main.js", "z.map"} {
		st.files[p] = &jsFile{path: p}
	}
	for _, c := range []struct{ asset, url, mp, outside string }{
		{"App/resources/app.asar/dist/main.js", "../x.map", "App/resources/app.asar/x.map", ""},
		{"App/resources/app.asar/dist/main.js", "main.js.map", "App/resources/app.asar/dist/main.js.map", ""},
		{"App/resources/app.asar/top.js", "../y.map", "", "App/resources/app.asar"},
		{"App/resources/app.asar/dist/main.js", "../../y.map", "", "App/resources/app.asar"},
		{"App/resources/app.asar/top.js", "../app.asar/x.map", "", "App/resources/app.asar"},
		{"App/main.js", "../z.map", "z.map", ""},
		{"App/main.js", "../../z.map", "", "the app"},
		{"top.js", "../y.map", "", "the app"}, // a bare ASAR's file
	} {
		mp, outside := st.mapFilePath(c.asset, c.url)
		if mp != c.mp || outside != c.outside {
			t.Errorf("%s names %s: %q outside %q, want %q outside %q", c.asset, c.url, mp, outside, c.mp, c.outside)
		}
	}
}
