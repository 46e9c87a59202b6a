package cdp_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// scenarioEngine returns an engine whose temporary directories go under a
// directory the test checks is empty afterwards.
func scenarioEngine(t *testing.T) (*cdp.RuntimeEngine, string) {
	parent := t.TempDir()
	return cdp.NewRuntime(&cdp.RuntimeOptions{TempParent: parent, GraceDelay: 300 * time.Millisecond}), parent
}

func assertClean(t *testing.T, id, parent string) {
	t.Helper()
	// A deep TMPDIR sends the scenario directory to /tmp: none may remain.
	if m, _ := filepath.Glob("/tmp/rea-electron-*"); len(m) > 0 {
		t.Errorf("scenario directories survive under /tmp: %v", m)
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
	e, parent := scenarioEngine(t)
	app, _ := filepath.Abs("testdata/electronapp")
	exe, _ := filepath.Abs("testdata/fake-electron/electron")
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

func TestElectronScenarioFloodIsTruncated(t *testing.T) {
	needNode(t)
	is := is.New(t)
	e, parent := scenarioEngine(t)
	app, _ := filepath.Abs("testdata/electronapp")
	exe, _ := filepath.Abs("testdata/fake-electron/electron")
	id := runID(t)
	out, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		MaxIPCEvents: 100, Args: []string{"--flood=5000"}, Actions: []ports.ElectronAction{{StepID: "w", Kind: "wait", DurationMS: 50}}})
	is.NoErr(err)
	assertClean(t, id, parent)
	is.Equal(out.Status, "capture_truncated")
	is.Equal(len(out.IPC), 100)
	is.True(out.IPCObserved >= 5000)
}

// TestElectronScenarioLifecycle: applications that exit at once, hang,
// ignore SIGTERM or fork get typed errors and leave nothing behind.
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
		})
	}
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
	out, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id,
		Actions: []ports.ElectronAction{{StepID: "s1", Kind: "click", Selector: "#open"}}})
	is.NoErr(err)
	assertClean(t, id, parent)
	found := false
	for _, ev := range out.IPC {
		found = found || ev.Channel == "dialog:open"
	}
	is.True(found)
}
