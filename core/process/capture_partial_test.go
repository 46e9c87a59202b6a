package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/process"
	"rea/core/standard"
	"rea/ports"
)

// failingCapturer fails after observing listingCapture: the run failed
// (cleanup incomplete when cleanup is set), and the partial observation
// holds every frame.
type failingCapturer struct{ cleanup bool }

func (f failingCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c := listingCapture(req)
	if ctx.Err() != nil {
		return nil, &ports.CaptureError{Disposition: ports.DispositionCancelled, Cause: ctx.Err(), Partial: c}
	}
	if f.cleanup {
		c.Cleanup.Err = &ports.CleanupError{Resources: []ports.OwnedResource{{Kind: "process", ID: "1", Reason: "still running"}}}
		return nil, &ports.CaptureError{Disposition: ports.DispositionFailed, Partial: c}
	}
	return nil, &ports.CaptureError{Disposition: ports.DispositionFailed, Cause: errors.New("the terminal went away"), Partial: c}
}

// session is a session over capturer, closed with the test.
func session(t *testing.T, capturer ports.ProcessCapturer) *core.Session {
	t.Helper()
	cat, err := core.Assemble(standard.Families()...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{Capturer: capturer})
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// A failed capture's details.partial_observation.capture is concise, as a
// capture that succeeded is: the complete partial observation is retained
// and named by parent_evidence_id. Before, the error carried every frame
// whole with its serialized_state (193 KB for listingCapture).
func TestFailedCaptureIsConcise(t *testing.T) {
	for _, cleanup := range []bool{false, true} {
		is := is.New(t)
		s := session(t, failingCapturer{cleanup: cleanup})
		fail := func(args map[string]any) *core.Error {
			t.Helper()
			raw, _ := json.Marshal(args)
			_, err := s.Call(context.Background(), "capture_process_scenario", raw, nil)
			var ce *core.Error
			if !errors.As(err, &ce) {
				t.Fatalf("capture: %v", err)
			}
			return ce
		}
		ce := fail(map[string]any{"executable": "/bin/ls"})
		want := core.CodeProcessCaptureFailed
		if cleanup {
			want = core.CodeCleanupIncomplete
		}
		is.Equal(ce.Code, want)
		b, err := json.Marshal(ce.Details)
		is.NoErr(err)
		t.Logf("cleanup %v: details %d bytes", cleanup, len(b))
		if len(b) > 24<<10 {
			t.Errorf("details are %d bytes; want at most 24 KB", len(b))
		}
		po := ce.Details["partial_observation"].(map[string]any)
		page, ok := po["capture"].(*process.CaptureProcessScenarioResult)
		is.True(ok)
		term, ok := page.Terminal.(process.CaptureTerminalChanges)
		is.True(ok) // the concise terminal
		is.Equal(term.FrameCount, 30)
		is.True(len(term.Frames) < 30)
		is.True(page.ParentEvidenceID != "")
		lims, _ := po["limitations"].([]string)
		is.True(len(lims) > 0 && strings.Contains(lims[0], "parent_evidence_id"))

		// The complete partial observation is retained: every frame, and
		// a limitation saying the capture failed.
		full, err := s.Ledger().Resolve(core.EvidenceID(page.ParentEvidenceID))
		is.NoErr(err)
		var m struct {
			Terminal struct {
				Frames   []any            `json:"frames"`
				Rendered []map[string]any `json:"rendered_frames"`
			} `json:"terminal"`
		}
		is.NoErr(json.Unmarshal(full.NormalizedResult, &m))
		is.Equal(len(m.Terminal.Frames), 30)
		_, has := m.Terminal.Rendered[0]["serialized_state"]
		is.True(has)
		is.True(len(full.Limitations) > 0 && strings.Contains(full.Limitations[0], string(want)))
		var params map[string]any
		is.NoErr(json.Unmarshal(full.Parameters, &params))
		is.Equal(params["detail"], "complete")

		// Asked for the complete form, the error carries it.
		ce = fail(map[string]any{"executable": "/bin/ls", "detail": "complete"})
		po = ce.Details["partial_observation"].(map[string]any)
		page = po["capture"].(*process.CaptureProcessScenarioResult)
		_, ok = page.Terminal.(process.CaptureTerminalRecord)
		is.True(ok)
		is.Equal(page.ParentEvidenceID, "")
	}

	// A cancelled call records nothing, so its partial observation stays
	// whole (an MCP client reads no answer to a cancelled request).
	is := is.New(t)
	s := session(t, failingCapturer{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Call(ctx, "capture_process_scenario", json.RawMessage(`{"executable":"/bin/ls"}`), nil)
	var ce *core.Error
	is.True(errors.As(err, &ce))
	is.Equal(ce.Code, core.CodeCancelled)
	page := ce.Details["partial_observation"].(map[string]any)["capture"].(*process.CaptureProcessScenarioResult)
	_, ok := page.Terminal.(process.CaptureTerminalRecord)
	is.True(ok)
	is.Equal(len(s.Ledger().Records()), 0)
}

// unlaunchedCapturer fails as the pty engine does when the launch fails
// (a script whose interpreter does not exist): no terminal was ever
// sized or drawn, so the final screen is the zero frame.
type unlaunchedCapturer struct{}

func (unlaunchedCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c := &ports.ProcessCapture{RunID: req.RunID, Scenario: req.Scenario, Executable: ports.ExecutableIdentity{Path: "/tmp/x.sh"},
		Exit:     ports.CaptureExit{Reason: "failed"},
		Coverage: []ports.CoverageNote{{Scope: "process", Reason: "the program was not launched: fork/exec /tmp/x.sh: no such file or directory"}}}
	return nil, &ports.CaptureError{Disposition: ports.DispositionFailed, Cause: errors.New("launch failed"), Partial: c}
}

// failedCall captures /tmp/x.sh at detail in s and returns the error the
// capture failed with.
func failedCall(t *testing.T, s *core.Session, detail string) *core.Error {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"executable": "/tmp/x.sh", "detail": detail})
	_, err := s.Call(context.Background(), "capture_process_scenario", raw, nil)
	var ce *core.Error
	if !errors.As(err, &ce) {
		t.Fatalf("capture_process_scenario at %s: %v, want a *core.Error", detail, err)
	}
	return ce
}

// A capture whose launch failed reports its final screen as not observed:
// null, with a residual unknown saying why, and a null digest, in the
// concise and the complete partial observation. Before, it was a 0x0
// screen with no lines, which reads as a program that drew nothing, and
// its digest was "", which no digest is.
func TestUnlaunchedCaptureHasNoFinalScreen(t *testing.T) {
	s := session(t, unlaunchedCapturer{})
	for _, detail := range []string{"concise", "complete"} {
		is := is.New(t)
		ce := failedCall(t, s, detail)
		b, err := json.Marshal(ce.Details)
		is.NoErr(err)
		var d struct {
			Partial struct {
				Capture struct {
					Terminal struct {
						FinalScreen json.RawMessage `json:"final_screen"`
					} `json:"terminal"`
					Unknowns []struct{ Scope, Reason string } `json:"residual_unknowns"`
					Manifest map[string]json.RawMessage       `json:"manifest"`
				} `json:"capture"`
			} `json:"partial_observation"`
		}
		is.NoErr(json.Unmarshal(b, &d))
		is.Equal(string(d.Partial.Capture.Terminal.FinalScreen), "null") // not a 0x0 screen
		said := false
		for _, u := range d.Partial.Capture.Unknowns {
			said = said || u.Scope == "terminal" && strings.Contains(u.Reason, "final_screen is null")
		}
		is.True(said)
		digest, ok := d.Partial.Capture.Manifest["final_screen_sha256"]
		is.True(ok)
		is.Equal(string(digest), "null") // not ""
	}
}

// badInterpreterCapturer fails as the pty engine does for a script whose
// interpreter does not exist: the script was read (its digest is known),
// but nothing ran in the terminal.
type badInterpreterCapturer struct{}

func (badInterpreterCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	_, err := unlaunchedCapturer{}.CaptureProcess(ctx, req)
	var ce *ports.CaptureError
	errors.As(err, &ce)
	sha := strings.Repeat("ab", 32)
	ce.Partial.Executable.SelectedSHA256, ce.Partial.Executable.SHA256 = sha, sha
	return nil, ce
}

// A launch that failed drew no frame: its concise partial observation's
// limitation says nothing is cut from frames it never had, and still names
// the complete record. Before, it said each rendered frame is its
// changed_lines and an output frame's data is cut to 1024 bytes.
func TestUnlaunchedConciseNoteNamesNoFrames(t *testing.T) {
	is := is.New(t)
	s := session(t, badInterpreterCapturer{})
	raw, _ := json.Marshal(map[string]any{"executable": "/tmp/x.sh"})
	_, err := s.Call(context.Background(), "capture_process_scenario", raw, nil)
	var ce *core.Error
	is.True(errors.As(err, &ce))
	lims, _ := ce.Details["partial_observation"].(map[string]any)["limitations"].([]string)
	is.Equal(len(lims), 1)
	is.True(!strings.Contains(lims[0], "changed_lines")) // no rendered frame to describe
	is.True(!strings.Contains(lims[0], "data_bytes"))    // no output frame to cut
	is.True(strings.Contains(lims[0], "no output or rendered frame was observed"))
	is.True(strings.Contains(lims[0], "parent_evidence_id"))
}

// screenDigestCapturer is listingCapturer with the final screen's digest
// in its manifest, as the pty engine records it.
type screenDigestCapturer struct{}

func (screenDigestCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c := listingCapture(req)
	c.Manifest.FinalScreenSHA256 = strings.Repeat("cd", 32)
	return c, nil
}

// A capture that drew a screen keeps its digest.
func TestCapturedFinalScreenDigest(t *testing.T) {
	is := is.New(t)
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: screenDigestCapturer{}})
	for _, detail := range []string{"concise", "complete"} {
		res := call("capture_process_scenario", map[string]any{"executable": "/bin/ls", "detail": detail})
		var r struct {
			Manifest struct {
				FinalScreenSHA256 *string `json:"final_screen_sha256"`
			} `json:"manifest"`
		}
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &r))
		is.True(r.Manifest.FinalScreenSHA256 != nil)
		is.Equal(*r.Manifest.FinalScreenSHA256, strings.Repeat("cd", 32))
	}
}

// A launch whose executable was never read (it was missing when the engine
// came to hash it: no digest) cannot be sealed as Evidence, so its
// complete partial observation stays in the error. It still says what was
// not observed, in limitations, as every other failure's partial
// observation does: that the record is complete and not retained, and why
// nothing else was observed. Before, the complete record came with no
// limitation at all.
func TestUnreadExecutableSaysWhatWasNotObserved(t *testing.T) {
	s := session(t, unlaunchedCapturer{})
	for _, detail := range []string{"concise", "complete"} {
		is := is.New(t)
		ce := failedCall(t, s, detail)
		po := ce.Details["partial_observation"].(map[string]any)
		page := po["capture"].(*process.CaptureProcessScenarioResult)
		is.Equal(page.ParentEvidenceID, "") // nothing was retained
		lims, _ := po["limitations"].([]string)
		is.True(len(lims) >= 2)
		t.Logf("%s: %q", detail, lims[0])
		is.True(strings.HasPrefix(lims[0], "This is the failed capture's complete partial observation, inline"))
		var process, terminal bool
		for _, l := range lims {
			process = process || strings.HasPrefix(l, "process: the program was not launched")
			terminal = terminal || strings.HasPrefix(l, "terminal: no screen was observed")
		}
		is.True(process)
		is.True(terminal)
	}
}
