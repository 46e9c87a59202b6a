package jsapp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// An app is Electron by its own packages, its code's imports of electron or
// its windows: a package under node_modules that depends on electron (here
// in devDependencies, as @electron/asar does to test itself) does not make
// a plain Node tree an Electron app, while the app's own devDependencies
// (where Electron apps usually list it) do.
func TestElectronDetectedByTheAppsOwnPackages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"dependency's devDependencies", map[string]string{
			"package.json":                   `{"name":"tool","main":"index.js","dependencies":{"lib":"1"}}`,
			"node_modules/lib/package.json":  `{"name":"lib","devDependencies":{"electron":"^22.0.0"}}`,
			"node_modules/lib/index.js":      "x",
			"index.js":                       "x",
			"node_modules/lib2/package.json": `{"name":"lib2","peerDependencies":{"electron":"*"}}`,
		}, false},
		{"the app's devDependencies", map[string]string{
			"package.json": `{"name":"app","main":"main.js","devDependencies":{"electron":"^31.0.0"}}`,
			"main.js":      "x",
		}, true},
		{"a nested app package", map[string]string{
			"package.json":     `{"name":"workspace","private":true}`,
			"app/package.json": `{"name":"app","main":"main.js","dependencies":{"electron":"31"}}`,
			"app/main.js":      "x",
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: portstest.FakeJS{}, observe: func(string) {}}
			out, err := analyzeJSApp(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.result["electron"].(map[string]any)["detected"]; got != tc.want {
				t.Fatalf("electron.detected = %v, want %v", got, tc.want)
			}
		})
	}
}

// A node's path comes from its identity when its observations' properties
// lost it to their bounds (an asset with many exports keeps export_shapes,
// cut in key order, and loses path): traces seeded by a module path and
// every other reader of the path still find the asset.
func TestNodePathSurvivesBoundedProperties(t *testing.T) {
	n := &Node{Kind: "javascript-asset", Identity: map[string]any{"path": "dist/app.mjs", "strategy": idCanonicalPath},
		Observations: []Observation{{Properties: map[string]any{"export_shapes": []any{}, "path": nil}}}}
	if got := n.propString("path"); got != "dist/app.mjs" {
		t.Fatalf("path %q, want the identity's dist/app.mjs", got)
	}
	n.Observations[0].Properties["path"] = "other.js" // an observation's own value wins
	if got := n.propString("path"); got != "other.js" {
		t.Fatalf("path %q, want the observation's other.js", got)
	}
	if got := n.propString("sha256"); got != "" { // not an identity member here
		t.Fatalf("sha256 %q, want none", got)
	}
}

// A module with many exports keeps its other properties: exports and
// export_shapes are cut to fit the property budget before the bound would
// cut in key order (export_shapes sorts before path, sha256, size and
// status, which came out null), and exports_total counts every name.
func TestManyExportsLeaveRoomForTheAssetsFacts(t *testing.T) {
	for _, n := range []int{1, 50, 83, 84, 300, 5000} {
		props := map[string]any{"path": "dist/app.mjs", "sha256": "ab", "size": 12, "status": "parsed", "module_type": "esm", "bundler": "esbuild"}
		var names []string
		var exports []ports.JSExport
		for i := range n {
			name := fmt.Sprintf("e%05d", i)
			names = append(names, name)
			exports = append(exports, ports.JSExport{Name: name, Value: ports.JSValueShape{Kind: ports.JSValueFunction, Params: 2}})
		}
		shapes := exportShapes(exports)
		k := exportsRoom(props, len(names), len(shapes))
		props["exports"] = names[:min(k, n)]
		props["export_shapes"] = shapes[:min(k, n)]
		if !propsWithinBounds(props) {
			t.Fatalf("%d exports: the properties exceed their bounds (kept %d)", n, k)
		}
		total, cut := props["exports_total"]
		if cut != (k < n) || (cut && total != n) || k == 0 {
			t.Fatalf("%d exports: kept %d, exports_total %v", n, k, total)
		}
		if b := boundProps(props); b["sha256"] != "ab" || b["status"] != "parsed" || b["path"] != "dist/app.mjs" {
			t.Fatalf("%d exports: bounded properties lost facts: %v %v %v", n, b["sha256"], b["status"], b["path"])
		}
	}
}

// dupExportEngine reports every file's exports as the fake finds them plus
// a default export seen twice, as the engine does for two module.exports
// assignments it has no offset for.
type dupExportEngine struct{ portstest.FakeJS }

func (e dupExportEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, err := e.FakeJS.Facts(ctx, req)
	if err == nil {
		d := ports.JSExport{Name: "default", Kind: "commonjs", Offset: -1, Value: ports.JSValueShape{Kind: ports.JSValueFunction, Params: 1}}
		f.Exports = append(f.Exports, d, d, ports.JSExport{Name: "other", Kind: "commonjs", Offset: -1})
	}
	return f, err
}

// The same export fact twice is one semantic relation (npm-10 had 101 such
// duplicates), while distinct exports all stay.
func TestDuplicateExportFactsAreOneRelation(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("module.exports = function (x) {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := analyzedWith(t, dir, dupExportEngine{})
	count := map[string]int{}
	for _, r := range res.Semantic.Relations {
		if r["relation"] == "exports" {
			name, _ := r["name"].(string)
			count[name]++
		}
	}
	if count["default"] != 1 || count["other"] != 1 {
		t.Fatalf("export relations by name: %v; want default and other once each", count)
	}
}

// A result of another schema_version is refused, not read: version 3's
// semantic relation rows hold the same cells in another order, so reading
// one as 4 would put names in position fields without any error.
func TestDecodeAppRefusesAnotherResultVersion(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.js"), []byte("export const a = 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: portstest.FakeJS{}, observe: func(string) {}}
	out, err := analyzeJSApp(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]any{}
	for k, v := range out.result {
		res[k] = v
	}
	b, err := core.CanonicalJSON(res)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeApp(b); err != nil {
		t.Fatalf("this version's own result: %v", err)
	}
	res["schema_version"] = 3
	if b, err = core.CanonicalJSON(res); err != nil {
		t.Fatal(err)
	}
	_, err = decodeApp(b)
	if err == nil || !strings.Contains(err.Error(), "schema_version 3") || !strings.Contains(err.Error(), "analyze the application again") {
		t.Fatalf("a version 3 result: %v; want a refusal naming the version", err)
	}
}
