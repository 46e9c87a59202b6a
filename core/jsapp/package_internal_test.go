package jsapp

import (
	"strings"
	"testing"
)

func TestPackageExportsOrderAndShapes(t *testing.T) {
	entries, problem := packageExports([]byte(`{".":[{"browser":"./b.js"},"./fallback.js"],"./x":{"types":"./x.d.ts","default":"./x.js"},"./n":null}`))
	if problem != "" {
		t.Fatal(problem)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.subpath+" "+strings.Join(e.conditions, ".")+" "+e.target)
	}
	want := ". browser ./b.js|.  ./fallback.js|./x types ./x.d.ts|./x default ./x.js"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %q\nwant %q", strings.Join(got, "|"), want)
	}
	if _, problem := packageExports([]byte(strings.Repeat(`{"a":`, 40) + `"./x.js"` + strings.Repeat("}", 40))); !strings.Contains(problem, "nested deeper") {
		t.Fatalf("deep exports: %q", problem)
	}
	many := `{` + strings.Repeat(`"./a":"./a.js",`, 1500) + `"./b":"./b.js"}`
	if e, problem := packageExports([]byte(many)); len(e) != jsappMaxPackageEntries || !strings.Contains(problem, "more than") {
		t.Fatalf("%d entries, %q", len(e), problem)
	}
}

// FuzzPackageJSON: package.json text is untrusted; reading it never panics
// and never yields more entries than the bound.
func FuzzPackageJSON(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[]`, `{"main":false}`, `{"exports":"./a.js"}`, `{"exports":{".":{"node":{"import":"./a.mjs"}},"./*":"./src/*.js"}}`,
		`{"exports":{"a":"./a.js",".":"./b.js"}}`, `{"exports":[[[["./x"]]]]}`, `{"dependencies":1,"name":{"x":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pkg := &jsPackage{path: "package.json", dir: ".", deps: map[string]bool{}}
		parsePackageJSON(pkg, b)
		if len(pkg.entries) > jsappMaxPackageEntries+2 {
			t.Fatalf("%d entries", len(pkg.entries))
		}
		st := &jsappState{files: map[string]*jsFile{}, packages: map[string]*jsPackage{".": pkg}, assets: map[string]*jsAsset{}}
		for _, sub := range []string{"", "a", "src/x"} {
			st.resolveExports(pkg, sub, "require")
		}
		for _, e := range pkg.entries {
			st.resolveEntry(pkg, e)
		}
	})
}

// TestResolveFileEndsOnPackageCycles: a package whose main is its own
// directory ("." or "./", as the npm package "resolve"'s fixtures have), two
// packages whose mains name each other, and a "." export naming the
// package's own directory all resolve to the index file or to nothing,
// without recursing forever.
func TestResolveFileEndsOnPackageCycles(t *testing.T) {
	pkg := func(dir, main, exports string) *jsPackage {
		p := &jsPackage{path: dir + "/package.json", dir: dir, deps: map[string]bool{}}
		body := `{"main":` + main
		if exports != "" {
			body += `,"exports":` + exports
		}
		parsePackageJSON(p, []byte(body+`}`))
		return p
	}
	st := &jsappState{files: map[string]*jsFile{"self/index.js": {}, "slash/index.js": {}}, assets: map[string]*jsAsset{},
		packages: map[string]*jsPackage{
			"self":  pkg("self", `"."`, ""),
			"slash": pkg("slash", `"./"`, `{".":"./"}`),
			"a":     pkg("a", `"../b"`, ""),
			"b":     pkg("b", `"../a"`, `{".":"../a"}`),
		}}
	for dir, want := range map[string]string{"self": "self/index.js", "slash": "slash/index.js", "a": "", "b": ""} {
		got, ok := st.resolveFile(dir)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", dir, got, ok, want)
		}
	}
}
