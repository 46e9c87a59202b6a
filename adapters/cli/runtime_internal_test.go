package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestElectronScenarioText: the text names the process and window of each
// IPC event, and says which renderer the hook reached and which crashed.
func TestElectronScenarioText(t *testing.T) {
	is := is.New(t)
	var r map[string]any
	is.NoErr(json.Unmarshal([]byte(`{
 "application":{"application_path":"/app","electron_version":"45.0.0"},
 "coverage":{"status":"partial_attach"},
 "actions":[{"step_id":"open","kind":"click","status":"completed","error":null}],
 "windows":[{"window_id":1,"url":"file:///app/index.html","title":"App","crashed":false,"destroyed":false},
            {"window_id":2,"url":"file:///app/other.html","title":"Other","crashed":true,"destroyed":false}],
 "renderers":[{"web_contents_id":3,"window_id":1,"pid":40,"loaded":true,"attached":true,"crashed":false},
              {"web_contents_id":4,"window_id":2,"pid":null,"loaded":true,"attached":false,"crashed":true}],
 "ipc":{"observed":2,"retained":2,"events":[
   {"kind":"invoke","direction":"renderer-to-main","channel":"dialog:open","argument_shapes":["object{path}"],"role":"renderer","pid":40,"window_id":1},
   {"kind":"handle","direction":"renderer-to-main","channel":"dialog:open","argument_shapes":["object{path}"],"role":"main","pid":12,"window_id":null}]},
 "timeline":{"events":[{"family":"renderer","kind":"crash","phase":"observed","role":"renderer","pid":null,"window_id":2}]}}`), &r))
	var b bytes.Buffer
	writeElectronScenario(&b, r)
	out := strings.Join(strings.Fields(b.String()), " ") // columns are padded

	for _, want := range []string{
		"application: /app (Electron 45.0.0), partial_attach",
		"window 2 crashed file:///app/other.html Other",
		"renderer 3 window 1 pid 40 loaded, hook attached",
		"renderer 4 window 2 pid - crashed, hook not attached",
		"dialog:open [object{path}] renderer pid 40 window 1",
		"main pid 12 effect:",
		"effect: renderer crash observed renderer window 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
