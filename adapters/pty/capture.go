//go:build linux

package pty

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"rea/ports"
	"rea/supervisor"
)

// Versions the manifest names.
const (
	ProviderVersion  = "1"
	ptyBackend       = "github.com/creack/pty"
	terminalEmulator = "github.com/charmbracelet/x/vt"
)

const (
	pollInterval   = 20 * time.Millisecond // deadlines
	sampleInterval = 50 * time.Millisecond // process tree, sockets, settlement
	writeTimeout   = time.Second           // an input the program never reads
	drainQuiet     = 200 * time.Millisecond
)

// Options configures an Engine. A nil *Options means the defaults; New copies
// it.
type Options struct {
	// TempParent is where each capture's temporary root is created; "" means
	// os.TempDir().
	TempParent string
	// WaitDelay bounds the wait for processes to vanish after SIGKILL; 0
	// means the supervisor's default.
	WaitDelay time.Duration
}

// Engine runs capture scenarios. It holds no state between captures.
type Engine struct {
	opts Options
}

var _ ports.ProcessCapturer = (*Engine)(nil)

// New returns an Engine.
func New(opts *Options) *Engine {
	var o Options
	if opts != nil {
		o = *opts
	}
	return &Engine{opts: o}
}

type chunk struct {
	at   time.Duration
	data []byte
}

type rawFrame struct {
	at   time.Duration
	text string
}

type rawRender struct {
	at time.Duration
	f  ports.RenderedFrame
}

// capture is the state of one CaptureProcess call.
type capture struct {
	ctx  context.Context
	sc   ports.CaptureScenario
	t0   time.Time
	sup  *supervisor.Run
	ptm  *os.File
	scr  *screen
	red  *streamRedactor
	samp *sampler

	cols, rows      int
	frames          []rawFrame
	renders         []rawRender
	rawTrunc        ports.TerminalTruncation
	renderTrunc     ports.TerminalTruncation
	rawDropping     bool
	renderDropped   bool
	rawHash         hash.Hash
	interactions    []ports.InteractionEvent
	eventSignals    []ports.SignalAttempt
	journal         []ports.JournalEntry
	lastActivity    time.Time
	journalMu       sync.Mutex // the renderer records too
	renderQ         chan renderItem
	renderCut       bool // cancelled while the emulator was busy
	renderCutFrames int
	renderAbandoned bool // set by the renderer
	renderDone      chan struct{}
	nextSample      time.Duration
	disposition     string
	cleanupStatus   string
}

func (c *capture) elapsed() time.Duration { return time.Since(c.t0) }

func (c *capture) record(collection string, index int) {
	c.journalMu.Lock()
	defer c.journalMu.Unlock()
	c.journal = append(c.journal, ports.JournalEntry{CaptureOrder: len(c.journal), Collection: collection, Index: index})
}

func (c *capture) observe(phase string) {
	var el int64
	if !c.t0.IsZero() {
		el = c.elapsed().Milliseconds()
	}
	samples := 0
	if c.samp != nil {
		samples = len(c.samp.samples)
	}
	msg := fmt.Sprintf("elapsed_ms=%d frames=%d samples=%d interactions=%d", el, len(c.frames), samples, len(c.interactions))
	if c.disposition != "" {
		msg += " disposition=" + c.disposition
	}
	if c.cleanupStatus != "" {
		msg += " " + c.cleanupStatus
	}
	ports.Observe(c.ctx, phase, msg)
}

// CaptureProcess runs req.Scenario; see ports.ProcessCapturer.
func (e *Engine) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	sc := req.Scenario
	if err := validate(sc); err != nil {
		return nil, err
	}
	cwd, err := resolveDir(sc.WorkingDirectory)
	if err != nil {
		return nil, err
	}
	exe, checked, err := resolveExecutable(sc, cwd)
	if err != nil {
		return nil, err
	}
	ident, tuple, err := identify(exe, checked)
	if err != nil {
		return nil, err
	}
	c := &capture{ctx: ctx, sc: sc, cols: sc.Terminal.Columns, rows: sc.Terminal.Rows, rawHash: sha256.New()}
	var secrets []string
	for _, ev := range sc.Events {
		if ev.Type == ports.EventInput && ev.Sensitive {
			secrets = append(secrets, secretsOf(ev.Data)...)
		}
	}
	c.red = &streamRedactor{n: &Normalizer{Secrets: secrets}}
	c.rawTrunc.BudgetBytes = sc.Limits.OutputBytes
	c.renderTrunc.BudgetBytes = sc.Limits.OutputBytes
	c.observe("prepare")

	out := &ports.ProcessCapture{
		Scenario: redactScenario(sc), WorkingDirectory: cwd, Executable: ident,
		StartedAt: time.Now().UTC(),
	}
	fail := func(disp string, cause error) (*ports.ProcessCapture, error) {
		return nil, &ports.CaptureError{Disposition: disp, Cause: cause, Partial: out}
	}
	if err := ctx.Err(); err != nil {
		out.CompletedAt = time.Now().UTC()
		out.Exit.Reason = ports.DispositionCancelled
		none := ports.CleanupEntry{State: ports.CleanupNotRequired}
		out.Cleanup = ports.CaptureCleanup{OwnedProcessGroup: none, TerminalRenderer: none, TemporaryRoot: none}
		return fail(ports.DispositionCancelled, err)
	}

	grace := time.Duration(sc.FinalizationMS) * time.Millisecond
	if grace <= 0 {
		grace = time.Millisecond
	}
	sup, err := supervisor.New(&supervisor.Options{
		RunID: req.RunID, GraceDelay: grace, WaitDelay: e.opts.WaitDelay, TempParent: e.opts.TempParent,
	})
	if err != nil {
		return nil, fmt.Errorf("pty: %w", err)
	}
	c.sup = sup
	out.RunID = sup.ID()
	// The supervisor's own progress notes are not in the capture's message
	// format: it gets a context without a progress receiver.
	quiet := ports.WithProgress(ctx, nil)
	tmp, err := sup.TempDir("rea-capture-")
	if err != nil {
		return c.abort(out, fmt.Errorf("pty: %w", err))
	}
	out.TemporaryRoot = tmp

	roots := make([]string, len(sc.FilesystemObservationPaths))
	for i, p := range sc.FilesystemObservationPaths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		p = filepath.Clean(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		roots[i] = p
	}
	out.ObservationRoots = roots
	out.FilesBefore, out.Truncation.FilesystemBefore = snapshot(ctx, roots, sc.Limits)
	c.record(ports.JournalFilesystem, 0)

	ptm, tty, err := openPTY(c.cols, c.rows)
	if err != nil {
		return c.abort(out, err)
	}
	c.ptm = ptm
	c.scr = newScreen(c.cols, c.rows, sc.Terminal.Scrollback)
	c.startRenderer()
	env, notes := buildEnv(sc.Environment, tmp)
	out.Manifest.EnvironmentNotes = notes

	c.t0 = time.Now()
	c.lastActivity = c.t0
	out.StartedAt = c.t0.UTC()
	err = sup.Start(context.WithoutCancel(ctx), supervisor.Spec{
		Path: exe, Args: sc.Arguments, Dir: cwd, Env: env,
		Stdin: tty, Stdout: tty, Stderr: tty, ControllingTerminal: true,
	})
	tty.Close()
	if err != nil {
		c.disposition = ports.DispositionFailed
		return c.abort(out, fmt.Errorf("pty: launch %s: %w", exe, err))
	}
	pid := sup.PID()
	confirmIdentity(&out.Executable, tuple)
	// Every sample is one of the supervisor's looks, which never signal:
	// its census says which processes are the capture's, and what it
	// proved at each look it knows at the stop (a process that was ours by
	// descent, orphaned since, such as a child that dropped the run ID from
	// its environment whose parent exited, is still proven then, not left
	// running).
	c.samp = newSampler(pid, sc.Limits.Processes, func() ([]supervisor.Owned, error) {
		return sup.Look(context.WithoutCancel(ctx))
	})
	defer c.samp.close()

	chunks := make(chan chunk, 256)
	view := startView(ports.TerminalView(ctx))
	go func() {
		defer close(chunks)
		defer view.end()
		buf := make([]byte, 32<<10)
		for {
			n, err := ptm.Read(buf)
			if n > 0 {
				data := append([]byte(nil), buf[:n]...)
				view.send(data)
				chunks <- chunk{at: time.Since(c.t0), data: data}
			}
			if err != nil {
				return // EIO once every slave descriptor is closed, or our Close
			}
		}
	}()
	c.observe("running")
	c.sample()

	// Running: until the launcher exits, a deadline passes or ctx ends.
	evIdx := 0
	evTimer := time.NewTimer(time.Hour)
	defer evTimer.Stop()
	armEvents := func() {
		if evIdx < len(sc.Events) {
			d := time.Duration(sc.Events[evIdx].AtMS)*time.Millisecond - c.elapsed()
			evTimer.Reset(max(d, 0))
		} else {
			evTimer.Stop()
		}
	}
	armEvents()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	timeout := time.Duration(sc.TimeoutMS) * time.Millisecond
	idle := time.Duration(sc.IdleTimeoutMS) * time.Millisecond
	var exitSeenAt time.Duration
	exited := sup.Exited()
	if loopStartDelay > 0 {
		time.Sleep(loopStartDelay)
	}
	for c.disposition == "" {
		select {
		case <-ctx.Done():
			c.disposition = ports.DispositionCancelled
		case ch, ok := <-chunks:
			if ok {
				c.store(ch)
			} else {
				chunks = nil
			}
		case <-exited:
			exitSeenAt = c.elapsed()
			c.disposition = ports.DispositionExited
		case <-evTimer.C:
			// Output already read came before the event: store it first,
			// or a loop that fell behind (a slow sample on a loaded host)
			// could journal a prompt after the input that answers it,
			// since select picks among ready cases at random.
			chunks = c.drain(chunks)
			for evIdx < len(sc.Events) && time.Duration(sc.Events[evIdx].AtMS)*time.Millisecond <= c.elapsed() {
				c.dispatch(evIdx, sc.Events[evIdx])
				evIdx++
			}
			armEvents()
		case <-tick.C:
			now := c.elapsed()
			switch {
			case now >= timeout:
				c.disposition = ports.DispositionTimeout
			case time.Since(c.lastActivity) >= idle:
				c.disposition = ports.DispositionIdleTimeout
			}
			if now >= c.nextSample {
				c.sample()
				c.observe("running")
			}
		}
	}

	// Stopping at a deadline or on cancellation. Cancellation (and a zero
	// finalization interval) cuts the SIGTERM grace short: SIGKILL at once.
	var stopStart time.Time
	if c.disposition != ports.DispositionExited {
		stopStart = time.Now()
		stopCtx, cancelStop := context.WithCancel(context.WithoutCancel(ctx))
		if c.disposition == ports.DispositionCancelled || sc.FinalizationMS == 0 {
			// No grace: the stop sequence, its context already ended,
			// sends no SIGTERM (which could end a process by SIGTERM or
			// run its handler) but SIGKILL to every proven process of the
			// tree, the launcher included. It is the one owner that
			// signals at a stop.
			cancelStop()
		} else {
			go func() {
				select {
				case <-ctx.Done():
					cancelStop()
				case <-stopCtx.Done():
				}
			}()
		}
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			sup.Stop(ports.WithProgress(stopCtx, nil))
		}()
		chunks = c.pump(chunks, stopped)
		cancelStop()
		select {
		case <-exited:
			exitSeenAt = c.elapsed()
		case <-time.After(time.Second):
		}
	}
	// Events never dispatched.
	for ; evIdx < len(sc.Events); evIdx++ {
		c.notDispatched(evIdx, sc.Events[evIdx])
	}
	out.Exit = c.exitRecord(exitSeenAt)
	c.record(ports.JournalLifecycle, 0)

	// Settling: wait for the rest of the tree (settle_ms after an exit).
	c.observe("settling")
	settleStart := time.Now()
	settle := time.Duration(sc.SettleMS) * time.Millisecond
	if c.disposition != ports.DispositionExited {
		settle = max(settle, sampleInterval*3)
	}
	var cancelledLate error
	empty := 0
	for {
		live, ok := c.settleLook()
		switch {
		case !ok:
			out.Settlement = ports.Settlement{State: ports.SettlementUnverifiable, Reason: "the process table could not be read"}
		case len(live) == 0:
			empty++
		default:
			empty = 0
		}
		if !ok {
			break
		}
		if empty >= 2 {
			out.Settlement = ports.Settlement{State: ports.SettlementQuiesced}
			break
		}
		if time.Since(settleStart) >= settle {
			// With no time left to look twice, one empty look settles it.
			if len(live) == 0 {
				out.Settlement = ports.Settlement{State: ports.SettlementQuiesced}
			} else {
				out.Settlement = ports.Settlement{State: ports.SettlementAliveAtDeadline, Remaining: live}
			}
			break
		}
		if cancelledLate == nil && c.disposition == ports.DispositionExited {
			if err := ctx.Err(); err != nil {
				cancelledLate = err
				out.Settlement = ports.Settlement{State: ports.SettlementAliveAtDeadline, Remaining: live}
				break
			}
		}
		w := make(chan struct{})
		t := time.AfterFunc(sampleInterval, func() { close(w) })
		chunks = c.pump(chunks, w)
		t.Stop()
	}
	out.Settlement.ElapsedMS = time.Since(settleStart).Milliseconds()
	c.record(ports.JournalLifecycle, 1)
	if out.Settlement.State == ports.SettlementQuiesced && chunks != nil {
		// Nothing holds the terminal any more: read what is left until EOF.
		t := time.NewTimer(drainQuiet)
	drain:
		for {
			select {
			case ch, ok := <-chunks:
				if !ok {
					chunks = nil
					break drain
				}
				c.store(ch)
			case <-t.C:
				break drain
			}
		}
		t.Stop()
	}
	out.FilesAfter, out.Truncation.FilesystemAfter = snapshot(context.WithoutCancel(ctx), roots, sc.Limits)
	c.record(ports.JournalFilesystem, 1)

	// Cleanup: whatever is left is stopped at once, then the supervisor
	// releases the processes and the temporary root.
	c.observe("cleanup")
	cctx, cancel := supervisor.CleanupContext(quiet, 0)
	defer cancel()
	signalledBefore := len(sup.Signals())
	killCtx, killNow := context.WithCancel(cctx)
	killNow()
	stopErr := sup.Stop(killCtx)
	cleanErr := sup.Cleanup(cctx)
	if cleanErr == nil && stopErr != nil {
		cleanErr = stopErr
	}
	c.ptm.Close()
	if chunks != nil {
		for ch := range chunks {
			c.store(ch)
		}
	}
	view.wait(time.Second)
	if tail := c.red.Flush(); tail != "" {
		c.storeText(c.elapsed(), tail)
	}
	c.stopRenderer()
	rendererErr := c.scr.close()
	out.Cleanup = c.cleanupReport(cleanErr, rendererErr, signalledBefore, len(sup.Signals()), out.Settlement.State)
	c.cleanupStatus = fmt.Sprintf("owned_process_group=%s terminal_renderer=%s temporary_root=%s",
		out.Cleanup.OwnedProcessGroup.State, out.Cleanup.TerminalRenderer.State, out.Cleanup.TemporaryRoot.State)
	out.CompletedAt = time.Now().UTC()
	c.finish(out, stopStart)
	c.observe("cleanup")

	switch {
	case c.disposition == ports.DispositionCancelled:
		return fail(ports.DispositionCancelled, ctx.Err())
	case cancelledLate != nil:
		return fail(ports.DispositionCancelled, cancelledLate)
	case out.Cleanup.Err != nil:
		return fail(ports.DispositionFailed, nil)
	case out.Executable.SelectedSHA256 == "":
		// It ran and was observed, but no digest names what ran: the
		// observation is a failed capture's partial one.
		return fail(ports.DispositionFailed, fmt.Errorf("pty: %s ran, but %s", exe, out.Executable.Reason))
	}
	return out, nil
}

// abort ends a capture that failed before or at the launch: everything owned
// is released and the partial observation returned.
func (c *capture) abort(out *ports.ProcessCapture, cause error) (*ports.ProcessCapture, error) {
	cctx, cancel := supervisor.CleanupContext(ports.WithProgress(c.ctx, nil), 0)
	defer cancel()
	cleanErr := c.sup.Cleanup(cctx)
	if c.ptm != nil {
		c.ptm.Close()
	}
	var rendererErr error
	if c.scr != nil {
		c.stopRenderer()
		rendererErr = c.scr.close()
	}
	out.Cleanup = c.cleanupReport(cleanErr, rendererErr, 0, len(c.sup.Signals()), ports.SettlementQuiesced)
	out.Exit = ports.CaptureExit{Reason: ports.DispositionFailed}
	// Nothing was launched, so nothing remains: the tree is quiesced at
	// once (§1.3 knows no other state for it), and every scenario event is
	// recorded as not dispatched, failed for want of a program.
	out.Settlement = ports.Settlement{State: ports.SettlementQuiesced}
	for i := len(c.interactions); i < len(c.sc.Events); i++ {
		c.notDispatched(i, c.sc.Events[i])
		c.interactions[len(c.interactions)-1].Outcome = ports.OutcomeFailed
		c.interactions[len(c.interactions)-1].Reason = "not dispatched: the program was not launched"
	}
	out.InteractionEvents = c.interactions
	// The journal ends as a capture's does (§1.2, §1.4: an exit, a
	// settlement and, when the files were checkpointed before, the
	// checkpoint after settlement), so that it is complete: its exit and
	// settlement records are stored like any other. The files after are
	// observed, as they are after any settlement: nothing ran to change
	// them, which the effects then show.
	c.record(ports.JournalLifecycle, 0)
	c.record(ports.JournalLifecycle, 1)
	if c.checkpointed() {
		out.FilesAfter, out.Truncation.FilesystemAfter = snapshot(context.WithoutCancel(c.ctx), out.ObservationRoots, c.sc.Limits)
		c.record(ports.JournalFilesystem, 1)
		out.FileEffects = effects(out.FilesBefore, out.FilesAfter, out.Truncation.FilesystemBefore, out.Truncation.FilesystemAfter)
		fsTrunc := func(t ports.FilesystemTruncation) bool { return t.EnumerationTruncated || len(t.HashOmissions) > 0 }
		out.Truncation.Truncated = fsTrunc(out.Truncation.FilesystemBefore) || fsTrunc(out.Truncation.FilesystemAfter)
	}
	// The budgets were the scenario's though nothing was observed within
	// them; the identity was never checked after a launch.
	out.Truncation.RawTerminal, out.Truncation.RenderedTerminal = c.rawTrunc, c.renderTrunc
	out.Truncation.Process.SampleLimit = c.sc.Limits.Processes
	if out.Executable.State != ports.IdentityUnchanged && out.Executable.Reason == "" {
		out.Executable.Reason = "the program was not launched, so its file was not checked again after a launch"
	}
	out.SignalAttempts = c.sup.Signals()
	out.CompletedAt = time.Now().UTC()
	out.Coverage = []ports.CoverageNote{
		{Scope: ports.ScopeProcess, Reason: "the program was not launched: " + cause.Error()},
		{Scope: ports.ScopeEnvironment, Reason: "the inherited host environment is not recorded"},
		{Scope: ports.ScopeNetwork, Reason: "network traffic is not observed"},
	}
	if len(out.ObservationRoots) == 0 {
		out.Coverage = append(out.Coverage, ports.CoverageNote{Scope: ports.ScopeFilesystem, Reason: "no filesystem observation paths were declared"})
	}
	empty := hex.EncodeToString(c.rawHash.Sum(nil))
	out.Manifest.ProviderVersion = ProviderVersion
	out.Manifest.Platform, out.Manifest.Architecture = runtime.GOOS, runtime.GOARCH
	out.Manifest.PTYBackend, out.Manifest.TerminalEmulator = ptyBackend, terminalEmulator
	out.Manifest.StartedAt, out.Manifest.CompletedAt = out.StartedAt, out.CompletedAt
	out.Manifest.RawOutputSHA256, out.Manifest.NormalizedOutputSHA256 = empty, empty
	out.NormalizationApplied = normalizationRecord(c.sc)
	out.EventJournal = c.journal
	c.disposition = ports.DispositionFailed
	c.cleanupStatus = fmt.Sprintf("owned_process_group=%s terminal_renderer=%s temporary_root=%s",
		out.Cleanup.OwnedProcessGroup.State, out.Cleanup.TerminalRenderer.State, out.Cleanup.TemporaryRoot.State)
	c.observe("cleanup")
	return nil, &ports.CaptureError{Disposition: ports.DispositionFailed, Cause: cause, Partial: out}
}

// checkpointed reports whether the files before the launch were stored.
func (c *capture) checkpointed() bool {
	c.journalMu.Lock()
	defer c.journalMu.Unlock()
	for _, j := range c.journal {
		if j.Collection == ports.JournalFilesystem && j.Index == 0 {
			return true
		}
	}
	return false
}

// drain stores the chunks already waiting, without blocking; nil once the
// reader has closed the channel.
func (c *capture) drain(chunks chan chunk) chan chunk {
	for chunks != nil {
		select {
		case ch, ok := <-chunks:
			if !ok {
				return nil
			}
			c.store(ch)
		default:
			return chunks
		}
	}
	return nil
}

// loopStartDelay holds the capture loop back before its first select, so
// that output already read and a due event are ready together (tests only).
var loopStartDelay time.Duration

// pump stores output until done closes, sampling on the way. It returns
// the channel, nil once it closed.
func (c *capture) pump(chunks chan chunk, done <-chan struct{}) chan chunk {
	tick := time.NewTicker(sampleInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return chunks
		case ch, ok := <-chunks:
			if !ok {
				chunks = nil
				continue
			}
			c.store(ch)
		case <-tick.C:
			if c.elapsed() >= c.nextSample {
				c.sample()
			}
		}
	}
}

func (c *capture) sample() []supervisor.Proc {
	at := c.elapsed()
	c.nextSample = at + sampleInterval
	before := len(c.samp.samples)
	live := c.samp.sample(at.Milliseconds())
	for i := before; i < len(c.samp.samples); i++ {
		c.record(ports.JournalProcessSamples, i)
	}
	return live
}

// settleLook samples and returns the owned pids still alive (the launcher,
// if alive, included). ok is false when the process table is unreadable.
func (c *capture) settleLook() ([]int, bool) {
	failures := c.samp.failures
	live := c.sample()
	if c.samp.failures > failures {
		return nil, false
	}
	pids := make([]int, 0, len(live))
	for _, p := range live {
		pids = append(pids, p.PID)
	}
	return pids, true
}

// store keeps one PTY chunk: the raw frame (within the budget), the emulator
// update and a rendered frame (within its own budget).
func (c *capture) store(ch chunk) {
	c.lastActivity = time.Now()
	text := c.red.Push(ch.data)
	if text == "" {
		return
	}
	c.storeText(ch.at, text)
}

func (c *capture) storeText(at time.Duration, text string) {
	c.rawHash.Write([]byte(text))
	c.rawTrunc.ObservedBytes += int64(len(text)) // as retained: after redaction
	c.rawTrunc.ObservedFrames++
	if !c.rawDropping && c.rawTrunc.RetainedBytes+int64(len(text)) <= c.rawTrunc.BudgetBytes {
		c.rawTrunc.RetainedBytes += int64(len(text))
		c.rawTrunc.RetainedFrames++
		c.frames = append(c.frames, rawFrame{at: at, text: text})
		c.record(ports.JournalFrames, len(c.frames)-1)
	} else {
		c.rawDropping = true
	}
	c.sendRender(renderItem{at: at, text: text})
}

// sendRender queues a write for the emulator; a cancelled capture stops
// waiting for a busy emulator and renders no more.
func (c *capture) sendRender(it renderItem) {
	if !c.renderCut {
		select {
		case c.renderQ <- it:
			return
		case <-c.ctx.Done():
			c.renderCut = true
		}
	}
	c.renderCutFrames++ // counted as observed, not retained
}

// renderItem is one write to (or resize of) the emulated terminal.
type renderItem struct {
	at         time.Duration
	text       string
	resize     bool
	cols, rows int
}

// The emulator runs in a goroutine of its own, so that its cost (scrolling
// is the expensive part) does not slow the reading of the terminal, and so
// the captured program, until 256 chunks are waiting.
func (c *capture) startRenderer() {
	c.renderQ = make(chan renderItem, 256)
	c.renderDone = make(chan struct{})
	go func() {
		defer close(c.renderDone)
		for it := range c.renderQ {
			if c.ctx.Err() != nil {
				// Cancelled: what is queued is not rendered.
				c.renderTrunc.ObservedFrames++
				c.renderAbandoned = true
				continue
			}
			if it.resize {
				c.scr.resize(it.cols, it.rows)
			} else {
				c.scr.write(it.text)
			}
			c.render(it.at)
		}
	}()
}

// stopRenderer waits for the emulator to take in everything sent to it.
func (c *capture) stopRenderer() {
	if c.renderQ != nil {
		close(c.renderQ)
		<-c.renderDone
		c.renderQ = nil
	}
}

func (c *capture) render(at time.Duration) {
	c.renderTrunc.ObservedFrames++
	if c.renderDropped {
		return
	}
	f := c.scr.frame()
	size := int64(len(f.SerializedState))
	for _, l := range f.Lines {
		size += int64(len(l))
	}
	c.renderTrunc.ObservedBytes += size
	if c.renderTrunc.RetainedBytes+size > c.renderTrunc.BudgetBytes {
		c.renderDropped = true
		return
	}
	c.renderTrunc.RetainedBytes += size
	c.renderTrunc.RetainedFrames++
	c.renders = append(c.renders, rawRender{at: at, f: f})
	c.record(ports.JournalRenderedFrames, len(c.renders)-1)
}

func redactedInput(data string) string {
	return "<redacted-input:" + strconv.Itoa(len(data)) + "-bytes>"
}

// dispatch runs one scenario event.
func (c *capture) dispatch(i int, ev ports.CaptureEvent) {
	at := c.elapsed().Milliseconds()
	ie := ports.InteractionEvent{ScheduledAtMS: ev.AtMS, DispatchedAtMS: &at, Type: ev.Type, Outcome: ports.OutcomeDispatched}
	select {
	case <-c.sup.Exited():
		c.notDispatched(i, ev)
		return
	default:
	}
	switch ev.Type {
	case ports.EventInput:
		ie.Data = ev.Data
		if ev.Sensitive {
			ie.Data = redactedInput(ev.Data)
			ie.RedactedByteSize = len(ev.Data)
		}
		c.ptm.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := c.ptm.Write([]byte(ev.Data)); err != nil {
			ie.Outcome, ie.Reason = ports.OutcomeFailed, "write to the terminal: "+err.Error()
		}
		c.lastActivity = time.Now()
	case ports.EventResize:
		ie.Data = strconv.Itoa(ev.Columns) + "x" + strconv.Itoa(ev.Rows)
		if err := setSize(c.ptm, ev.Columns, ev.Rows); err != nil {
			ie.Outcome, ie.Reason = ports.OutcomeFailed, "resize: "+err.Error()
			break
		}
		c.cols, c.rows = ev.Columns, ev.Rows
		c.sendRender(renderItem{at: c.elapsed(), resize: true, cols: ev.Columns, rows: ev.Rows})
	case ports.EventSignal:
		ie.Data = ev.Signal
		sig, _ := signalNamed(ev.Signal)
		res, why := c.signalLauncher(sig)
		ie.SignalDelivery = res
		switch res {
		case ports.SignalDelivered:
		case ports.SignalNoSuchProcess:
			ie.Outcome, ie.Reason = ports.OutcomeTargetExited, why
		default:
			ie.Outcome, ie.Reason = ports.OutcomeFailed, why
		}
	}
	ie.Sequence = len(c.interactions)
	c.interactions = append(c.interactions, ie)
	c.record(ports.JournalInteractionEvents, ie.Sequence)
}

func (c *capture) notDispatched(i int, ev ports.CaptureEvent) {
	ie := ports.InteractionEvent{Sequence: len(c.interactions), ScheduledAtMS: ev.AtMS, Type: ev.Type, Outcome: ports.OutcomeTargetExited}
	switch ev.Type {
	case ports.EventInput:
		ie.Data = "<not-dispatched>"
	case ports.EventResize:
		ie.Data = strconv.Itoa(ev.Columns) + "x" + strconv.Itoa(ev.Rows)
	case ports.EventSignal:
		ie.Data = ev.Signal
	}
	c.interactions = append(c.interactions, ie)
	c.record(ports.JournalInteractionEvents, ie.Sequence)
}

// signalLauncher sends a scenario signal to the launched process only; the
// supervisor proves the pid still names it first.
func (c *capture) signalLauncher(sig syscall.Signal) (ports.SignalResult, string) {
	at := c.sup.SignalLauncher(sig)
	c.eventSignals = append(c.eventSignals, at)
	return at.Result, at.Reason
}

// exitRecord reads the launcher's status when it was seen to exit.
func (c *capture) exitRecord(seenAt time.Duration) ports.CaptureExit {
	x := ports.CaptureExit{Reason: c.disposition}
	select {
	case <-c.sup.Exited():
	default:
		return x
	}
	st, _ := c.sup.Wait(context.Background())
	if st == nil {
		return x
	}
	x.Exited = true
	ms := seenAt.Milliseconds()
	x.ElapsedMS = &ms
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		x.Signal = supervisor.SignalName(ws.Signal())
	} else if code := st.ExitCode(); code >= 0 && c.disposition == ports.DispositionExited {
		x.Code = &code
	}
	return x
}

func (c *capture) cleanupReport(cleanErr, rendererErr error, signalledBefore, signalledAfter int, settlement string) ports.CaptureCleanup {
	r := ports.CaptureCleanup{
		OwnedProcessGroup: ports.CleanupEntry{State: ports.CleanupCleaned},
		TerminalRenderer:  ports.CleanupEntry{State: ports.CleanupCleaned},
		TemporaryRoot:     ports.CleanupEntry{State: ports.CleanupCleaned},
		Err:               cleanErr,
	}
	if settlement == ports.SettlementQuiesced && signalledAfter == signalledBefore && c.disposition == ports.DispositionExited {
		r.OwnedProcessGroup.State = ports.CleanupNotRequired
	}
	if rendererErr != nil {
		r.TerminalRenderer = ports.CleanupEntry{State: ports.CleanupFailed, Reason: rendererErr.Error()}
	}
	var ce *ports.CleanupError
	if errors.As(cleanErr, &ce) {
		var procs, roots []string
		for _, res := range ce.Resources {
			switch res.Kind {
			case ports.ResourceProcess, ports.ResourceProcessGroup:
				procs = append(procs, res.Kind+" "+res.ID+": "+res.Reason)
				if pid, err := strconv.Atoi(res.ID); err == nil && res.Kind == ports.ResourceProcess {
					r.OwnedProcessGroup.UnverifiedProcesses = append(r.OwnedProcessGroup.UnverifiedProcesses,
						ports.UnverifiedProcess{PID: pid, Reason: res.Reason})
				}
			case ports.ResourceTemporaryRoot:
				roots = append(roots, res.ID+": "+res.Reason)
			}
		}
		if len(procs) > 0 {
			r.OwnedProcessGroup.State, r.OwnedProcessGroup.Reason = ports.CleanupFailed, strings.Join(procs, "; ")
		}
		if len(roots) > 0 {
			r.TemporaryRoot.State, r.TemporaryRoot.Reason = ports.CleanupFailed, strings.Join(roots, "; ")
		}
	} else if cleanErr != nil {
		r.OwnedProcessGroup = ports.CleanupEntry{State: ports.CleanupUnverified, Reason: cleanErr.Error()}
	}
	return r
}

// buildEnv is the host environment, the scenario's overrides,
// TERM=xterm-256color and TMPDIR=<temporary root> unless the scenario sets
// it. The supervisor adds REA_PROCESS_RUN_ID.
func buildEnv(overrides map[string]string, tmp string) ([]string, []string) {
	skip := map[string]bool{"TERM": true}
	for k := range overrides {
		skip[k] = true
	}
	_, ownTmp := overrides["TMPDIR"]
	if !ownTmp {
		skip["TMPDIR"] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !skip[k] && k != supervisor.RunIDEnv {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		if k != "TERM" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+overrides[k])
	}
	env = append(env, "TERM=xterm-256color")
	notes := []string{
		"host environment inherited and not recorded",
		"scenario environment overrides applied",
		supervisor.RunIDEnv + " set to the run ID",
		"TERM=xterm-256color",
	}
	if !ownTmp {
		env = append(env, "TMPDIR="+tmp)
		notes = append(notes, "TMPDIR set to the temporary root")
	}
	return env, notes
}

// redactScenario is the scenario as recorded: sensitive input replaced.
func redactScenario(sc ports.CaptureScenario) ports.CaptureScenario {
	evs := make([]ports.CaptureEvent, len(sc.Events))
	copy(evs, sc.Events)
	for i := range evs {
		if evs[i].Type == ports.EventInput && evs[i].Sensitive {
			evs[i].Data = redactedInput(evs[i].Data)
		}
	}
	sc.Events = evs
	sc.Arguments = append([]string{}, sc.Arguments...)
	env := make(map[string]string, len(sc.Environment))
	for k, v := range sc.Environment {
		env[k] = v
	}
	sc.Environment = env
	sc.FilesystemObservationPaths = append([]string{}, sc.FilesystemObservationPaths...)
	sc.Normalization.Patterns = append([]ports.LiteralReplacement{}, sc.Normalization.Patterns...)
	return sc
}

func bucket(d time.Duration, b int64) int64 {
	ms := d.Milliseconds()
	return ms / b * b
}

func bucketMS(ms, b int64) int64 { return ms / b * b }

// finish normalizes and assembles the observation.
func (c *capture) finish(out *ports.ProcessCapture, stopStart time.Time) {
	sc := c.sc
	b := sc.Normalization.TimeBucketMS
	n := &Normalizer{Secrets: c.red.n.Secrets, Patterns: sc.Normalization.Patterns, Ports: sc.Normalization.Ports}
	if sc.Normalization.Paths {
		n.Paths = map[string]string{
			out.TemporaryRoot:    placeholderTemporaryRoot,
			out.WorkingDirectory: placeholderWorkingDir,
			out.Executable.Path:  placeholderExecutable,
		}
		for i, r := range out.ObservationRoots {
			if _, taken := n.Paths[r]; !taken {
				n.Paths[r] = "<filesystem-root-" + strconv.Itoa(i) + ">"
			}
		}
	}
	if sc.Normalization.PIDs {
		n.PIDs = pidSet(c.samp.pids())
	}
	// Process commands always name the launched program <executable>,
	// path normalization or not: its path is where the caller put the
	// build, not what the program did, and it would make the same program
	// run from two directories differ in every comparison. So is the
	// temporary root, which rea names anew for each run and gives the
	// program as TMPDIR (a compiler's temporary files are under it).
	cn := n
	if !sc.Normalization.Paths {
		cn = &Normalizer{Secrets: n.Secrets, Patterns: n.Patterns, Ports: n.Ports, PIDs: n.PIDs,
			Paths: map[string]string{out.Executable.Path: placeholderExecutable, out.TemporaryRoot: placeholderTemporaryRoot}}
	}

	out.Frames = make([]ports.CaptureFrame, len(c.frames))
	norm := sha256.New()
	for i, f := range c.frames {
		d := n.Normalize(f.text)
		fr := ports.CaptureFrame{Sequence: i, AtMS: bucket(f.at, b), Data: d}
		if d != f.text {
			fr.Raw, fr.HasRaw = f.text, true
		}
		norm.Write([]byte(d))
		out.Frames[i] = fr
	}
	normFrame := func(f ports.RenderedFrame) ports.RenderedFrame {
		lines := make([]string, len(f.Lines))
		for j, l := range f.Lines {
			lines[j] = n.Normalize(l)
		}
		f.Lines = lines
		f.SerializedState = n.Normalize(f.SerializedState)
		return f
	}
	out.RenderedFrames = make([]ports.RenderedFrame, len(c.renders))
	for i, r := range c.renders {
		f := normFrame(r.f)
		f.Sequence, f.AtMS = i, bucket(r.at, b)
		out.RenderedFrames[i] = f
	}
	final := normFrame(c.scr.frame())
	final.Sequence, final.AtMS = -1, bucket(c.elapsed(), b)
	out.FinalScreen = final

	out.InteractionEvents = c.interactions
	for i := range out.InteractionEvents {
		if d := out.InteractionEvents[i].DispatchedAtMS; d != nil {
			v := bucketMS(*d, b)
			out.InteractionEvents[i].DispatchedAtMS = &v
		}
	}
	if out.Exit.ElapsedMS != nil {
		v := bucketMS(*out.Exit.ElapsedMS, b)
		out.Exit.ElapsedMS = &v
	}

	// Signals: the scenario's and the supervisor's, in time order.
	all := append(append([]ports.SignalAttempt{}, c.eventSignals...), c.sup.Signals()...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.Before(all[j].At) })
	out.SignalAttempts = all
	deadline := c.disposition == ports.DispositionTimeout || c.disposition == ports.DispositionIdleTimeout
	if deadline && sc.FinalizationMS > 0 {
		fin := &ports.Finalization{RequestedMS: sc.FinalizationMS, Signals: []ports.FinalizationSignal{}}
		var first time.Time
		for _, a := range c.sup.Signals() {
			if a.At.Before(stopStart) {
				continue
			}
			if first.IsZero() {
				first = a.At
			}
			fs := ports.FinalizationSignal{Signal: a.Signal, SentAtMS: bucketMS(a.At.Sub(c.t0).Milliseconds(), b), Target: a.Target, ID: a.ID}
			switch {
			case a.Result == ports.SignalDelivered:
				fs.Delivery = ports.DeliverySignaled
			case a.Result == ports.SignalNoSuchProcess:
				fs.Delivery = ports.DeliveryGone
			case a.Result == ports.SignalRefusedNotOwned && strings.Contains(a.Reason, "now belongs"):
				fs.Delivery = ports.DeliveryIdentityChanged
			default:
				fs.Delivery, fs.Reason = ports.DeliveryUnverified, a.Reason
			}
			fin.Signals = append(fin.Signals, fs)
		}
		if out.Exit.ElapsedMS != nil && !first.IsZero() {
			v := max(c.t0.Add(time.Duration(*out.Exit.ElapsedMS)*time.Millisecond).Sub(first).Milliseconds(), 0)
			fin.ElapsedMS = &v
		}
		out.Exit.Finalization = fin
	}

	// Processes.
	out.ProcessSamples = make([]ports.ProcessSample, len(c.samp.samples))
	for i, s := range c.samp.samples {
		s.AtMS = bucketMS(s.AtMS, b)
		s.NormalizedCommand = strings.TrimSpace(cn.Normalize(s.Command))
		out.ProcessSamples[i] = s
	}
	out.Processes = c.samp.processes()
	// Ids count the capture's processes, 1.. in first-seen order (the
	// launcher first); a parent, group or session outside the capture (rea
	// itself, init) is 0, as ports.NormalizedProcess says.
	ids := map[int]int{c.sup.PID(): 1}
	for _, p := range out.Processes {
		if _, ok := ids[p.PID]; !ok {
			ids[p.PID] = len(ids) + 1
		}
	}
	id := func(pid int) int { return ids[pid] }
	out.NormalizedProcesses = make([]ports.NormalizedProcess, 0, len(out.Processes))
	for i, p := range out.Processes {
		out.Processes[i].FirstSeenMS = bucketMS(p.FirstSeenMS, b)
		out.Processes[i].LastSeenMS = bucketMS(p.LastSeenMS, b)
		np := ports.NormalizedProcess{
			ID: id(p.PID), ParentID: id(p.ParentPID), GroupID: id(p.ProcessGroupID), SessionID: id(p.SessionID),
			Command: strings.TrimSpace(cn.Normalize(commandOf(p))), FirstSeenMS: bucketMS(p.FirstSeenMS, b),
		}
		if p.FirstReadArgv != nil {
			out.Processes[i].ArgvRewrittenMS = bucketMS(p.ArgvRewrittenMS, b)
			np.FirstReadCommand = strings.TrimSpace(cn.Normalize(strings.Join(p.FirstReadArgv, " ")))
			np.CommandRewrittenMS = out.Processes[i].ArgvRewrittenMS
		}
		out.NormalizedProcesses = append(out.NormalizedProcesses, np)
	}
	out.ListeningSockets = c.samp.listening()
	for i := range out.ListeningSockets {
		out.ListeningSockets[i].FirstSeenMS = bucketMS(out.ListeningSockets[i].FirstSeenMS, b)
		if sc.Normalization.Ports {
			out.ListeningSockets[i].NormalizedPort = placeholderPort
		} else {
			out.ListeningSockets[i].NormalizedPort = strconv.Itoa(out.ListeningSockets[i].Port)
		}
	}

	out.FileEffects = effects(out.FilesBefore, out.FilesAfter, out.Truncation.FilesystemBefore, out.Truncation.FilesystemAfter)
	out.EventJournal = c.journal

	tr := &out.Truncation
	tr.RawTerminal, tr.RenderedTerminal = c.rawTrunc, c.renderTrunc
	tr.RenderedTerminal.ObservedFrames += c.renderCutFrames
	tr.Process = ports.ProcessTruncation{
		SampleLimit: sc.Limits.Processes, SamplingPartial: c.samp.partial, RetainedSamples: len(c.samp.samples),
		SampleLimitReached: c.samp.limitHit, SamplingFailures: c.samp.failures, FirstSamplingFailure: c.samp.firstFail,
	}
	fsTrunc := func(t ports.FilesystemTruncation) bool { return t.EnumerationTruncated || len(t.HashOmissions) > 0 }
	tr.Truncated = c.rawDropping || c.renderDropped || c.renderCut || c.renderAbandoned || fsTrunc(tr.FilesystemBefore) || fsTrunc(tr.FilesystemAfter) || c.samp.partial

	out.Coverage = c.coverage(out)

	out.Manifest.ProviderVersion = ProviderVersion
	out.Manifest.Platform, out.Manifest.Architecture = runtime.GOOS, runtime.GOARCH
	out.Manifest.PTYBackend, out.Manifest.TerminalEmulator = ptyBackend, terminalEmulator
	out.Manifest.StartedAt, out.Manifest.CompletedAt = out.StartedAt, out.CompletedAt
	out.Manifest.RawOutputSHA256 = hex.EncodeToString(c.rawHash.Sum(nil))
	out.Manifest.NormalizedOutputSHA256 = hex.EncodeToString(norm.Sum(nil))
	fh := sha256.Sum256([]byte(strings.Join(final.Lines, "\n")))
	out.Manifest.FinalScreenSHA256 = hex.EncodeToString(fh[:])

	out.NormalizationApplied = normalizationRecord(sc)
}

// normalizationRecord is the normalization the scenario's rules apply,
// which a capture that failed to launch records too: a comparison of it
// with a capture of the same scenario then finds the same rules and
// contract, and says what it did not observe rather than that the rules
// differ.
func normalizationRecord(sc ports.CaptureScenario) ports.NormalizationRecord {
	rec := ports.NormalizationRecord{
		Version: "rea-capture-normalization-v1", RenderedLineFormat: "trailing-spaces-trimmed-v1",
		Placeholders: []string{placeholderRedacted},
	}
	if sc.Normalization.Paths {
		rec.Placeholders = append(rec.Placeholders,
			placeholderTemporaryRoot, placeholderWorkingDir, placeholderExecutable, "<filesystem-root-N>")
	} else {
		// In process commands only (finish: cn).
		rec.Placeholders = append(rec.Placeholders, placeholderExecutable, placeholderTemporaryRoot)
	}
	if sc.Normalization.PIDs {
		rec.Placeholders = append(rec.Placeholders, placeholderPID)
	}
	if sc.Normalization.Ports {
		rec.PortNormalizationVersion = "contextual-endpoints-v2"
		rec.Placeholders = append(rec.Placeholders, placeholderPort)
	}
	if len(sc.Normalization.Patterns) > 0 {
		rec.PatternNormalizationVersion = "literal-replacements-v1"
	}
	return rec
}

func (c *capture) coverage(out *ports.ProcessCapture) []ports.CoverageNote {
	sampled := "the process tree was sampled from /proc every 50 ms; a process that lived between two samples is missing, and an argv rewritten in place (setproctitle) is seen up to a second late"
	if out.Executable.SelectedSHA256 != "" {
		sampled += ", and the executable was digested before the launch"
	}
	notes := []ports.CoverageNote{
		{Scope: ports.ScopeProcess, Reason: sampled},
		{Scope: ports.ScopeEnvironment, Reason: "the inherited host environment is not recorded"},
		{Scope: ports.ScopeNetwork, Reason: "network traffic is not observed; only listening TCP sockets held by the capture's processes are, and a socket handed to a process of the capture (descriptor passing) while it already listened, held by none of them, is found a look late for every 32 of them that live, and not when within the same 50 ms the process closed as many descriptors as it gained, or moved the socket onto the number of one it closed; in a network namespace other than rea's, a socket that starts to listen in the same 50 ms as another socket there stops being hashed (a connection reset) is found up to a second late, and a process that changes namespace without an exec is looked for in its first"},
		{Scope: ports.ScopeTerminal, Reason: "the emulated terminal does not answer terminal queries (device attributes, cursor position reports)"},
	}
	if len(out.ObservationRoots) == 0 {
		notes = append(notes, ports.CoverageNote{Scope: ports.ScopeFilesystem, Reason: "no filesystem observation paths were declared"})
	}
	for _, e := range out.FileEffects {
		if e.Effect == ports.EffectUnknown {
			notes = append(notes, ports.CoverageNote{Scope: ports.ScopeFilesystem, Reason: "some file effects are unknown: " + e.Reason})
			break
		}
	}
	for _, ev := range c.sc.Events {
		if ev.Type == ports.EventInput && ev.Sensitive {
			notes = append(notes, ports.CoverageNote{Scope: ports.ScopeInteraction, Reason: "sensitive input is redacted in the events and wherever it appeared in the output"})
			break
		}
	}
	if c.renderCut || c.renderAbandoned {
		notes = append(notes, ports.CoverageNote{Scope: ports.ScopeTerminal, Reason: "the capture was cancelled while the terminal emulator was behind: later output was not rendered"})
	}
	if c.rawDropping || c.renderDropped {
		notes = append(notes, ports.CoverageNote{Scope: ports.ScopeTerminal, Reason: "terminal output beyond limits.output_bytes was not retained"})
	}
	if c.samp.limitHit {
		notes = append(notes, ports.CoverageNote{Scope: ports.ScopeProcess, Reason: "process samples beyond limits.processes were not retained"})
	}
	if c.samp.failures > 0 {
		notes = append(notes, ports.CoverageNote{Scope: ports.ScopeProcess, Reason: "process sampling failed " + strconv.Itoa(c.samp.failures) + " times: " + c.samp.firstFail})
	}
	if out.Settlement.State == ports.SettlementUnverifiable {
		notes = append(notes, ports.CoverageNote{Scope: ports.ScopeExit, Reason: "settlement could not be verified: " + out.Settlement.Reason})
	}
	if out.Executable.State != ports.IdentityUnchanged {
		notes = append(notes, ports.CoverageNote{Scope: ports.ScopeProcess, Reason: "executable identity unknown: " + out.Executable.Reason})
	}
	return notes
}
