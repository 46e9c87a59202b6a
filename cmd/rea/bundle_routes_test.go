package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rea/adapters/js"
	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// TestWebBundleRoutesToolsAndBundler runs analyze_web_bundle, with the
// real JavaScript engine, over what the pinned webpack and esbuild make of
// adapters/js/testdata/routes (served by the browser fake): route tables
// written as data, WebMCP tools registered through navigator bindings and
// the bundler of a minified build, each located at its literal.
func TestWebBundleRoutesToolsAndBundler(t *testing.T) {
	root := needNodeModule(t, "webpack")
	needNodeModule(t, "esbuild")
	srcDir := filepath.Join(root, "adapters/js/testdata/routes")
	dir := t.TempDir()
	esb := filepath.Join(root, "node_modules/.bin/esbuild")
	wp := filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs")
	for _, b := range []struct {
		name    string
		build   []string
		files   []string
		routes  []string // value detector@text at the location
		bundler string   // value detector@text (a prefix of the first basis)
	}{
		{"webpack-production", []string{"node", wp, srcDir, filepath.Join(dir, "wp"), "production", "web", "none"}, []string{"wp/main.js", "wp/339.chunk.js"},
			[]string{`/ data:property:routes@"/"`, `/items data:property:routes@"/items"`, `/items/:id data:property:routes@":id"`, `/items/:id/edit data:property:routes@"edit"`},
			"webpack chunk_global:webpackChunkroutesapp@webpackChunkroutesapp"},
		{"esbuild-minify", []string{esb, "index.js", "--bundle", "--minify", "--log-level=error", "--format=iife", "--outfile=" + filepath.Join(dir, "esb.js")}, []string{"esb.js"},
			[]string{`/ data:property:routes@"/"`, `/items data:property:routes@"/items"`, `/items/:id data:property:routes@":id"`, `/items/:id/edit data:property:routes@"edit"`},
			"esbuild module_table:esbuild@"},
		{"esbuild", []string{esb, "index.js", "--bundle", "--log-level=error", "--format=esm", "--outfile=" + filepath.Join(dir, "esb-plain.js")}, []string{"esb-plain.js"},
			[]string{`/ data:name:routes@"/"`, `/items data:name:routes@"/items"`, `/items/:id data:name:routes@":id"`, `/items/:id/edit data:name:routes@"edit"`, `/about data:call:createBrowserRouter@"/about"`},
			"esbuild module_table:esbuild@"},
	} {
		t.Run(b.name, func(t *testing.T) {
			cmd := exec.Command(b.build[0], b.build[1:]...)
			cmd.Dir = srcDir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", b.build, err, out)
			}
			f := portstest.NewBrowserFake()
			srcs := map[string][]byte{}
			capt := &ports.BrowserPageCapture{Frames: []ports.BrowserFrame{{FrameID: "F1", URL: "http://app.test/", Origin: "http://app.test"}}}
			for i, name := range b.files {
				src, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				u := "http://app.test/" + filepath.Base(name)
				srcs[u] = src
				capt.Scripts = append(capt.Scripts, ports.BrowserScript{ScriptID: fmt.Sprint(i + 1), FrameID: "F1", URL: u, Origin: "http://app.test",
					CDPHash: fmt.Sprint("h", i), Length: len(src), Language: "JavaScript", Source: src})
			}
			capt.ScriptsTotal = len(capt.Scripts)
			f.Capture = capt
			reg, err := core.NewRegistry(nil, &core.RegistryOptions{Browser: f, JavaScript: js.New()})
			if err != nil {
				t.Fatal(err)
			}
			cat, err := standard.Catalog()
			if err != nil {
				t.Fatal(err)
			}
			s := core.NewSession(cat, reg, nil)
			res, err := s.Call(context.Background(), "analyze_web_bundle", json.RawMessage(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"T1"}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := res.StructuredJSON()
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				NormalizedResult struct {
					Capture struct {
						SourceArtifacts []struct {
							ScriptKey string `json:"script_key"`
							URL       string `json:"url"`
						} `json:"source_artifacts"`
					} `json:"capture"`
					Observations struct {
						Routes []struct {
							Value, Detector string
							Location        bundleLoc
						}
						WebMCP []struct {
							Name     string
							Location bundleLoc
						} `json:"webmcp_declarations"`
					}
					Inferences []struct {
						Kind, Value string
						Basis       []struct {
							ScriptKey    string `json:"script_key"`
							Line, Column int
							Detector     string
						}
					}
				} `json:"normalized_result"`
			}
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatal(err)
			}
			r := out.NormalizedResult
			keyURL := map[string]string{}
			for _, a := range r.Capture.SourceArtifacts {
				keyURL[a.ScriptKey] = a.URL
			}
			// text is what the script holds at a location, as long as want.
			text := func(key string, line, col int, want string) string {
				lines := strings.Split(string(srcs[keyURL[key]]), "\n")
				if line < 1 || line > len(lines) || col < 0 || col > len(lines[line-1]) {
					return fmt.Sprintf("<%d:%d outside>", line, col)
				}
				return lines[line-1][col:min(len(lines[line-1]), col+len(want))]
			}
			var routes []string
			for i, rt := range r.Observations.Routes {
				lit := b.routes[min(i, len(b.routes)-1)]
				lit = lit[strings.LastIndexByte(lit, '@')+1:]
				routes = append(routes, rt.Value+" "+rt.Detector+"@"+text(rt.Location.ScriptKey, rt.Location.Line, rt.Location.Column, lit))
			}
			if strings.Join(routes, "\n") != strings.Join(b.routes, "\n") {
				t.Errorf("routes:\ngot  %q\nwant %q", routes, b.routes)
			}
			// A declaration is at its registering call, as
			// discover_webmcp_tools places it (V8's call position): the
			// callee's name there, also for a call through an alias
			// (open_item's destructured registerTool, which each build
			// renames: the name and its parenthesis).
			at := map[string]string{"search_items": "registerTool", "open_item": "registerTool(", "list_items": "provideContext"}
			var tools []string
			for _, d := range r.Observations.WebMCP {
				got := text(d.Location.ScriptKey, d.Location.Line, d.Location.Column, at[d.Name])
				if m := regexp.MustCompile(`^[A-Za-z_$][\w$]*\(`).FindString(got); d.Name == "open_item" && m != "" {
					got = "alias("
				}
				tools = append(tools, d.Name+"@"+got)
			}
			if want := []string{`search_items@registerTool`, `open_item@alias(`, `list_items@provideContext`}; strings.Join(tools, " ") != strings.Join(want, " ") {
				t.Errorf("tools %q, want %q", tools, want)
			}
			var bundler []string
			for _, in := range r.Inferences {
				if in.Kind != "bundle_runtime" {
					continue
				}
				for _, bs := range in.Basis {
					want := bs.Detector[strings.IndexByte(bs.Detector, ':')+1:]
					bundler = append(bundler, in.Value+" "+bs.Detector+"@"+text(bs.ScriptKey, bs.Line, bs.Column, want))
				}
			}
			if len(bundler) == 0 || !strings.HasPrefix(bundler[0], b.bundler) {
				t.Errorf("bundle_runtime %q, want %q first", bundler, b.bundler)
			}
		})
	}
}

type bundleLoc struct {
	ScriptKey    string `json:"script_key"`
	Line, Column int
}
