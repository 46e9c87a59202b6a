package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// greeterCapturer returns a short capture: a prompt, an input event, the
// greeting, three screens and a file written; name is the input.
type greeterCapturer struct{ name string }

func (g greeterCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	sha := strings.Repeat("12", 32)
	code, elapsed := 3, int64(250)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &ports.ProcessCapture{RunID: req.RunID, Scenario: req.Scenario,
		Executable: ports.ExecutableIdentity{Path: "/tmp/greeter", SelectedSHA256: sha, SHA256: sha, State: ports.IdentityUnchanged},
		StartedAt:  t0, CompletedAt: t0.Add(time.Second),
		Exit:                 ports.CaptureExit{Reason: "exited", Exited: true, Code: &code, ElapsedMS: &elapsed},
		Settlement:           ports.Settlement{State: ports.SettlementQuiesced},
		Manifest:             ports.CaptureManifest{ProviderVersion: "3", Platform: "linux", Architecture: "amd64", StartedAt: t0, CompletedAt: t0.Add(time.Second)},
		NormalizationApplied: ports.NormalizationRecord{Version: "rea-capture-normalization-v1"},
		NormalizedProcesses:  []ports.NormalizedProcess{{ID: 1, ParentID: 0, GroupID: 1, SessionID: 1, Command: "<executable>"}},
		ProcessSamples:       []ports.ProcessSample{{AtMS: 0, PID: 7, ProcessGroupID: 7, SessionID: 7, Command: "greeter"}},
		FilesBefore:          []ports.FileEntry{{Path: "root_0", Type: "directory", Mode: 0o755}},
		FilesAfter:           []ports.FileEntry{{Path: "root_0", Type: "directory", Mode: 0o755}, {Path: "root_0/out.txt", Type: "file", Mode: 0o644, Size: int64(len(g.name))}},
		FileEffects:          []ports.FileEffect{{Path: "root_0/out.txt", Effect: "created"}},
		InteractionEvents:    []ports.InteractionEvent{{Sequence: 0, ScheduledAtMS: 100, Type: ports.EventInput, Data: g.name + "\n", Outcome: "dispatched"}},
	}
	screen := func(lines ...string) []string { return append(lines, make([]string, 5-len(lines))...) }
	c.Frames = []ports.CaptureFrame{{Sequence: 0, AtMS: 1, Data: "name? "}, {Sequence: 1, AtMS: 101, Data: g.name + "\r\n"}, {Sequence: 2, AtMS: 102, Data: "hello " + g.name + "\r\n"}}
	c.RenderedFrames = []ports.RenderedFrame{
		{Sequence: 0, AtMS: 1, Columns: 40, Rows: 5, CursorX: 6, ActiveBuffer: ports.BufferNormal, Lines: screen("name?")},
		{Sequence: 1, AtMS: 101, Columns: 40, Rows: 5, CursorY: 1, ActiveBuffer: ports.BufferNormal, Lines: screen("name? "+g.name, "")},
		{Sequence: 2, AtMS: 102, Columns: 40, Rows: 5, CursorY: 2, ActiveBuffer: ports.BufferNormal, Lines: screen("name? "+g.name, "hello "+g.name)},
	}
	c.FinalScreen = c.RenderedFrames[2]
	c.EventJournal = []ports.JournalEntry{{CaptureOrder: 0, Collection: ports.JournalFrames, Index: 0}, {CaptureOrder: 1, Collection: ports.JournalRenderedFrames, Index: 0},
		{CaptureOrder: 2, Collection: ports.JournalInteractionEvents, Index: 0}, {CaptureOrder: 3, Collection: ports.JournalFrames, Index: 1},
		{CaptureOrder: 4, Collection: ports.JournalRenderedFrames, Index: 1}, {CaptureOrder: 5, Collection: ports.JournalFrames, Index: 2},
		{CaptureOrder: 6, Collection: ports.JournalRenderedFrames, Index: 2}}
	return c, nil
}

// sessionCall calls op on s with args; it returns the result or the error.
func sessionCall(t *testing.T, s *core.Session, op string, args any) (*core.Result, *core.Error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(context.Background(), op, raw, nil)
	var ce *core.Error
	if err != nil && !errors.As(err, &ce) {
		t.Fatalf("%s: %v", op, err)
	}
	return res, ce
}

func inlineOf(t *testing.T, r *core.Result) map[string]any {
	t.Helper()
	b, _ := json.Marshal(r.Evidence)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// comparison is a compare_process_captures result as a string of the
// parts both connections must agree on.
func comparison(t *testing.T, r *core.Result) string {
	t.Helper()
	var out struct {
		Status          string          `json:"status"`
		Dimensions      json.RawMessage `json:"dimensions"`
		FirstDivergence json.RawMessage `json:"first_divergence"`
	}
	if err := json.Unmarshal(r.Evidence.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %s %s", out.Status, out.Dimensions, out.FirstDivergence)
}

// A concise capture from which nothing the comparison reads was cut is
// compared in a connection that does not hold its complete record: its
// screens are rebuilt from their changed lines, and the comparison is the
// one the connection that made it gives. Before, it was refused.
func TestCompareRebuildsAnUncutConciseCapture(t *testing.T) {
	is := is.New(t)
	// The captures are made in one connection.
	maker := session(t, greeterCapturer{name: "alice"})
	alice, _ := sessionCall(t, maker, "capture_process_scenario", map[string]any{"executable": "greeter"})
	bob, _ := sessionCall(t, session(t, greeterCapturer{name: "bob"}), "capture_process_scenario", map[string]any{"executable": "greeter"})
	alice2, _ := sessionCall(t, maker, "capture_process_scenario", map[string]any{"executable": "greeter", "detail": "complete"})
	var page struct {
		Parent string `json:"parent_evidence_id"`
	}
	is.NoErr(json.Unmarshal(alice.Evidence.NormalizedResult, &page))
	is.True(page.Parent != "") // concise

	// What the making connection answers, reading the complete records.
	want, ce := sessionCall(t, maker, "compare_process_captures", map[string]any{"left": inlineOf(t, alice), "right": inlineOf(t, alice2)})
	is.True(ce == nil)
	is.True(strings.Contains(comparison(t, want), `"dimension":"terminal","status":"unknown"`) || strings.HasPrefix(comparison(t, want), "unchanged"))

	// Another connection holds neither complete record.
	other := session(t, greeterCapturer{})
	got, ce := sessionCall(t, other, "compare_process_captures", map[string]any{"left": inlineOf(t, alice), "right": inlineOf(t, alice2)})
	if ce != nil {
		t.Fatalf("compare in another connection: %s: %s", ce.Code, ce.Message)
	}
	is.Equal(comparison(t, got), comparison(t, want))
	said := false
	for _, l := range got.Evidence.Limitations {
		said = said || strings.Contains(l, "rebuilt") && strings.Contains(l, page.Parent)
	}
	is.True(said) // the answer says it compared the concise form

	// A change is seen alike: the screens rebuilt differ where they do.
	want, _ = sessionCall(t, maker, "compare_process_captures", map[string]any{"left": inlineOf(t, alice), "right": inlineOf(t, bob)})
	got, ce = sessionCall(t, other, "compare_process_captures", map[string]any{"left": inlineOf(t, alice), "right": inlineOf(t, bob)})
	is.True(ce == nil)
	is.Equal(comparison(t, got), comparison(t, want))
	is.True(strings.Contains(comparison(t, got), "hello bob"))
}

// A concise capture from which frames were cut is refused in a connection
// that does not hold its complete record; the error says what was cut and
// what to pass instead.
func TestCompareRefusesACutConciseCaptureSayingWhatToPass(t *testing.T) {
	is := is.New(t)
	concise, _ := sessionCall(t, session(t, listingCapturer{}), "capture_process_scenario", map[string]any{"executable": "/bin/ls"})
	var page struct {
		Parent string `json:"parent_evidence_id"`
	}
	is.NoErr(json.Unmarshal(concise.Evidence.NormalizedResult, &page))
	_, ce := sessionCall(t, session(t, listingCapturer{}), "compare_process_captures", map[string]any{"left": inlineOf(t, concise), "right": inlineOf(t, concise)})
	if ce == nil {
		t.Fatal("a cut concise capture was compared without its complete record")
	}
	t.Logf("%s\n%s", ce.Message, ce.Remediation)
	is.Equal(ce.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(ce.Details["reason"], "missing")
	is.Equal(ce.Details["complete_evidence_id"], page.Parent)
	is.Equal(ce.Details["evidence_id"], page.Parent)                                         // what is missing
	is.Equal(ce.Details["concise_evidence_id"], string(concise.Evidence.EvidenceID))         // what named it
	is.True(strings.Contains(fmt.Sprint(ce.Details["pass_instead"]), "detail\":\"complete")) // what to pass instead
	is.True(strings.Contains(ce.Message, "output frames"))                                   // what was cut
	is.True(strings.Contains(ce.Remediation, "rea://evidence/"+page.Parent))                 // the complete record
	is.True(strings.Contains(ce.Remediation, "\"detail\":\"complete\""))                     // or a complete result
	is.True(strings.Contains(ce.Remediation, "export_evidence_bundle"))                      // or a bundle
	is.True(strings.Contains(ce.Remediation, "import_evidence_bundle"))                      // imported here
	is.True(!strings.Contains(ce.Remediation, "Pass capture_process_scenario Evidence, in")) // not the generic advice
}

// samplingCapturer is greeterCapturer's capture of a run sampled 3,000
// times: a concise capture lists the first samples only.
type samplingCapturer struct{ greeterCapturer }

func (s samplingCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c, _ := s.greeterCapturer.CaptureProcess(ctx, req)
	for i := range 3000 {
		c.ProcessSamples = append(c.ProcessSamples, ports.ProcessSample{AtMS: int64(i), PID: 7, ProcessGroupID: 7, SessionID: 7, Command: "greeter"})
		c.EventJournal = append(c.EventJournal, ports.JournalEntry{CaptureOrder: 7 + i, Collection: ports.JournalProcessSamples, Index: i})
	}
	return c, nil
}

// Process samples are not compared: a concise capture from which only
// samples were cut is compared in another connection all the same.
func TestCompareRebuildsAConciseCaptureCutOnlyOfSamples(t *testing.T) {
	is := is.New(t)
	maker := session(t, samplingCapturer{greeterCapturer{name: "alice"}})
	concise, _ := sessionCall(t, maker, "capture_process_scenario", map[string]any{"executable": "greeter"})
	var page struct {
		Processes struct {
			Samples []any `json:"samples"`
			Count   int   `json:"sample_count"`
		} `json:"processes"`
	}
	is.NoErr(json.Unmarshal(concise.Evidence.NormalizedResult, &page))
	is.True(len(page.Processes.Samples) < page.Processes.Count) // cut
	want, _ := sessionCall(t, maker, "compare_process_captures", map[string]any{"left": inlineOf(t, concise), "right": inlineOf(t, concise)})
	got, ce := sessionCall(t, session(t, greeterCapturer{}), "compare_process_captures", map[string]any{"left": inlineOf(t, concise), "right": inlineOf(t, concise)})
	if ce != nil {
		t.Fatalf("%s: %s", ce.Code, ce.Message)
	}
	is.Equal(comparison(t, got), comparison(t, want))
}

// A comparison of two captures has their authority, controlled-replay: it
// is derived from controlled observations, not from a shipped file. Before,
// it had the default, shipped-artifact. A record that calls itself a
// capture with another authority is not one rea made, and is refused.
func TestCompareHasTheCapturesAuthority(t *testing.T) {
	is := is.New(t)
	s := session(t, greeterCapturer{name: "ada"})
	ada, _ := sessionCall(t, s, "capture_process_scenario", map[string]any{"executable": "greeter", "detail": "complete"})
	bob, _ := sessionCall(t, session(t, greeterCapturer{name: "bob"}), "capture_process_scenario", map[string]any{"executable": "greeter", "detail": "complete"})
	is.Equal(ada.Evidence.Authority, "controlled-replay")
	res, ce := sessionCall(t, s, "compare_process_captures", map[string]any{"left": inlineOf(t, ada), "right": inlineOf(t, bob)})
	is.True(ce == nil)
	is.Equal(res.Evidence.Authority, "controlled-replay")
	is.Equal(res.Evidence.Confidence, core.ConfidenceDerived)

	forged := *bob.Evidence
	forged.Authority = core.AuthorityShippedArtifact
	is.NoErr(forged.Seal())
	_, ce = sessionCall(t, s, "compare_process_captures", map[string]any{"left": inlineOf(t, ada), "right": inlineOf(t, &core.Result{Evidence: &forged})})
	is.True(ce != nil)
	is.Equal(ce.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(ce.Details["reason"], "wrong_authority")
	is.True(strings.Contains(ce.Remediation, "controlled-replay"))
}
