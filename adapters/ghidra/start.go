package ghidra

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"rea/adapters/internal/lazyengine"
	"rea/ports"
	"rea/supervisor"
)

// The bridge Ghidra compiles and runs as a post-script; it is written into
// each session's private root so the installation is never modified.
//
//go:embed bridge/ReaGhidraBridge.java bridge/ReaBridgeProtocol.java
var bridgeFiles embed.FS

const bridgeVersion = 6

// bridgeMethods is the exact capability list the bridge reports at ping:
// the operations of PROVIDERS.md §1.7 this bridge implements, in that
// order, then rea's extensions (read_bytes, function_body,
// list_references, disassemble, native_api). The bridge declares nothing
// it answers with method_unavailable.
var bridgeMethods = []string{
	"ping", "shutdown", "address_name", "list_documents", "list_names",
	"list_procedures", "list_segments", "list_strings", "procedure_address",
	"procedure_info", "procedure_pseudo_code", "read_bytes", "function_body", "list_references", "disassemble", "native_api",
}

// engine is one running, handshaken Ghidra session.
type engine struct {
	run        *supervisor.Run
	wire       *wire
	root       string
	info       sessionInfo
	lineage    ports.ProcessLineage
	cleanupErr error
}

// sessionInfo is the ping reply (PROVIDERS.md §1.7).
type sessionInfo struct {
	Name             string                       `json:"name"`
	BridgeVersion    int                          `json:"bridge_version"`
	RunID            string                       `json:"run_id"`
	ProfileDigest    string                       `json:"profile_digest"`
	Provider         struct{ ID, Version string } `json:"provider"`
	ReadOnly         bool                         `json:"read_only"`
	AnalysisComplete bool                         `json:"analysis_complete"`
	AnalysisTimedOut bool                         `json:"analysis_timed_out"`
	Capabilities     []string                     `json:"capabilities"`
	Target           struct {
		Name                string `json:"name"`
		LanguageID          string `json:"language_id"`
		CompilerSpecID      string `json:"compiler_spec_id"`
		ImageBase           string `json:"image_base"`
		DefaultAddressSpace string `json:"default_address_space"`
		SHA256              string `json:"sha256"`
	} `json:"target"`
}

// start runs PROVIDERS.md §1.4 under ctx (the startup deadline): a private
// root, a verified copy of the target, the descriptor, analyzeHeadless, the
// socket, the ping handshake, the lineage. Any failure cleans everything up
// before it returns.
func (a *Analysis) start(ctx, life context.Context) (eng *engine, err error) {
	run, err := supervisor.New(&supervisor.Options{TempParent: a.p.opts.TempParent, GraceDelay: 2 * time.Second})
	if err != nil {
		return nil, &StartupError{Kind: "start", Err: err}
	}
	defer func() {
		if err != nil {
			cctx, cancel := supervisor.CleanupContext(ctx, 0)
			defer cancel()
			if cerr := run.Cleanup(cctx); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}
	}()
	fail := func(kind string, e error) (*engine, error) { return nil, &StartupError{Kind: kind, Err: e} }

	root, err := run.TempDir("rea-ghidra-")
	if err != nil {
		return fail("start", err)
	}
	for _, d := range []string{"project", "home", "tmp", "cache", "config", "data", "bridge"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			return fail("start", err)
		}
	}
	copyPath, err := lazyengine.CopyTarget(a.target, root, filepath.Ext(a.target.Path))
	if err != nil {
		return fail("start", err)
	}
	for _, name := range []string{"ReaGhidraBridge.java", "ReaBridgeProtocol.java"} {
		b, _ := bridgeFiles.ReadFile("bridge/" + name)
		if err := os.WriteFile(filepath.Join(root, "bridge", name), b, 0o600); err != nil {
			return fail("start", err)
		}
	}
	var tok [32]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return fail("start", err)
	}
	token := hex.EncodeToString(tok[:])
	sock := filepath.Join(root, "bridge.sock")
	desc := filepath.Join(root, "session.json")
	if len(sock) > 100 {
		return fail("start", fmt.Errorf("socket path %s is too long for a Unix socket; choose a shorter temporary directory", sock))
	}
	if err := writeDescriptor(desc, map[string]any{
		"schema_version": 2, "transport": "unix-socket", "endpoint_path": sock, "token": token,
		"run_id": run.ID(), "target_sha256": a.target.SHA256, "provider_version": a.install.Version,
		"profile_digest": a.digest,
	}); err != nil {
		return fail("start", err)
	}
	run.RegisterSocket(sock)

	stdout, err := os.OpenFile(filepath.Join(root, "stdout.log"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fail("start", err)
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(filepath.Join(root, "stderr.log"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fail("start", err)
	}
	defer stderr.Close()
	spec := supervisor.Spec{
		Path: a.install.AnalyzeHeadless,
		Args: []string{
			filepath.Join(root, "project"), "rea-project", "-import", copyPath, "-readOnly", "-deleteProject",
			"-analysisTimeoutPerFile", "300", "-max-cpu", "2",
			"-log", filepath.Join(root, "ghidra.log"), "-scriptlog", filepath.Join(root, "script.log"),
			"-scriptPath", filepath.Join(root, "bridge"), "-postScript", "ReaGhidraBridge.java", desc,
		},
		Dir:    root,
		Env:    a.childEnv(root, run.ID()),
		Stdout: stdout,
		Stderr: stderr,
	}
	// The process lives as long as the analysis, not as long as the start.
	if err := run.Start(life, spec); err != nil {
		return fail("start", err)
	}
	conn, err := lazyengine.Dial(ctx, run.Exited(), sock)
	if err != nil {
		if errors.Is(err, lazyengine.ErrExited) {
			return fail("process", fmt.Errorf("Ghidra exited before bridge startup%s", lazyengine.Tail(filepath.Join(root, "stderr.log"))))
		}
		return nil, err
	}
	if connHook != nil {
		conn = connHook(conn)
	}
	w := newWire(conn, token)
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	var info sessionInfo
	if err := w.call(ctx, "ping", map[string]any{}, &info); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return fail("start", fmt.Errorf("handshake: %w", err))
	}
	if err := a.checkSession(info, run.ID()); err != nil {
		if info.AnalysisTimedOut {
			return fail("analysis_timeout", err)
		}
		return fail("start", err)
	}
	return &engine{run: run, wire: w, root: root, info: info, lineage: run.Lineage(ctx)}, nil
}

// connHook, when set (by the live lane while recording), wraps each bridge
// connection, so the transcripts the replay tests use come from the same
// code path as a live session.
var connHook func(net.Conn) net.Conn

// checkSession holds the bridge to the session's commitment.
func (a *Analysis) checkSession(info sessionInfo, runID string) error {
	switch {
	case info.AnalysisTimedOut:
		return errors.New("Ghidra auto-analysis timed out (300 s)")
	case info.AnalysisComplete == info.AnalysisTimedOut:
		return errors.New("handshake: analysis_complete equals analysis_timed_out")
	case info.BridgeVersion != bridgeVersion:
		return fmt.Errorf("handshake: bridge version %d, want %d", info.BridgeVersion, bridgeVersion)
	case info.RunID != runID:
		return errors.New("handshake: run_id differs from the session's")
	case info.ProfileDigest != a.digest:
		return errors.New("handshake: profile_digest differs from the session's")
	case info.Provider.ID != "ghidra" || info.Provider.Version != a.install.Version:
		return fmt.Errorf("handshake: provider %s %s, want ghidra %s", info.Provider.ID, info.Provider.Version, a.install.Version)
	case info.Target.SHA256 != a.target.SHA256:
		return errors.New("handshake: the imported program's sha256 differs from the target's")
	case !info.ReadOnly:
		return errors.New("handshake: the session is not read-only")
	case !slices.Equal(info.Capabilities, bridgeMethods):
		return fmt.Errorf("handshake: bridge capabilities %v differ from the declared set", info.Capabilities)
	}
	return nil
}

// writeDescriptor writes the session descriptor atomically as one JSON line,
// mode 0600. It is the only carrier of the token.
func writeDescriptor(path string, v map[string]any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".pending"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// childEnv is this process's environment with the Java option variables
// emptied, the homes and temporary directories pointed into the root, and
// the heap bound.
func (a *Analysis) childEnv(root, runID string) []string {
	drop := map[string]bool{
		"_JAVA_OPTIONS": true, "JAVA_TOOL_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "GHIDRA_JAVA_OPTIONS": true,
		"HOME": true, "TMPDIR": true, "XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true,
		"GHIDRA_HEADLESS_MAXMEM": true, "GHIDRA_HEADLESS_JAVA_OPTIONS": true, "JAVA_HOME": true, "PATH": true,
	}
	var env []string
	path := os.Getenv("PATH")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	if a.install.JavaHome != "" {
		env = append(env, "JAVA_HOME="+a.install.JavaHome)
		path = filepath.Join(a.install.JavaHome, "bin") + string(os.PathListSeparator) + path
	}
	heap := a.p.opts.MaxHeap
	if v := os.Getenv("GHIDRA_HEADLESS_MAXMEM"); v != "" {
		heap = v // an operator's setting wins
	}
	return append(env,
		"PATH="+path,
		"_JAVA_OPTIONS=", "JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS=", "GHIDRA_JAVA_OPTIONS=",
		"HOME="+filepath.Join(root, "home"), "TMPDIR="+filepath.Join(root, "tmp"),
		"XDG_CACHE_HOME="+filepath.Join(root, "cache"), "XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"XDG_DATA_HOME="+filepath.Join(root, "data"),
		"GHIDRA_HEADLESS_MAXMEM="+heap,
		"GHIDRA_HEADLESS_JAVA_OPTIONS=-Duser.home="+filepath.Join(root, "home")+" -Djava.io.tmpdir="+filepath.Join(root, "tmp"),
		supervisor.RunIDEnv+"="+runID,
	)
}

// shutdown asks the bridge to end (10 s), closes the connection, gives the
// launcher 500 ms to exit, then runs the supervisor's cleanup.
func (e *engine) shutdown(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	_ = e.wire.call(sctx, "shutdown", map[string]any{}, nil) // a bad ack is only a log line
	cancel()
	e.wire.close()
	select {
	case <-e.run.Exited():
	case <-time.After(500 * time.Millisecond):
	}
	cctx, cancel := supervisor.CleanupContext(ctx, 0)
	defer cancel()
	return e.run.Cleanup(cctx)
}
