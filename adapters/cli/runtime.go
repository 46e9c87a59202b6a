package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// The running-JavaScript tools as commands: each a projection of its
// catalog operation, readable text by default and the Evidence record
// with --format json (which reconcile-javascript-runtime reads back).

// runtimeCmds is embedded in the grammar.
type runtimeCmds struct {
	ListRuntimeTargets listRuntimeTargetsCmd   `cmd:"" name:"list-javascript-runtime-targets" help:"List the targets of a loopback V8 inspector (node --inspect) without attaching (list_javascript_runtime_targets)."`
	ObserveRuntime     observeRuntimeCmd       `cmd:"" name:"observe-javascript-runtime" help:"Observe one V8 inspector target passively: loaded scripts with content hashes, execution contexts (observe_javascript_runtime)."`
	ReconcileRuntime   reconcileRuntimeCmd     `cmd:"" name:"reconcile-javascript-runtime" help:"Reconcile a static application analysis with runtime observations, from Evidence files written with --format json (reconcile_javascript_runtime)."`
	ListElectron       listElectronTargetsCmd  `cmd:"" name:"list-electron-targets" help:"List an Electron application's file-gated page targets over its loopback CDP endpoint (list_electron_targets)."`
	InspectElectron    inspectElectronPageCmd  `cmd:"" name:"inspect-electron-page" help:"Capture one Electron page target passively: frames, DOM, scripts, resources, workers (inspect_electron_page)."`
	CaptureElectron    captureElectronScenario `cmd:"" name:"capture-electron-scenario" help:"Launch an Electron application as an owned process with a recording hook and run scripted actions (capture_electron_scenario); SCENARIO is a JSON file of the tool's arguments or - for stdin."`
}

type listRuntimeTargetsCmd struct {
	Endpoint string   `arg:"" help:"Inspector endpoint, http://127.0.0.1:PORT."`
	Roots    []string `name:"allowed-file-root" help:"Only targets under this directory (repeatable)."`
}

func (c *listRuntimeTargetsCmd) Run(e *env) error {
	args := map[string]any{"inspector_endpoint": c.Endpoint}
	if len(c.Roots) > 0 {
		args["allowed_file_roots"] = c.Roots
	}
	return runBrowser(e, "list_javascript_runtime_targets", args, func(w io.Writer, r map[string]any) error {
		rt := obj(r["runtime"])
		fmt.Fprintf(w, "runtime: %s (protocol %s)\n", str(rt["product"]), str(rt["protocol_version"]))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TARGET\tTYPE\tATTACHED\tLOCATION")
		for _, t := range arr(obj(r["targets"])["items"]) {
			m := obj(t)
			fmt.Fprintf(tw, "%s\t%s\t%v\t%s\n", str(m["target_id"]), str(m["protocol_type"]), m["attached"], locationText(obj(m["location"])))
		}
		tw.Flush()
		ex := obj(r["excluded"])
		fmt.Fprintf(w, "excluded: %v outside the roots, %v outside the origins, %v unsupported location, %v unconnectable\n",
			ex["outside_file_roots"], ex["outside_origins"], ex["unsupported_location"], ex["unconnectable"])
		return nil
	})
}

func locationText(l map[string]any) string {
	switch str(l["kind"]) {
	case "file":
		return str(l["file_path"])
	case "url":
		return str(l["sanitized_url"])
	}
	return str(l["reported_url"]) + " (" + str(l["reason"]) + ")"
}

type observeRuntimeCmd struct {
	Endpoint      string   `arg:"" help:"Inspector endpoint, http://127.0.0.1:PORT."`
	Target        string   `arg:"" help:"Target id (list-javascript-runtime-targets prints them)."`
	Kind          string   `name:"runtime-kind" enum:",node,electron-main,electron-preload,electron-renderer" default:"" help:"What the target is: node, electron-main, electron-preload or electron-renderer."`
	ObservationMS int      `name:"observation-ms" default:"100" help:"Observation window in milliseconds."`
	Roots         []string `name:"allowed-file-root" help:"Only scripts under this directory (repeatable)."`
}

func (c *observeRuntimeCmd) Run(e *env) error {
	args := map[string]any{"inspector_endpoint": c.Endpoint, "target_id": c.Target, "observation_ms": c.ObservationMS}
	if c.Kind != "" {
		args["runtime_kind"] = c.Kind
	}
	if len(c.Roots) > 0 {
		args["allowed_file_roots"] = c.Roots
	}
	return runBrowser(e, "observe_javascript_runtime", args, func(w io.Writer, r map[string]any) error {
		t, cp, sc := obj(r["target"]), obj(r["capture"]), obj(r["scripts"])
		fmt.Fprintf(w, "target: %s (%s, %s)\n", str(t["target_id"]), str(t["runtime_kind"]), locationText(obj(t["location"])))
		fmt.Fprintf(w, "window: %v ms, %v events observed, %v dropped\n", cp["observation_ms"], cp["events_observed"], cp["events_dropped"])
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "MODULE\tLENGTH\tSHA256\tLOCATION")
		for _, s := range arr(sc["items"]) {
			m := obj(s)
			kind := "script"
			if m["is_module"] == true {
				kind = "module"
			}
			fmt.Fprintf(tw, "%s\t%v\t%s\t%s\n", kind, m["length"], oneLine(str(m["cdp_hash"]), 16), locationText(obj(m["location"])))
		}
		tw.Flush()
		ex := obj(sc["excluded"])
		fmt.Fprintf(w, "%d scripts kept of %v parsed; excluded: %v builtin, %v outside the roots, %v unsupported, %v invalid\n",
			len(arr(sc["items"])), sc["observed_total"], ex["builtin"], ex["outside_file_roots"], ex["unsupported_location"], ex["invalid_protocol_value"])
		fmt.Fprintf(w, "contexts: %d\n", len(arr(r["execution_contexts"])))
		return nil
	})
}

type reconcileRuntimeCmd struct {
	Application  string   `name:"application" required:"" help:"Evidence file of analyze_javascript_application (rea analyze-javascript-application PATH --format json)."`
	Observations []string `name:"observation" required:"" help:"Evidence file of observe_javascript_runtime, inspect_electron_page or capture_electron_scenario (repeatable)."`
}

func readEvidenceFile(p string) (map[string]any, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, usageError{err}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, usageError{fmt.Errorf("%s is not an Evidence JSON object: %w", p, err)}
	}
	return m, nil
}

func (c *reconcileRuntimeCmd) Run(e *env) error {
	app, err := readEvidenceFile(c.Application)
	if err != nil {
		return err
	}
	var obs []any
	for _, p := range c.Observations {
		m, err := readEvidenceFile(p)
		if err != nil {
			return err
		}
		obs = append(obs, m)
	}
	args := map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": app}}, "runtime_observations": obs,
		"detail": "complete"} // the table lists every module
	return runBrowser(e, "reconcile_javascript_runtime", args, func(w io.Writer, r map[string]any) error {
		sum := obj(r["summary"])
		fmt.Fprintf(w, "runtime entities: %v; matched %v, ambiguous %v, unmatched %v, unknown %v; coverage %s\n", sum["runtime_entities"],
			sum["matched"], sum["ambiguous"], sum["unmatched"], sum["unknown"], str(obj(r["coverage"])["status"]))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "MODULE\tLOAD STATE")
		for _, s := range arr(r["static_load_states"]) {
			m := obj(s)
			fmt.Fprintf(tw, "%s\t%s\n", str(m["path"]), str(m["state"]))
		}
		tw.Flush()
		return nil
	})
}

type listElectronTargetsCmd struct {
	Endpoint string   `arg:"" help:"CDP endpoint of the Electron application, http://127.0.0.1:PORT."`
	Roots    []string `name:"allowed-file-root" help:"Only pages under this directory (repeatable)."`
}

func (c *listElectronTargetsCmd) Run(e *env) error {
	args := map[string]any{"cdp_endpoint": c.Endpoint}
	if len(c.Roots) > 0 {
		args["allowed_file_roots"] = c.Roots
	}
	return runBrowser(e, "list_electron_targets", args, func(w io.Writer, r map[string]any) error {
		fmt.Fprintf(w, "browser: %s\n", str(obj(r["browser"])["product"]))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TARGET\tTITLE\tFILE")
		for _, t := range arr(obj(r["targets"])["items"]) {
			m := obj(t)
			fmt.Fprintf(tw, "%s\t%s\t%s\n", str(m["target_id"]), oneLine(str(m["title"]), 40), str(m["file_path"]))
		}
		tw.Flush()
		ex := obj(r["excluded"])
		fmt.Fprintf(w, "excluded: %v not a page, %v outside the roots, %v unsupported URL, %v unconnectable\n", ex["non_page"], ex["outside_root"], ex["unsupported_url"], ex["unconnectable"])
		return nil
	})
}

type inspectElectronPageCmd struct {
	Endpoint      string   `arg:"" help:"CDP endpoint of the Electron application, http://127.0.0.1:PORT."`
	Target        string   `arg:"" help:"Page target id (list-electron-targets prints them)."`
	ObservationMS int      `name:"observation-ms" default:"100" help:"Observation window in milliseconds."`
	Sources       bool     `name:"include-script-sources" help:"Keep script sources."`
	Roots         []string `name:"allowed-file-root" help:"Only files under this directory (repeatable)."`
}

func (c *inspectElectronPageCmd) Run(e *env) error {
	args := map[string]any{"cdp_endpoint": c.Endpoint, "target_id": c.Target, "observation_ms": c.ObservationMS}
	if c.Sources {
		args["include_script_sources"] = true
	}
	if len(c.Roots) > 0 {
		args["allowed_file_roots"] = c.Roots
	}
	return runBrowser(e, "inspect_electron_page", args, func(w io.Writer, r map[string]any) error {
		t := obj(r["target"])
		fmt.Fprintf(w, "page: %s (%s)\ncompleteness: %s\n", str(t["file_path"]), str(t["target_id"]), conditions(obj(r["completeness"])))
		fmt.Fprintf(w, "frames: %d, DOM nodes: %v, resources: %d, workers: %d\n", len(arr(r["frames"])), obj(r["dom"])["total_nodes"], len(arr(r["resources"])), len(arr(r["workers"])))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SCRIPT\tLENGTH\tSHA256")
		for _, s := range arr(obj(r["scripts"])["items"]) {
			m := obj(s)
			fmt.Fprintf(tw, "%s\t%v\t%s\n", str(m["file_path"]), m["length"], oneLine(str(m["cdp_hash"]), 16))
		}
		tw.Flush()
		return nil
	})
}

type captureElectronScenario struct {
	Scenario string `arg:"" help:"JSON file with capture_electron_scenario's arguments, or - for stdin."`
}

func (c *captureElectronScenario) Run(e *env) error {
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
	return runBrowser(e, "capture_electron_scenario", args, func(w io.Writer, r map[string]any) error {
		writeElectronScenario(w, r)
		return nil
	})
}

// writeElectronScenario is capture_electron_scenario's text: the
// application and its coverage, the steps, the windows and renderers (which
// renderer the hook attached to, which crashed), then IPC and effects with
// the process (role and pid) and window that saw each.
func writeElectronScenario(w io.Writer, r map[string]any) {
	a := obj(r["application"])
	fmt.Fprintf(w, "application: %s (Electron %s), %s\n", str(a["application_path"]), str(a["electron_version"]), str(obj(r["coverage"])["status"]))
	for _, x := range arr(r["actions"]) {
		m := obj(x)
		fmt.Fprintf(w, "step %s %s: %s %s\n", str(m["step_id"]), str(m["kind"]), str(m["status"]), str(m["error"]))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range arr(r["windows"]) {
		m := obj(x)
		state := "open"
		switch {
		case m["crashed"] == true:
			state = "crashed"
		case m["destroyed"] == true:
			state = "closed"
		}
		fmt.Fprintf(tw, "window %v\t%s\t%s\t%s\n", m["window_id"], state, str(m["url"]), str(m["title"]))
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range arr(r["renderers"]) {
		m := obj(x)
		hook := "hook attached"
		if m["attached"] != true {
			hook = "hook not attached"
		}
		state := "loaded"
		if m["crashed"] == true {
			state = "crashed"
		} else if m["loaded"] != true {
			state = "not loaded"
		}
		fmt.Fprintf(tw, "renderer %v\twindow %s\tpid %s\t%s, %s\n", m["web_contents_id"], fmt.Sprint(orDash(m["window_id"])), fmt.Sprint(orDash(m["pid"])), state, hook)
	}
	tw.Flush()
	ipc := obj(r["ipc"])
	fmt.Fprintf(w, "IPC: %v observed, %v kept\n", ipc["observed"], ipc["retained"])
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range arr(ipc["events"]) {
		m := obj(x)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%v\t%s\n", str(m["kind"]), str(m["direction"]), str(m["channel"]), m["argument_shapes"], seenBy(m))
	}
	tw.Flush()
	for _, x := range arr(obj(r["timeline"])["events"]) {
		m := obj(x)
		fmt.Fprintf(w, "effect: %s %s %s %s\n", str(m["family"]), str(m["kind"]), str(m["phase"]), seenBy(m))
	}
}

// seenBy names the process and window of a scenario event: "main pid 12",
// "renderer pid 40 window 1".
func seenBy(m map[string]any) string {
	s := str(m["role"])
	if m["pid"] != nil {
		s += fmt.Sprint(" pid ", m["pid"])
	}
	if m["window_id"] != nil {
		s += fmt.Sprint(" window ", m["window_id"])
	}
	return strings.TrimSpace(s)
}
