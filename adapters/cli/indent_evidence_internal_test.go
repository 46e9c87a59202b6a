package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"rea/core"
)

// writeEvidenceIndented must write the bytes writeIndented writes for the
// same record, whatever the raw results hold.
func TestWriteEvidenceIndentedMatchesWriteIndented(t *testing.T) {
	long := strings.Repeat(`{"k\"{":["a\\","b]"],"n":-1.5e3,"t":true,"e":{},"z":[]},`, 3000)
	raws := []json.RawMessage{
		nil,
		json.RawMessage(`{}`),
		json.RawMessage(`[]`),
		json.RawMessage(`null`),
		json.RawMessage(` { "a" : [ 1 , { } , [ ] ] ,"b":"x,y:{z}[w] \u2028 \\\" é" } `),
		json.RawMessage(`{"graph":[` + long + `{}],"s":"<tag> & \n"}`),
		json.RawMessage(`"just a string with \\\\ and \" inside"`),
		json.RawMessage("\t[\n1,\r\n2 ]"),
		// deeper than the line breaks kept ready
		json.RawMessage(strings.Repeat(`[{"d":`, 40) + `[]` + strings.Repeat(`}]`, 40)),
	}
	for i, raw := range raws {
		ev := &core.Evidence{EvidenceID: "ev_x", Subject: &core.Subject{}, Operation: "op <&>", Parameters: json.RawMessage(`{"path":"/a b"}`),
			RawResult: raws[(i+1)%len(raws)], NormalizedResult: raw, Limitations: []string{"l\"1", ""}, Locations: []core.Location{}}
		var want, got bytes.Buffer
		if err := writeIndented(&want, ev); err != nil {
			t.Fatal(err)
		}
		if err := writeEvidenceIndented(&got, ev, false); err != nil {
			t.Fatal(err)
		}
		var sealed bytes.Buffer // a record the session sealed is not checked again, and written the same
		if err := writeEvidenceIndented(&sealed, ev, true); err != nil || sealed.String() != got.String() {
			t.Errorf("case %d, sealed: %v %.300q", i, err, sealed.String())
		}
		if got.String() != want.String() {
			t.Errorf("case %d:\ngot  %.300q\nwant %.300q", i, got.String(), want.String())
		}
	}
	// Invalid raw JSON is refused as encoding/json refuses it.
	bad := &core.Evidence{NormalizedResult: json.RawMessage(`{"a":`)}
	if err := writeEvidenceIndented(&bytes.Buffer{}, bad, false); err == nil {
		t.Error("invalid raw result: no error")
	}
	// A writer's error is the call's error.
	big := &core.Evidence{NormalizedResult: json.RawMessage(`["` + strings.Repeat("x", 200<<10) + `"]`)}
	if err := writeEvidenceIndented(failingWriter{}, big, false); err == nil {
		t.Error("a failing writer: no error")
	}
	// An error in the middle is kept, even when the writes after it succeed.
	if err := writeEvidenceIndented(&failsOnce{}, big, false); err == nil {
		t.Error("a writer that failed once, mid-stream: no error")
	}
	if !evidenceFieldsPlain {
		t.Error("core.Evidence is no longer mirrored field by field: the jsapp CLI output takes the slow path")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// failsOnce fails its first write only.
type failsOnce struct{ failed bool }

func (w *failsOnce) Write(p []byte) (int, error) {
	if !w.failed {
		w.failed = true
		return 0, errors.New("disk full, for a moment")
	}
	return len(p), nil
}
