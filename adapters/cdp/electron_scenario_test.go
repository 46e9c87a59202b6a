package cdp_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
)

// ownedLeft lists the live processes that carry the run ID in their
// environment (every process the run started does).
func ownedLeft(t *testing.T, runID string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc here")
	}
	needle := []byte("REA_PROCESS_RUN_ID=" + runID + "\x00")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(append(b, 0), needle) {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
				continue // a zombie awaiting its reaper is gone
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

func runID(t *testing.T) string {
	b := make([]byte, 8)
	rand.Read(b)
	return "rt-" + hex.EncodeToString(b)
}

// fakeElectron returns a scenario engine, the directory its temporary
// files go under, the fake Electron and the test application.
func fakeElectron(t *testing.T) (e *cdp.RuntimeEngine, parent, exe, app string) {
	e, parent = scenarioEngine(t)
	app, _ = filepath.Abs("testdata/electronapp")
	exe, _ = filepath.Abs("testdata/fake-electron/electron")
	return e, parent, exe, app
}

// runScenario runs req on e, checks that it succeeded and that nothing
// it started or wrote under parent survives it, and returns its capture.
func runScenario(t *testing.T, e *cdp.RuntimeEngine, parent string, req ports.ElectronScenarioRequest) *ports.ElectronScenarioCapture {
	t.Helper()
	out, err := e.RunElectronScenario(context.Background(), req)
	if err != nil {
		t.Fatalf("scenario %s: %v", req.RunID, err)
	}
	assertClean(t, req.RunID, parent)
	return out
}

// scenarioEngine returns an engine whose temporary directories go under a
// directory the test checks is empty afterwards.
func scenarioEngine(t *testing.T) (*cdp.RuntimeEngine, string) {
	parent := scenarioParent(t)
	return cdp.NewRuntime(&cdp.RuntimeOptions{TempParent: parent, GraceDelay: 300 * time.Millisecond}), parent
}

// scenarioParent is a directory of this test's own, short enough that the
// engine puts its scenario directory (which holds a Unix socket) under it
// rather than under /tmp, where other runs' directories come and go.
func scenarioParent(t *testing.T) string {
	base := os.TempDir()
	if len(base) > 32 {
		base = "/tmp"
	}
	parent, err := os.MkdirTemp(base, "rcdp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	return parent
}

func assertClean(t *testing.T, id, parent string) {
	t.Helper()
	if len(parent) > 64 { // the engine would have used /tmp, which this check cannot see
		t.Fatalf("scenario parent %s is too deep to hold the scenario directory", parent)
	}
	if left := ownedLeft(t, id); len(left) > 0 {
		t.Errorf("owned processes survive the scenario: %v", left)
	}
	if ents, _ := os.ReadDir(parent); len(ents) > 0 {
		t.Errorf("temporary files survive the scenario: %v", ents)
	}
}

func needNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
}

// TestElectronScenarioWithFakeElectron runs the real hook in Node with a
// fake electron module: the click's IPC channel and its argument shapes
// are recorded, the blocked shell effect is in the timeline, and nothing
// owned survives.
func TestElectronScenarioWithFakeElectron(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent, exe, app := fakeElectron(t)
	id := runID(t)
	out, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		Actions: []ports.ElectronAction{{StepID: "s1", Kind: "click", Selector: "#open"}, {StepID: "s2", Kind: "click", Selector: "#site"},
			{StepID: "s3", Kind: "click", Selector: "#missing"}, {StepID: "s4", Kind: "wait", DurationMS: 20},
			{StepID: "s5", Kind: "deep-link", Delivery: "open-url", URL: "fixture://x"}}})
	is.NoErr(err)
	assertClean(t, id, parent)
	is.Equal(out.Status, "complete")
	is.Equal(out.ElectronVersion, "0.0.0-fake")
	is.Equal(len(out.Actions), 5)
	is.Equal(out.Actions[0].Status, "completed")
	is.Equal(out.Actions[2].Status, "failed")
	is.Equal(out.Actions[2].Error, "selector_not_found")
	channels := map[string][]string{}
	for _, ev := range out.IPC {
		channels[ev.Channel] = ev.ArgumentShapes
	}
	is.Equal(channels["dialog:open"], []string{"object{path}"}) // shapes, never values
	_, ok := channels["shell:site"]
	is.True(ok)
	blocked := false
	for _, ev := range out.Timeline {
		if ev.Family == "shell" && ev.Kind == "openExternal" && ev.Phase == "blocked" {
			blocked = true
		}
	}
	is.True(blocked)
	is.Equal(len(out.Windows), 1)
	is.True(bytes.Contains([]byte(out.Windows[0].URL), []byte("index.html")))
}

// TestElectronScenarioRendererIPC: the hook's renderer half (a session
// preload in every renderer) records the renderer's invoke, its listener
// registration and the message main delivers to it, each under the
// renderer's process and window; the main process's side of the same
// traffic is recorded under the main process.
func TestElectronScenarioRendererIPC(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent, exe, app := fakeElectron(t)
	id := runID(t)
	out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		Actions: []ports.ElectronAction{{StepID: "open", Kind: "click", Selector: "#open"}}})
	is.Equal(out.Status, "complete")
	is.Equal(len(out.Windows), 1)
	win, wc := out.Windows[0].WindowID, out.Windows[0].WebContentsID
	var mainPID, rendererPID int
	for _, p := range out.Processes {
		switch p.Role {
		case "main":
			mainPID = p.PID
		case "renderer":
			rendererPID = p.PID
		}
	}
	is.True(mainPID > 0 && rendererPID > 0 && mainPID != rendererPID)
	is.Equal(len(out.Renderers), 1)
	is.Equal(out.Renderers[0], ports.ElectronRenderer{WebContentsID: wc, WindowID: win, PID: rendererPID, Loaded: true, Attached: true})
	type key struct{ role, kind, channel, direction string }
	got := map[key]ports.ElectronEvent{}
	for _, ev := range out.IPC {
		got[key{ev.Role, ev.Kind, ev.Channel, ev.Direction}] = ev
		is.True(ev.Channel != "rea:electron-hook") // the hook's own channel is never the application's IPC
	}
	for _, want := range []struct {
		k      key
		pid    int
		shapes []string
	}{
		{key{"renderer", "on", "app:status", "main-to-renderer"}, rendererPID, []string{}},
		{key{"renderer", "invoke", "dialog:open", "renderer-to-main"}, rendererPID, []string{"object{path}"}},
		{key{"main", "handle", "dialog:open", "renderer-to-main"}, mainPID, []string{"object{path}"}},
		{key{"main", "send", "app:status", "main-to-renderer"}, mainPID, []string{"object{opened}"}},
		{key{"renderer", "receive", "app:status", "main-to-renderer"}, rendererPID, []string{"object{opened}"}},
	} {
		ev, ok := got[want.k]
		if !ok {
			t.Fatalf("no %+v event in %+v", want.k, out.IPC)
		}
		is.Equal(ev.PID, want.pid)
		is.Equal(ev.WindowID, win)
		is.Equal(ev.WebContentsID, wc)
		is.Equal(len(ev.ArgumentShapes), len(want.shapes))
		for i := range want.shapes {
			is.Equal(ev.ArgumentShapes[i], want.shapes[i])
		}
	}
	// The renderer's invoke comes before the main process handles it, and
	// the delivery after main sent it.
	seq := func(k key) int { return got[k].Sequence }
	is.True(seq(key{"renderer", "invoke", "dialog:open", "renderer-to-main"}) < seq(key{"main", "handle", "dialog:open", "renderer-to-main"}))
	is.True(seq(key{"main", "send", "app:status", "main-to-renderer"}) < seq(key{"renderer", "receive", "app:status", "main-to-renderer"}))
	attached := false
	for _, ev := range out.Timeline {
		attached = attached || ev.Family == "renderer" && ev.Kind == "hook-attached" && ev.PID == rendererPID && ev.WindowID == win
	}
	is.True(attached)
}

// TestElectronScenarioRendererReloadAndCrash: a reload reruns the page and
// the hook reattaches in the same renderer; a crash ends the renderer
// process (gone from the processes, the window marked crashed) and the
// next click fails; a reload after the crash starts a new renderer, which
// the hook attaches to again.
func TestElectronScenarioRendererReloadAndCrash(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent, exe, app := fakeElectron(t)
	kinds := func(out *ports.ElectronScenarioCapture) []string {
		var ks []string
		for _, ev := range out.Timeline {
			if ev.Family == "renderer" {
				ks = append(ks, ev.Kind)
			}
		}
		return ks
	}
	renderers := func(out *ports.ElectronScenarioCapture) []int {
		var pids []int
		for _, p := range out.Processes {
			if p.Role == "renderer" {
				pids = append(pids, p.PID)
			}
		}
		return pids
	}

	t.Run("reload", func(t *testing.T) {
		is := is.New(t)
		id := runID(t)
		out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
			Actions: []ports.ElectronAction{{StepID: "r", Kind: "renderer-reload"}, {StepID: "c", Kind: "click", Selector: "#open"}}})
		is.Equal(out.Status, "complete")
		is.Equal(out.Actions[0].Status, "completed")
		is.Equal(out.Actions[1].Status, "completed")
		is.Equal(kinds(out), []string{"hook-attached", "did-finish-load", "reload", "hook-attached", "did-finish-load"})
		is.Equal(len(renderers(out)), 1)
		is.Equal(out.Windows[0].Crashed, false)
		is.True(out.Renderers[0].Attached)
		// The listener was registered twice (once per load); the click's
		// delivery reached the renderer.
		on, receive := 0, 0
		for _, ev := range out.IPC {
			if ev.Role == "renderer" && ev.Channel == "app:status" {
				switch ev.Kind {
				case "on":
					on++
				case "receive":
					receive++
				}
			}
		}
		is.Equal(on, 2)
		is.Equal(receive, 1)
	})

	t.Run("crash", func(t *testing.T) {
		is := is.New(t)
		id := runID(t)
		out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
			Actions: []ports.ElectronAction{{StepID: "x", Kind: "renderer-crash"}, {StepID: "c", Kind: "click", Selector: "#open"}}})
		is.Equal(out.Status, "complete") // a crashed renderer is gone, not unattached
		is.Equal(out.Actions[0].Status, "completed")
		is.Equal(out.Actions[1].Status, "failed")
		is.Equal(out.Actions[1].Error, "renderer_crashed")
		is.Equal(kinds(out), []string{"hook-attached", "did-finish-load", "crash", "render-process-gone"})
		is.Equal(len(renderers(out)), 0)
		is.Equal(len(out.Windows), 1)
		is.True(out.Windows[0].Crashed)
		is.True(!out.Windows[0].Destroyed)
		is.Equal(len(out.Renderers), 1)
		is.True(out.Renderers[0].Crashed)
		// The renderer was observed (its hook attached) before it crashed:
		// the snapshot's process list no longer has it, the roles still do.
		is.Equal(out.ObservedRoles, []string{"main", "renderer"})
		// It is listed among the ended processes with the pid it had and
		// its exit. Before, a process gone before the snapshot was in no
		// list at all.
		for _, p := range out.Processes {
			is.True(p.Role != "renderer")
		}
		var attached int
		for _, ev := range out.Timeline {
			if ev.Kind == "hook-attached" {
				attached = ev.PID
			}
		}
		is.True(attached > 0)
		is.Equal(len(out.EndedProcesses), 1)
		gone := out.EndedProcesses[0]
		is.Equal(gone.Role, "renderer")
		is.Equal(gone.PID, attached)
		is.Equal(gone.Reason, "crashed")
		is.True(gone.ExitCode != nil && *gone.ExitCode == 9)
	})

	t.Run("crash then reload", func(t *testing.T) {
		is := is.New(t)
		id := runID(t)
		out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
			Actions: []ports.ElectronAction{{StepID: "x", Kind: "renderer-crash"}, {StepID: "r", Kind: "renderer-reload"}, {StepID: "c", Kind: "click", Selector: "#open"}}})
		is.Equal(out.Status, "complete")
		for _, a := range out.Actions {
			is.Equal(a.Status, "completed")
		}
		is.Equal(kinds(out), []string{"hook-attached", "did-finish-load", "crash", "render-process-gone", "reload", "hook-attached", "did-finish-load"})
		pids := renderers(out)
		is.Equal(len(pids), 1)
		is.True(!out.Windows[0].Crashed)
		// The two attachments came from different renderer processes.
		var attachPIDs []int
		for _, ev := range out.Timeline {
			if ev.Kind == "hook-attached" {
				attachPIDs = append(attachPIDs, ev.PID)
			}
		}
		is.Equal(len(attachPIDs), 2)
		is.True(attachPIDs[0] != attachPIDs[1])
		is.Equal(attachPIDs[1], pids[0])
	})
}

// TestElectronScenarioPartialAttach: a renderer whose preloads never ran
// the hook (the fake's --fake-no-renderer-hook) is reported as not
// attached, the capture is partial_attach with a limitation naming it, and
// the main process's side of its IPC is still recorded.
func TestElectronScenarioPartialAttach(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent, exe, app := fakeElectron(t)
	id := runID(t)
	out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		Args: []string{"--fake-no-renderer-hook"}, Actions: []ports.ElectronAction{{StepID: "open", Kind: "click", Selector: "#open"}}})
	is.Equal(out.Status, "partial_attach")
	is.Equal(len(out.Renderers), 1)
	is.True(out.Renderers[0].Loaded && !out.Renderers[0].Attached)
	named := false
	for _, l := range out.Limitations {
		named = named || bytes.Contains([]byte(l), []byte("could not attach to the renderer of web contents "+strconv.Itoa(out.Renderers[0].WebContentsID)))
	}
	is.True(named)
	roles := map[string]int{}
	for _, ev := range out.IPC {
		roles[ev.Role]++
	}
	is.Equal(roles["renderer"], 0)
	is.True(roles["main"] >= 2) // handle dialog:open, send app:status
}

// TestElectronScenarioHangKeepsPartialObservation: an application whose
// main process freezes mid-scenario times its action out, never answers
// the snapshot, and the failure carries what was observed up to then.
func TestElectronScenarioHangKeepsPartialObservation(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent, exe, app := fakeElectron(t)
	id := runID(t)
	_, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		ActionMS: 2000, Args: []string{"--fake-freeze-on-deep-link"},
		Actions: []ports.ElectronAction{{StepID: "open", Kind: "click", Selector: "#open"}, {StepID: "link", Kind: "deep-link", Delivery: "open-url", URL: "fixture://x"}}})
	assertClean(t, id, parent)
	is.True(ports.IsCode(err, ports.BrowserTimeout))
	var se *ports.ElectronScenarioError
	is.True(errors.As(err, &se))
	p := se.Partial
	is.Equal(p.Status, "capture_truncated")
	is.Equal(len(p.Actions), 2)
	is.Equal(p.Actions[0].Status, "completed")
	is.Equal(p.Actions[1].Status, "failed")
	is.Equal(p.Actions[1].Error, "action_timeout")
	is.Equal(len(p.IPC), 0) // no snapshot came
	is.True(len(p.Limitations) >= 2)
}

func TestElectronScenarioFloodIsTruncated(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent, exe, app := fakeElectron(t)
	id := runID(t)
	out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		MaxIPCEvents: 100, Args: []string{"--flood=5000"}, Actions: []ports.ElectronAction{{StepID: "w", Kind: "wait", DurationMS: 50}}})
	is.Equal(out.Status, "capture_truncated")
	is.Equal(len(out.IPC), 100)
	is.True(out.IPCObserved >= 5000)
}

// TestElectronScenarioLifecycle: applications that exit at once, hang,
// ignore SIGTERM or fork get typed errors and leave nothing behind, and
// the error's partial observation says rea saw the launch only.
func TestElectronScenarioLifecycle(t *testing.T) {
	app, _ := filepath.Abs("testdata/electronapp")
	for _, tc := range []struct {
		exe  string
		want ports.BrowserErrorCode
	}{
		{"exits-at-once", ports.BrowserDisconnected},
		{"hangs", ports.BrowserTimeout},
		{"ignores-sigterm", ports.BrowserTimeout},
		{"forks", ports.BrowserTimeout},
	} {
		t.Run(tc.exe, func(t *testing.T) {
			e, parent := scenarioEngine(t)
			exe, _ := filepath.Abs("testdata/fake-electron/" + tc.exe)
			id := runID(t)
			_, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id, StartTimeoutMS: 400})
			if !ports.IsCode(err, tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
			assertClean(t, id, parent)
			// The error still says what was observed: the launch only.
			var se *ports.ElectronScenarioError
			if !errors.As(err, &se) || se.Partial == nil || !slices.ContainsFunc(se.Partial.Limitations, func(l string) bool {
				return strings.Contains(l, "rea observed the launch only")
			}) {
				t.Fatalf("no partial observation naming the launch: %v", err)
			}
			if tc.want == ports.BrowserTimeout && (se.Partial.Status != "capture_truncated" || !strings.Contains(se.Partial.Limitations[0], "had not connected within 400ms")) {
				t.Fatalf("a hook that never connected: %+v", se.Partial)
			}
		})
	}
}

// An application whose hook has not connected when limits.duration_ms
// runs out is a timeout that names the limit to raise, with the launch as
// its partial observation; before, it was "context deadline exceeded" with
// none.
func TestElectronScenarioHookLaterThanTheDuration(t *testing.T) {
	is := is.New(t)
	app, _ := filepath.Abs("testdata/electronapp")
	e, parent := scenarioEngine(t)
	exe, _ := filepath.Abs("testdata/fake-electron/hangs")
	id := runID(t)
	_, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		StartTimeoutMS: 60000, DurationMS: 1000})
	assertClean(t, id, parent)
	is.True(ports.IsCode(err, ports.BrowserTimeout))
	is.True(strings.Contains(err.Error(), "did not connect within limits.duration_ms (1000 ms): pass a larger limits.duration_ms"))
	var se *ports.ElectronScenarioError
	is.True(errors.As(err, &se))
	is.Equal(se.Partial.Status, "capture_truncated")
	is.True(strings.Contains(se.Partial.Limitations[0], "had not connected within limits.duration_ms (1000 ms): rea observed the launch only"))
}

func TestElectronScenarioBadInputs(t *testing.T) {
	app, _ := filepath.Abs("testdata/electronapp")
	exe, _ := filepath.Abs("testdata/fake-electron/electron")
	other, _ := filepath.Abs("testdata/nodeapp")
	e := cdp.NewRuntime(nil)
	for _, tc := range []struct {
		name string
		req  ports.ElectronScenarioRequest
		want ports.BrowserErrorCode
	}{
		{"relative executable", ports.ElectronScenarioRequest{ExecutablePath: "electron", ApplicationPath: app}, ports.BrowserInvalidRequest},
		{"NUL in the application", ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app + "\x00x"}, ports.BrowserInvalidRequest},
		{"missing application", ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app + "-missing"}, ports.BrowserTargetNotFound},
		{"application outside the root", ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, ApplicationRoot: other}, ports.BrowserTargetNotAllowed},
		{"not executable", ports.ElectronScenarioRequest{ExecutablePath: filepath.Join(app, "main.js"), ApplicationPath: app}, ports.BrowserInvalidRequest},
		{"unknown action", ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, Actions: []ports.ElectronAction{{StepID: "a", Kind: "type"}}}, ports.BrowserInvalidRequest},
		{"long wait", ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, Actions: []ports.ElectronAction{{StepID: "a", Kind: "wait", DurationMS: 20000}}}, ports.BrowserInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.RunElectronScenario(context.Background(), tc.req)
			if !ports.IsCode(err, tc.want) {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}

// TestElectronScenarioLive runs the fixture under a real Electron when
// REA_TEST_ELECTRON names its executable.
func TestElectronScenarioLive(t *testing.T) {
	exe := os.Getenv("REA_TEST_ELECTRON")
	if exe == "" {
		t.Skip("REA_TEST_ELECTRON does not name an Electron executable; the live Electron lane is skipped (npm's electron cannot fetch its binary here)")
	}
	is := is.New(t)
	e, parent := scenarioEngine(t)
	app, _ := filepath.Abs("testdata/electronapp")
	id := runID(t)
	out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		Actions: []ports.ElectronAction{{StepID: "s1", Kind: "click", Selector: "#open"}}})
	kinds := map[string]bool{}
	for _, ev := range out.IPC {
		kinds[ev.Role+" "+ev.Kind+" "+ev.Channel] = true
	}
	is.True(kinds["main handle dialog:open"])
	// The hook's renderer half ran as the session's preload.
	is.True(kinds["renderer invoke dialog:open"])
	is.True(kinds["renderer on app:status"])
	is.True(kinds["renderer receive app:status"])
	is.Equal(out.Status, "complete")
}

// TestElectronScenarioDurationLimitKeepsTheSnapshot: when limits.duration_ms
// runs out mid-scenario, every later action failed at once with
// action_timeout, the snapshot was never asked for, and the call failed
// with "timeout: context deadline exceeded" and no IPC, though the hook had
// recorded the first click's traffic. The run now stops at the limit,
// skips the later actions, still takes the snapshot and says why the
// capture is truncated. The limit counts the launch, which took past 1.5 s
// on a loaded machine: 6 s leaves room, and the 10 s wait still outlasts it.
func TestElectronScenarioDurationLimitKeepsTheSnapshot(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent, exe, app := fakeElectron(t)
	id := runID(t)
	out, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		DurationMS: 6000, Actions: []ports.ElectronAction{{StepID: "open", Kind: "click", Selector: "#open"},
			{StepID: "long", Kind: "wait", DurationMS: 10000}, {StepID: "again", Kind: "click", Selector: "#open"}}})
	assertClean(t, id, parent)
	is.NoErr(err)
	is.Equal(out.Status, "capture_truncated")
	is.Equal(len(out.Actions), 3)
	is.Equal(out.Actions[0].Status, "completed")
	is.Equal(out.Actions[1].Status, "failed")
	is.Equal(out.Actions[1].Error, "scenario_duration_exceeded")
	is.Equal(out.Actions[2].Status, "skipped")
	invoked := false
	for _, ev := range out.IPC {
		if ev.Channel == "dialog:open" && ev.Kind == "invoke" {
			invoked = true
		}
	}
	is.True(invoked) // the first click's traffic came with the snapshot
	is.True(slices.ContainsFunc(out.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "limits.duration_ms (6000 ms) ran out during step long")
	}))
}

// An application that exits mid-scenario is target_exited with its main
// process among the ended processes (the launcher's exit code, which rea
// sees because it owns the process), the actions up to the exit, and what
// the hook recorded before it: the exit handler's final snapshot keeps the
// first click's IPC. A kill runs no exit handler: the exit is still named
// (by its signal) and a limitation says the records were lost. Before, the
// capture had no exit code and never a snapshot, and an application that
// exited before its hook connected did not say how it ended.
func TestElectronScenarioTargetExitNamesTheExit(t *testing.T) {
	needNode(t)
	app, _ := filepath.Abs("testdata/electronapp")
	exe, _ := filepath.Abs("testdata/fake-electron/electron")
	acts := []ports.ElectronAction{{StepID: "open", Kind: "click", Selector: "#open"},
		{StepID: "link", Kind: "deep-link", Delivery: "open-url", URL: "fixture://x"}, {StepID: "after", Kind: "wait", DurationMS: 10}}
	main := func(out *ports.ElectronScenarioCapture) *ports.ElectronEndedProcess {
		for i, p := range out.EndedProcesses {
			if p.Role == "main" {
				return &out.EndedProcesses[i]
			}
		}
		return nil
	}
	t.Run("exit", func(t *testing.T) {
		is := is.New(t)
		e, parent := scenarioEngine(t)
		var pid int
		e = cdp.NewRuntime(&cdp.RuntimeOptions{TempParent: parent, GraceDelay: 300 * time.Millisecond, Tap: &cdp.ScenarioTap{Started: func(p int, _ []string) { pid = p }}})
		id := runID(t)
		out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
			Args: []string{"--fake-exit-on-deep-link=7"}, Actions: acts})
		is.Equal(out.Status, "target_exited")
		is.Equal([]string{out.Actions[0].Status, out.Actions[1].Error, out.Actions[2].Status}, []string{"completed", "target_exited", "skipped"})
		m := main(out)
		is.True(m != nil)
		is.Equal(m.PID, pid)
		is.True(m.ExitCode != nil && *m.ExitCode == 7)
		is.Equal(m.Reason, "abnormal-exit")
		is.True(slices.ContainsFunc(out.IPC, func(ev ports.ElectronEvent) bool { return ev.Channel == "dialog:open" })) // recorded before the exit
		is.True(!slices.ContainsFunc(out.Processes, func(p ports.ElectronProcess) bool { return p.PID == pid }))
		is.True(slices.ContainsFunc(out.Limitations, func(l string) bool {
			return strings.Contains(l, "exited with code 7 during step link") && strings.Contains(l, "final snapshot")
		}))
	})
	t.Run("kill", func(t *testing.T) {
		is := is.New(t)
		e, parent := scenarioEngine(t)
		id := runID(t)
		out := runScenario(t, e, parent, ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
			Args: []string{"--fake-kill-on-deep-link"}, Actions: acts})
		is.Equal(out.Status, "target_exited")
		m := main(out)
		is.True(m != nil)
		is.True(m.ExitCode == nil)
		is.Equal(m.Reason, "killed")
		is.Equal(len(out.IPC), 0)
		is.True(slices.ContainsFunc(out.Limitations, func(l string) bool {
			return strings.Contains(l, "was ended by signal 9") && strings.Contains(l, "No snapshot came")
		}))
	})
	t.Run("before the hook", func(t *testing.T) {
		is := is.New(t)
		e, parent := scenarioEngine(t)
		x, _ := filepath.Abs("testdata/fake-electron/exits-at-once")
		id := runID(t)
		_, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: x, ApplicationPath: app, RunID: id, StartTimeoutMS: 2000, Actions: acts})
		assertClean(t, id, parent)
		is.True(ports.IsCode(err, ports.BrowserDisconnected))
		is.True(strings.Contains(err.Error(), "the application exited with code 3 before its hook connected"))
		// What was and was not observed goes with the error: the launch
		// and the main process's exit, no hook record, no action run.
		var se *ports.ElectronScenarioError
		is.True(errors.As(err, &se))
		is.True(se.Partial != nil)
		out := se.Partial
		is.Equal(out.Status, "target_exited")
		m := main(out)
		is.True(m != nil)
		is.True(m.PID > 0)
		is.True(m.ExitCode != nil && *m.ExitCode == 3)
		is.Equal(m.Reason, "abnormal-exit")
		is.Equal([]string{out.Actions[0].Status, out.Actions[1].Status, out.Actions[2].Status}, []string{"skipped", "skipped", "skipped"})
		is.Equal(len(out.Windows)+len(out.Processes)+len(out.IPC)+len(out.Timeline), 0)
		is.Equal(out.ElectronVersion, "")
		is.True(slices.ContainsFunc(out.Limitations, func(l string) bool {
			return strings.Contains(l, "exited with code 3 before rea's hook connected") && strings.Contains(l, "the launch only") &&
				strings.Contains(l, "Not observed: the Electron version, windows, renderers, the process list, IPC and the timeline")
		}))
	})
}
