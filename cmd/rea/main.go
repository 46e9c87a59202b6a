// Command rea is the reverse-engineering tool: an MCP stdio server (rea
// serve) and a command line (rea analyze, rea call, rea tools). It is the only
// place where adapters are constructed and wired.
package main

//go:generate go run . catalog --output ../../docs/public/product-catalog.json

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"rea/adapters/ar"
	"rea/adapters/asar"
	"rea/adapters/cdp"
	"rea/adapters/cli"
	"rea/adapters/gdbremote"
	"rea/adapters/ghidra"
	"rea/adapters/hopper"
	"rea/adapters/js"
	"rea/adapters/mcp"
	"rea/adapters/native"
	"rea/adapters/probe"
	"rea/adapters/pty"
	"rea/adapters/tar"
	"rea/adapters/zip"
	"rea/core"
	"rea/core/artifact"
	"rea/core/jsapp"
	"rea/core/standard"
	"rea/ports"
	"rea/snapshot"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0"

func main() {
	os.Exit(run())
}

// gcPercent is the garbage collector's target when GOGC is not set: the
// heap may grow 70% past what is live before a collection, rather than Go's
// default 100%. On chromium, whole-file discovery's peak RSS falls from
// about 1.02 GB to 0.86 GB at the same CPU time (bench/native). A
// JavaScript application's parse phase raises it for a while (core/jsapp's
// gcphase.go).
const gcPercent = 70

func run() int {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	// rea owns this process, so its packages may tune the collector, which
	// they leave alone in a program that embeds them.
	jsapp.TuneCollector(true)
	artifact.TuneCollector(true)
	native.TuneCollector(true)
	// SIGINT and SIGTERM cancel the running operation; cleanup uses
	// context.WithoutCancel so it still completes.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal is caught to cancel; a second one ends rea at once
	// with the default action, for work that cannot see the cancellation
	// (an open or read blocked in the kernel).
	go func() { <-ctx.Done(); stop() }()
	return runArgs(ctx, os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr)
}

// app is everything cmd/rea wires together.
type app struct {
	nativeCache string                     // the warm cache root of rea-native, or "" when off
	debugDirs   []string                   // where rea-native looks for separate debug files
	debuginfod  *native.Debuginfod         // the servers asked for them, or nil (DEBUGINFOD_URLS)
	sigLibs     *native.SignatureLibraries // the archives that name library functions
	cat         *core.Catalog
	reg         *core.Registry
	id          core.ServerIdentity
	budget      core.ResponseBudget
	build       build // what rea version says of the build beyond id
}

// wire builds the catalog, the provider registry and the server identity
// from the start-up environment. An invalid setting stops start-up.
func wire(lookupEnv func(string) (string, bool)) (*app, error) {
	return wireFor(lookupEnv, true)
}

// wireFor wires rea for a server (serving: rea-native discovers in the
// background from each open, ahead of the queries that will need it) or
// for one command (which runs one query and exits: discovery starts only
// when that query needs it).
func wireFor(lookupEnv func(string) (string, bool), serving bool) (*app, error) {
	started := time.Now()
	getenv := func(k string) string { v, _ := lookupEnv(k); return v }
	cat, err := standard.Catalog()
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	profile, err := core.ParseSchemaProfile(lookupEnv(core.SchemaProfileEnv))
	if err != nil {
		return nil, err
	}
	cat.SetInputProfile(profile)
	check, err := core.ParseCheckOutputs(lookupEnv(core.CheckOutputSchemasEnv))
	if err != nil {
		return nil, err
	}
	cat.SetCheckOutputs(check)
	budget, err := core.ParseResponseBudget(lookupEnv(core.MaxResponseBytesEnv))
	if err != nil {
		return nil, err
	}
	// Ghidra is registered always and is available only when
	// GHIDRA_INSTALL_DIR names an installation; it starts on its first
	// query, never at start-up. auto keeps rea-native for the main job.
	gopts := &ghidra.Options{InstallDir: getenv("GHIDRA_INSTALL_DIR"), JavaHome: getenv("JAVA_HOME"), MaxHeap: getenv("GHIDRA_HEADLESS_MAXMEM")}
	if v, ok := lookupEnv(ghidra.EnvStartupTimeout); ok {
		d, err := ghidra.ParseStartupTimeout(v)
		if err != nil {
			return nil, err
		}
		gopts.StartupTimeout = d
	}
	snapshots := ""
	if cache, err := os.UserCacheDir(); err == nil {
		snapshots = filepath.Join(cache, "rea", "snapshots")
	}
	gopts.SnapshotRoot = snapshots
	// Hopper likewise: registered always, available only where its
	// launcher exists (HOPPER_LAUNCHER_PATH or the usual place), started by
	// its first query.
	hopts := &hopper.Options{Launcher: getenv(hopper.EnvLauncher), SnapshotRoot: snapshots}
	if v, ok := lookupEnv(hopper.EnvStartupTimeout); ok {
		d, err := hopper.ParseStartupTimeout(v)
		if err != nil {
			return nil, err
		}
		hopts.StartupTimeout = d
	}
	if v, ok := lookupEnv(hopper.EnvDemoHelper); ok {
		helper, err := hopper.ParseDemoHelper(v)
		if err != nil {
			return nil, err
		}
		hopts.DemoHelper = helper
	}
	if v, ok := lookupEnv(hopper.EnvLoaderArgs); ok {
		args, err := hopper.ParseLoaderArgs(v)
		if err != nil {
			return nil, err
		}
		hopts.LoaderArgs = args
	}
	if err := core.ApplyMemoryLimit(); err != nil { // REA_MAX_MEMORY_BYTES, REA_MAX_CALL_MEMORY_BYTES
		return nil, err
	}
	if err := core.CheckLedgerSettings(); err != nil { // REA_LEDGER_MAX_BYTES, REA_LEDGER_MAX_RECORDS
		return nil, err
	}
	browser := cdp.New(nil)
	nativeCache := nativeCacheDir(getenv)
	debugDirs, err := native.ParseDebugFileDirectories(lookupEnv(native.EnvDebugFileDirectories))
	if err != nil {
		return nil, err
	}
	sigLibs, err := native.ParseSignatureLibraries(lookupEnv(native.EnvSignatureLibraries))
	if err != nil {
		return nil, err
	}
	debuginfod, err := native.ParseDebuginfod(lookupEnv, nativeCache)
	if err != nil {
		return nil, err
	}
	// Serving, rea-native starts whole-file discovery in the background as a
	// target opens, so that a query needing it later finds it done or under
	// way.
	reg, err := core.NewRegistry([]ports.Provider{native.New(&native.Options{CacheDir: nativeCache, DiscoverOnOpen: serving, DebugFileDirectories: debugDirs, Debuginfod: debuginfod, SignatureLibraries: sigLibs}), ghidra.New(gopts), hopper.New(hopts)},
		&core.RegistryOptions{Default: getenv("REA_ANALYSIS_PROVIDER"),
			Containers: []ports.ContainerOpener{asar.Opener{}, zip.Opener{}, tar.Opener{}, ar.Opener{}},
			JavaScript: js.New(),
			Browser:    browser, Scenarios: browser, SourceMaps: browser, ScenarioAvailability: browser.ScenarioAvailability,
			Capturer: pty.New(nil),
			Tracer:   gdbremote.New(nil),
			Runtime:  cdp.NewRuntime(nil)})
	if err != nil {
		return nil, err
	}
	exe, _ := os.Executable()
	info, ok := debug.ReadBuildInfo()
	b := readBuild(getenv, info, ok)
	return &app{build: b, nativeCache: nativeCache, debugDirs: debugDirs, debuginfod: debuginfod, sigLibs: sigLibs, cat: cat, reg: reg, budget: budget, id: core.ServerIdentity{
		PackageName:   "rea",
		Version:       b.Version,
		RootPath:      filepath.Dir(exe),
		BuildCommit:   b.Commit,
		CommandPath:   exe,
		StartedAt:     started,
		SDKServer:     mcp.SDKVersion,
		SDKClientTest: "@modelcontextprotocol/sdk 1.32.2",
	}}, nil
}

func (a *app) server(logger *slog.Logger) *mcp.Server {
	return mcp.New(a.cat, a.reg, &mcp.Options{Identity: a.id, Logger: logger, Budget: a.budget})
}

func runArgs(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdin io.ReadCloser, stdout, stderr *os.File) int {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := wireFor(lookupEnv, serves(args))
	if err != nil {
		fmt.Fprintln(stderr, "rea:", err)
		return 2
	}
	serve := func(ctx context.Context, httpAddr string) error {
		if httpAddr != "" {
			ln, err := mcp.ListenLoopback(httpAddr)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "rea: serving MCP over Streamable HTTP at http://%s/\n", ln.Addr())
			return a.server(logger).ServeHTTP(ctx, ln)
		}
		err := a.server(logger).ServeStdio(ctx, stdin, stdout)
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	return cli.Run(ctx, args, &cli.Options{
		Catalog: a.cat, Registry: a.reg, Identity: a.id, Serve: serve, ModuleVersion: a.build.Module, VCSStamp: a.build.VCS,
		Stdout: stdout, Stderr: stderr, StderrIsTerminal: isTerminal(stderr),
		Stdin: stdin, StdinIsTerminal: isTerminal(os.Stdin) && stdin == os.Stdin,
		Registrar: newRegistrar(a.id.Version), SetupClients: setupClients(), Executable: a.id.CommandPath,
		Engines: func(ctx context.Context) []ports.Installation { return probe.All(ctx, nil) },
		Caches:  analysisCaches(a.nativeCache),
		Disassemble: func(ctx context.Context, path, section string, w io.Writer) error {
			return disassembleNative(ctx, &native.Options{CacheDir: a.nativeCache, DebugFileDirectories: a.debugDirs, Debuginfod: a.debuginfod, SignatureLibraries: a.sigLibs}, path, section, w)
		},
	})
}

// NativeCacheEnv names rea-native's warm cache root; "off" disables the
// cache. Unset, it is rea/native under the user's cache directory.
const NativeCacheEnv = "REA_NATIVE_CACHE_DIR"

// nativeCacheDir reads the root from the start-up environment, like every
// other setting: the user cache directory as os.UserCacheDir finds it, but
// through getenv (no HOME, no cache).
func nativeCacheDir(getenv func(string) string) string {
	switch v := getenv(NativeCacheEnv); v {
	case "off":
		return ""
	case "":
		var d string
		home := getenv("HOME")
		switch xdg := getenv("XDG_CACHE_HOME"); {
		case runtime.GOOS == "darwin" && home != "":
			d = filepath.Join(home, "Library", "Caches")
		case filepath.IsAbs(xdg):
			d = xdg
		case home != "":
			d = filepath.Join(home, ".cache")
		default:
			return ""
		}
		return filepath.Join(d, "rea", "native")
	default:
		return v
	}
}

// analysisCaches are the on-disk caches rea doctor shows and clears.
func analysisCaches(nativeRoot string) []cli.Cache {
	if nativeRoot == "" {
		return nil
	}
	st := snapshot.Store{Root: nativeRoot}
	usage := func(u snapshot.Usage, err error) (int, int64, error) { return u.Partitions, u.Bytes, err }
	fetched := native.DebuginfodCacheDir(nativeRoot) // debug files from debuginfod servers
	return []cli.Cache{{Name: "rea-native", Path: nativeRoot, Env: NativeCacheEnv,
		Usage: func() (int, int64, error) { return usage(st.Usage()) },
		Clear: func() (int, int64, error) { return usage(st.Clear()) }},
		{Name: "rea-native-debuginfod", Path: fetched, Env: NativeCacheEnv,
			Usage: func() (int, int64, error) { return native.DebuginfodCacheUsage(fetched, false) },
			Clear: func() (int, int64, error) { return native.DebuginfodCacheUsage(fetched, true) }}}
}

// isTerminal: a character device other than the null device (which is
// what a child started without a stdin gets).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}

// serves reports whether args run the MCP server: its command is the
// first argument that is not a flag.
func serves(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a == "serve"
		}
	}
	return false
}
