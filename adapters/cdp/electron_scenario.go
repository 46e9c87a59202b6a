package cdp

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"rea/ports"
	"rea/supervisor"
)

// capture_electron_scenario: rea launches `electron -r hook.cjs <app>` as an
// owned process group (rea/supervisor), with a fresh temporary directory
// holding the hook, the control socket and the user data. The hook
// (electronhook/hook.cjs) connects to the socket, says ready, runs each
// scripted action and finally sends a snapshot: windows, processes, IPC
// events (channels and argument shapes) and the blocked effects. Cleanup
// ends every owned process and removes the directory whatever happened.

//go:embed electronhook/hook.cjs
var electronHook []byte

// ElectronHook is the preload hook's source (for tests and docs).
func ElectronHook() []byte { return slices.Clone(electronHook) }

// electronEnv is the launch environment allowlist (BROWSER.md).
var electronEnv = []string{"HOME", "LANG", "PATH", "TMP", "TMPDIR", "USER", "DISPLAY", "WAYLAND_DISPLAY"}

// maxHookLine bounds one message from the hook: a snapshot carries at
// most the IPC and runtime event caps.
const maxHookLine = 32 << 20

func scenarioInvalid(field, msg string) error {
	return &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: field, Msg: msg}
}

// realAbs checks an absolute path without NUL and returns its realpath.
func realAbs(field, p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) || len(p) > 4096 {
		return "", scenarioInvalid(field, field+" must be an absolute path without NUL")
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: field + " does not exist: " + p}
	}
	return r, nil
}

func checkActions(actions []ports.ElectronAction) error {
	if len(actions) > 100 {
		return scenarioInvalid("actions", "at most 100 actions")
	}
	seen := map[string]bool{}
	for i, a := range actions {
		f := "actions[" + strconv.Itoa(i) + "]"
		if a.StepID == "" || len(a.StepID) > 128 || seen[a.StepID] {
			return scenarioInvalid("actions", f+": step_id must be unique, 1..128 characters")
		}
		seen[a.StepID] = true
		switch a.Kind {
		case "click":
			if a.Selector == "" || len(a.Selector) > 1024 {
				return scenarioInvalid("actions", f+": click needs a selector")
			}
		case "wait":
			if a.DurationMS < 0 || a.DurationMS > 10000 {
				return scenarioInvalid("actions", f+": wait duration_ms must be 0..10000")
			}
		case "renderer-reload", "renderer-crash":
		case "deep-link":
			if a.Delivery != "open-url" && a.Delivery != "second-instance" || a.URL == "" || len(a.URL) > 4096 || strings.ContainsRune(a.URL, 0) {
				return scenarioInvalid("actions", f+": deep-link needs delivery open-url|second-instance and a url")
			}
		default:
			return scenarioInvalid("actions", f+": unknown action kind "+strconv.Quote(a.Kind))
		}
		if a.WindowIndex < 0 || a.WindowIndex > 31 {
			return scenarioInvalid("actions", f+": window_index must be 0..31")
		}
	}
	return nil
}

type hookMsg struct {
	Type            string                  `json:"type"`
	ElectronVersion string                  `json:"electron_version"`
	StepID          string                  `json:"step_id"`
	Status          string                  `json:"status"`
	Error           string                  `json:"error"`
	ElapsedMS       int64                   `json:"elapsed_ms"`
	Windows         []hookWindow            `json:"windows"`
	Processes       []ports.ElectronProcess `json:"-"`
	RawProcesses    []struct {
		PID  int    `json:"pid"`
		Role string `json:"role"`
	} `json:"processes"`
	EndedProcesses []struct {
		PID      *int    `json:"pid"`
		Role     string  `json:"role"`
		Reason   *string `json:"reason"`
		ExitCode *int    `json:"exit_code"`
	} `json:"ended_processes"`
	Renderers        []hookRenderer `json:"renderers"`
	IPC              []hookEvent    `json:"ipc"`
	IPCObserved      int            `json:"ipc_observed"`
	Timeline         []hookEvent    `json:"timeline"`
	TimelineObserved int            `json:"timeline_observed"`
	Conflicts        []string       `json:"conflicts"`
}

type hookWindow struct {
	WindowID      int    `json:"window_id"`
	WebContentsID *int   `json:"web_contents_id"`
	URL           string `json:"url"`
	Title         string `json:"title"`
	Visible       bool   `json:"visible"`
	Destroyed     bool   `json:"destroyed"`
	Crashed       bool   `json:"crashed"`
}

type hookRenderer struct {
	WebContentsID int  `json:"web_contents_id"`
	WindowID      *int `json:"window_id"`
	PID           *int `json:"pid"`
	Loaded        bool `json:"loaded"`
	Attached      bool `json:"attached"`
	Crashed       bool `json:"crashed"`
}

type hookEvent struct {
	Sequence       int      `json:"sequence"`
	Family         string   `json:"family"`
	Kind           string   `json:"kind"`
	Phase          string   `json:"phase"`
	Channel        string   `json:"channel"`
	Direction      string   `json:"direction"`
	ArgumentShapes []string `json:"argument_shapes"`
	Role           string   `json:"role"`
	PID            *int     `json:"pid"`
	WindowID       *int     `json:"window_id"`
	WebContentsID  *int     `json:"web_contents_id"`
	ElapsedMS      int64    `json:"elapsed_ms"`
}

// positive is a hook-reported id, 0 when absent or not an id.
func positive(p *int) int {
	if p == nil || *p < 0 {
		return 0
	}
	return *p
}

// decodeHookMessage parses one line from the hook; the fuzz target drives
// it: any input gives a message or an error, never a panic.
func decodeHookMessage(line []byte) (*hookMsg, error) {
	var m hookMsg
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	switch m.Type {
	case "ready", "action", "snapshot":
	default:
		return nil, errors.New("unknown hook message type " + strconv.Quote(m.Type))
	}
	return &m, nil
}

func cutEvent(e hookEvent) ports.ElectronEvent {
	sh := e.ArgumentShapes
	if len(sh) > 32 {
		sh = sh[:32]
	}
	out := make([]string, len(sh))
	for i, s := range sh {
		out[i] = cut(s, 256)
	}
	return ports.ElectronEvent{Sequence: e.Sequence, Family: cut(e.Family, 32), Kind: cut(e.Kind, 100), Phase: cut(e.Phase, 32),
		Channel: cut(e.Channel, 1024), Direction: cut(e.Direction, 32), ArgumentShapes: out, Role: cut(e.Role, 32),
		PID: positive(e.PID), WindowID: positive(e.WindowID), WebContentsID: positive(e.WebContentsID), ElapsedMS: max(e.ElapsedMS, 0)}
}

// RunElectronScenario launches an owned Electron application with the
// recording hook, runs the actions and cleans up.
func (e *RuntimeEngine) RunElectronScenario(ctx context.Context, req ports.ElectronScenarioRequest) (*ports.ElectronScenarioCapture, error) {
	exe, err := realAbs("executable_path", req.ExecutablePath)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(exe); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, scenarioInvalid("executable_path", "executable_path is not an executable file")
	}
	appPath, err := realAbs("application_path", req.ApplicationPath)
	if err != nil {
		return nil, err
	}
	rootIn := req.ApplicationRoot
	if rootIn == "" {
		rootIn = filepath.Dir(req.ApplicationPath)
	}
	root, err := realAbs("application_root", rootIn)
	if err != nil {
		return nil, err
	}
	if !underAny(appPath, []string{root}) && appPath != root {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "application_path is outside application_root"}
	}
	if len(req.Args) > 32 {
		return nil, scenarioInvalid("args", "at most 32 args")
	}
	for _, a := range req.Args {
		if strings.ContainsRune(a, 0) || len(a) > 4096 {
			return nil, scenarioInvalid("args", "an argument has a NUL or is over 4096 bytes")
		}
	}
	if err := checkActions(req.Actions); err != nil {
		return nil, err
	}
	def := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	duration := time.Duration(def(req.DurationMS, 60000)) * time.Millisecond
	actionMS := time.Duration(def(req.ActionMS, 5000)) * time.Millisecond
	startTimeout := time.Duration(def(req.StartTimeoutMS, 15000)) * time.Millisecond
	maxIPC, maxEvents := def(req.MaxIPCEvents, 2000), def(req.MaxEvents, 5000)
	maxProcs, maxWindows := def(req.MaxProcesses, 32), def(req.MaxWindows, 32)

	// The scenario directory holds the control socket, whose path must fit
	// a Unix socket address: under a deep TMPDIR it goes under /tmp.
	parent := e.opts.TempParent
	if parent == "" {
		parent = os.TempDir()
	}
	if len(parent) > 64 && statExists("/tmp") {
		parent = "/tmp"
	}
	run, err := supervisor.New(&supervisor.Options{RunID: req.RunID, GraceDelay: e.opts.GraceDelay, WaitDelay: 5 * time.Second, TempParent: parent})
	if err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot own a process here", Err: err}
	}
	out, runErr := e.runScenario(ctx, run, req, exe, appPath, root, duration, actionMS, startTimeout, maxIPC, maxEvents)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	cerr := run.Cleanup(cctx)
	if tap := e.opts.Tap; tap != nil && tap.Ended != nil && run.PID() != 0 {
		var sigs []string
		for _, a := range run.Signals() {
			if a.Result == ports.SignalDelivered {
				sigs = append(sigs, a.Signal)
			}
		}
		code := -1
		if st, err := run.Wait(cctx); err == nil && st != nil {
			code = st.ExitCode()
		}
		tap.Ended(sigs, code)
	}
	if cerr != nil {
		var ce *ports.CleanupError
		resources := []string{"process"}
		if errors.As(cerr, &ce) {
			resources = cleanupKinds(ce)
		}
		err := &ports.BrowserError{Code: ports.BrowserCleanupFailed, Cleanup: "incomplete", Resources: resources,
			Msg: "owned processes or files remain after the scenario", Err: errors.Join(runErr, cerr)}
		if out == nil {
			return nil, err
		}
		out.Status = "cleanup_failed"
		out.Limitations = append(out.Limitations, "Owned processes or files ("+strings.Join(resources, ", ")+") remained after the scenario.")
		return nil, &ports.ElectronScenarioError{Err: err, Partial: e.capScenario(out, maxProcs, maxWindows)}
	}
	if runErr != nil {
		if out == nil {
			return nil, runErr
		}
		if out.Status == "complete" {
			out.Status = "capture_truncated"
		}
		if _, only := runErr.(launchOnlyError); !only { // launchOnly's limitations say what was seen
			out.Limitations = append(out.Limitations, "The scenario failed before its end ("+runErr.Error()+"): what is here was observed up to then.")
		}
		return nil, &ports.ElectronScenarioError{Err: runErr, Partial: e.capScenario(out, maxProcs, maxWindows)}
	}
	return e.capScenario(out, maxProcs, maxWindows), nil
}

// capScenario applies the process and window caps.
func (e *RuntimeEngine) capScenario(out *ports.ElectronScenarioCapture, maxProcs, maxWindows int) *ports.ElectronScenarioCapture {
	if len(out.Processes) > maxProcs {
		out.Processes, out.ProcessesTrunc = out.Processes[:maxProcs], true
	}
	if len(out.EndedProcesses) > maxProcs {
		out.EndedProcesses, out.ProcessesTrunc = out.EndedProcesses[:maxProcs], true
	}
	if len(out.Windows) > maxWindows {
		out.Windows = out.Windows[:maxWindows]
		out.Limitations = append(out.Limitations, "Windows over the limit were dropped.")
	}
	return out
}

func cleanupKinds(ce *ports.CleanupError) []string {
	var kinds []string
	for _, r := range ce.Resources {
		if !slices.Contains(kinds, r.Kind) {
			kinds = append(kinds, r.Kind)
		}
	}
	if len(kinds) == 0 {
		kinds = []string{"process"}
	}
	slices.Sort(kinds)
	return kinds
}

func (e *RuntimeEngine) runScenario(ctx context.Context, run *supervisor.Run, req ports.ElectronScenarioRequest, exe, appPath, root string,
	duration, actionMS, startTimeout time.Duration, maxIPC, maxEvents int) (*ports.ElectronScenarioCapture, error) {
	// The scenario runs under limits.duration_ms; the snapshot after it
	// runs out is bounded by the caller's context and actionMS only.
	callCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	dir, err := run.TempDir("rea-electron-*")
	if err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot create the scenario directory", Err: err}
	}
	hook := filepath.Join(dir, "hook.cjs")
	src := electronHook
	if e.opts.Hook != nil {
		src = e.opts.Hook
	}
	if err := os.WriteFile(hook, src, 0o600); err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot write the hook", Err: err}
	}
	// The control socket lives in the run's 0700 directory.
	sockPath := filepath.Join(dir, "c.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sockPath, Net: "unix"})
	if err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot open the control socket", Err: err}
	}
	run.RegisterSocket(sockPath)
	defer ln.Close()
	tap := e.opts.Tap
	if tap == nil {
		tap = &ScenarioTap{}
	}
	if tap.Listening != nil {
		tap.Listening(sockPath)
	}
	userData := filepath.Join(dir, "user-data")
	os.Mkdir(userData, 0o700)
	env := []string{"REA_ELECTRON_CONTROL=" + sockPath, "REA_ELECTRON_ACTIVE_MAX_IPC_EVENTS=" + strconv.Itoa(maxIPC),
		"REA_ELECTRON_ACTIVE_MAX_RUNTIME_EVENTS=" + strconv.Itoa(maxEvents), "ELECTRON_ENABLE_LOGGING=0"}
	for _, k := range electronEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	args := append([]string{"-r", hook, appPath, "--user-data-dir=" + userData, "--no-sandbox"}, req.Args...)
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if devnull != nil {
		defer devnull.Close()
	}
	if err := run.Start(context.WithoutCancel(ctx), supervisor.Spec{Path: exe, Args: args, Dir: root, Env: env, Stdin: devnull, Stdout: devnull, Stderr: devnull}); err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot launch the application", Err: err}
	}
	if run.PID() == 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "the launched application has no PID"}
	}
	if tap.Started != nil {
		tap.Started(run.PID(), append([]string{exe}, args...))
	}
	// Wait for the hook to connect and say ready.
	type accepted struct {
		c   net.Conn
		err error
	}
	acc := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		acc <- accepted{c, err}
	}()
	startT := time.NewTimer(startTimeout)
	defer startT.Stop()
	var conn net.Conn
	select {
	case a := <-acc:
		if a.err != nil {
			return nil, &ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "the hook did not connect", Err: a.err}
		}
		conn = a.c
		if tap.Conn != nil {
			conn = tap.Conn(conn)
		}
	case <-run.Exited():
		p, how, _ := mainEnded(ctx, run, time.Second) // it has exited: no wait
		return launchOnly(req, exe, appPath, &p, "The application's main process (pid "+strconv.Itoa(p.PID)+") "+how+" before rea's hook connected"),
			launchOnlyError{&ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "target_exited: the application " + how + " before its hook connected (is executable_path an Electron executable that runs application_path?)"}}
	case <-startT.C:
		return launchOnly(req, exe, appPath, nil, "The application (pid "+strconv.Itoa(run.PID())+") was still running when rea stopped it, but its hook had not connected within "+
			startTimeout.String()), launchOnlyError{&ports.BrowserError{Code: ports.BrowserTimeout, Msg: "the application's hook did not connect within " + startTimeout.String()}}
	case <-ctx.Done():
		if callCtx.Err() != nil {
			return nil, cancelled(callCtx)
		}
		lim := "limits.duration_ms (" + strconv.Itoa(int(duration.Milliseconds())) + " ms)"
		return launchOnly(req, exe, appPath, nil, "The application (pid "+strconv.Itoa(run.PID())+") was still running when rea stopped it, but its hook had not connected within "+lim),
			launchOnlyError{&ports.BrowserError{Code: ports.BrowserTimeout, Msg: "the application's hook did not connect within " + lim + ": pass a larger limits.duration_ms"}}
	}
	defer conn.Close()
	msgs := make(chan *hookMsg, 16)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(conn, 64<<10)
		for {
			line, err := readLine(r, maxHookLine)
			if err != nil {
				readErr <- err
				close(msgs)
				return
			}
			m, err := decodeHookMessage(line)
			if err != nil {
				continue // a line the hook did not mean for us
			}
			msgs <- m
		}
	}()
	durationOut := false // limits.duration_ms ran out (the caller's context did not end)
	nextIn := func(ctx context.Context, d time.Duration) (*hookMsg, error) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case m, ok := <-msgs:
			if !ok {
				return nil, &ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "target_exited: the application closed the hook connection", Err: <-readErr}
			}
			return m, nil
		case <-t.C:
			return nil, &ports.BrowserError{Code: ports.BrowserTimeout, Msg: "the hook did not answer within " + d.String()}
		case <-ctx.Done():
			if callCtx.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				durationOut = true
				return nil, &ports.BrowserError{Code: ports.BrowserTimeout, Msg: "the scenario ran past limits.duration_ms (" + strconv.Itoa(int(duration.Milliseconds())) + " ms)"}
			}
			return nil, cancelled(ctx)
		}
	}
	next := func(d time.Duration) (*hookMsg, error) { return nextIn(ctx, d) }
	out := &ports.ElectronScenarioCapture{ExecutablePath: exe, ApplicationPath: appPath, Status: "complete"}
	m, err := next(startTimeout)
	if err != nil {
		if ports.IsCode(err, ports.BrowserTimeout) {
			return launchOnly(req, exe, appPath, nil, "The application (pid "+strconv.Itoa(run.PID())+") was still running when rea stopped it, "+
				"but its hook, connected, had not said ready ("+err.Error()+")"), launchOnlyError{err}
		}
		if !ports.IsCode(err, ports.BrowserDisconnected) {
			return nil, err
		}
		if p, how, ok := mainEnded(callCtx, run, 2*time.Second); ok {
			return launchOnly(req, exe, appPath, &p, "The application's main process (pid "+strconv.Itoa(p.PID)+") "+how+" after rea's hook connected and before it said ready"), launchOnlyError{err}
		}
		return launchOnly(req, exe, appPath, nil, "The application (pid "+strconv.Itoa(run.PID())+") closed rea's hook connection before the hook said ready, "+
			"and was still running when rea stopped it"), launchOnlyError{err}
	}
	if m.Type != "ready" {
		return nil, &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "the hook's first message was not ready"}
	}
	out.ElectronVersion = cut(m.ElectronVersion, 64)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, err := conn.Write(append(b, '\n'))
		return err
	}
	exited := false
	var final *hookMsg // a snapshot the hook sent as the application exited
	stoppedAt := ""    // the step during which limits.duration_ms ran out
	for i, a := range req.Actions {
		res := ports.ElectronActionResult{StepID: a.StepID, Kind: a.Kind}
		if exited || stoppedAt != "" {
			res.Status = "skipped"
			out.Actions = append(out.Actions, res)
			continue
		}
		wire := map[string]any{"step_id": a.StepID, "kind": a.Kind, "selector": a.Selector, "window_index": a.WindowIndex,
			"duration_ms": a.DurationMS, "delivery": a.Delivery, "url": a.URL}
		start := time.Now()
		if err := send(map[string]any{"cmd": "action", "action": wire}); err != nil {
			res.Status, res.Error = "failed", "target_exited"
			exited = true
		} else {
			d := actionMS + time.Duration(a.DurationMS)*time.Millisecond
			m, err := next(d)
			switch {
			case err != nil && durationOut:
				res.Status, res.Error = "failed", "scenario_duration_exceeded"
				stoppedAt = a.StepID
			case err != nil && ports.IsCode(err, ports.BrowserTimeout):
				res.Status, res.Error = "failed", "action_timeout"
			case err != nil && ports.IsCode(err, ports.BrowserDisconnected):
				res.Status, res.Error = "failed", "target_exited"
				exited = true
			case err != nil:
				out.Actions = append(out.Actions, res)
				return out, err
			case m.Type == "snapshot":
				// The hook's exit handler sends what it recorded as the
				// application exits: the action ended it.
				final = m
				res.Status, res.Error = "failed", "target_exited"
				exited = true
			case m.Type == "action" && m.StepID == a.StepID:
				res.Status, res.Error = cut(m.Status, 32), cut(m.Error, 200)
			default:
				res.Status, res.Error = "failed", "unexpected_hook_message"
			}
		}
		res.ElapsedMS = time.Since(start).Milliseconds()
		out.Actions = append(out.Actions, res)
		_ = i
	}
	// targetExited ends a capture whose application went away before the
	// snapshot: the main process's end, and what the hook sent on exit.
	targetExited := func(during string) (*ports.ElectronScenarioCapture, error) {
		// A snapshot the exit handler sent may still be queued; the reader
		// closes msgs at the socket's end.
		drain := time.NewTimer(actionMS)
		defer drain.Stop()
	queued:
		for final == nil {
			select {
			case m, ok := <-msgs:
				if !ok {
					break queued
				}
				if m.Type == "snapshot" {
					final = m
				}
			case <-drain.C:
				break queued
			case <-callCtx.Done():
				break queued
			}
		}
		if final != nil {
			applySnapshot(out, final, maxIPC, maxEvents)
		}
		out.Status = "target_exited"
		p, how, ok := mainEnded(callCtx, run, 2*time.Second)
		lim := "The application's main process " + how + " " + during + "; later actions were skipped. "
		if ok {
			// The final snapshot listed the main process alive as it exited.
			out.Processes = slices.DeleteFunc(out.Processes, func(q ports.ElectronProcess) bool { return q.PID == p.PID })
			out.EndedProcesses = append(out.EndedProcesses, p)
		} else {
			lim = "The application closed the hook connection " + during + " and was still running when rea stopped it; later actions were skipped. "
		}
		if final != nil {
			lim += "The windows, processes, IPC and timeline here are the hook's final snapshot, sent as the process exited."
		} else {
			lim += "No snapshot came: the windows, processes, IPC and timeline the hook recorded are lost (a crash or kill runs no exit handler)."
		}
		out.Limitations = append(out.Limitations, lim, "To see why it ended, run executable_path with application_path by hand and read its output, "+
			"or capture again without the step that ended it.")
		return out, nil
	}
	if exited {
		step := ""
		for _, a := range out.Actions {
			if a.Error == "target_exited" {
				step = a.StepID
			}
		}
		return targetExited("during step " + step)
	}
	if err := send(map[string]any{"cmd": "snapshot"}); err != nil {
		return targetExited("before the snapshot")
	}
	if durationOut {
		// The snapshot still comes: what the hook recorded up to the
		// limit is the capture.
		out.Status = "capture_truncated"
		out.Limitations = append(out.Limitations, "limits.duration_ms ("+strconv.Itoa(int(duration.Milliseconds()))+" ms) ran out during step "+stoppedAt+
			"; the later actions were skipped and the snapshot was taken then.")
	}
	for {
		// The snapshot is bounded by actionMS and the caller, not by
		// limits.duration_ms, which the actions may have used up.
		m, err := nextIn(callCtx, actionMS)
		if err != nil {
			if ports.IsCode(err, ports.BrowserDisconnected) {
				return targetExited("before the snapshot")
			}
			out.Limitations = append(out.Limitations, "No snapshot came from the hook: windows, processes, IPC and the timeline are missing.")
			return out, err
		}
		if m.Type != "snapshot" {
			continue
		}
		applySnapshot(out, m, maxIPC, maxEvents)
		return out, nil
	}
}

// launchOnlyError is the error of a run whose capture is launchOnly's.
type launchOnlyError struct{ error }

func (e launchOnlyError) Unwrap() error { return e.error }

// launchOnly is the capture of a run that ended before the hook reported
// anything: rea saw the launch and, when main is not nil, the main
// process's end (rea owns it, so it knows the exit code or signal), and
// nothing the hook records. what says how the run ended.
func launchOnly(req ports.ElectronScenarioRequest, exe, appPath string, main *ports.ElectronEndedProcess, what string) *ports.ElectronScenarioCapture {
	out := &ports.ElectronScenarioCapture{ExecutablePath: exe, ApplicationPath: appPath, Status: "target_exited"}
	if main != nil {
		out.EndedProcesses = append(out.EndedProcesses, *main)
	} else {
		out.Status = "capture_truncated"
	}
	for _, a := range req.Actions {
		out.Actions = append(out.Actions, ports.ElectronActionResult{StepID: a.StepID, Kind: a.Kind, Status: "skipped"})
	}
	seen := "rea observed the launch only (executable_path started with application_path)"
	if main != nil {
		seen += " and the main process's end"
	}
	out.Limitations = append(out.Limitations, what+": "+seen+". Not observed: the Electron version, windows, renderers, "+
		"the process list, IPC and the timeline (the hook records them); no action ran.",
		"To see why, run executable_path with application_path by hand and read its output: an executable that is not Electron, "+
			"or an application that exits or fails at start-up, ends here.")
	return out
}

// applySnapshot fills out from the hook's snapshot m, within the caps.
func applySnapshot(out *ports.ElectronScenarioCapture, m *hookMsg, maxIPC, maxEvents int) {
	for _, w := range m.Windows {
		ew := ports.ElectronWindow{WindowID: w.WindowID, URL: cut(w.URL, 65536), Title: cut(w.Title, 1024), Visible: w.Visible, Destroyed: w.Destroyed, Crashed: w.Crashed}
		if w.WebContentsID != nil {
			ew.WebContentsID = *w.WebContentsID
		}
		out.Windows = append(out.Windows, ew)
	}
	for _, p := range m.RawProcesses {
		out.Processes = append(out.Processes, ports.ElectronProcess{PID: p.PID, Role: cut(p.Role, 32)})
	}
	for _, p := range m.EndedProcesses {
		if len(out.EndedProcesses) >= 64 {
			break
		}
		ep := ports.ElectronEndedProcess{PID: positive(p.PID), Role: cut(p.Role, 32), ExitCode: p.ExitCode}
		if p.Reason != nil {
			ep.Reason = cut(*p.Reason, 64)
		}
		out.EndedProcesses = append(out.EndedProcesses, ep)
	}
	for _, ev := range m.IPC {
		if len(out.IPC) < maxIPC {
			out.IPC = append(out.IPC, cutEvent(ev))
		}
	}
	for _, ev := range m.Timeline {
		if len(out.Timeline) < maxEvents {
			out.Timeline = append(out.Timeline, cutEvent(ev))
		}
	}
	var unattached []string
	for _, r := range m.Renderers {
		if len(out.Renderers) >= 64 {
			break
		}
		er := ports.ElectronRenderer{WebContentsID: r.WebContentsID, WindowID: positive(r.WindowID), PID: positive(r.PID), Loaded: r.Loaded, Attached: r.Attached, Crashed: r.Crashed}
		out.Renderers = append(out.Renderers, er)
		if er.Loaded && !er.Attached && !er.Crashed {
			unattached = append(unattached, strconv.Itoa(er.WebContentsID))
		}
	}
	if len(unattached) > 0 {
		out.Status = "partial_attach"
		out.Limitations = append(out.Limitations, "The hook could not attach to the renderer of web contents "+strings.Join(unattached, ", ")+
			": its renderer-side IPC (sends, listeners, deliveries) is not recorded; the main process's side still is.")
	}
	out.IPCObserved, out.TimelineObs = max(m.IPCObserved, len(out.IPC)), max(m.TimelineObserved, len(out.Timeline))
	if out.IPCObserved > len(out.IPC) || out.TimelineObs > len(out.Timeline) {
		out.Status = "capture_truncated"
	}
	if len(m.Conflicts) > 0 {
		out.Status = "hook_conflict"
	}
	// The roles observed: the processes alive at the snapshot and those
	// that recorded an event before it (a renderer that crashed or
	// was replaced is gone from the snapshot's process list).
	roles := map[string]bool{}
	for _, p := range out.Processes {
		roles[p.Role] = true
	}
	for _, evs := range [][]ports.ElectronEvent{out.IPC, out.Timeline} {
		for _, ev := range evs {
			if ev.Role != "" {
				roles[ev.Role] = true
			}
		}
	}
	for r := range roles {
		out.ObservedRoles = append(out.ObservedRoles, r)
	}
	slices.Sort(out.ObservedRoles)
}

// mainEnded is the owned application's launcher (its main process) as
// processes.ended lists it, once it has exited (waiting up to wait for
// that), and words for how it ended; ok is false while it still runs.
func mainEnded(ctx context.Context, run *supervisor.Run, wait time.Duration) (ports.ElectronEndedProcess, string, bool) {
	p := ports.ElectronEndedProcess{PID: run.PID(), Role: "main"}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	st, _ := run.Wait(wctx)
	if st == nil {
		return p, "closed the hook connection", false
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		p.Reason = "killed"
		switch sig {
		case syscall.SIGSEGV, syscall.SIGABRT, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGTRAP:
			p.Reason = "crashed"
		}
		return p, "was ended by signal " + strconv.Itoa(int(sig)) + " (" + sig.String() + ")", true
	}
	code := st.ExitCode()
	p.ExitCode = &code
	p.Reason = "clean-exit"
	if code != 0 {
		p.Reason = "abnormal-exit"
	}
	return p, "exited with code " + strconv.Itoa(code), true
}

// readLine reads one \n-terminated line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > max {
			return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "a hook message exceeded the limit"}
		}
		if !isPrefix {
			return line, nil
		}
	}
}
