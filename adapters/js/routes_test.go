package js_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rea/ports"
)

// routeList renders f's routes as "path via parent@text", the text being
// what the source holds at the route's offset.
func routeList(f *ports.JSFacts, src []byte) []string {
	var out []string
	for _, r := range f.Routes {
		at := "?"
		if r.Offset >= 0 && int(r.Offset)+len(r.Path)+2 <= len(src) {
			at = string(src[r.Offset : int(r.Offset)+len(r.Path)+2])
		}
		out = append(out, fmt.Sprintf("%s %s %d@%s", r.Path, r.Via, r.Parent, at))
	}
	return out
}

// toolCalls are the callees of f's calls whose first argument names a
// tool ({name: "..."}), as "callee name".
func toolCalls(f *ports.JSFacts) []string {
	var out []string
	for _, c := range f.Calls {
		if len(c.Args) == 0 || c.Args[0].Kind != ports.JSValObject {
			continue
		}
		for _, p := range c.Args[0].Props {
			if p.Key == "name" && p.Value.Kind == ports.JSValString {
				out = append(out, c.Callee+" "+p.Value.Value)
			}
		}
	}
	return out
}

func equalLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// TestRoutesAsData: route tables reach a router through a call, a routes
// property or a routes name, children are followed, and path data that
// reaches no router is not a route.
func TestRoutesAsData(t *testing.T) {
	src := `import { createBrowserRouter, createRouter } from "react-router";
const appRoutes = [{ path: "/", element: Home }, { path: "/items", children: kids }];
const kids = [{ path: ":id", children: [{ path: "edit" }, { index: true }] }, { path: "" }];
createBrowserRouter(appRoutes);
createRouter({ history, routes: [{ path: "/vue", component: V }] });
RouterModule.forRoot([{ path: "", component: A }, { path: "admin", component: B }]);
function f() { const table = [{ path: "/scoped" }]; useRoutes(table); }
function g() { const table = [{ path: "/not-this" }]; return table; }
fs.writeFileSync([{ path: "/etc/hosts" }, { path: "/etc/passwd" }]);
copy({ files: [{ path: "/tmp/x" }] });
const notRoutes = [{ path: "relative" }, { path: "/a" }, 3];
const moreRoutes = [{ file: "/etc/shadow" }];
const extraRoutes = [{ path: "etc/hosts" }];
`
	f := facts(t, src)
	equalLists(t, "routes", routeList(f, []byte(src)), []string{
		`/ name:appRoutes -1@"/"`,
		`/items name:appRoutes -1@"/items"`,
		`:id name:appRoutes 1@":id"`,
		`edit name:appRoutes 2@"edit"`,
		` name:appRoutes 1@""`,
		`/vue property:routes -1@"/vue"`,
		` call:forRoot -1@""`,
		`admin call:forRoot -1@"admin"`,
		`/scoped call:useRoutes -1@"/scoped"`,
	})
}

// TestNavigatorBindings: a call through a binding to a navigator member is
// reported by the path the binding stands for, within its scope and only
// while the binding keeps one value.
func TestNavigatorBindings(t *testing.T) {
	src := `const mc = navigator.modelContext;
mc.registerTool({ name: "a" });
const { registerTool, provideContext: pc } = window.navigator.modelContext;
registerTool({ name: "b" });
pc({ tools: [] });
const nav = self.navigator, m2 = nav.modelContext;
m2.registerTool({ name: "c" });
function f(mc) { mc.registerTool({ name: "param" }); }
let moved = navigator.modelContext;
moved.registerTool({ name: "let-written" });
moved = other;
let kept = navigator.modelContext;
kept.registerTool({ name: "let-kept" });
const store = { registerTool() {} };
store.registerTool({ name: "store" });
const doc = document.body;
doc.registerTool({ name: "not-navigator" });
const sw = navigator.serviceWorker;
sw.register("/sw.js");
export {};
`
	f := facts(t, src)
	equalLists(t, "tool calls", toolCalls(f), []string{
		"navigator.modelContext.registerTool a",
		"navigator.modelContext.registerTool b",
		"navigator.modelContext.registerTool c",
		"mc.registerTool param",
		"moved.registerTool let-written",
		"navigator.modelContext.registerTool let-kept",
		"store.registerTool store",
		"doc.registerTool not-navigator",
	})
	var pc bool
	for _, c := range f.Calls {
		pc = pc || c.Callee == "navigator.modelContext.provideContext"
	}
	if !pc {
		t.Error("the destructured provideContext was not followed")
	}
	var sw []string
	for _, im := range f.Imports {
		if im.Kind == ports.JSServiceWorker {
			sw = append(sw, im.Specifier)
		}
	}
	equalLists(t, "service workers", sw, []string{"/sw.js"})
}

// TestRoutesToolsAndBundlerInRealBundles builds testdata/routes with the
// pinned esbuild and webpack, minified and not, and checks the route
// tables, the WebMCP calls through bindings and the bundler the engine
// names; it skips without npm ci.
func TestRoutesToolsAndBundlerInRealBundles(t *testing.T) {
	esb, err := filepath.Abs("../../node_modules/.bin/esbuild")
	if err != nil {
		t.Fatal(err)
	}
	wpScript, _ := filepath.Abs("../../cmd/rea/testdata/jsapp/webpack-build.cjs")
	_, nodeErr := exec.LookPath("node")
	_, esbErr := os.Stat(esb)
	_, wpErr := os.Stat("../../node_modules/webpack")
	if nodeErr != nil || esbErr != nil || wpErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node, esbuild or webpack is missing in CI: run npm ci")
		}
		t.Skip("node, node_modules/.bin/esbuild or node_modules/webpack is missing: run npm ci at the repository root")
	}
	srcDir, _ := filepath.Abs("testdata/routes")
	dir := t.TempDir()
	tools := []string{"navigator.modelContext.registerTool search_items", "navigator.modelContext.registerTool open_item"}
	table := func(via string) []string {
		return []string{`/ ` + via + ` -1@"/"`, `/items ` + via + ` -1@"/items"`, `:id ` + via + ` 1@":id"`, `edit ` + via + ` 2@"edit"`}
	}
	named := append(table("name:routes"), `/about call:createBrowserRouter -1@"/about"`)
	for _, b := range []struct {
		name, file, bundler string
		build               []string
		routes              []string
	}{
		{"esbuild", "esbuild/index.js", "", []string{esb, "index.js", "--bundle", "--log-level=error", "--format=esm", "--splitting", "--outdir=" + filepath.Join(dir, "esbuild")}, named},
		// Minified, the router functions are renamed or inlined: the
		// routes property is what shows the table.
		{"esbuild-minify", "esbuild-minify.js", "esbuild", []string{esb, "index.js", "--bundle", "--log-level=error", "--minify", "--format=iife", "--outfile=" + filepath.Join(dir, "esbuild-minify.js")}, table("property:routes")},
		{"webpack-development", "wp-dev/main.js", "webpack", []string{"node", wpScript, srcDir, filepath.Join(dir, "wp-dev"), "development", "web", "source-map"}, named},
		{"webpack-production", "wp-prod/main.js", "webpack", []string{"node", wpScript, srcDir, filepath.Join(dir, "wp-prod"), "production", "web", "source-map"}, table("property:routes")},
	} {
		t.Run(b.name, func(t *testing.T) {
			cmd := exec.Command(b.build[0], b.build[1:]...)
			cmd.Dir = srcDir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", b.build, err, out)
			}
			src, err := os.ReadFile(filepath.Join(dir, b.file))
			if err != nil {
				t.Fatal(err)
			}
			f := facts(t, string(src))
			equalLists(t, "routes", routeList(f, src), b.routes)
			// The page's own registerTool method keeps its local name.
			var got []string
			for _, c := range toolCalls(f) {
				if strings.HasPrefix(c, "navigator.") {
					got = append(got, c)
				} else if !strings.HasSuffix(c, ".registerTool not_webmcp") {
					t.Errorf("unexpected tool call %q", c)
				}
			}
			equalLists(t, "WebMCP calls", got, tools)
			if f.Bundler != b.bundler {
				t.Errorf("bundler %q, want %q", f.Bundler, b.bundler)
			}
			if b.bundler == "webpack" && f.ChunkGlobal != "webpackChunkroutesapp" {
				t.Errorf("chunk global %q", f.ChunkGlobal)
			}
		})
	}
}
