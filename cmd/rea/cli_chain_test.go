package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// runCLIStdin runs the built rea with stdin.
func runCLIStdin(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(reaBin, args...)
	var o, e bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// twoVersions copies the Electron fixture twice and changes the second:
// main.js gains an IPC handler, a module is added and one removed.
func twoVersions(t *testing.T) (left, right string) {
	t.Helper()
	left, right = filepath.Join(t.TempDir(), "v1"), filepath.Join(t.TempDir(), "v2")
	copyTree(t, "testdata/jsapp/electron", left)
	copyTree(t, "testdata/jsapp/electron", right)
	main, err := os.ReadFile(filepath.Join(right, "main.js"))
	if err != nil {
		t.Fatal(err)
	}
	main = append(main, []byte("\nipcMain.handle('export:csv', async () => 'ok');\n")...)
	if err := os.WriteFile(filepath.Join(right, "main.js"), main, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(right, "csv.js"), []byte("exports.toCSV = (rows) => rows.join('\\n');\n"), 0o644)
	os.Remove(filepath.Join(right, "worker.js"))
	return left, right
}

var bareNodeLine = regexp.MustCompile(`(?m)^\s*(└ \S+ (by )?)?jag_node_[0-9a-f]{64}\s*$`)

// An application trace and an application comparison run from paths
// alone, in one process each, and print labelled text.
func TestCLIWorkflowsFromPaths(t *testing.T) {
	left, right := twoVersions(t)
	t.Run("trace-feature", func(t *testing.T) {
		is := is.New(t)
		out, errOut, code := runCLI(t, "trace-feature", left, "--seed", "ipc-channel:dialog:open")
		is.Equal(errOut, "")
		is.Equal(code, 0)
		for _, want := range []string{`trace of ipc-channel "dialog:open"`, "seed  ipc-channel ipc dialog:open", "path 1 →", "main.js", "evidence ev_"} {
			if !strings.Contains(out, want) {
				t.Errorf("trace output lacks %q:\n%s", want, out)
			}
		}
		if bareNodeLine.MatchString(out) {
			t.Errorf("a path step is named only by its node ID:\n%s", out)
		}
		out, _, code = runCLI(t, "--format", "json", "trace-feature", left, "--seed", "module:main.js", "--max-depth", "2")
		is.Equal(code, 0)
		ev, err := core.ParseEvidence([]byte(out))
		is.NoErr(err)
		is.Equal(ev.Operation, "trace_application_feature")
		var r struct {
			Paths []struct {
				NodeIDs   []string `json:"node_ids"`
				EdgeIDs   []string `json:"edge_ids"`
				Labels    []string `json:"labels"`
				Relations []string `json:"relations"`
			}
		}
		is.NoErr(json.Unmarshal(ev.NormalizedResult, &r))
		is.True(len(r.Paths) > 0)
		for _, p := range r.Paths {
			is.Equal(len(p.Labels), len(p.NodeIDs))
			is.Equal(len(p.Relations), len(p.EdgeIDs))
			for _, l := range p.Labels {
				is.True(l != "" && !strings.HasPrefix(l, "jag_node_"))
			}
		}
	})
	t.Run("compare-apps", func(t *testing.T) {
		is := is.New(t)
		out, errOut, code := runCLI(t, "compare-apps", left, right)
		is.Equal(errOut, "")
		is.Equal(code, 0)
		for _, want := range []string{`application comparison: 1 changed`, `changed\s+javascript-asset\s+main.js\s+canonical_path\s+content`,
			`added\s+javascript-asset\s+csv.js`, `removed\s+javascript-asset\s+worker.js`, `added\s+ipc-channel\s+ipc export:csv`} {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("comparison output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "jag_node_") {
			t.Errorf("a comparison row is named by its node ID:\n%s", out)
		}
		out, _, code = runCLI(t, "--format", "json", "compare-apps", left, right)
		is.Equal(code, 0)
		ev, err := core.ParseEvidence([]byte(out))
		is.NoErr(err)
		var r struct {
			Items []map[string]any
		}
		is.NoErr(json.Unmarshal(ev.NormalizedResult, &r))
		for _, it := range r.Items {
			for _, side := range []string{"left", "right"} {
				if it[side+"_node_id"] != nil {
					l, _ := it[side+"_label"].(string)
					is.True(l != "") // every node carries a label
				} else {
					is.Equal(it[side+"_label"], nil)
				}
			}
		}
	})
	t.Run("analyze routes by content", func(t *testing.T) {
		is := is.New(t)
		// a single JavaScript file is an application of one asset
		out, errOut, code := runCLI(t, "analyze", filepath.Join(left, "main.js"))
		is.Equal(errOut, "")
		is.Equal(code, 0)
		is.True(strings.Contains(out, "format      file"))
		is.True(strings.Contains(out, "main main.js"))
		// a ZIP holding the application is analysed as one (a ZIP without
		// JavaScript is inventoried: TestJSAppZipApplications)
		zipPath := filepath.Join(t.TempDir(), "app.zip")
		if _, err := exec.LookPath("zip"); err == nil {
			cmd := exec.Command("zip", "-qr", zipPath, ".")
			cmd.Dir = left
			is.NoErr(cmd.Run())
			out, _, code = runCLI(t, "analyze", zipPath)
			is.Equal(code, 0)
			is.True(strings.Contains(out, "format      zip"))
			is.True(strings.Contains(out, "main main.js"))
		}
	})
}

// bigEvidence analyzes a generated application whose complete Evidence,
// as rea --format json prints it, holds at least min bytes.
func bigEvidence(t *testing.T, min int) (appDir string, evidence []byte) {
	t.Helper()
	for n := 1000; n <= 16000; n *= 2 {
		dir := bigApp(t, n)
		out, errOut, code := runCLI(t, "--format", "json", "analyze-javascript-application", dir)
		if code != 0 {
			t.Fatalf("analyze: %d %s", code, errOut)
		}
		if len(out) >= min {
			return dir, []byte(out)
		}
	}
	t.Fatalf("no generated application gave %d bytes of Evidence", min)
	return "", nil
}

// A 5 MB Evidence record reaches a workflow and rea call through @FILE,
// through standard input, and as a record of an exported bundle; every
// route gives the same trace.
func TestCLIEvidenceThroughFileAndStdin(t *testing.T) {
	is := is.New(t)
	dir, evidence := bigEvidence(t, 5<<20)
	ev, err := core.ParseEvidence(evidence)
	is.NoErr(err)
	tmp := t.TempDir()
	evFile := filepath.Join(tmp, "app.json")
	is.NoErr(os.WriteFile(evFile, evidence, 0o644))
	seed := []string{"--seed", "module:m7.js", "--max-depth", "3"}
	traceID := func(out string) string {
		t.Helper()
		tr, err := core.ParseEvidence([]byte(out))
		if err != nil {
			t.Fatalf("not Evidence: %v\n%.400s", err, out)
		}
		is.Equal(tr.Operation, "trace_application_feature")
		is.Equal(tr.EvidenceLinks, []core.EvidenceID{ev.EvidenceID})
		return string(tr.EvidenceID)
	}

	out, errOut, code := runCLI(t, append([]string{"--format", "json", "trace-feature", "@" + evFile}, seed...)...)
	is.Equal(errOut, "")
	is.Equal(code, 0)
	want := traceID(out)

	out, errOut, code = runCLIStdin(t, evidence, append([]string{"--format", "json", "trace-feature", "-"}, seed...)...)
	is.Equal(errOut, "")
	is.Equal(code, 0)
	is.Equal(traceID(out), want)

	// rea call: the whole arguments object from a file and from stdin,
	// and the Evidence argument alone through --evidence.
	const rest = `"seed":{"kind":"module","value":"m7.js","match":"exact"},"direction":"both","limits":{"max_depth":3}`
	args := fmt.Sprintf(`{"application":%s,%s}`, bytes.TrimSpace(evidence), rest)
	argsFile := filepath.Join(tmp, "args.json")
	is.NoErr(os.WriteFile(argsFile, []byte(args), 0o644))
	is.True(len(args) > 5<<20)
	out, errOut, code = runCLI(t, "--format", "json", "call", "trace_application_feature", "@"+argsFile)
	is.Equal(errOut, "")
	is.Equal(code, 0)
	is.Equal(traceID(out), want)
	out, _, code = runCLIStdin(t, []byte(args), "--format", "json", "call", "trace_application_feature", "-")
	is.Equal(code, 0)
	is.Equal(traceID(out), want)
	out, _, code = runCLIStdin(t, evidence, "--format", "json", "call", "trace_application_feature",
		`{`+rest+`}`, "--evidence", "application=-")
	is.Equal(code, 0)
	is.Equal(traceID(out), want)

	// a record of an exported bundle, by ID
	bundle := filepath.Join(tmp, "bundle.json")
	_, errOut, code = runCLI(t, "evidence-export", bundle, "--call", `analyze_javascript_application {"path":"`+dir+`"}`)
	is.Equal(errOut, "")
	is.Equal(code, 0)
	out, errOut, code = runCLI(t, append([]string{"--format", "json", "trace-feature", "@" + bundle + "#" + string(ev.EvidenceID)}, seed...)...)
	is.Equal(errOut, "")
	is.Equal(code, 0)
	is.Equal(traceID(out), want)

	// text output of the same trace names modules, not node IDs
	out, _, code = runCLI(t, append([]string{"trace-feature", "@" + evFile}, seed...)...)
	is.Equal(code, 0)
	is.True(strings.Contains(out, "m7.js"))
	is.True(!bareNodeLine.MatchString(out))

	// the mistakes say what to do
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"trace-feature", "@" + bundle, "--seed", "module:m7.js"}, 2, "name one of its records as @FILE#ev_ID"},
		{[]string{"trace-feature", "@" + bundle + "#ev_" + strings.Repeat("0", 64), "--seed", "module:m7.js"}, 2, "holds no record"},
		{[]string{"trace-feature", "@" + filepath.Join(tmp, "missing.json"), "--seed", "module:m7.js"}, 3, "missing.json"},
		{[]string{"trace-feature", dir, "--seed", "m7.js"}, 2, "expected KIND:VALUE"},
		{[]string{"call", "trace_application_feature", "-", "--evidence", "application=-"}, 2, "only once"},
		{[]string{"evidence-export", bundle}, 2, "--overwrite"},
	} {
		_, errOut, code := runCLIStdin(t, []byte("{}"), c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// rea tools NAME, completion and --version.
func TestCLIToolHelpCompletionVersion(t *testing.T) {
	is := is.New(t)
	out, _, code := runCLI(t, "tools", "trace_application_feature")
	is.Equal(code, 0)
	for _, want := range []string{"Trace Application Feature", "Arguments", "seed.kind", "module|string|route", "required", "direction", "default both",
		"limits.max_depth", "integer 1-32", "Example", "rea call trace_application_feature '{"} {
		if !strings.Contains(out, want) {
			t.Errorf("tools NAME output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "tools", "list_procedures")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "default 100"))
	out, _, code = runCLI(t, "tools", "inventory_artifact")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "integer 1-17179869184")) // in digits, not 1.7179869184e+10
	_, errOut, code := runCLI(t, "tools", "list_procedure")
	is.Equal(code, 2)
	is.True(strings.Contains(errOut, "Did you mean list_procedures"))
	// tools/list advertises one small compare_web_captures example; the JSON
	// description lists every declared one, complete inline captures included.
	out, _, code = runCLI(t, "--format", "json", "tools", "compare_web_captures")
	is.Equal(code, 0)
	var tool struct {
		InputSchema struct {
			Examples []json.RawMessage `json:"examples"`
		} `json:"input_schema"`
		Examples []json.RawMessage `json:"examples"`
	}
	is.NoErr(json.Unmarshal([]byte(out), &tool))
	is.Equal(len(tool.InputSchema.Examples), 1)
	is.True(len(tool.Examples) > 1)
	inline := false
	for _, ex := range tool.Examples {
		inline = inline || strings.Contains(string(ex), `"inspection"`)
	}
	is.True(inline)

	out, _, code = runCLI(t, "--version")
	is.Equal(code, 0)
	is.True(strings.HasPrefix(out, "rea "))
	v, _, _ := runCLI(t, "version")
	is.Equal(out, v)

	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, _, code := runCLI(t, "completion", sh)
		is.Equal(code, 0)
		for _, want := range []string{"trace-feature", "compare-apps", "list_procedures", "overwrite"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s completion lacks %q", sh, want)
			}
		}
		if path, err := exec.LookPath(sh); err == nil && sh != "fish" {
			f := filepath.Join(t.TempDir(), "c."+sh)
			os.WriteFile(f, []byte(out), 0o644)
			if b, err := exec.Command(path, "-n", f).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", sh, err, b)
			}
		}
	}
	_, _, code = runCLI(t, "completion", "tcsh")
	is.Equal(code, 2)
}

// rea call --format text renders results readably: a call tree, an
// assembly listing, string hits, a table.
func TestCLICallText(t *testing.T) {
	bin := needFixture(t)
	for _, c := range []struct {
		tool, args string
		want       []string
	}{
		{"get_call_graph", `{"address":"main"}`, []string{"call graph, forward", "main", "└─ ", "helper"}},
		{"procedure_assembly", `{"procedure":"main"}`, []string{"push", "call"}},
		{"find_code_for_string", `{"query":"known code path"}`, []string{`strings matching "known code path": 1`, "code using them: 2 procedures\n", "main"}},
		{"list_procedures", `{"limit":5}`, []string{"ADDRESS", "SOURCE", "total:", "evidence ev_"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			is := is.New(t)
			out, errOut, code := runCLI(t, "call", "--target", bin, c.tool, c.args)
			is.Equal(errOut, "")
			is.Equal(code, 0)
			is.True(!strings.HasPrefix(strings.TrimSpace(out), "{")) // not JSON
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s text lacks %q:\n%s", c.tool, w, out)
				}
			}
		})
	}
	t.Run("remediation in CLI syntax", func(t *testing.T) {
		is := is.New(t)
		_, errOut, code := runCLI(t, "call", "list_procedures", "{}")
		is.Equal(code, 3)
		is.True(strings.Contains(errOut, "--target"))
		is.True(!strings.Contains(errOut, "Call open_binary"))
	})
}

// pairVersion writes one version of an app whose build ships the same
// originals in two source maps (as axios's dist does), a dependency that
// moves under another package, and a module renamed with its exports.
func pairVersion(t *testing.T, version, y, depVersion, depDir, utilName, utilBody string) string {
	t.Helper()
	files := map[string]string{
		"package.json":           `{"name":"pairdemo","version":"` + version + `"}`,
		depDir + "/package.json": `{"name":"foo","version":"` + depVersion + `"}`,
		depDir + "/index.js":     "module.exports = '" + depVersion + "'\n",
		"src/" + utilName:        utilBody,
	}
	for _, name := range []string{"a", "b"} {
		m, _ := json.Marshal(map[string]any{"version": 3, "file": name + ".js", "sources": []string{"../lib/x.js", "../lib/y.js"},
			"sourcesContent": []string{"export function x(a){return a+1}\n", y}, "names": []string{}, "mappings": "AAAA"})
		files["dist/"+name+".js"] = "console.log('" + name + "');\n//# sourceMappingURL=" + name + ".js.map\n"
		files["dist/"+name+".js.map"] = string(m)
	}
	return writeTree(t, files)
}

// Version comparison pairs what the first tiers leave ambiguous: one
// original in several source maps (by the map's path), a package that
// moved (by name), a renamed module (by its exports); and every item is
// labelled.
func TestCompareApplicationVersionsPairs(t *testing.T) {
	is := is.New(t)
	v1 := pairVersion(t, "1.0.0", "export const y = 1;\n", "1.0.0", "node_modules/foo", "util.js",
		"export function slugify(s){return s.toLowerCase()}\nexport function pad(s,n){return s.padStart(n)}\n")
	v2 := pairVersion(t, "1.1.0", "export const y = 2;\n", "2.0.0", "node_modules/bar/node_modules/foo", "strings.js",
		"export function slugify(s){return s.trim().toLowerCase()}\nexport function pad(s,n){return s.padStart(n, ' ')}\n")
	s := jaSession(t)
	l := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": v1})
	r := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": v2})
	ev := jaCall(t, s, "compare_application_versions", map[string]any{
		"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.EvidenceID)},
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(r.EvidenceID)}})
	var res struct {
		Items []struct {
			Status     string
			NodeKind   string  `json:"node_kind"`
			LeftLabel  *string `json:"left_label"`
			RightLabel *string `json:"right_label"`
			Match      *struct{ Strategy string }
		}
		Summary  map[string]int
		Matching map[string]int
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &res))
	is.Equal(res.Summary["unknown"], 0)
	got := map[string]string{}
	for _, it := range res.Items {
		label := ""
		if it.LeftLabel != nil {
			label = *it.LeftLabel
		}
		if it.RightLabel != nil && (label == "" || *it.RightLabel != label) {
			label += " > " + *it.RightLabel
		}
		by := "-"
		if it.Match != nil {
			by = it.Match.Strategy
		}
		got[it.NodeKind+" "+label] = it.Status + " " + by
	}
	for k, want := range map[string]string{
		// the same content in both maps of both sides: paired by the map
		"source-module lib/x.js (in dist/a.js.map)": "unchanged original_in_source_map",
		"source-module lib/x.js (in dist/b.js.map)": "unchanged original_in_source_map",
		"source-module lib/y.js (in dist/a.js.map)": "changed original_in_source_map",
		"source-module lib/y.js (in dist/b.js.map)": "changed original_in_source_map",
		"package foo@1.0.0 (node_modules/foo/package.json) > foo@2.0.0 (node_modules/bar/node_modules/foo/package.json)": "changed package_name",
		"javascript-asset src/util.js > src/strings.js":                                                                  "changed export_names",
		// a lone default export pairs nothing
		"javascript-asset node_modules/foo/index.js":                     "removed -",
		"javascript-asset  > node_modules/bar/node_modules/foo/index.js": "added -",
	} {
		if got[k] != want {
			t.Errorf("%s: got %q, want %q (all: %v)", k, got[k], want, got)
		}
	}
}
