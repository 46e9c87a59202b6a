package jsapp

import (
	"testing"

	"rea/ports"
)

// TestExportViewWithoutReexportsIsTheFacts: a file that re-exports nothing
// is seen by its importers with its own exports, which the view hands out
// as they are rather than copying them for every file; a re-export still
// takes the shape of the name in its source module.
func TestExportViewWithoutReexportsIsTheFacts(t *testing.T) {
	st := &jsappState{assets: map[string]*jsAsset{}, files: map[string]*jsFile{}}
	lib := &jsAsset{jsFile: &jsFile{path: "lib.js", kind: "javascript"}, facts: &ports.JSFacts{Exports: []ports.JSExport{
		{Name: "f", Kind: "named", Offset: 1, Value: ports.JSValueShape{Kind: ports.JSValueFunction, Params: 2}},
	}}}
	index := &jsAsset{jsFile: &jsFile{path: "index.js", kind: "javascript"}, facts: &ports.JSFacts{Exports: []ports.JSExport{
		{Name: "f", Kind: "re-export", Source: "./lib.js", Local: "f", Offset: 3},
		{Name: "*", Kind: "export-all", Source: "./empty.js", Offset: 5},
	}}}
	empty := &jsAsset{jsFile: &jsFile{path: "empty.js", kind: "javascript"}, facts: &ports.JSFacts{}}
	for _, a := range []*jsAsset{empty, lib, index} {
		st.assets[a.path], st.files[a.path] = a, a.jsFile
		st.order, st.assetOrder = append(st.order, a.path), append(st.assetOrder, a.path)
	}
	st.resolved = map[resolveKey]resolvedModule{}
	b := newJSAppBuilder(st)
	v := b.exportView(lib)
	if len(v) != 1 || &v[0] != &lib.facts.Exports[0] {
		t.Fatalf("the view of a file without re-exports is a copy: %+v", v)
	}
	// export * from a module that exports nothing adds nothing: it is
	// resolved, not left as an unknown "*".
	v = b.exportView(index)
	if len(v) != 1 || v[0].Value.Kind != ports.JSValueFunction || v[0].Value.Params != 2 {
		t.Fatalf("the re-exports' view: %+v", v)
	}
}
