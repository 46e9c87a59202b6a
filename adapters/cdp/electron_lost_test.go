package cdp_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// A page lost after the window, while a section is read, fails as
// disconnected with what was read before it: the frames, the scripts
// reported and the sections already read, the rest unavailable, and a
// limitation naming the read that was lost. Before, the call failed with
// no partial capture (only a loss inside the window kept one).
func TestElectronInspectPageLostAfterTheWindowKeepsWhatWasRead(t *testing.T) {
	dir, _ := filepath.Abs("testdata/electronapp")
	dir, _ = filepath.EvalSymlinks(dir)
	detach := []cdptest.Event{{Method: "Target.detachedFromTarget", Params: map[string]any{"sessionId": "S1", "targetId": "T1"}, Browser: true}}
	cases := []struct {
		name        string
		opts        cdptest.Options
		sources     bool
		unavailable []string
		during      string
		dom         bool // the DOM was read
	}{
		{"resources", cdptest.Options{CloseOn: "Page.getResourceTree"}, false, []string{"dom", "resources", "workers"}, "while the resources were read", false},
		{"dom", cdptest.Options{CloseOn: "DOMSnapshot.captureSnapshot"}, false, []string{"dom", "workers"}, "while the DOM was read", false},
		{"script-sources", cdptest.Options{CloseOn: "Debugger.getScriptSource"}, true, []string{"script_sources", "workers"}, "while the script sources were read", true},
		{"workers", cdptest.Options{CloseOn: "Target.getTargets"}, false, []string{"workers"}, "while the workers were read (Target.getTargets)", true},
		// The page lists a worker without its script (as Chromium does
		// until a client attaches), and the page goes away while
		// auto-attach names it.
		{"naming-workers", cdptest.Options{CloseOn: "Target.setAutoAttach", Handlers: map[string]cdptest.Handler{"Target.getTargets": unnamedWorker}},
			false, []string{"workers"}, "while the workers were read (naming them by auto-attach)", true},
		{"final-check", cdptest.Options{After: map[string][]cdptest.Event{"Target.getTargets": detach}}, false, nil, "while the main frame was read again", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			opts := tc.opts
			opts.Targets = []cdptest.Target{{ID: "T1", Type: "page", Title: "Fixture", URL: "file://" + dir + "/index.html"}}
			opts.After = mergeEvents(opts.After, "Debugger.enable", cdptest.Event{Method: "Debugger.scriptParsed",
				Params: map[string]any{"scriptId": "7", "url": "file://" + dir + "/renderer.js", "executionContextId": 1, "hash": "abc", "length": 20}})
			f := cdptest.New(&opts)
			defer f.Close()
			_, err := cdp.NewRuntime(nil).InspectElectronPage(context.Background(), ports.ElectronInspectRequest{Endpoint: f.URL, TargetID: "T1",
				AllowedFileRoots: []string{dir}, ObservationMS: 20, IncludeScriptSources: tc.sources})
			is.True(ports.IsCode(err, ports.BrowserDisconnected))
			var pe *ports.PartialError[ports.ElectronPageCapture]
			if !errors.As(err, &pe) || pe.Partial == nil {
				t.Fatalf("no partial capture with %v", err)
			}
			pc := pe.Partial
			is.Equal(pc.CaptureWindow.ObservationMS, 20)
			is.Equal(len(pc.Frames), 1)
			is.Equal(pc.Frames[0].FilePath, filepath.Join(dir, "index.html"))
			is.Equal(len(pc.Scripts), 1)
			is.Equal(pc.Scripts[0].FilePath, filepath.Join(dir, "renderer.js"))
			is.Equal(len(pc.DOM.Nodes) > 0, tc.dom)
			var unavailable []string
			for _, u := range pc.Completeness.Unavailable {
				unavailable = append(unavailable, u.Section)
			}
			is.Equal(unavailable, tc.unavailable)
			if !slices.ContainsFunc(pc.Limitations, func(l string) bool {
				return strings.Contains(l, "went away") && strings.Contains(l, "after the 20 ms window, "+tc.during)
			}) {
				t.Errorf("no limitation names the lost read (%q): %q", tc.during, pc.Limitations)
			}
			is.True(pc.DOM.Nodes != nil && pc.Resources != nil && pc.Workers != nil)
		})
	}
}

// unnamedWorker answers Target.getTargets with the page and a dedicated
// worker it opened, listed without its script URL.
func unnamedWorker(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
	return map[string]any{"targetInfos": []any{
		map[string]any{"targetId": "T1", "type": "page", "title": "", "url": "", "attached": true, "canAccessOpener": false},
		map[string]any{"targetId": "W1", "type": "worker", "title": "", "url": "", "attached": false, "openerId": "T1", "canAccessOpener": false},
	}}, nil
}

// mergeEvents adds events after method to m.
func mergeEvents(m map[string][]cdptest.Event, method string, events ...cdptest.Event) map[string][]cdptest.Event {
	out := map[string][]cdptest.Event{}
	for k, v := range m {
		out[k] = v
	}
	out[method] = append(out[method], events...)
	return out
}
