package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// The browser tools as commands: rea <kebab-name> ENDPOINT [TARGET], each a
// projection of its catalog operation with readable text by default and
// the Evidence record with --format json.

// browserCmds is embedded in the grammar.
type browserCmds struct {
	ListBrowserTargets     listTargetsCmd     `cmd:"" name:"list-browser-targets" help:"List the page targets of a loopback CDP endpoint (list_browser_targets)."`
	InspectWebPage         inspectPageCmd     `cmd:"" name:"inspect-web-page" help:"Capture one page target passively: frames, DOM, scripts, network, storage (inspect_web_page)."`
	ObserveWebSession      observeSessionCmd  `cmd:"" name:"observe-web-session" help:"Record a page target's navigation timeline over a window (observe_web_session)."`
	DiscoverWebMCPTools    discoverWebMCPCmd  `cmd:"" name:"discover-webmcp-tools" help:"List the WebMCP tools a page target registers (discover_webmcp_tools)."`
	AnalyzeWebBundle       analyzeBundleCmd   `cmd:"" name:"analyze-web-bundle" help:"Analyze a page target's scripts statically: imports, routes, endpoints, WebMCP declarations (analyze_web_bundle)."`
	CaptureWebScreenshot   captureShotCmd     `cmd:"" name:"capture-web-screenshot" help:"Capture a page target's viewport as PNG (capture_web_screenshot)."`
	CompareWebScreenshots  compareShotsCmd    `cmd:"" name:"compare-web-screenshots" help:"Compare two PNG files pixel by pixel (compare_web_screenshots)."`
	CaptureBrowserScenario captureScenarioCmd `cmd:"" name:"capture-browser-scenario" help:"Run a scripted scenario in an owned headless Chromium (capture_browser_scenario); SCENARIO is a JSON file of the tool's arguments or - for stdin."`
}

// browserTarget are the common positionals and scope flag.
type browserTarget struct {
	Endpoint string   `arg:"" help:"CDP endpoint, http://127.0.0.1:PORT."`
	Target   string   `arg:"" optional:"" help:"Page target id (list-browser-targets prints them)."`
	Origins  []string `name:"allowed-origin" help:"An allowed origin (repeatable); default: the target's current origin."`
}

func (b *browserTarget) args(needTarget bool) (map[string]any, error) {
	m := map[string]any{"cdp_endpoint": b.Endpoint}
	if len(b.Origins) > 0 {
		m["allowed_origins"] = b.Origins
	}
	if b.Target != "" {
		m["target_id"] = b.Target
	} else if needTarget {
		return nil, usageError{fmt.Errorf("TARGET is required: run rea list-browser-targets %s to list them", b.Endpoint)}
	}
	return m, nil
}

// runBrowser calls op and prints its result.
func runBrowser(e *env, op string, args map[string]any, text func(io.Writer, map[string]any) error) error {
	s := e.session()
	defer s.Close(e.ctx)
	res, err := e.call(s, op, args)
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(res.Evidence)
	}
	var r map[string]any
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &r); err != nil {
		return err
	}
	if err := text(e.opts.Stdout, r); err != nil {
		return err
	}
	writeCoverage(e.opts.Stdout, obj(r["completeness"]), arr(r["limitations"]))
	fmt.Fprintf(e.opts.Stdout, "evidence: %s\n", res.Evidence.EvidenceID)
	return nil
}

// coverageSections are a completeness record's section lists, in the order
// its status ranks them.
var coverageSections = []struct{ condition, field string }{
	{"truncated", "truncated_sections"}, {"policy_filtered", "policy_filtered_sections"},
	{"attach_limited", "attach_limited_sections"}, {"unavailable", "unavailable_sections"},
}

// conditions names every coverage condition of a completeness record: its
// status alone ranks truncated above policy_filtered above attach_limited,
// so a page that was both filtered and attached late would read as only
// filtered.
func conditions(comp map[string]any) string {
	var out []string
	for _, c := range arr(comp["conditions"]) {
		out = append(out, str(c))
	}
	if len(out) == 0 {
		return str(comp["status"])
	}
	return strings.Join(out, ", ")
}

// writeCoverage lists the sections each coverage condition touched and the
// result's limitations, which the text renderings would otherwise drop: a
// reader of the text must learn what was not observed as a reader of the
// JSON does.
func writeCoverage(w io.Writer, comp map[string]any, limitations []any) {
	for _, s := range coverageSections {
		var names []string
		for _, n := range arr(comp[s.field]) {
			names = append(names, str(n))
		}
		if len(names) > 0 {
			fmt.Fprintf(w, "%s: %s\n", s.condition, strings.Join(names, ", "))
		}
	}
	var excluded []string
	for _, x := range arr(comp["excluded"]) {
		m := obj(x)
		excluded = append(excluded, fmt.Sprintf("%s %v (%s)", str(m["section"]), orDash(m["count"]), str(m["reason"])))
	}
	if len(excluded) > 0 {
		fmt.Fprintf(w, "excluded: %s\n", strings.Join(excluded, ", "))
	}
	for _, l := range limitations {
		fmt.Fprintf(w, "note: %s\n", str(l))
	}
}

type listTargetsCmd struct {
	Endpoint string   `arg:"" help:"CDP endpoint, http://127.0.0.1:PORT."`
	Origins  []string `name:"allowed-origin" help:"Only pages on this origin (repeatable)."`
}

func (c *listTargetsCmd) Run(e *env) error {
	b := browserTarget{Endpoint: c.Endpoint, Origins: c.Origins}
	args, _ := b.args(false)
	return runBrowser(e, "list_browser_targets", args, func(w io.Writer, r map[string]any) error {
		br := obj(r["browser"])
		fmt.Fprintf(w, "browser: %s (protocol %s)\n", str(br["product"]), str(br["protocol_version"]))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TARGET\tORIGIN\tTITLE\tURL")
		for _, t := range arr(r["targets"]) {
			m := obj(t)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", str(m["target_id"]), str(m["origin"]), oneLine(str(m["title"]), 40), str(m["url"]))
		}
		tw.Flush()
		ex := obj(r["excluded"])
		fmt.Fprintf(w, "excluded: %v other origin, %v unsupported URL, %v not a page, %v unconnectable\n",
			ex["disallowed_origin"], ex["unsupported_url"], ex["non_page"], ex["unconnectable"])
		return nil
	})
}

type inspectPageCmd struct {
	browserTarget
	ObservationMS int  `name:"observation-ms" default:"500" help:"Observation window in milliseconds."`
	Sources       bool `name:"include-script-sources" help:"Keep script sources."`
	AXText        bool `name:"include-accessibility-text" help:"Keep accessibility names."`
	ConsoleText   bool `name:"include-console-text" help:"Keep console text."`
	JSONShapes    bool `name:"include-json-body-shapes" help:"Summarize JSON bodies as shapes."`
	WSShapes      bool `name:"include-websocket-shapes" help:"Summarize WebSocket payloads as shapes."`
	StorageKeys   bool `name:"include-storage-keys" help:"List storage keys."`
	Fingerprints  bool `name:"include-storage-fingerprints" help:"Fingerprint stored values (with --include-storage-keys)."`
}

func (c *inspectPageCmd) flags(args map[string]any) {
	args["observation_ms"] = c.ObservationMS
	for k, v := range map[string]bool{"include_accessibility_text": c.AXText, "include_console_text": c.ConsoleText,
		"include_json_body_shapes": c.JSONShapes, "include_websocket_shapes": c.WSShapes, "include_storage_keys": c.StorageKeys,
		"include_storage_fingerprints": c.Fingerprints} {
		if v {
			args[k] = true
		}
	}
}

func (c *inspectPageCmd) Run(e *env) error {
	args, err := c.args(true)
	if err != nil {
		return err
	}
	c.flags(args)
	if c.Sources {
		args["include_script_sources"] = true
	}
	return runBrowser(e, "inspect_web_page", args, inspectPageText)
}

// pageRows bounds each list of the inspect-web-page text; --format json
// has them all.
const pageRows = 20

// inspectPageText is inspect-web-page's text: counts of every section, then
// the requests, console events, workers and storage names themselves, which
// are what a reader of a page capture looks for first.
func inspectPageText(w io.Writer, r map[string]any) error {
	t := obj(r["target"])
	fmt.Fprintf(w, "page: %s (%s)\n", str(t["url"]), oneLine(str(t["title"]), 60))
	comp := obj(r["completeness"])
	fmt.Fprintf(w, "completeness: %s\n", conditions(comp))
	fmt.Fprintf(w, "frames: %d  dom nodes: %v  accessibility nodes: %v\n", len(arr(r["frames"])), obj(r["dom"])["total_nodes"], obj(r["accessibility"])["total_nodes"])
	net, console := obj(r["network"]), obj(r["console"])
	fmt.Fprintf(w, "requests: %d  websocket frames: %d  console events: %d  workers: %d\n", len(arr(net["requests"])),
		len(arr(net["websocket_events"])), len(arr(console["events"])), len(arr(r["workers"])))
	sc := obj(r["scripts"])
	fmt.Fprintf(w, "scripts: %v\n", sc["total"])
	for _, s := range arr(sc["items"]) {
		m := obj(s)
		kind := "classic"
		if m["is_module"] == true {
			kind = "module"
		}
		fmt.Fprintf(w, "  %s  %s  %v bytes  %s\n", str(m["script_key"])[:min(16, len(str(m["script_key"])))], kind, m["length"], str(m["url"]))
	}
	fmt.Fprintf(w, "resources: %d\n", len(arr(r["resources"])))
	rows(w, "requests", arr(net["requests"]), func(m map[string]any) string {
		return fmt.Sprintf("%s %v %s %s", str(m["method"]), orDash(m["status"]), str(m["resource_type"]), str(m["url"]))
	})
	rows(w, "console", arr(console["events"]), func(m map[string]any) string {
		where := str(m["url"])
		if i := strings.LastIndexByte(where, '/'); i >= 0 {
			where = where[i+1:]
		}
		if m["line"] != nil {
			where = fmt.Sprintf("%s:%v", where, m["line"])
		}
		var text []string
		for _, v := range arr(obj(m["text_capture"])["values"]) {
			text = append(text, str(obj(v)["text"]))
		}
		if len(text) == 0 { // not captured: the argument types say what was logged
			for _, a := range arr(m["argument_types"]) {
				text = append(text, "<"+str(a)+">")
			}
		}
		return fmt.Sprintf("%s %s  %s", str(m["type"]), where, oneLine(strings.Join(text, " "), 120))
	})
	rows(w, "workers", arr(r["workers"]), func(m map[string]any) string {
		return fmt.Sprintf("%s %s", str(m["type"]), str(m["url"]))
	})
	st := obj(r["storage"])
	if excludedAs(comp, "storage_keys", "not_approved") {
		// No names were asked for: zero counts would read as empty storage.
		fmt.Fprintf(w, "storage (%s): names not listed (--include-storage-keys lists them)\n", str(st["origin"]))
		return nil
	}
	fmt.Fprintf(w, "storage (%s): %d localStorage, %d sessionStorage keys, %d IndexedDB, %d caches\n", str(st["origin"]),
		len(arr(st["local_storage_keys"])), len(arr(st["session_storage_keys"])), len(arr(st["indexed_db_names"])), len(arr(st["cache_names"])))
	for _, k := range []struct{ label, field string }{{"localStorage", "local_storage_keys"}, {"sessionStorage", "session_storage_keys"},
		{"IndexedDB", "indexed_db_names"}, {"caches", "cache_names"}} {
		if names := arr(st[k.field]); len(names) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", k.label, scalar(names))
		}
	}
	return nil
}

// excludedAs reports whether a completeness record excluded section for
// reason.
func excludedAs(comp map[string]any, section, reason string) bool {
	for _, x := range arr(comp["excluded"]) {
		if m := obj(x); str(m["section"]) == section && str(m["reason"]) == reason {
			return true
		}
	}
	return false
}

// rows writes a titled list of at most pageRows records, one line each.
func rows(w io.Writer, title string, items []any, line func(map[string]any) string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for i, it := range items {
		if i == pageRows {
			fmt.Fprintf(w, "  … %d more (--format json has all)\n", len(items)-pageRows)
			break
		}
		fmt.Fprintf(w, "  %s\n", line(obj(it)))
	}
}

type observeSessionCmd struct {
	browserTarget
	ObservationMS int `name:"observation-ms" default:"10000" help:"Observation window in milliseconds."`
	MaxEvents     int `name:"max-timeline-events" default:"2000" help:"Timeline events kept."`
}

func (c *observeSessionCmd) Run(e *env) error {
	args, err := c.args(true)
	if err != nil {
		return err
	}
	args["observation_ms"], args["max_timeline_events"] = c.ObservationMS, c.MaxEvents
	return runBrowser(e, "observe_web_session", args, func(w io.Writer, r map[string]any) error {
		t, win := obj(r["target"]), obj(r["window"])
		fmt.Fprintf(w, "target %s: %s -> %v (%s)\n", str(t["target_id"]), str(t["initial_url"]), orDash(t["final_url"]), str(win["end_reason"]))
		for _, ev := range arr(r["timeline"]) {
			m := obj(ev)
			fmt.Fprintf(w, "  %4v  %s  %-26s %v %v\n", m["sequence"], str(m["timestamp"]), str(m["type"]), orDash(m["url"]), orDash(m["detail"]))
		}
		return nil
	})
}

type discoverWebMCPCmd struct {
	browserTarget
	ObservationMS int `name:"observation-ms" default:"100" help:"How long to collect registrations."`
}

func (c *discoverWebMCPCmd) Run(e *env) error {
	args, err := c.args(true)
	if err != nil {
		return err
	}
	args["observation_ms"] = c.ObservationMS
	return runBrowser(e, "discover_webmcp_tools", args, func(w io.Writer, r map[string]any) error {
		tools := obj(r["tools"])
		fmt.Fprintf(w, "WebMCP: %s, %v tool(s)\n", str(r["status"]), tools["total"])
		for _, t := range arr(tools["items"]) {
			m := obj(t)
			fmt.Fprintf(w, "  %s (%s) %s\n", str(m["name"]), str(m["declaration_kind"]), oneLine(str(m["description"]), 80))
		}
		return nil
	})
}

type analyzeBundleCmd struct {
	inspectPageCmd
	FetchSourceMaps bool `name:"fetch-source-maps" help:"Fetch in-scope source maps."`
}

func (c *analyzeBundleCmd) Run(e *env) error {
	args, err := c.args(true)
	if err != nil {
		return err
	}
	c.flags(args)
	if c.FetchSourceMaps {
		args["fetch_source_maps"] = true
	}
	return runBrowser(e, "analyze_web_bundle", args, func(w io.Writer, r map[string]any) error {
		cp, obs := obj(r["capture"]), obj(r["observations"])
		fmt.Fprintf(w, "page: %s  scripts analyzed: %v of %v  completeness: %s\n", str(cp["target_url"]), cp["scripts_analyzed"], cp["scripts_observed"], conditions(obj(r["completeness"])))
		section := func(name string, items []any, line func(map[string]any) string) {
			fmt.Fprintf(w, "%s: %d\n", name, len(items))
			for _, it := range items {
				fmt.Fprintf(w, "  %s\n", line(obj(it)))
			}
		}
		section("edges", arr(obj(obs["chunks"])["edges"]), func(m map[string]any) string {
			return str(m["kind"]) + " " + str(m["specifier"])
		})
		section("routes", arr(obs["routes"]), func(m map[string]any) string { return str(m["value"]) + " (" + str(m["detector"]) + ")" })
		section("endpoints", arr(obs["endpoints"]), func(m map[string]any) string { return str(m["kind"]) + " " + str(m["value"]) })
		section("webmcp declarations", arr(obs["webmcp_declarations"]), func(m map[string]any) string { return str(m["name"]) })
		section("inferences", arr(r["inferences"]), func(m map[string]any) string {
			return str(m["kind"]) + ": " + str(m["value"]) + " (" + str(m["confidence"]) + ")"
		})
		sm := obj(obs["source_maps"])
		fmt.Fprintf(w, "source maps: %s (%v requested)\n", str(sm["status"]), sm["requested"])
		return nil
	})
}

type captureShotCmd struct {
	browserTarget
	Output string `short:"o" help:"Write the PNG to this file (not overwritten)." type:"path"`
}

func (c *captureShotCmd) Run(e *env) error {
	args, err := c.args(true)
	if err != nil {
		return err
	}
	return runBrowser(e, "capture_web_screenshot", args, func(w io.Writer, r map[string]any) error {
		art, vp := obj(r["artifact"]), obj(r["viewport"])
		fmt.Fprintf(w, "screenshot: %vx%v PNG, %v bytes, sha256 %s\n", vp["width"], vp["height"], art["bytes"], str(art["sha256"]))
		if c.Output == "" {
			return nil
		}
		b, err := base64.StdEncoding.DecodeString(str(art["data_base64"]))
		if err != nil {
			return err
		}
		f, err := os.OpenFile(c.Output, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return usageError{err}
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(w, "written: %s\n", c.Output)
		return nil
	})
}

type compareShotsCmd struct {
	Before    string `arg:"" help:"Earlier PNG file." type:"existingfile"`
	After     string `arg:"" help:"Later PNG file." type:"existingfile"`
	Threshold int    `name:"channel-threshold" default:"0" help:"Largest per-channel difference counted as unchanged."`
}

func (c *compareShotsCmd) Run(e *env) error {
	enc := func(p string) (map[string]any, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, usageError{err}
		}
		return map[string]any{"data_base64": base64.StdEncoding.EncodeToString(b)}, nil
	}
	before, err := enc(c.Before)
	if err != nil {
		return err
	}
	after, err := enc(c.After)
	if err != nil {
		return err
	}
	args := map[string]any{"before": before, "after": after, "channel_threshold": c.Threshold}
	return runBrowser(e, "compare_web_screenshots", args, func(w io.Writer, r map[string]any) error {
		b, a := obj(r["before"]), obj(r["after"])
		fmt.Fprintf(w, "%s: %vx%v vs %vx%v\n", str(r["status"]), b["width"], b["height"], a["width"], a["height"])
		if r["status"] == "dimension_mismatch" {
			return nil
		}
		fmt.Fprintf(w, "changed pixels: %v of %v (ratio %v), max channel delta %v\n", r["changed_pixels"], r["compared_pixels"], r["changed_ratio"], r["maximum_channel_delta"])
		for _, rg := range arr(r["regions"]) {
			m := obj(rg)
			fmt.Fprintf(w, "  region x=%v y=%v %vx%v: %v pixels\n", m["x"], m["y"], m["width"], m["height"], m["changed_pixels"])
		}
		return nil
	})
}

type captureScenarioCmd struct {
	Scenario string `arg:"" help:"JSON file with capture_browser_scenario's arguments, or - for stdin."`
}

func (c *captureScenarioCmd) Run(e *env) error {
	var raw []byte
	var err error
	if c.Scenario == "-" {
		raw, err = io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
	} else {
		raw, err = os.ReadFile(c.Scenario)
	}
	if err != nil {
		return usageError{err}
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return usageError{fmt.Errorf("scenario is not a JSON object: %w", err)}
	}
	return runBrowser(e, "capture_browser_scenario", args, func(w io.Writer, r map[string]any) error {
		fmt.Fprintf(w, "scenario: %v ms, %s\n", r["duration_ms"], conditions(obj(r["completeness"])))
		for _, s := range arr(r["steps"]) {
			m := obj(s)
			fmt.Fprintf(w, "  %v %-16s %-10s %-9s %s\n", m["step_index"], str(m["step_id"]), str(m["action"]), str(m["status"]), str(obj(m["after_url"])["url"]))
		}
		ev := obj(r["events"])
		fmt.Fprintf(w, "events: %v retained, %v dropped\n", ev["retained"], ev["dropped"])
		return nil
	})
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func arr(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func orDash(v any) any {
	if v == nil {
		return "-"
	}
	return v
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
