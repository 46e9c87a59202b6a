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
	"rea/ports"
)

// capturers answers each capture with the next of its capturers.
type capturers struct{ next []ports.ProcessCapturer }

func (c *capturers) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	n := c.next[0]
	c.next = c.next[1:]
	return n.CaptureProcess(ctx, req)
}

// launchFailed fails as the pty engine fails a launch (its abort): the
// files before were checkpointed, nothing of the program was observed,
// the exit says the launch failed, the tree is quiesced, and the journal
// ends as every capture's does, with the exit, the settlement and the
// files after (which nothing changed).
type launchFailed struct{}

func (launchFailed) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c, _ := greeterCapturer{name: "alice"}.CaptureProcess(ctx, req)
	c.Frames, c.RenderedFrames, c.FinalScreen, c.InteractionEvents = nil, nil, ports.RenderedFrame{}, nil
	c.NormalizedProcesses, c.ProcessSamples = nil, nil
	c.FilesAfter = c.FilesBefore
	c.FileEffects = []ports.FileEffect{{Path: c.FilesBefore[0].Path, Effect: ports.EffectUnchanged}}
	c.Exit, c.Settlement = ports.CaptureExit{Reason: ports.DispositionFailed}, ports.Settlement{State: ports.SettlementQuiesced}
	c.EventJournal = []ports.JournalEntry{{CaptureOrder: 0, Collection: ports.JournalFilesystem, Index: 0},
		{CaptureOrder: 1, Collection: ports.JournalLifecycle, Index: 0}, {CaptureOrder: 2, Collection: ports.JournalLifecycle, Index: 1},
		{CaptureOrder: 3, Collection: ports.JournalFilesystem, Index: 1}}
	c.Coverage = []ports.CoverageNote{{Scope: ports.ScopeProcess, Reason: "the program was not launched: pty: launch /tmp/greeter: exec format error"}}
	return nil, &ports.CaptureError{Disposition: ports.DispositionFailed, Cause: errors.New("pty: launch /tmp/greeter: exec format error"), Partial: c}
}

type gapResult struct {
	Status     string
	Dimensions []struct {
		Dimension, Status string
		Reason            *string
		Difference        any
	}
	FirstDivergence struct{ Status string } `json:"first_divergence"`
	Incomplete      []struct {
		Side        string
		Failed      bool
		Reason      string
		NotObserved []string `json:"not_observed"`
	}
}

func compareIDs(t *testing.T, s *core.Session, left, right string) gapResult {
	t.Helper()
	res, ce := sessionCall(t, s, "compare_process_captures", map[string]any{
		"left": map[string]any{"kind": "retained-evidence", "evidence_id": left}, "right": map[string]any{"kind": "retained-evidence", "evidence_id": right}})
	if ce != nil {
		t.Fatalf("compare: %v", ce)
	}
	var g gapResult
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &g); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", res.Evidence.NormalizedResult)
	return g
}

// A retained failed capture is compared as what it is: the result says
// the side failed and what it did not observe, and a dimension reading
// that is unknown, not changed, added or removed. Before, a launch that
// failed was compared as a complete capture: its terminal, interaction,
// process tree and exit "removed" or "changed" against a run that worked.
func TestCompareSaysASideFailedAndWhatItDidNotObserve(t *testing.T) {
	is := is.New(t)
	s := session(t, &capturers{next: []ports.ProcessCapturer{launchFailed{}, greeterCapturer{name: "alice"}, launchFailed{}, twoInputs{died: true, greeting: "hello alice\r\n"}}})
	scenario := map[string]any{"executable": "greeter", "events": []any{map[string]any{"type": "input", "at_ms": 100, "data": "alice\n"}}}
	_, ce := sessionCall(t, s, "capture_process_scenario", scenario)
	is.True(ce != nil)
	// The advice names what to pass instead (before: "Read the message and
	// details, correct the cause and call again.").
	is.True(strings.Contains(ce.Remediation, "pass as executable a program this host can start"))
	parent := ce.Details["partial_observation"].(map[string]any)["capture"].(*process.CaptureProcessScenarioResult).ParentEvidenceID
	ok, ce := sessionCall(t, s, "capture_process_scenario", scenario)
	is.True(ce == nil)
	g := compareIDs(t, s, parent, string(ok.Evidence.EvidenceID))

	is.Equal(len(g.Incomplete), 1)
	in := g.Incomplete[0]
	is.Equal(in.Side, "left")
	is.True(in.Failed)
	is.True(strings.Contains(in.Reason, "process_capture_failed") && strings.Contains(in.Reason, "exec format error"))
	is.Equal(strings.Join(in.NotObserved, " "), "terminal interaction_events exit processes ports")
	for _, d := range g.Dimensions {
		if d.Dimension == "filesystem" {
			// Observed on both sides: the launch that failed wrote no
			// out.txt.
			is.Equal(d.Status, "changed")
			continue
		}
		if d.Status != "unknown" || d.Reason == nil || !strings.Contains(*d.Reason, "left capture did not observe") || d.Difference != nil {
			t.Errorf("%s: %s (%v), difference %v; want unknown: the left side did not observe it", d.Dimension, d.Status, d.Reason, d.Difference)
		}
	}
	is.Equal(g.Status, "changed")
	is.Equal(g.FirstDivergence.Status, "found")

	// Against a program that exited before its second input, only the
	// failed side is incomplete: the failed one received no input, so the
	// other lacks nothing it saw.
	_, ce = sessionCall(t, s, "capture_process_scenario", scenario)
	parent = ce.Details["partial_observation"].(map[string]any)["capture"].(*process.CaptureProcessScenarioResult).ParentEvidenceID
	early, _ := sessionCall(t, s, "capture_process_scenario", scenario)
	g = compareIDs(t, s, parent, string(early.Evidence.EvidenceID))
	is.Equal(len(g.Incomplete), 1)
	is.Equal(g.Incomplete[0].Side, "left")
}

// twoInputs is the greeter given a second input at 200 ms: a program that
// lived answers it with bye; one that had exited (died) never received it.
// greeting is what it wrote after the first.
type twoInputs struct {
	died     bool
	greeting string
}

func (c twoInputs) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	p, _ := greeterCapturer{name: "alice"}.CaptureProcess(ctx, req)
	p.Frames[2].Data = c.greeting
	second := ports.InteractionEvent{Sequence: 1, ScheduledAtMS: 200, Type: ports.EventInput, Data: "x\n", Outcome: ports.OutcomeTargetExited}
	if !c.died {
		second.Outcome = ports.OutcomeDispatched
		p.Frames = append(p.Frames, ports.CaptureFrame{Sequence: 3, AtMS: 201, Data: "bye\r\n"})
		r := p.RenderedFrames[2]
		r.Sequence, r.AtMS, r.Lines = 3, 201, append(append([]string{}, r.Lines[:2]...), "bye", "", "")
		p.RenderedFrames = append(p.RenderedFrames, r)
		p.EventJournal = append(p.EventJournal, ports.JournalEntry{CaptureOrder: 7, Collection: ports.JournalInteractionEvents, Index: 1},
			ports.JournalEntry{CaptureOrder: 8, Collection: ports.JournalFrames, Index: 3}, ports.JournalEntry{CaptureOrder: 9, Collection: ports.JournalRenderedFrames, Index: 3})
	} else {
		p.EventJournal = append(p.EventJournal, ports.JournalEntry{CaptureOrder: 7, Collection: ports.JournalInteractionEvents, Index: 1})
	}
	p.InteractionEvents = append(p.InteractionEvents, second)
	return p, nil
}

// A program that exited before its scenario's last input was due has no
// terminal after it: that is not observed, not a change, while what both
// observed is still compared (a greeting cut short is a change) and the
// undelivered input is an observed difference of the interaction.
// Before, the missing answer made the terminal "changed".
func TestCompareSaysAProgramExitedBeforeItsScenarioFinished(t *testing.T) {
	is := is.New(t)
	s := session(t, &capturers{next: []ports.ProcessCapturer{
		twoInputs{died: true, greeting: "hello alice\r\n"}, twoInputs{greeting: "hello alice\r\n"}, twoInputs{died: true, greeting: "hello al"},
		twoInputs{died: true, greeting: "hello alice\r\n"}}})
	scenario := map[string]any{"executable": "greeter", "events": []any{map[string]any{"type": "input", "at_ms": 100, "data": "alice\n"},
		map[string]any{"type": "input", "at_ms": 200, "data": "x\n"}}}
	var ids []string
	for range 4 {
		r, ce := sessionCall(t, s, "capture_process_scenario", map[string]any{"executable": "greeter", "events": scenario["events"], "detail": "complete"})
		is.True(ce == nil)
		ids = append(ids, string(r.Evidence.EvidenceID))
	}
	status := func(g gapResult, dim string) string {
		for _, d := range g.Dimensions {
			if d.Dimension == dim {
				return d.Status
			}
		}
		return ""
	}
	g := compareIDs(t, s, ids[0], ids[1])
	is.Equal(len(g.Incomplete), 1)
	is.Equal(g.Incomplete[0].Side, "left")
	is.True(!g.Incomplete[0].Failed)
	is.True(strings.Contains(g.Incomplete[0].Reason, "exited before interaction events 1"))
	is.Equal(g.Incomplete[0].NotObserved, []string{"terminal after interaction events 1"})
	is.Equal(status(g, "terminal"), "unknown")
	is.Equal(status(g, "interaction"), "changed") // target_exited against dispatched: observed
	is.Equal(status(g, "exit"), "unchanged")
	is.Equal(g.Status, "changed")

	g = compareIDs(t, s, ids[2], ids[1]) // the greeting was cut short
	is.Equal(status(g, "terminal"), "changed")

	// Two programs that both exited before the last input lack nothing the
	// other observed: the terminals are compared whole.
	g = compareIDs(t, s, ids[0], ids[3])
	is.Equal(len(g.Incomplete), 0)
	is.Equal(status(g, "terminal"), "unchanged")
	is.Equal(g.Status, "unchanged")
}
