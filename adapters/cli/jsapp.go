package cli

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"rea/core"
)

// jsappCmd is rea analyze-javascript-application.
type jsappCmd struct {
	Path            string `arg:"" help:"Application directory, .asar, ZIP or tar archive (an npm .tgz), or JavaScript file." type:"path"`
	ContainerFormat string `name:"container-format" enum:"auto,asar,directory,zip,tar" default:"auto" help:"How to read PATH: auto, asar, directory, zip or tar."`
	IntegrityPolicy string `name:"integrity-policy" enum:"fail,record-and-continue" default:"fail" help:"fail stops at an ASAR integrity mismatch; record-and-continue quarantines it and continues."`
	Detail          string `enum:"complete,summary" default:"complete" help:"complete prints the analysis; summary prints the summary view of the retained analysis."`
	TimeoutMS       int    `name:"analysis-timeout-ms" default:"0" help:"Deadline in milliseconds (0: the default, 300000)."`
}

func (c *jsappCmd) Run(e *env) error {
	s := e.session()
	defer s.Close(e.ctx)
	args := map[string]any{"path": c.Path}
	if c.ContainerFormat != "" && c.ContainerFormat != "auto" {
		args["format"] = c.ContainerFormat
	}
	if c.IntegrityPolicy != "" && c.IntegrityPolicy != "fail" {
		args["integrity_policy"] = c.IntegrityPolicy
	}
	if c.Detail == "summary" {
		args["detail"] = "summary"
	}
	if c.TimeoutMS > 0 {
		args["analysis_timeout_ms"] = c.TimeoutMS
	}
	res, err := e.call(s, "analyze_javascript_application", args)
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return writeEvidenceIndented(e.opts.Stdout, res.Evidence, true) // sealed by this call
	}
	return writeJSApp(e.opts.Stdout, res.Evidence)
}

// routeAnalyze picks rea analyze's route for PATH from its content:
// "jsapp", "inventory" or "" (the native overview, which also explains a
// path it cannot open).
func routeAnalyze(ctx context.Context, p string) string {
	if isJSApplication(p) {
		return "jsapp"
	}
	t, err := core.Classify(ctx, p) // the format only: open_binary hashes the file
	if err != nil {
		return ""
	}
	switch t.Format {
	case "asar", "javascript":
		return "jsapp"
	case "zip", "apk", "ipa", "msix", "appx":
		if zipHoldsJavaScript(p) {
			return "jsapp"
		}
		return "inventory"
	case "tar", "tar.gz":
		if tarHoldsJavaScript(p) {
			return "jsapp"
		}
		return "inventory"
	case "tar.zst":
		return "jsapp" // no zstd reader here to look inside: an npm-style package is the likely content
	case "ar":
		return "inventory" // a static library: its members are object files
	}
	return ""
}

// tarHoldsJavaScript is zipHoldsJavaScript for a plain or gzip-compressed
// tar: its headers name a JavaScript file, a package.json or an ASAR
// (within its first 100,000 entries and 1,000 times its size decompressed).
func tarHoldsJavaScript(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false
	}
	var r io.Reader = bufio.NewReader(f)
	if head, _ := r.(*bufio.Reader).Peek(2); bytes.Equal(head, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return false
		}
		r = io.LimitReader(zr, 1000*max(st.Size(), 1))
	}
	tr := tar.NewReader(r)
	for range 100000 {
		h, err := tr.Next()
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return false
		}
		if isJSName(strings.ToLower(h.Name)) {
			return true
		}
	}
	return false
}

// isJSName reports a lower-cased archive entry name that makes the archive
// an application to map.
func isJSName(name string) bool {
	switch {
	case strings.HasSuffix(name, ".js"), strings.HasSuffix(name, ".mjs"), strings.HasSuffix(name, ".cjs"), strings.HasSuffix(name, ".asar"),
		name == "package.json", strings.HasSuffix(name, "/package.json"):
		return true
	}
	return false
}

// zipHoldsJavaScript reports whether a ZIP-based archive's central
// directory names a JavaScript file, a package.json or an ASAR archive
// (within its first 100,000 entries): rea analyze maps such an archive as
// an application and inventories the others.
func zipHoldsJavaScript(p string) bool {
	r, err := zip.OpenReader(p)
	if err != nil {
		return false
	}
	defer r.Close()
	for i, f := range r.File {
		if i >= 100000 {
			break
		}
		if isJSName(strings.ToLower(f.Name)) {
			return true
		}
	}
	return false
}

// isJSApplication reports whether rea analyze should map PATH as a
// JavaScript application: an .asar archive, or a directory holding a
// package.json or JavaScript files (looked for within a bounded walk).
// Other directories keep the binary route, which explains that a file is
// needed.
func isJSApplication(p string) bool {
	st, err := os.Stat(p)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		return strings.EqualFold(filepath.Ext(p), ".asar")
	}
	found, seen := false, 0
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return fs.SkipAll
		}
		if seen++; seen > 5000 {
			return fs.SkipAll
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return fs.SkipDir
		}
		switch n := d.Name(); {
		case n == "package.json", strings.HasSuffix(n, ".js"), strings.HasSuffix(n, ".mjs"), strings.HasSuffix(n, ".cjs"), strings.HasSuffix(n, ".asar"):
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

func writeJSApp(w io.Writer, ev *core.Evidence) error {
	// One decoding of the result, which may be megabytes of graph: summary
	// is decoded after it, as the retained summary's object or the
	// complete result's counts. A node kind's rows stay one raw value
	// unless they are endpoints. The decoder is github.com/go-json-experiment/json
	// (the CDP engine's protocol library links it already): on npm-10's
	// 4.5 MB result it takes a fifth of encoding/json's time, which
	// validated the whole result and then decoded it.
	var r struct {
		Parent     string         `json:"parent_evidence_id"`
		InputPath  string         `json:"input_path"`
		Format     string         `json:"format"`
		Root       string         `json:"root_artifact_sha256"`
		Statistics map[string]int `json:"statistics"`
		Summary    jsontext.Value `json:"summary"`
		Electron   struct {
			Detected          bool     `json:"detected"`
			Main              []string `json:"main"`
			Preload           []string `json:"preload"`
			Renderer          []string `json:"renderer"`
			Utility           []string `json:"utility"`
			ContextBridgeAPIs []string `json:"context_bridge_apis"`
			IPC               struct {
				Paired []string `json:"paired"`
			} `json:"ipc"`
		} `json:"electron"`
		Coverage    map[string]any   `json:"coverage"`
		Limitations []string         `json:"limitations"`
		Unknowns    []map[string]any `json:"unknowns"`
		Graph       struct {
			Nodes []struct {
				Kind string         `json:"kind"`
				Rows jsontext.Value `json:"rows"`
			} `json:"nodes"`
		} `json:"graph"`
	}
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
		return err
	}
	// The endpoints are what an engineer looks for first; the summary
	// counts them, the graph's endpoint rows name them (key first).
	var endpoints []string
	for _, n := range r.Graph.Nodes {
		if n.Kind != "endpoint" {
			continue
		}
		var rows []jsontext.Value
		if json.Unmarshal(n.Rows, &rows) != nil {
			continue
		}
		for _, row := range rows {
			var cells []jsontext.Value
			var key string
			if json.Unmarshal(row, &cells) == nil && len(cells) > 0 && json.Unmarshal(cells[0], &key) == nil {
				endpoints = append(endpoints, key)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if r.Parent != "" {
		var s struct {
			InputPath  string         `json:"input_path"`
			Format     string         `json:"format"`
			Root       string         `json:"root_artifact_sha256"`
			Statistics map[string]int `json:"statistics"`
			Coverage   map[string]any `json:"coverage"`
			Limits     int            `json:"limitation_count"`
			Unknowns   int            `json:"unknown_count"`
		}
		if err := json.Unmarshal(r.Summary, &s); err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\n", s.InputPath)
		fmt.Fprintf(tw, "  format\t%s\n  sha256\t%s\n", s.Format, s.Root)
		fmt.Fprintf(tw, "  counts\t%s\n", counts(s.Statistics))
		fmt.Fprintf(tw, "  coverage\t%v\n  unknowns\t%d\n  limitations\t%d\n", s.Coverage["status"], s.Unknowns, s.Limits)
		fmt.Fprintf(tw, "  summary\t%s\n  retained\t%s\n", ev.EvidenceID, r.Parent)
		return tw.Flush()
	}
	var summary map[string]int
	if len(r.Summary) > 0 {
		if err := json.Unmarshal(r.Summary, &summary); err != nil {
			return err
		}
	}
	fmt.Fprintf(tw, "%s\n", r.InputPath)
	fmt.Fprintf(tw, "  format\t%s\n  sha256\t%s\n", r.Format, r.Root)
	fmt.Fprintf(tw, "  provider\t%s %s\n", ev.Provider.ID, deref(ev.Provider.Version))
	fmt.Fprintf(tw, "  counts\t%s\n", counts(r.Statistics))
	if r.Electron.Detected {
		fmt.Fprintf(tw, "  electron\tmain %s; preload %s; renderer %s; utility %s\n", list(r.Electron.Main), list(r.Electron.Preload), list(r.Electron.Renderer), list(r.Electron.Utility))
		fmt.Fprintf(tw, "  bridge\t%s\n", list(r.Electron.ContextBridgeAPIs))
		fmt.Fprintf(tw, "  ipc paired\t%s\n", list(r.Electron.IPC.Paired))
	}
	fmt.Fprintf(tw, "  found\t%s\n", counts(summary))
	for i, u := range endpoints {
		if i == 10 {
			fmt.Fprintf(tw, "  \t… %d more (--format json)\n", len(endpoints)-10)
			break
		}
		label := ""
		if i == 0 {
			label = "endpoints"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", label, truncate(u, 160))
	}
	fmt.Fprintf(tw, "  coverage\t%v\n", r.Coverage["status"])
	fmt.Fprintf(tw, "  evidence\t%s\n", ev.EvidenceID)
	tw.Flush()
	if len(r.Unknowns) > 0 {
		fmt.Fprintf(w, "\nUnknowns (%d)\n", len(r.Unknowns))
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for i, u := range r.Unknowns {
			if i == 20 {
				fmt.Fprintf(tw, "  …\t%d more\n", len(r.Unknowns)-20)
				break
			}
			fmt.Fprintf(tw, "  %v\t%v\t%s\n", u["kind"], u["path"], truncate(fmt.Sprint(u["detail"]), 80))
		}
		tw.Flush()
	}
	for _, l := range r.Limitations {
		fmt.Fprintf(w, "limitation: %s\n", truncate(l, 200))
	}
	return nil
}

// counts writes statistics as "2 ipc channels, 1 browser window": each
// key's words, the plural one made singular for a count of one.
func counts(m map[string]int) string {
	var parts []string
	for _, k := range sortedNames(m) {
		if m[k] != 0 {
			words := strings.Split(k, "_")
			if m[k] == 1 {
				for i := len(words) - 1; i >= 0; i-- {
					if s := singular(words[i]); s != words[i] {
						words[i] = s
						break
					}
				}
			}
			parts = append(parts, fmt.Sprintf("%d %s", m[k], strings.Join(words, " ")))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// singular is the singular of an English plural the statistics use
// (directories, processes, windows), and any other word unchanged.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		return strings.TrimSuffix(w, "es")
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 2:
		return strings.TrimSuffix(w, "s")
	}
	return w
}

func sortedNames(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}
