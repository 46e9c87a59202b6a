package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/alecthomas/kong"

	"rea/core"
	"rea/core/product"
	"rea/ports"
)

// Options wire the CLI. Catalog and Registry are required.
type Options struct {
	Catalog  *core.Catalog
	Registry *core.Registry
	Identity core.ServerIdentity
	// ModuleVersion is the main module's version as the go command
	// recorded it ("(devel)" without VCS stamping), and VCSStamp whether
	// it stamped the checkout's revision; rea version says which, so that
	// a build without a commit says why.
	ModuleVersion string
	VCSStamp      bool
	// Serve runs the MCP server (stdio, or loopback Streamable HTTP when
	// httpAddr is set); cmd/rea injects it.
	Serve  func(ctx context.Context, httpAddr string) error
	Stdout io.Writer
	Stderr io.Writer
	// StderrIsTerminal enables the progress indicator.
	StderrIsTerminal bool
	// Registrar edits the agent hosts' configuration (doctor, setup,
	// uninstall); cmd/rea injects it.
	Registrar Registrar
	// Engines looks for the external engines without starting them.
	Engines func(ctx context.Context) []ports.Installation
	// StdinIsTerminal lets setup and uninstall ask for confirmation.
	StdinIsTerminal bool
	Stdin           io.Reader
	// Executable is this binary, which rea mcp doctor starts as a server.
	Executable string
	// SetupClients describe the clients rea setup configures, for the
	// product catalog.
	SetupClients []any
	// Caches are the analysis caches on disk that doctor shows and, with
	// --clear-cache, empties; cmd/rea injects them.
	Caches []Cache
	// Disassemble writes the text disassembly of every executable section
	// of a native binary, or of one, to w (rea disassemble); cmd/rea
	// injects rea-native's.
	Disassemble func(ctx context.Context, path, section string, w io.Writer) error
}

// Cache is one analysis cache on disk.
type Cache struct {
	Name, Path string
	Env        string // the variable that moves it, or turns it off
	// Usage and Clear report (and Clear removes) the cache's entries and
	// bytes.
	Usage, Clear func() (entries int, bytes int64, err error)
}

// exitCodes maps every canonical code to a process exit status.
var exitCodes = map[core.Code]int{
	core.CodeExecutionFailure:          1,
	core.CodeUnreadableOutput:          1,
	core.CodeCleanupIncomplete:         1,
	core.CodeProcessCaptureFailed:      1,
	core.CodeRevisionConflict:          1,
	core.CodeInvalidRequest:            2,
	core.CodeConfigurationInvalid:      2,
	core.CodeTargetUnavailable:         3,
	core.CodeAccessDenied:              3,
	core.CodeUnsupportedTarget:         4,
	core.CodeCapabilityUnavailable:     4,
	core.CodeProviderUnavailable:       4,
	core.CodeArtifactIntegrityMismatch: 5,
	core.CodeEvidenceIntegrityMismatch: 5,
	core.CodeArtifactChanged:           5,
	core.CodeResourceConstraint:        6,
	core.CodeTruncated:                 6,
	core.CodeArtifactOperationFailed:   7,
	core.CodeProviderTimeout:           124,
	core.CodeCancelled:                 130,
}

// ExitCode returns the exit status for an error (0 for nil).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, ErrUsage) {
		return 2
	}
	if errors.Is(err, errNotReady) {
		return 1
	}
	if c, ok := exitCodes[core.AsError("", err).Code]; ok {
		return c
	}
	return 1
}

type usageError struct{ error }

type globals struct {
	Format      string      `enum:"text,json" default:"text" help:"Output format: text or json."`
	ShowVersion versionFlag `name:"version" help:"Print the version and exit."`
	Provider    string      `help:"Analysis provider: auto or a provider id (also REA_ANALYSIS_PROVIDER)." default:""`
}

type grammar struct {
	globals
	Serve           serveCmd           `cmd:"" help:"Run the MCP server over stdio (or --http on a loopback address)."`
	Analyze         analyzeCmd         `cmd:"" help:"Open a file and print its overview with the bound provider (the built-in rea-native for ELF, PE and Mach-O)."`
	Tools           toolsCmd           `cmd:"" help:"List every operation in the catalog, or describe one: rea tools NAME."`
	Call            callCmd            `cmd:"" help:"Call any operation with JSON arguments (inline, @FILE or - for stdin), with the same validation and error envelope as MCP; --format text renders the result readably."`
	Version         versionCmd         `cmd:"" help:"Print the version."`
	Catalog         catalogCmd         `cmd:"" help:"Write the machine-readable product catalog (docs/public/product-catalog.json)."`
	Inventory       inventoryCmd       `cmd:"" help:"Inventory a directory, ASAR, ZIP, tar or ar archive: every entry hashed, classified and checked against its declared integrity."`
	ExtractArtifact extractArtifactCmd `cmd:"" name:"extract-artifact" help:"Extract the regular files of a directory, ASAR, ZIP, tar or ar archive into a fresh temporary directory and print it."`
	TraceFeature    traceFeatureCmd    `cmd:"" name:"trace-feature" help:"Analyze a JavaScript application (or read its analysis) and trace one feature through it from a seed (trace_application_feature)."`
	CompareApps     compareAppsCmd     `cmd:"" name:"compare-apps" help:"Analyze two versions of a JavaScript application (or read their analyses) and compare them (compare_application_versions)."`
	Completion      completionCmd      `cmd:"" help:"Print a shell completion script: rea completion bash|zsh|fish."`
	AnalyzeJSApp    jsappCmd           `cmd:"" name:"analyze-javascript-application" help:"Map a JavaScript or Electron application (a directory or an .asar) without running it: processes, IPC, modules, endpoints, source maps."`
	InspectBundle   inspectBundleCmd   `cmd:"" name:"inspect-evidence-bundle" help:"Validate an exported Evidence bundle and describe it (records, links; --format json prints its canonical bytes and a newline), or with detail summary its records' identities (get_evidence_bundle's projection)."`
	EvidenceExport  evidenceExportCmd  `cmd:"" name:"evidence-export" help:"Write an Evidence bundle file from imported bundles (--from) and recorded calls (--target, --call), streamed and atomically published."`
	EvidenceImport  evidenceImportCmd  `cmd:"" name:"evidence-import" help:"Validate a bundle file completely as import_evidence_bundle does and print its summary."`
	Compare         compareCmd         `cmd:"" help:"Compare two Evidence bundle files (compare_bundles), or two native binaries: matched, changed, renamed, added and removed functions (compare_binaries)."`
	Setup           setupCmd           `cmd:"" help:"Register this rea with the detected MCP clients: prints the plan, changes nothing without --yes."`
	Uninstall       uninstallCmd       `cmd:"" help:"Remove rea's registrations and agent skill (and with --purge-data its caches): prints the plan, changes nothing without --yes."`
	Providers       providersCmd       `cmd:"" help:"List the engines rea knows: which exist, are configured and available, and which operations each offers (no target needed)."`
	Capabilities    capabilitiesCmd    `cmd:"" help:"List every operation and whether it is available now, with the reason when not (no target needed)."`
	MCP             mcpCmd             `cmd:"" name:"mcp" help:"Check this rea as an MCP server (rea mcp doctor)."`
	Disassemble     disassembleCmd     `cmd:"" help:"Print the disassembly of every instruction of a native binary's executable sections (or --section NAME) as text, one line each, in address order."`
	Doctor          doctorCmd          `cmd:"" help:"Check the host, the analysis engines (never starting one), the agent skill and each MCP client registration; exit 0 only when healthy."`
	Capture         captureCmd         `cmd:"" help:"Run a program in a pseudo-terminal and print its exit, final screen, processes and file effects (capture_process_scenario)."`
	Trace           traceCmd           `cmd:"" help:"Trace calls of named functions of a program under gdbserver and print each hit's first arguments (trace_native_calls)."`
	Annotate        annotateCmd        `cmd:"" help:"Navigate and annotate one binary (goto_address, set_comment, set_address_name, inspect_address_context, ...), keeping the annotations in an Evidence bundle file (--bundle)."`
	browserCmds     `embed:""`         // the browser tools (browser.go)
	runtimeCmds     `embed:""`         // the running-JavaScript tools (runtime.go)
}

// Commands are the CLI's primary commands, for the product catalog.
var Commands = []string{"analyze", "analyze-javascript-application", "analyze-web-bundle", "annotate", "call", "capabilities", "capture", "capture-browser-scenario", "capture-electron-scenario", "capture-web-screenshot", "catalog", "compare", "compare-apps", "compare-web-screenshots", "completion", "disassemble", "discover-webmcp-tools", "doctor", "evidence-export", "evidence-import", "extract-artifact", "inspect-electron-page", "inspect-evidence-bundle", "inspect-web-page", "inventory", "list-browser-targets", "list-electron-targets", "list-javascript-runtime-targets", "mcp", "observe-javascript-runtime", "observe-web-session", "providers", "reconcile-javascript-runtime", "serve", "setup", "tools", "trace", "trace-feature", "uninstall", "version"}

type env struct {
	ctx  context.Context
	opts *Options
	g    *globals
	src  *source
	// tool is the operation rea call runs, for remediations.
	tool string
	// command is the subcommand's name, for remediations.
	command string
}

// Run parses args and runs one command. It returns the process exit status.
func Run(ctx context.Context, args []string, opts *Options) int {
	o := *opts
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	// The command-line parser replaces the bytes of an argument that is
	// not valid UTF-8 with U+FFFD, and JSON arguments could not carry them
	// anyway: such a path named a file that did not exist ("stat
	// dir/bad\ufffdname: no such file or directory"). Say so instead.
	for _, a := range args {
		if !utf8.ValidString(a) {
			fmt.Fprintf(o.Stderr, "rea: argument %q is not valid UTF-8, which rea cannot pass on; rename the file or link it under a UTF-8 name (ln -s)\n", a)
			return 2
		}
	}
	exited := -1
	newParser := func(grammar any, stdout, stderr io.Writer, exit func(int)) (*kong.Kong, error) {
		return kong.New(grammar, kong.Name("rea"),
			kong.Description("rea: reverse engineer binaries, archives and apps with reproducible, content-addressed Evidence."),
			kong.Bind(&o),
			kong.Writers(stdout, stderr), kong.Exit(exit))
	}
	// The grammar of the one command named is enough to parse a plain
	// invocation of it (kong would build the other commands' flags and
	// arguments for nothing); help, --version and anything the one-command
	// grammar does not take go through the whole grammar, which prints what
	// it always printed.
	var kctx *kong.Context
	var g *globals
	if one, globalsOf := commandGrammar(args); one != nil {
		failed := false
		if k, err := newParser(one, io.Discard, io.Discard, func(int) { failed = true }); err == nil {
			if c, err := k.Parse(args); err == nil && !failed {
				kctx, g = c, globalsOf()
			}
		}
	}
	if kctx == nil {
		whole := new(grammar)
		k, err := newParser(whole, o.Stdout, o.Stderr, func(code int) { exited = code })
		if err != nil {
			fmt.Fprintln(o.Stderr, "rea:", err)
			return 1
		}
		c, err := k.Parse(args)
		if exited >= 0 {
			return exited // --help
		}
		if err != nil {
			// An agent that asked for JSON gets the envelope of any other
			// usage error on stdout; the parser never applied --format, so
			// the arguments say whether it was asked for.
			e := &env{ctx: ctx, opts: &o, g: &globals{Format: formatOf(args)}}
			if pe, ok := errors.AsType[*kong.ParseError](err); ok && pe.Context != nil && pe.Context.Selected() != nil {
				e.command, _, _ = strings.Cut(pe.Context.Command(), " <")
			}
			e.printError(usageError{err})
			return 2
		}
		kctx, g = c, &whole.globals
	}
	e := &env{ctx: ctx, opts: &o, g: g, command: kctx.Command()}
	if i := strings.IndexAny(e.command, " <"); i >= 0 {
		e.command = e.command[:i]
	}
	flush := bufferOutput(e.command, &o)
	err := e.checkProvider()
	if err == nil {
		err = kctx.Run(e)
	}
	if err != nil {
		e.printError(err)
	}
	if ferr := flush(); ferr != nil && err == nil {
		fmt.Fprintln(o.Stderr, "rea: writing the output:", ferr)
		return 1
	}
	if err != nil {
		return ExitCode(err)
	}
	return 0
}

// bufferOutput gives a command that prints its result once its work is
// done one buffer for its standard output, written when it returns
// (flush): a table written straight to a pipe or a file was one write
// per cell (466 writes for the 70 lines of rea analyze /usr/bin/ls).
func bufferOutput(command string, o *Options) (flush func() error) {
	if !bufferedOutput[command] {
		return func() error { return nil }
	}
	bw := bufio.NewWriterSize(o.Stdout, 64<<10)
	o.Stdout = bw
	return bw.Flush
}

// bufferedOutput says, for every command (a test holds it to Commands),
// whether bufferOutput buffers it. A command that prints as it goes, asks
// a question, serves a protocol, writes its own way (disassemble) or
// drives a browser or a program is not buffered.
var bufferedOutput = map[string]bool{
	"analyze": true, "analyze-javascript-application": true, "inventory": true, "tools": true, "call": true, "version": true,
	"catalog": true, "completion": true, "compare": true, "compare-apps": true, "trace-feature": true,
	"inspect-evidence-bundle": true, "evidence-import": true, "providers": true, "capabilities": true,
	"analyze-web-bundle": false, "annotate": false, "capture": false, "capture-browser-scenario": false,
	"capture-electron-scenario": false, "capture-web-screenshot": false, "compare-web-screenshots": false,
	"disassemble": false, "discover-webmcp-tools": false, "doctor": false, "evidence-export": false,
	"extract-artifact": false, "inspect-electron-page": false, "inspect-web-page": false, "list-browser-targets": false,
	"list-electron-targets": false, "list-javascript-runtime-targets": false, "mcp": false,
	"observe-javascript-runtime": false, "observe-web-session": false, "reconcile-javascript-runtime": false,
	"serve": false, "setup": false, "trace": false, "uninstall": false,
}

// formatOf is the --format the arguments ask for ("text" when none), read
// as the parser would: before a "--", as "--format X" or "--format=X".
func formatOf(args []string) string {
	f := "text"
	for i, a := range args {
		switch {
		case a == "--":
			return f
		case a == "--format" && i+1 < len(args):
			f = args[i+1]
		case strings.HasPrefix(a, "--format="):
			f = strings.TrimPrefix(a, "--format=")
		}
	}
	return f
}

func (e *env) printError(err error) {
	if errors.Is(err, errNotReady) {
		return // the report says why
	}
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, ErrUsage) {
		if e.g.Format == "json" {
			// What a JSON reader of stdout gets for any other error.
			fmt.Fprintln(e.opts.Stdout, string((&core.Error{Code: core.CodeInvalidRequest, Message: err.Error(),
				Remediation: "Correct the command line; " + strings.TrimSpace("rea "+e.command) + " --help describes it."}).JSON()))
		}
		fmt.Fprintln(e.opts.Stderr, "rea:", err.Error())
		return
	}
	// A command's own error is named after the command: the line below
	// already says rea (this was "rea: rea: native: ...").
	ce := core.AsError(cmp.Or(e.command, "rea"), err)
	env := ce.Envelope().Error
	if e.g.Format == "json" {
		// The envelope is the output; the line on stderr is for whoever
		// redirected stdout to a file.
		fmt.Fprintln(e.opts.Stdout, string(ce.JSON()))
		fmt.Fprintf(e.opts.Stderr, "rea: %s (%s)\n", cliMessage(e.command, env.Message), env.Code)
		return
	}
	fmt.Fprintf(e.opts.Stderr, "rea: %s (%s)\n", cliMessage(e.command, env.Message), env.Code)
	rem := commandForms(e.command, cliRemediation(e.command, e.tool, env), func(name string) (bool, bool) {
		op, ok := e.opts.Catalog.Lookup(name)
		return ok && op.NeedsTarget, ok
	})
	if name, ok := strings.CutPrefix(env.Message, "unknown tool "); ok {
		if n, err := strconv.Unquote(name); err == nil {
			rem = didYouMean(e.opts.Catalog, n) + rem // as rea tools NAME suggests
		}
	}
	if rem != "" {
		fmt.Fprintf(e.opts.Stderr, "  what to do: %s\n", rem)
	}
	if issues, ok := env.Details["issues"].([]core.Issue); ok {
		for _, is := range issues {
			where := issueWhere(is.Path)
			if strings.HasPrefix(env.Message, "unknown tool ") && where == "name" {
				// The MCP argument; the CLI took the name as TOOL or in --call.
				where = map[string]string{"call": "TOOL", "evidence-export": "--call"}[e.command]
			}
			fmt.Fprintf(e.opts.Stderr, "  %s: %s %s\n", cmp.Or(where, "name"), is.Reason, is.Message)
		}
	}
}

// issueWhere names an issue's path for a person: its steps joined by dots
// (files.0.name, --section), and an empty path, the arguments as a whole
// (not one JSON object, say), as "arguments" (these were printed as Go
// slices: "[files 0 name]", "[]").
func issueWhere(path []any) string {
	if len(path) == 0 {
		return "arguments"
	}
	steps := make([]string, len(path))
	for i, s := range path {
		steps[i] = fmt.Sprint(s)
	}
	return strings.Join(steps, ".")
}

func (e *env) session() *core.Session {
	return core.NewSession(e.opts.Catalog, e.opts.Registry, &core.SessionOptions{Server: e.opts.Identity})
}

func (e *env) call(s *core.Session, name string, args any) (*core.Result, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var p core.Progress
	if e.opts.StderrIsTerminal {
		p = newIndicator(e.opts.Stderr)
	}
	return s.Call(e.ctx, name, raw, &core.CallOptions{Progress: p, Client: &core.ClientInfo{Name: "rea-cli", Version: e.opts.Identity.Version}})
}

func (e *env) writeJSON(v any) error { return writeIndented(e.opts.Stdout, v) }

type serveCmd struct {
	HTTP string `name:"http" placeholder:"127.0.0.1:PORT" help:"Serve Streamable HTTP on this loopback address instead of stdio."`
}

func (c *serveCmd) Run(e *env) error {
	if e.opts.Serve == nil {
		return errors.New("serve: no MCP server is wired into this build")
	}
	if err := e.opts.Serve(e.ctx, c.HTTP); err != nil {
		return usageError{err}
	}
	return nil
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	id := e.opts.Identity
	if e.g.Format == "json" {
		var commit, moduleVersion any
		if id.BuildCommit != "" {
			commit = id.BuildCommit
		}
		if e.opts.ModuleVersion != "" {
			moduleVersion = e.opts.ModuleVersion
		}
		return e.writeJSON(map[string]any{"name": "rea", "version": id.Version, "commit": commit, "catalog_sha256": e.opts.Catalog.Identity().Combined,
			"tools": len(e.opts.Catalog.Operations()), "module_version": moduleVersion, "vcs_stamp": e.opts.VCSStamp})
	}
	fmt.Fprintln(e.opts.Stdout, versionLine(e.opts))
	return nil
}

// versionFlag is --version. The line is computed only when the flag is
// given: it digests the whole catalog, which every other command would pay
// for at start-up (about 20 ms).
type versionFlag bool

// BeforeReset prints the version line and exits, as kong.VersionFlag does.
func (versionFlag) BeforeReset(app *kong.Kong, o *Options) error {
	fmt.Fprintln(app.Stdout, versionLine(o))
	app.Exit(0)
	return nil
}

func versionLine(o *Options) string {
	id := o.Identity
	rev := "commit unknown"
	switch {
	case id.BuildCommit != "":
		rev = "commit " + id.BuildCommit
	case !o.VCSStamp:
		// Nothing to name: say what is known and why the commit is not.
		rev = "module " + cmp.Or(o.ModuleVersion, "version unknown") + ", no commit: built with -buildvcs=false or outside a git checkout"
	}
	return fmt.Sprintf("rea %s (%s, catalog %s, %d tools)", id.Version, rev, o.Catalog.Identity().Combined[:12], len(o.Catalog.Operations()))
}

type catalogCmd struct {
	Output string `short:"o" help:"Write to this file instead of stdout." type:"path"`
}

func (c *catalogCmd) Run(e *env) error {
	pc := product.New(e.opts.Catalog, e.opts.Registry, product.Info{
		Version: e.opts.Identity.Version, SDKServer: e.opts.Identity.SDKServer, SDKClient: e.opts.Identity.SDKClientTest,
		CLICommands: Commands, SetupClients: e.opts.SetupClients})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(pc); err != nil {
		return err
	}
	if c.Output == "" {
		_, err := e.opts.Stdout.Write(buf.Bytes())
		return err
	}
	tmp := c.Output + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, c.Output)
}

type callCmd struct {
	Tool      string   `arg:"" help:"Operation name (see rea tools and rea tools NAME)."`
	Arguments string   `arg:"" optional:"" default:"{}" help:"Arguments: one JSON object, @FILE for a file holding it, or - for standard input."`
	Target    string   `help:"Open this file with open_binary before the call (a directory becomes the path of an artifact or application tool)."`
	Evidence  []string `sep:"none" placeholder:"NAME=SOURCE" help:"Set argument NAME to Evidence read from @FILE, @BUNDLE#ev_ID (a bundle record) or - (repeatable)."`
}

func (c *callCmd) Run(e *env) error {
	// Named before the arguments are read, so that arguments that are not
	// JSON get the tool's own advice (rea tools NAME).
	e.tool = c.Tool
	raw, err := e.source().jsonArg(c.Tool, "arguments", c.Arguments)
	if err != nil {
		return err
	}
	var args json.RawMessage = raw
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	if len(c.Evidence) > 0 {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return core.InvalidRequest(c.Tool, core.Issue{Path: []any{}, Reason: core.ReasonInvalidType,
				Message: "--evidence needs the arguments to be one JSON object", Expected: "object"})
		}
		for _, spec := range c.Evidence {
			name, ref, ok := strings.Cut(spec, "=")
			if !ok || name == "" {
				return usageError{fmt.Errorf("--evidence %q: expected NAME=@FILE, NAME=@BUNDLE#ev_ID or NAME=-", spec)}
			}
			v, err := e.evidenceArg(s, "--evidence "+name, ref)
			if err != nil {
				return err
			}
			// An argument whose schema takes inline Evidence in a wrapper
			// (inspect_analysis_view's source) gets the record wrapped;
			// the others take the record itself.
			if rec, inline := v.(json.RawMessage); inline && e.takesInlineWrapper(c.Tool, name) {
				v = map[string]any{"kind": "inline", "evidence": rec}
			}
			m[name] = v
		}
		if args, err = json.Marshal(m); err != nil {
			return err
		}
	}
	switch {
	case c.Target != "" && e.pathTarget(c.Tool, c.Target):
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil || m == nil {
			return core.InvalidRequest(c.Tool, core.Issue{Path: []any{}, Reason: core.ReasonInvalidType,
				Message: "--target with a directory needs the arguments to be one JSON object", Expected: "object"})
		}
		if _, given := m["path"]; given {
			return usageError{fmt.Errorf("--target %s and the argument path both name what %s reads; give one", c.Target, c.Tool)}
		}
		m["path"] = c.Target
		if args, err = json.Marshal(m); err != nil {
			return err
		}
	case c.Target != "":
		if _, err := e.open(s, c.Target); err != nil {
			return err
		}
	}
	res, err := e.call(s, c.Tool, args)
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return writeResult(e.opts.Stdout, res)
	}
	return renderResult(e.opts.Stdout, c.Tool, res)
}

// checkProvider refuses a --provider that names no provider of this build
// before the command runs, with the error open_binary's provider_id gets
// over MCP for the same id (one parser, one selection policy: the seed
// contracts' provider selection error, capability_unavailable with
// selection_reason unknown_provider, exit 4), named after the command and
// saying it was --provider; a malformed id is invalid_request, as
// provider_id's schema pattern refuses it.
func (e *env) checkProvider() error {
	p := e.g.Provider
	if p == "" || p == core.SelectorAuto {
		return nil
	}
	op := cmp.Or(e.command, "rea")
	if _, err := core.ParseProviderSelector(p); err != nil {
		return core.InvalidRequest(op, core.Issue{Path: []any{"--provider"}, Reason: core.ReasonInvalidFormat, Message: err.Error()})
	}
	ids := []string{}
	for _, q := range e.opts.Registry.Providers() {
		if q.Info().ID == p {
			return nil
		}
		ids = append(ids, q.Info().ID)
	}
	return &core.Error{Code: core.CodeCapabilityUnavailable, Category: core.CategoryUnsupportedProvider,
		Message:     fmt.Sprintf("%s: unknown provider %q given to --provider (known: auto, %s)", op, p, strings.Join(ids, ", ")),
		Remediation: "Choose auto or a provider rea providers lists.",
		Details: map[string]any{"operation": op, "selection_reason": "unknown_provider", "requested_provider_id": p,
			"candidate_ids": ids, "rejections": []any{}}}
}

func (e *env) open(s *core.Session, path string) (*core.Result, error) {
	args := map[string]any{"path": path}
	if p := e.g.Provider; p != "" {
		if _, err := core.ParseProviderSelector(p); err != nil {
			return nil, core.InvalidRequest("open_binary", core.Issue{Path: []any{"provider_id"}, Reason: core.ReasonInvalidFormat, Message: err.Error()})
		}
		args["provider_id"] = p
	}
	return e.call(s, "open_binary", args)
}

type analyzeCmd struct {
	Path   string `arg:"" help:"File to analyze." type:"path"`
	Detail string `enum:"concise,detailed" default:"detailed" help:"concise: counts and the first 64 segments; detailed (the default): also the first --limit procedures and strings."`
	Limit  int    `default:"10" help:"How many procedures and strings to show (1-50)."`
}

func (c *analyzeCmd) Run(e *env) error {
	// Route by content, as open_binary identifies a target: an
	// application directory or an ASAR (whatever its name) is mapped as a
	// JavaScript application, a ZIP family archive is mapped as one when
	// it holds JavaScript (zipHoldsJavaScript) and inventoried otherwise, and
	// everything else goes to the native overview.
	switch routeAnalyze(e.ctx, c.Path) {
	case "jsapp":
		return (&jsappCmd{Path: c.Path, ContainerFormat: "auto", IntegrityPolicy: "fail", Detail: "complete"}).Run(e)
	case "inventory":
		return (&inventoryCmd{artifactFlags{Path: c.Path, IntegrityPolicy: "fail"}}).Run(e)
	}
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	opened, err := e.open(s, c.Path)
	if err != nil {
		return err
	}
	res, err := e.call(s, "binary_overview", map[string]any{"detail": c.Detail, "limit": c.Limit})
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(map[string]any{"target": opened.Value, "overview": res.Evidence})
	}
	return writeOverview(e.opts.Stdout, opened.Value.(*core.OpenBinaryResult), res.Evidence)
}

func writeOverview(w io.Writer, target *core.OpenBinaryResult, ev *core.Evidence) error {
	var ov struct {
		Document       string  `json:"document"`
		Format         string  `json:"format"`
		Architecture   *string `json:"architecture"`
		Entry          *string `json:"entry"`
		ProcedureCount int     `json:"procedure_count"`
		ProcedureList  string  `json:"procedure_list"`
		SegmentCount   int     `json:"segment_count"`
		StringCount    int     `json:"string_count"`
		NameCount      *int    `json:"name_count"`
		Stripped       *bool   `json:"stripped"`
		DebugInfo      *bool   `json:"debug_info"`
		DebugLink      *string `json:"debug_link"`
		Segments       []struct{ Name, Start, End, Length string }
		Procedures     []struct {
			Address, Value, Source string
			Procedure              struct{ Thunk bool }
		}
		Strings []struct {
			Address, Value, Charset string
		}
	}
	if err := json.Unmarshal(ev.NormalizedResult, &ov); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	arch := "unknown"
	if ov.Architecture != nil {
		arch = *ov.Architecture
	}
	fmt.Fprintf(tw, "%s\n", target.Path)
	fmt.Fprintf(tw, "  format\t%s %s, %s\n", ov.Format, target.Kind, arch)
	fmt.Fprintf(tw, "  sha256\t%s\n", target.SHA256)
	fmt.Fprintf(tw, "  provider\t%s %s\n", ev.Provider.ID, deref(ev.Provider.Version))
	if d := debugFileOf(ev); d != "" {
		fmt.Fprintf(tw, "  debug file\t%s\n", d)
	}
	if l := libraryNamesOf(ev); l != "" {
		fmt.Fprintf(tw, "  library functions\t%s\n", l)
	}
	if ov.Entry != nil {
		fmt.Fprintf(tw, "  entry\t%s\n", *ov.Entry)
	}
	if ov.Stripped != nil {
		fmt.Fprintf(tw, "  symbols\t%s\n", symbolsLine(*ov.Stripped, ov.DebugInfo, ov.DebugLink))
	}
	names := "n/a"
	if ov.NameCount != nil {
		names = fmt.Sprint(*ov.NameCount)
	}
	fmt.Fprintf(tw, "  counts\t%d procedures, %d segments, %d strings, %s names\n", ov.ProcedureCount, ov.SegmentCount, ov.StringCount, names)
	if ov.ProcedureList == "tables" {
		fmt.Fprintf(tw, "  procedures\tfrom symbol and unwind tables only (whole-file discovery not awaited: rea call list_procedures --target PATH waits for it)\n")
	}
	fmt.Fprintf(tw, "  evidence\t%s\n", ev.EvidenceID)
	tw.Flush()
	// Outside the table: a limitation's label would widen every other
	// row's, and they are sentences, not values.
	for _, l := range ev.Limitations {
		fmt.Fprintf(w, "  limitation: %s\n", l)
	}
	fmt.Fprintf(w, "\nSegments\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  NAME\tSTART\tEND\tLENGTH\n")
	for _, s := range ov.Segments {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.Name, s.Start, s.End, s.Length)
	}
	tw.Flush()
	if len(ov.Procedures) > 0 {
		fmt.Fprintf(w, "\nProcedures (first %d of %d)\n", len(ov.Procedures), ov.ProcedureCount)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  ADDRESS\tNAME\tSOURCE\n")
		for _, p := range ov.Procedures {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.Address, p.Value, p.Source)
		}
		tw.Flush()
	}
	if len(ov.Strings) > 0 {
		fmt.Fprintf(w, "\nStrings (first %d of %d)\n", len(ov.Strings), ov.StringCount)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  ADDRESS\tCHARSET\tVALUE\n")
		for _, s := range ov.Strings {
			fmt.Fprintf(tw, "  %s\t%s\t%q\n", s.Address, s.Charset, truncate(s.Value, 60))
		}
		tw.Flush()
	}
	return nil
}

// symbolsLine says what the file keeps of its names: whether it is
// stripped of its static symbol table, and whether it keeps debug
// information (unsaid when the provider did not say), and the separate
// debug file it names.
func symbolsLine(stripped bool, debugInfo *bool, debugLink *string) string {
	line := "static symbol table"
	if stripped {
		line = "stripped: no static symbol table"
	}
	switch {
	case debugInfo == nil:
	case *debugInfo:
		line += ", debug information (DWARF)"
	default:
		line += ", no debug information"
	}
	if debugLink != nil && *debugLink != "" {
		// What the file names (.gnu_debuglink, a PE's PDB), read or not:
		// the debug file line says when one was found and used.
		line += fmt.Sprintf("; names the separate debug file %q", *debugLink)
	}
	return line
}

// debugFileOf is the separate debug file the profile names (the engine
// took symbols or DWARF from it), as "PATH (by build-id; symbols, dwarf)",
// followed by the supplementary (dwz) file its DWARF names, as
// "; supplementary PATH (by altlink)" (alone when the DWARF is the
// target's own), or "".
func debugFileOf(ev *core.Evidence) string {
	if ev.AnalysisProfile == nil {
		return ""
	}
	var params struct {
		DebugFile *struct {
			Path          string   `json:"path"`
			FoundBy       string   `json:"found_by"`
			UsedFor       []string `json:"used_for"`
			Supplementary *struct {
				Path    string `json:"path"`
				FoundBy string `json:"found_by"`
			} `json:"supplementary"`
		} `json:"debug_file"`
	}
	if json.Unmarshal(ev.AnalysisProfile.Parameters, &params) != nil || params.DebugFile == nil {
		return ""
	}
	d := params.DebugFile
	var parts []string
	if d.Path != "" {
		parts = append(parts, fmt.Sprintf("%s (by %s; %s)", d.Path, d.FoundBy, strings.Join(d.UsedFor, ", ")))
	}
	if s := d.Supplementary; s != nil {
		parts = append(parts, fmt.Sprintf("supplementary %s (by %s)", s.Path, s.FoundBy))
	}
	return strings.Join(parts, "; ")
}

// libraryNamesOf says how many procedures the signature libraries the
// profile names (rea-native's signature_libraries) named, as "412 named
// from libc.a, 3 from libm.a (9 ambiguous)", or "".
func libraryNamesOf(ev *core.Evidence) string {
	if ev.AnalysisProfile == nil {
		return ""
	}
	var params struct {
		Libs *struct {
			Libraries []struct {
				Path    string `json:"path"`
				Matched int    `json:"matched"`
			} `json:"libraries"`
			Ambiguous int `json:"ambiguous"`
		} `json:"signature_libraries"`
	}
	if json.Unmarshal(ev.AnalysisProfile.Parameters, &params) != nil || params.Libs == nil || len(params.Libs.Libraries) == 0 {
		return ""
	}
	var parts []string
	for _, l := range params.Libs.Libraries {
		if l.Matched == 0 && len(params.Libs.Libraries) > 1 {
			continue // the profile lists it; the line names what named something
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%d named from %s", l.Matched, filepath.Base(l.Path)))
		} else {
			parts = append(parts, fmt.Sprintf("%d from %s", l.Matched, filepath.Base(l.Path)))
		}
	}
	return fmt.Sprintf("%s (%d ambiguous)", strings.Join(parts, ", "), params.Libs.Ambiguous)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// commandFields maps each top-level command's name to its grammar field
// (the embedded groups' commands included), as kong names them.
var commandFields = sync.OnceValue(func() map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if _, embed := f.Tag.Lookup("embed"); embed && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if _, cmd := f.Tag.Lookup("cmd"); !cmd {
				continue
			}
			name := f.Tag.Get("name")
			if name == "" {
				name = strings.ToLower(f.Name) // the commands without a name tag are one word
			}
			out[name] = f
		}
	}
	walk(reflect.TypeFor[grammar]())
	return out
})

// commandGrammar returns a grammar of the global flags and the one command
// args invoke, and how to read its globals after parsing; nil when args are
// not a plain invocation of one command: the command must be the first
// argument after global flags, and no -h, --help or --version may appear.
func commandGrammar(args []string) (grammar any, globalsOf func() *globals) {
	name := commandNamed(args)
	if name == "" {
		return nil, nil
	}
	gt := reflect.TypeFor[globals]()
	var fields []reflect.StructField
	for i := 0; i < gt.NumField(); i++ {
		f := gt.Field(i)
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
	}
	c := commandFields()[name]
	fields = append(fields, reflect.StructField{Name: c.Name, Type: c.Type, Tag: c.Tag})
	v := reflect.New(reflect.StructOf(fields))
	return v.Interface(), func() *globals {
		g := new(globals)
		gv := reflect.ValueOf(g).Elem()
		for i := 0; i < gt.NumField(); i++ {
			gv.Field(i).Set(v.Elem().Field(i))
		}
		return g
	}
}

// commandNamed is the command a plain invocation names, or "".
func commandNamed(args []string) string {
	named := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "-h" || strings.HasPrefix(a, "--help") || strings.HasPrefix(a, "--version") ||
			(len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h')) {
			return ""
		}
		if named != "" {
			continue
		}
		switch {
		case a == "--format" || a == "--provider":
			i++ // its value
		case strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "--provider="):
		case strings.HasPrefix(a, "-"):
			return "" // not a global flag: leave it to the whole grammar
		default:
			if _, ok := commandFields()[a]; !ok {
				return ""
			}
			named = a
		}
	}
	return named
}

// takesInlineWrapper reports an argument of tool whose schema has a
// {"kind":"inline","evidence":...} form.
// pathTarget reports whether --target names a directory for a tool that
// reads what it analyzes from its path argument (the artifact tools and
// analyze_javascript_application): open_binary opens files only, so the
// directory is given to the tool as its path instead.
func (e *env) pathTarget(tool, target string) bool {
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		return false
	}
	op, ok := e.opts.Catalog.Lookup(tool)
	if !ok || op.Kind != core.KindArtifactProvider && op.Kind != core.KindApplication {
		return false
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(op.Input, &s) != nil {
		return false
	}
	_, ok = s.Properties["path"]
	return ok
}

func (e *env) takesInlineWrapper(tool, arg string) bool {
	op, ok := e.opts.Catalog.Lookup(tool)
	if !ok {
		return false
	}
	var s struct {
		Properties map[string]struct {
			OneOf []struct {
				Properties struct {
					Kind struct {
						Const string `json:"const"`
					} `json:"kind"`
				} `json:"properties"`
			} `json:"oneOf"`
		} `json:"properties"`
	}
	if json.Unmarshal(op.Input, &s) != nil {
		return false
	}
	for _, alt := range s.Properties[arg].OneOf {
		if alt.Properties.Kind.Const == "inline" {
			return true
		}
	}
	return false
}
