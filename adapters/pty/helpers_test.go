//go:build linux

package pty_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"rea/adapters/pty"
	"rea/ports"
)

// Programs built once for the package's tests from testdata.
var (
	binDir  string
	buildMu sync.Mutex
	built   = map[string]string{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rea-pty-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// program builds testdata/name.c with gcc, or testdata/name/main.go with go,
// once.
func program(t *testing.T, name string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[name]; ok {
		return p
	}
	out := filepath.Join(binDir, name)
	var cmd *exec.Cmd
	if _, err := os.Stat(filepath.Join("testdata", name+".c")); err == nil {
		if _, err := exec.LookPath("gcc"); err != nil {
			t.Skip("gcc is not installed")
		}
		cmd = exec.Command("gcc", "-O1", "-o", out, filepath.Join("testdata", name+".c"))
	} else {
		cmd = exec.Command("go", "build", "-o", out, filepath.Join("testdata", name, "main.go"))
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, b)
	}
	built[name] = out
	return out
}

// engine returns an Engine whose temporary roots go under a test directory,
// and checks at the end that none remains.
func engine(t *testing.T) *pty.Engine {
	t.Helper()
	parent := t.TempDir()
	t.Cleanup(func() {
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Errorf("temp parent: %v", err)
			return
		}
		for _, e := range entries {
			t.Errorf("temporary root left behind: %s", e.Name())
		}
	})
	return pty.New(&pty.Options{TempParent: parent, WaitDelay: 3 * time.Second})
}

// noneLeft fails when any process still carries the run ID: after a capture
// nothing it started may remain.
func noneLeft(t *testing.T, runID string) {
	t.Helper()
	if runID == "" {
		return
	}
	needle := []byte("REA_PROCESS_RUN_ID=" + runID + "\x00")
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := holders(needle)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of run %s remain: %v", runID, left)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func holders(needle []byte) []int {
	names, _ := filepath.Glob("/proc/[0-9]*")
	var left []int
	for _, n := range names {
		pid, err := strconv.Atoi(filepath.Base(n))
		if err != nil {
			continue
		}
		st, err := os.ReadFile(n + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && (st[i+2] == 'Z' || st[i+2] == 'X') {
			continue
		}
		env, err := os.ReadFile(n + "/environ")
		if err != nil {
			continue
		}
		if bytes.Contains(append([]byte{0}, env...), append([]byte{0}, needle...)) {
			left = append(left, pid)
		}
	}
	return left
}

// capture runs sc and checks the invariants every capture must hold.
func capture(t *testing.T, e *pty.Engine, ctx context.Context, sc ports.CaptureScenario) (*ports.ProcessCapture, error) {
	t.Helper()
	res, err := e.CaptureProcess(ctx, ports.CaptureRequest{Scenario: sc})
	obs := res
	var ce *ports.CaptureError
	if errors.As(err, &ce) {
		obs = ce.Partial
		if obs == nil {
			t.Fatalf("a capture error without a partial observation: %v", err)
		}
	}
	if obs != nil {
		noneLeft(t, obs.RunID)
		checkInvariants(t, obs)
	}
	return res, err
}

func checkInvariants(t *testing.T, c *ports.ProcessCapture) {
	t.Helper()
	if c.RunID == "" {
		return // cancelled before anything was set up
	}
	if c.CompletedAt.Before(c.StartedAt) {
		t.Errorf("completed %v before started %v", c.CompletedAt, c.StartedAt)
	}
	if _, err := os.Stat(c.TemporaryRoot); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary root %s: %v", c.TemporaryRoot, err)
	}
	last := int64(0)
	for i, f := range c.Frames {
		if f.Sequence != i || f.AtMS < last {
			t.Errorf("frame %d: sequence %d at %d after %d", i, f.Sequence, f.AtMS, last)
		}
		last = f.AtMS
		if f.AtMS%c.Scenario.Normalization.TimeBucketMS != 0 {
			t.Errorf("frame %d at %d is not bucketed", i, f.AtMS)
		}
		if f.HasRaw && f.Raw == f.Data || !f.HasRaw && f.Raw != "" {
			t.Errorf("frame %d: raw kept %v, raw %q, data %q", i, f.HasRaw, f.Raw, f.Data)
		}
	}
	last = 0
	for i, f := range c.RenderedFrames {
		if f.Sequence != i || f.AtMS < last || len(f.Lines) != f.Rows {
			t.Errorf("rendered frame %d: sequence %d at %d, %d lines for %d rows", i, f.Sequence, f.AtMS, len(f.Lines), f.Rows)
		}
		last = f.AtMS
		for _, l := range f.Lines {
			if strings.HasSuffix(l, " ") {
				t.Errorf("rendered frame %d: line %q not right-trimmed", i, l)
			}
		}
	}
	for i, e := range c.InteractionEvents {
		if e.Sequence != i {
			t.Errorf("interaction %d has sequence %d", i, e.Sequence)
		}
	}
	// The journal is contiguous and names every stored observation once.
	counts := map[string]int{}
	for i, j := range c.EventJournal {
		if j.CaptureOrder != i {
			t.Errorf("journal %d has order %d", i, j.CaptureOrder)
		}
		if j.Index != counts[j.Collection] {
			t.Errorf("journal %d: %s index %d, want %d", i, j.Collection, j.Index, counts[j.Collection])
		}
		counts[j.Collection]++
	}
	want := map[string]int{
		ports.JournalFrames: len(c.Frames), ports.JournalRenderedFrames: len(c.RenderedFrames),
		ports.JournalInteractionEvents: len(c.InteractionEvents), ports.JournalProcessSamples: len(c.ProcessSamples),
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("journal has %d %s, the capture %d", counts[k], k, v)
		}
	}
	// A non-empty journal is complete (§1.4): it stores the exit and the
	// settlement, a failed launch's too, and the files before and after
	// settlement or neither.
	if len(c.EventJournal) > 0 && counts[ports.JournalLifecycle] != 2 {
		t.Errorf("journal lifecycle entries: %d", counts[ports.JournalLifecycle])
	}
	if n := counts[ports.JournalFilesystem]; n != 0 && n != 2 {
		t.Errorf("journal filesystem checkpoints: %d", n)
	}
	if n := len(c.EventJournal); n > 0 && c.EventJournal[n-1].Collection != ports.JournalFilesystem && counts[ports.JournalFilesystem] > 0 {
		t.Errorf("the journal ends with %s, not the checkpoint after settlement", c.EventJournal[n-1].Collection)
	}
	if c.Exit.Reason != ports.DispositionExited && c.Exit.Code != nil {
		t.Errorf("a %s exit has code %d", c.Exit.Reason, *c.Exit.Code)
	}
	if !c.Exit.Exited && (c.Exit.ElapsedMS != nil || c.Exit.Code != nil) {
		t.Errorf("no exit seen, but elapsed %v code %v", c.Exit.ElapsedMS, c.Exit.Code)
	}
	if c.Executable.State == ports.IdentityUnchanged && c.Executable.SHA256 != c.Executable.SelectedSHA256 {
		t.Errorf("identity unchanged but sha %q != selected %q", c.Executable.SHA256, c.Executable.SelectedSHA256)
	}
	if c.Executable.State != ports.IdentityUnchanged && c.Executable.SHA256 != "" {
		t.Errorf("identity %s with a sha", c.Executable.State)
	}
	tr := c.Truncation
	wantTrunc := tr.RawTerminal.RetainedFrames < tr.RawTerminal.ObservedFrames ||
		tr.RenderedTerminal.RetainedFrames < tr.RenderedTerminal.ObservedFrames ||
		tr.FilesystemBefore.EnumerationTruncated || tr.FilesystemAfter.EnumerationTruncated ||
		len(tr.FilesystemBefore.HashOmissions) > 0 || len(tr.FilesystemAfter.HashOmissions) > 0 ||
		tr.Process.SamplingPartial
	if tr.Truncated != wantTrunc {
		t.Errorf("truncated %v, the details say %v", tr.Truncated, wantTrunc)
	}
	scopes := map[string]bool{}
	for _, n := range c.Coverage {
		scopes[n.Scope] = true
	}
	for _, s := range []string{ports.ScopeProcess, ports.ScopeEnvironment, ports.ScopeNetwork} {
		if !scopes[s] {
			t.Errorf("coverage lacks the %s scope", s)
		}
	}
	if c.Manifest.PTYBackend == "" || c.Manifest.TerminalEmulator == "" || len(c.Manifest.RawOutputSHA256) != 64 {
		t.Errorf("manifest incomplete: %+v", c.Manifest)
	}
	if c.Exit.Reason != ports.DispositionFailed {
		h := sha256.New()
		for _, f := range c.Frames {
			h.Write([]byte(f.Data))
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != c.Manifest.NormalizedOutputSHA256 {
			t.Errorf("normalized output digest %s, frames hash to %s", c.Manifest.NormalizedOutputSHA256, got)
		}
		sum := sha256.Sum256([]byte(strings.Join(c.FinalScreen.Lines, "\n")))
		if got := hex.EncodeToString(sum[:]); got != c.Manifest.FinalScreenSHA256 {
			t.Errorf("final screen digest %s, lines hash to %s", c.Manifest.FinalScreenSHA256, got)
		}
		if c.Truncation.RawTerminal.RetainedBytes > c.Truncation.RawTerminal.BudgetBytes ||
			c.Truncation.RenderedTerminal.RetainedBytes > c.Truncation.RenderedTerminal.BudgetBytes {
			t.Errorf("terminal budgets exceeded: %+v", c.Truncation)
		}
		if c.Truncation.Process.RetainedSamples != len(c.ProcessSamples) || int64(len(c.ProcessSamples)) > c.Truncation.Process.SampleLimit {
			t.Errorf("process truncation %+v with %d samples", c.Truncation.Process, len(c.ProcessSamples))
		}
		for _, p := range c.Processes {
			if p.FirstSeenMS > p.LastSeenMS {
				t.Errorf("process %d first seen %d after last seen %d", p.PID, p.FirstSeenMS, p.LastSeenMS)
			}
		}
	}
	if c.Cleanup.TerminalRenderer.State != ports.CleanupCleaned {
		t.Errorf("terminal renderer cleanup: %+v", c.Cleanup.TerminalRenderer)
	}
}

// text joins the frames' normalized data.
func text(c *ports.ProcessCapture) string {
	var b strings.Builder
	for _, f := range c.Frames {
		b.WriteString(f.Data)
	}
	return b.String()
}

// progress records what reaches ports.Observe.
type progress struct {
	mu   sync.Mutex
	seen []string
}

func (p *progress) Observe(phase, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, phase+": "+msg)
}

func (p *progress) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}
