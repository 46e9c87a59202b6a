package cdp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// electronAllowed are the only methods the Electron page tools may send.
// Target.setAutoAttach is passive: the browser answers it itself, and with
// waitForDebuggerOnStart false no worker is paused (nor resumed: the
// never-sent list holds Runtime.runIfWaitingForDebugger); it names a
// renderer's dedicated workers. Debugger.setSkipAllPauses keeps the
// enabled Debugger from stopping the page at a debugger statement.
var electronAllowed = []string{"Target.attachToTarget", "Target.detachFromTarget", "Target.getTargets", "Target.setAutoAttach",
	"Page.enable", "Page.disable", "Page.getFrameTree", "Page.getResourceTree", "Runtime.enable", "Runtime.disable",
	"Debugger.enable", "Debugger.setSkipAllPauses", "Debugger.disable", "Debugger.getScriptSource", "DOMSnapshot.captureSnapshot"}

func TestElectronInspectIsPassiveAndGated(t *testing.T) {
	is := is.New(t)
	dir, _ := filepath.Abs("testdata/electronapp")
	f := cdptest.New(&cdptest.Options{Targets: []cdptest.Target{
		{ID: "T1", Type: "page", Title: "Fixture", URL: "file://" + dir + "/index.html"},
		{ID: "T2", Type: "page", URL: "file:///etc/hostname"},
		{ID: "T3", Type: "page", URL: "file://" + dir + "%2findex.html"},
		{ID: "T4", Type: "service_worker", URL: "file://" + dir + "/sw.js"},
	}})
	defer f.Close()
	e := cdp.NewRuntime(nil)
	ctx := context.Background()
	l, err := e.ListElectronTargets(ctx, ports.ElectronListRequest{Endpoint: f.URL, AllowedFileRoots: []string{dir}})
	is.NoErr(err)
	is.Equal(len(l.Targets), 1)
	is.Equal(l.Targets[0].FilePath, filepath.Join(dir, "index.html"))
	is.Equal(l.Excluded.OutsideRoot, 1)
	is.Equal(l.Excluded.UnsupportedURL, 1)
	is.Equal(l.Excluded.NonPage, 1)
	pc, err := e.InspectElectronPage(ctx, ports.ElectronInspectRequest{Endpoint: f.URL, TargetID: "T1", AllowedFileRoots: []string{dir}, ObservationMS: 20})
	is.NoErr(err)
	is.Equal(len(pc.Frames), 1) // the http child frame is not a gated file
	for _, m := range f.Methods() {
		if !slices.Contains(electronAllowed, m) {
			t.Errorf("the passive Electron inspection sent %s", m)
		}
	}
	_, err = e.InspectElectronPage(ctx, ports.ElectronInspectRequest{Endpoint: f.URL, TargetID: "T2", AllowedFileRoots: []string{dir}})
	is.True(ports.IsCode(err, ports.BrowserTargetNotAllowed))
	_, err = e.InspectElectronPage(ctx, ports.ElectronInspectRequest{Endpoint: f.URL, TargetID: "T3"})
	is.True(ports.IsCode(err, ports.BrowserTargetNotAllowed))
	_, err = e.ListElectronTargets(ctx, ports.ElectronListRequest{Endpoint: "http://localhost:9222"})
	is.True(ports.IsCode(err, ports.BrowserInvalidRequest))
}

// TestElectronPagesLiveOnChromium: Debian's Chromium serving the
// fixture's file:// page stands in for an Electron renderer (same CDP).
func TestElectronPagesLiveOnChromium(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed; live Electron page test skipped")
	}
	is := is.New(t)
	ctx := context.Background()
	dir, _ := filepath.Abs("testdata/electronapp")
	dir, _ = filepath.EvalSymlinks(dir)
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: "file://" + dir + "/index.html"})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	defer func() { is.NoErr(b.Close(ctx)) }()
	e := cdp.NewRuntime(nil)
	var target string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && target == ""; time.Sleep(50 * time.Millisecond) {
		l, err := e.ListElectronTargets(ctx, ports.ElectronListRequest{Endpoint: b.Endpoint(), AllowedFileRoots: []string{dir}})
		if err == nil && len(l.Targets) == 1 {
			target = l.Targets[0].TargetID
		}
	}
	if target == "" {
		t.Fatal("the fixture page never appeared")
	}
	time.Sleep(200 * time.Millisecond)
	pc, err := e.InspectElectronPage(ctx, ports.ElectronInspectRequest{Endpoint: b.Endpoint(), TargetID: target, AllowedFileRoots: []string{dir}, ObservationMS: 100, IncludeScriptSources: true})
	is.NoErr(err)
	is.Equal(len(pc.Frames), 1)
	is.Equal(pc.Frames[0].FilePath, filepath.Join(dir, "index.html"))
	is.True(len(pc.DOM.Nodes) > 3)
	src, _ := os.ReadFile(filepath.Join(dir, "renderer.js"))
	sum := sha256.Sum256(src)
	found := false
	for _, s := range pc.Scripts {
		if strings.HasSuffix(s.FilePath, "/renderer.js") {
			found = true
			is.Equal(s.CDPHash, hex.EncodeToString(sum[:]))
			is.Equal(string(s.Source), string(src))
		}
	}
	is.True(found)
}

// observation_ms 0 reads the page at once and says so; before, 0 ran as a
// 100 ms window and the capture window said 100.
func TestElectronInspectZeroWindowReadsAtOnce(t *testing.T) {
	is := is.New(t)
	dir, _ := filepath.Abs("testdata/electronapp")
	f := cdptest.New(&cdptest.Options{Targets: []cdptest.Target{{ID: "T1", Type: "page", Title: "Fixture", URL: "file://" + dir + "/index.html"}}})
	defer f.Close()
	pc, err := cdp.NewRuntime(nil).InspectElectronPage(context.Background(), ports.ElectronInspectRequest{Endpoint: f.URL, TargetID: "T1", AllowedFileRoots: []string{dir}})
	is.NoErr(err)
	is.Equal(pc.CaptureWindow.ObservationMS, 0)
	is.True(slices.ContainsFunc(pc.Limitations, func(l string) bool { return strings.Contains(l, "observation_ms was 0") }))
}
