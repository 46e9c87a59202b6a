package cli

import (
	"context"
	"fmt"
	"strings"

	"rea/core"
)

// The application workflows run the analysis and the query in one process
// and one session, so a retained ID never has to outlive the command. An
// APP argument is either a path (a directory, an ASAR, a ZIP or a single
// JavaScript file), analyzed first, or Evidence of an earlier analysis:
// @FILE, @BUNDLE#ev_ID or - (see source.go).

var seedKinds = []string{"module", "string", "route", "api", "ipc-channel", "native-export"}

type traceFeatureCmd struct {
	App        string `arg:"" name:"app" help:"Application path (directory, ASAR, ZIP or .js file), or its analysis as @FILE, @BUNDLE#ev_ID or -."`
	Seed       string `required:"" placeholder:"KIND:VALUE" help:"Where the trace starts: module:, string:, route:, api:, ipc-channel: or native-export: followed by the value (module:src/search.js, ipc-channel:dialog:open)."`
	Match      string `enum:"exact,prefix,substring" default:"exact" help:"How the seed value matches: exact, prefix or substring."`
	IgnoreCase bool   `name:"ignore-case" help:"Match the seed value without regard to case."`
	Direction  string `enum:"outgoing,incoming,both" default:"both" help:"Follow edges outgoing, incoming or both."`
	MaxDepth   int    `name:"max-depth" default:"0" help:"Longest path in edges (1-32; 0: the tool's default, 8)."`
	MaxPaths   int    `name:"max-paths" default:"0" help:"Most paths listed (1-1000; 0: the tool's default, 20)."`
	analysisFlags
}

func parseSeed(s string) (kind, value string, err error) {
	k, v, ok := strings.Cut(s, ":")
	if ok {
		for _, known := range seedKinds {
			if k == known && v != "" {
				return k, v, nil
			}
		}
	}
	return "", "", usageError{fmt.Errorf("--seed %q: expected KIND:VALUE with KIND one of %s", s, strings.Join(seedKinds, ", "))}
}

func (c *traceFeatureCmd) Run(e *env) error {
	kind, value, err := parseSeed(c.Seed)
	if err != nil {
		return err
	}
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	app, err := e.application(s, "APP", c.App, c.analysisFlags)
	if err != nil {
		return err
	}
	seed := map[string]any{"kind": kind, "value": value, "match": c.Match}
	if c.IgnoreCase {
		seed["case_sensitive"] = false
	}
	args := map[string]any{"application": app, "seed": seed, "direction": c.Direction}
	lim := map[string]any{}
	if c.MaxDepth > 0 {
		lim["max_depth"] = c.MaxDepth
	}
	if c.MaxPaths > 0 {
		lim["max_paths"] = c.MaxPaths
	}
	if len(lim) > 0 {
		args["limits"] = lim
	}
	return e.runWorkflow(s, "trace_application_feature", args)
}

type compareAppsCmd struct {
	Left     string `arg:"" help:"The older application: a path, or its analysis as @FILE, @BUNDLE#ev_ID or -."`
	Right    string `arg:"" help:"The newer application: a path, or its analysis as @FILE, @BUNDLE#ev_ID or -."`
	MaxItems int    `name:"max-items" default:"0" help:"Most items returned (0: the tool's default, 50000)."`
	analysisFlags
}

func (c *compareAppsCmd) Run(e *env) error {
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	left, err := e.application(s, "LEFT", c.Left, c.analysisFlags)
	if err != nil {
		return err
	}
	right, err := e.application(s, "RIGHT", c.Right, c.analysisFlags)
	if err != nil {
		return err
	}
	args := map[string]any{"left": left, "right": right}
	if c.MaxItems > 0 {
		args["limits"] = map[string]any{"max_items": c.MaxItems}
	}
	return e.runWorkflow(s, "compare_application_versions", args)
}

// application returns the Evidence argument for an APP: a reference is
// resolved as source.go says; a path is analyzed in s and passed as the
// retained record.
// analysisFlags tune the analysis a workflow runs on an APP given as a path.
type analysisFlags struct {
	IntegrityPolicy string `name:"integrity-policy" enum:"fail,record-and-continue" default:"fail" help:"For an APP path: fail stops at an ASAR integrity mismatch; record-and-continue quarantines it and continues."`
	TimeoutMS       int    `name:"analysis-timeout-ms" default:"0" help:"For an APP path: the analysis deadline in milliseconds (0: the default, 300000)."`
}

func (f analysisFlags) args(path string) map[string]any {
	a := map[string]any{"path": path}
	if f.IntegrityPolicy != "" && f.IntegrityPolicy != "fail" {
		a["integrity_policy"] = f.IntegrityPolicy
	}
	if f.TimeoutMS > 0 {
		a["analysis_timeout_ms"] = f.TimeoutMS
	}
	return a
}

func (e *env) application(s *core.Session, what, app string, f analysisFlags) (any, error) {
	if isReference(app) {
		return e.evidenceArg(s, what, app)
	}
	res, err := e.call(s, "analyze_javascript_application", f.args(abs(app)))
	if err != nil {
		return nil, err
	}
	return map[string]any{"kind": "retained-evidence", "evidence_id": string(res.Evidence.EvidenceID)}, nil
}

func (e *env) runWorkflow(s *core.Session, tool string, args map[string]any) error {
	e.tool = tool
	res, err := e.call(s, tool, args)
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return writeResult(e.opts.Stdout, res)
	}
	return renderResult(e.opts.Stdout, tool, res)
}
