package cdp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
	"rea/ports/portstest/replay"
)

// The hook↔rea conversation of one scenario on the Electron fixture,
// recorded from a live run (the fake Electron, or a real one when
// REA_TEST_ELECTRON names it) and replayed where neither runs.
const (
	scenarioTranscript = "testdata/electron-scenario/transcript.jsonl"
	scenarioCapture    = "testdata/electron-scenario/capture.json"
	// fixtureMark stands for the fixture's absolute directory in the
	// committed files, which would otherwise hold the recording machine's
	// paths.
	fixtureMark = "/rea-fixture/electronapp"
)

var replayActions = []ports.ElectronAction{
	{StepID: "open", Kind: "click", Selector: "#open"},
	{StepID: "pause", Kind: "wait", DurationMS: 20},
	{StepID: "reload", Kind: "renderer-reload"},
	{StepID: "site", Kind: "click", Selector: "#site"},
	{StepID: "missing", Kind: "click", Selector: "#missing"},
	{StepID: "link", Kind: "deep-link", Delivery: "open-url", URL: "fixture://replay"},
}

// comparable strips what rea measures itself (its own paths and the
// actions' wall time) from a capture, leaving what the hook reported.
func comparable(c *ports.ElectronScenarioCapture) []byte {
	cc := *c
	cc.ExecutablePath, cc.ApplicationPath = "", ""
	cc.Actions = append([]ports.ElectronActionResult(nil), c.Actions...)
	for i := range cc.Actions {
		cc.Actions[i].ElapsedMS = 0
	}
	b, _ := json.MarshalIndent(cc, "", " ")
	return append(b, '\n')
}

// TestElectronScenarioReplay plays the committed transcript's hook side
// against rea's scenario engine: a stand-in process that never connects is
// launched and owned as the application, the player dials the control
// socket as the hook would, rea's requests (the actions and the snapshot
// command) must match the recording byte for byte, and the capture must
// equal the one the live run produced. With -record or REA_RECORD=1 it
// re-records both files from the fake Electron (or REA_TEST_ELECTRON).
func TestElectronScenarioReplay(t *testing.T) {
	if replay.Recording() {
		recordScenario(t)
	}
	is := is.New(t)
	f, err := os.Open(scenarioTranscript)
	if err != nil {
		t.Fatalf("%v (record it with -record or REA_RECORD=1)", err)
	}
	tr, err := replay.ReadTranscript(f)
	f.Close()
	is.NoErr(err)
	want, err := os.ReadFile(scenarioCapture)
	is.NoErr(err)

	var events []string
	p := replay.NewPlayer(t, tr, &replay.Options{OnProcess: func(e replay.Entry) { events = append(events, e.Event) }})
	tap := &cdp.ScenarioTap{Listening: func(path string) {
		if err := p.Dial(context.Background(), path); err != nil {
			t.Error(err)
		}
	}}
	parent := scenarioParent(t)
	e := cdp.NewRuntime(&cdp.RuntimeOptions{TempParent: parent, GraceDelay: 300 * time.Millisecond, Tap: tap})
	app, _ := filepath.Abs("testdata/electronapp")
	stand, _ := filepath.Abs("testdata/fake-electron/hangs")
	id := runID(t)
	out, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: stand, ApplicationPath: app, RunID: id, Actions: replayActions})
	is.NoErr(err)
	is.NoErr(p.Close())
	assertClean(t, id, parent)
	got := comparable(out)
	if !bytes.Equal(got, want) {
		t.Fatalf("the replayed capture differs from the recorded one:\n got %s\nwant %s", got, want)
	}
	is.Equal(events[0], replay.EventStart)
	is.Equal(events[len(events)-1], replay.EventExit)
	// What the transcript holds: renderer-side IPC, the reload's
	// reattachment and the blocked effect, as the live run saw them.
	is.Equal(out.Status, "complete")
	is.Equal(out.Actions[4].Error, "selector_not_found")
	roles := map[string]bool{}
	for _, ev := range out.IPC {
		roles[ev.Role+" "+ev.Kind+" "+ev.Channel] = true
	}
	is.True(roles["renderer invoke dialog:open"])
	is.True(roles["renderer receive app:status"])
	is.True(roles["main handle shell:site"])
	is.True(strings.Contains(string(got), fixtureMark+"/index.html"))
}

// recordScenario runs the scenario live with the hook's conversation
// recorded, and rewrites the transcript and the expected capture.
func recordScenario(t *testing.T) {
	t.Helper()
	exe := os.Getenv("REA_TEST_ELECTRON")
	if exe == "" {
		needNode(t)
		exe, _ = filepath.Abs("testdata/fake-electron/electron")
	}
	app, _ := filepath.Abs("testdata/electronapp")
	realApp, _ := filepath.EvalSymlinks(app)
	rec := replay.NewRecorder(replay.Header{Engine: "electron", EngineVersion: "recording", Framing: replay.FrameLines})
	tap := &cdp.ScenarioTap{
		Conn: func(c net.Conn) net.Conn { return rec.Conn(c) },
		Started: func(pid int, argv []string) {
			// The hook's and the profile's paths are the run's temporary
			// directory: keep only the shape of the command line.
			rec.ProcessStarted(pid, []string{"electron", "-r", "hook.cjs", fixtureMark})
		},
		Ended: func(signals []string, code int) {
			for _, s := range signals {
				rec.Signalled(s)
			}
			rec.ProcessExited(code)
		},
	}
	parent := scenarioParent(t)
	e := cdp.NewRuntime(&cdp.RuntimeOptions{TempParent: parent, GraceDelay: 300 * time.Millisecond, Tap: tap})
	id := runID(t)
	out, err := e.RunElectronScenario(context.Background(), ports.ElectronScenarioRequest{ExecutablePath: exe, ApplicationPath: app, RunID: id, Actions: replayActions})
	if err != nil {
		t.Fatalf("recording: %v", err)
	}
	assertClean(t, id, parent)
	tr := rec.Transcript()
	tr.Header.EngineVersion = out.ElectronVersion
	var buf bytes.Buffer
	if err := replay.WriteTranscript(&buf, tr); err != nil {
		t.Fatal(err)
	}
	mark := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(realApp), []byte(fixtureMark)) }
	if err := os.MkdirAll(filepath.Dir(scenarioTranscript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenarioTranscript, mark(buf.Bytes()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenarioCapture, mark(comparable(out)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s and %s from %s (electron %s)", scenarioTranscript, scenarioCapture, exe, out.ElectronVersion)
}
