package jsapp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"rea/core"
	"rea/ports"
)

// analyzeOne analyzes a directory holding files, where file path has the
// facts given (as the JavaScript engine gives them).
func analyzeOne(t *testing.T, files map[string]string, path string, facts ports.JSFacts) *appResult {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return analyzedWith(t, dir, bundleEngine{path: path, facts: facts})
}

// analyzedWith analyzes the directory dir with engine and decodes the
// canonical result, as a client reads it.
func analyzedWith(t *testing.T, dir string, engine ports.JavaScriptEngine) *appResult {
	t.Helper()
	req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: engine, observe: func(string) {}}
	out, err := analyzeJSApp(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := core.CanonicalJSON(out.result)
	if err != nil {
		t.Fatal(err)
	}
	res, err := decodeApp(b)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDynamicStorageUnknownNamesItsNode: the unknown of a storage key
// computed at run time names the key's own node (one per expression and
// file), from which a trace can start, not the file.
func TestDynamicStorageUnknownNamesItsNode(t *testing.T) {
	src := "localStorage.setItem(key, v);\n"
	facts := ports.JSFacts{Parsed: true, ModuleType: "script", Calls: []ports.JSCall{{Callee: "localStorage.setItem", Offset: -1, CalleeOffset: 13, Position: 13, InModule: -1,
		Args: []ports.JSValue{{Kind: ports.JSValName, Value: "key", Offset: -1}, {Kind: ports.JSValName, Value: "v", Offset: -1}}}}}
	res := analyzeOne(t, map[string]string{"package.json": `{"name":"s","main":"app.js"}`, "app.js": src}, "app.js", facts)
	var storage *Node
	for _, n := range res.Graph.Nodes {
		if n.Kind == "storage" {
			storage = n
		}
	}
	if storage == nil || storage.propString("expression") != "${key}" {
		t.Fatalf("storage node %+v, want the key's expression ${key}", storage)
	}
	var found bool
	for _, u := range res.Unknowns {
		if u["kind"] != "dynamic-storage-key" {
			continue
		}
		found = true
		if u["node_id"] != storage.NodeID {
			t.Errorf("unknown names %v, want the key's node %s", u["node_id"], storage.NodeID)
		}
	}
	if !found {
		t.Fatalf("no dynamic-storage-key unknown in %v", res.Unknowns)
	}
}
