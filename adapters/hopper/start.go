package hopper

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rea/adapters/internal/lazyengine"
	"rea/ports"
	"rea/supervisor"
)

// The bridge Hopper runs; it is written into each session's private root.
//
//go:embed bridge/hopper_bridge.py
var bridgeSource []byte

// Bridge identity the health handshake must report.
const (
	bridgeName    = "REA Hopper bridge"
	bridgeVersion = "1.0.0"
)

// engine is one running, handshaken Hopper session.
type engine struct {
	run     *supervisor.Run
	wire    *wire
	root    string
	lineage ports.ProcessLineage
}

// connHook, when set by a test, wraps each bridge connection.
var connHook func(net.Conn) net.Conn

// start runs PROVIDERS.md §2.2 under ctx (the startup deadline): a private
// root, the bootstrap and the bridge, the launcher, the socket, the health
// handshake, the lineage. Any failure cleans everything up first.
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

	root, err := run.TempDir("rea-hopper-")
	if err != nil {
		return fail("start", err)
	}
	for _, d := range []string{"home", "tmp"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			return fail("start", err)
		}
	}
	var tok [32]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return fail("start", err)
	}
	token := hex.EncodeToString(tok[:])
	sock := filepath.Join(root, "bridge.sock")
	if len(sock) > 100 {
		return fail("start", fmt.Errorf("socket path %s is too long for a Unix socket; choose a shorter temporary directory", sock))
	}
	bridge := filepath.Join(root, "hopper_bridge.py")
	if err := os.WriteFile(bridge, bridgeSource, 0o600); err != nil {
		return fail("start", err)
	}
	// An executable is loaded where it is (Hopper only reads it); a
	// database is opened from a verified copy in the root, so the
	// analysis it holds is reused and the analyst's file is never written.
	targetFlag, targetPath := "--executable", a.target.Path
	if isDatabase(a.target) {
		cp, err := lazyengine.CopyTarget(a.target, root, strings.ToLower(filepath.Ext(a.target.Path)))
		if err != nil {
			return fail("start", err)
		}
		targetFlag, targetPath = "--database", cp
	}
	boot := filepath.Join(root, "bootstrap.py")
	if err := os.WriteFile(boot, bootstrap(map[string]string{
		"REA_SOCKET": sock, "REA_TOKEN": token, "REA_RUN_ID": run.ID(), "REA_TARGET_PATH": targetPath,
		"REA_OWNS_PROCESS_LIFETIME": fmt.Sprint(a.demo),
	}, bridge), 0o600); err != nil {
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
	args := append(append([]string(nil), a.loader...), "--analysis", "--python", boot, targetFlag, targetPath)
	env := childEnv(root, run.ID())
	spec := supervisor.Spec{Path: a.install.Launcher, Args: args, Dir: root, Env: env, Stdout: stdout, Stderr: stderr}
	ensureMacApp(ctx, a.install.Launcher)
	if a.demo {
		// The demo runs under the X11 helper, which becomes the owned
		// launcher (PROVIDERS.md §2.2).
		if a.p.opts.DemoHelper == "" {
			return fail("start", errDemoWithoutHelper)
		}
		d, err := probeDemo(ctx, a.p.opts.Python, a.p.opts.DemoHelper, env)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return fail("process", err)
		}
		spec.Path, spec.Args = d.launchCommand(a.install.Launcher, sock, args)
	}
	if err := run.Start(life, spec); err != nil {
		return fail("start", err)
	}
	conn, err := lazyengine.Dial(ctx, run.Exited(), sock)
	if err != nil {
		if errors.Is(err, lazyengine.ErrExited) {
			if a.demo {
				code := -1
				if ps, _ := run.Wait(ctx); ps != nil { // a non-zero exit comes with an *exec.ExitError
					code = ps.ExitCode()
				}
				return fail("process", helperExit(code, filepath.Join(root, "stderr.log")))
			}
			return fail("process", fmt.Errorf("Hopper exited before bridge startup%s", lazyengine.Tail(filepath.Join(root, "stderr.log"))))
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
	var h struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		RunID   string `json:"run_id"`
	}
	if err := w.call(ctx, "health", map[string]any{}, &h); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return fail("start", fmt.Errorf("handshake: %w", err))
	}
	if h.Name != bridgeName || h.Version != bridgeVersion || h.RunID != run.ID() {
		return fail("start", fmt.Errorf("handshake: bridge %q %q for run %q, want %q %q for this run", h.Name, h.Version, h.RunID, bridgeName, bridgeVersion))
	}
	return &engine{run: run, wire: w, root: root, lineage: run.Lineage(ctx)}, nil
}

// bootstrap is the Python file Hopper runs: it puts the session into the
// bridge's environment and runs the bridge with Hopper's Document class.
// Values are JSON strings, which are Python string literals too.
func bootstrap(env map[string]string, bridge string) []byte {
	var b strings.Builder
	b.WriteString("# Written by rea for one Hopper session; removed with the session root.\nimport os\n")
	for _, k := range []string{"REA_SOCKET", "REA_TOKEN", "REA_RUN_ID", "REA_TARGET_PATH", "REA_OWNS_PROCESS_LIFETIME"} {
		v, _ := json.Marshal(env[k])
		fmt.Fprintf(&b, "os.environ[%q] = %s\n", k, v)
	}
	p, _ := json.Marshal(bridge)
	fmt.Fprintf(&b, "_rea_ns = {\"__name__\": \"rea_hopper_bridge\", \"__file__\": %s}\n", p)
	fmt.Fprintf(&b, "with open(%s) as _rea_f:\n    exec(compile(_rea_f.read(), %s, \"exec\"), _rea_ns)\n", p, p)
	b.WriteString("_rea_ns[\"main\"](Document)\n")
	return []byte(b.String())
}

// childEnv is this process's environment with HOME and TMPDIR pointed into
// the root and the run ID set.
func childEnv(root, runID string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "TMPDIR", supervisor.RunIDEnv:
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+filepath.Join(root, "home"), "TMPDIR="+filepath.Join(root, "tmp"), supervisor.RunIDEnv+"="+runID)
}

// shutdown asks the bridge to end (30 s) when no request holds the wire,
// closes the connection, gives the launcher 500 ms to exit, then runs the
// supervisor's cleanup (stop the group, remove the socket and the root).
func (e *engine) shutdown(ctx context.Context) error {
	if !e.wire.busy() && e.wire.err() == nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_ = e.wire.call(sctx, "shutdown", map[string]any{}, nil) // a bad ack only delays the stop
		cancel()
	}
	e.wire.close()
	select {
	case <-e.run.Exited():
	case <-time.After(500 * time.Millisecond):
	}
	cctx, cancel := supervisor.CleanupContext(ctx, 0)
	defer cancel()
	return e.run.Cleanup(cctx)
}
