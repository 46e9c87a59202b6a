package process_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// run is one scripted run of a program that echoes an input and answers:
// the chunks it was read in and when, and its screens, in capture order.
type run struct {
	frames []ports.CaptureFrame
	input  int // the journal position of the input event, among the frames
}

// scriptedCapturer returns the next run for each capture.
type scriptedCapturer struct{ runs []run }

func (s *scriptedCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	r := s.runs[0]
	s.runs = s.runs[1:]
	sha := strings.Repeat("ab", 32)
	code, elapsed := 0, int64(200)
	t0 := time.Now().UTC()
	at := int64(100)
	c := &ports.ProcessCapture{RunID: req.RunID, Scenario: req.Scenario,
		Executable: ports.ExecutableIdentity{Path: "/bin/sh", SelectedSHA256: sha, SHA256: sha, State: ports.IdentityUnchanged},
		StartedAt:  t0, CompletedAt: t0.Add(time.Second),
		InteractionEvents:    []ports.InteractionEvent{{Sequence: 0, ScheduledAtMS: 100, DispatchedAtMS: &at, Type: "input", Data: "rea\n", Outcome: ports.OutcomeDispatched}},
		Exit:                 ports.CaptureExit{Reason: "exited", Exited: true, Code: &code, ElapsedMS: &elapsed},
		Settlement:           ports.Settlement{State: ports.SettlementQuiesced},
		Manifest:             ports.CaptureManifest{ProviderVersion: "3", Platform: "linux", Architecture: "amd64", StartedAt: t0, CompletedAt: t0.Add(time.Second)},
		NormalizationApplied: ports.NormalizationRecord{Version: "rea-capture-normalization-v1"}}
	screen := ""
	order := 0
	journal := func(coll string, i int) {
		c.EventJournal = append(c.EventJournal, ports.JournalEntry{CaptureOrder: order, Collection: coll, Index: i})
		order++
	}
	for i, f := range r.frames {
		if i == r.input {
			journal(ports.JournalInteractionEvents, 0)
		}
		f.Sequence = i
		c.Frames = append(c.Frames, f)
		journal(ports.JournalFrames, i)
		screen += f.Data
		c.RenderedFrames = append(c.RenderedFrames, ports.RenderedFrame{Sequence: i, AtMS: f.AtMS, Columns: 80, Rows: 24, ActiveBuffer: ports.BufferNormal,
			Lines: strings.Split(strings.TrimSuffix(strings.ReplaceAll(screen, "\r\n", "\n"), "\n"), "\n")})
		journal(ports.JournalRenderedFrames, i)
	}
	return c, nil
}

// TestCompareProcessCapturesIgnoresChunksAndJitter: two runs that wrote
// the same text around the same input are unchanged in the terminal
// however the reads fell and whichever time bucket a sleep ended in; a
// different answer, or the same text on the other side of the input, is a
// change.
func TestCompareProcessCapturesIgnoresChunksAndJitter(t *testing.T) {
	prompt := ports.CaptureFrame{AtMS: 0, Data: "name? "}
	oneChunk := run{input: 1, frames: []ports.CaptureFrame{prompt, {AtMS: 100, Data: "rea\r\nhello rea\r\n"}, {AtMS: 150, Data: "done\r\n"}}}
	twoChunks := run{input: 1, frames: []ports.CaptureFrame{prompt, {AtMS: 100, Data: "rea\r\n"}, {AtMS: 100, Data: "hello rea\r\n"}, {AtMS: 160, Data: "done\r\n"}}}
	otherAnswer := run{input: 1, frames: []ports.CaptureFrame{prompt, {AtMS: 100, Data: "rea\r\nhello bob\r\n"}, {AtMS: 150, Data: "done\r\n"}}}
	beforeInput := run{input: 2, frames: []ports.CaptureFrame{prompt, {AtMS: 90, Data: "rea\r\nhello rea\r\n"}, {AtMS: 150, Data: "done\r\n"}}}
	capt := &scriptedCapturer{runs: []run{oneChunk, twoChunks, otherAnswer, beforeInput}}
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: capt})
	scenario := map[string]any{"executable": "/bin/sh", "events": []any{map[string]any{"type": "input", "at_ms": 100, "data": "rea\n"}}}
	var caps []*core.Result
	for range 4 {
		caps = append(caps, call("capture_process_scenario", scenario))
	}
	terminal := func(l, r *core.Result) (string, map[string]any) {
		t.Helper()
		res := call("compare_process_captures", map[string]any{
			"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.Evidence.EvidenceID)},
			"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}})
		var out struct {
			Dimensions []struct {
				Dimension, Status string
			}
			FirstDivergence map[string]any `json:"first_divergence"`
		}
		if err := json.Unmarshal(res.Evidence.NormalizedResult, &out); err != nil {
			t.Fatal(err)
		}
		for _, d := range out.Dimensions {
			if d.Dimension == "terminal" {
				return d.Status, out.FirstDivergence
			}
		}
		t.Fatal("no terminal dimension")
		return "", nil
	}
	if st, fd := terminal(caps[0], caps[1]); st == "changed" {
		t.Errorf("chunking and a 10 ms jitter: terminal %s, first divergence %v", st, fd)
	}
	st, fd := terminal(caps[0], caps[2])
	if st != "changed" || fd["dimension"] != "terminal" || !strings.Contains(string(mustRaw(t, fd["right"])), "hello bob") {
		t.Errorf("another answer: terminal %s, first divergence %v", st, fd)
	}
	if st, fd := terminal(caps[0], caps[3]); st != "changed" {
		t.Errorf("the answer before the input: terminal %s, first divergence %v", st, fd)
	}
}

func mustRaw(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sampledCapturer returns fakeCapturer's capture with the next run's
// sampled process tree, under the residual unknown every sampled tree
// carries.
type sampledCapturer struct{ trees [][]ports.NormalizedProcess }

func (s *sampledCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c, err := fakeCapturer{}.CaptureProcess(ctx, req)
	if err != nil {
		return nil, err
	}
	c.NormalizedProcesses, s.trees = s.trees[0], s.trees[1:]
	c.Coverage = []ports.CoverageNote{{Scope: ports.ScopeProcess, Reason: "the process tree was sampled from /proc every 50 ms"}}
	return c, nil
}

// TestCompareProcessCapturesSampledAbsence: a process the sampler saw on
// one side only may have lived between two samples on the other, so the
// process dimension is unknown, not removed, and is no first divergence
// (before, a program that exited before its first sample was reported
// "removed" and the comparison "changed"). A process whose command only
// one side ran, or as many processes in another tree, is still a change.
func TestCompareProcessCapturesSampledAbsence(t *testing.T) {
	root := ports.NormalizedProcess{ID: 1, ParentID: 2, GroupID: 1, SessionID: 1, Command: "/bin/app conf"}
	child := ports.NormalizedProcess{ID: 3, ParentID: 1, GroupID: 1, SessionID: 1, Command: "curl x"}
	other := ports.NormalizedProcess{ID: 3, ParentID: 1, GroupID: 1, SessionID: 1, Command: "wget x"}
	daemon := ports.NormalizedProcess{ID: 3, ParentID: 4, GroupID: 3, SessionID: 3, Command: "curl x"} // the same command, setsid
	capt := &sampledCapturer{trees: [][]ports.NormalizedProcess{{root}, {}, {root, child}, {root, other}, {root, daemon}}}
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: capt})
	var caps []*core.Result
	for range 5 {
		caps = append(caps, call("capture_process_scenario", map[string]any{"executable": "/bin/sh"}))
	}
	compare := func(l, r *core.Result) (status, process string, fd map[string]any) {
		t.Helper()
		res := call("compare_process_captures", map[string]any{
			"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.Evidence.EvidenceID)},
			"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}})
		var out struct {
			Status     string
			Dimensions []struct {
				Dimension, Status string
			}
			FirstDivergence map[string]any `json:"first_divergence"`
		}
		if err := json.Unmarshal(res.Evidence.NormalizedResult, &out); err != nil {
			t.Fatal(err)
		}
		for _, d := range out.Dimensions {
			if d.Dimension == "process" {
				process = d.Status
			}
		}
		return out.Status, process, out.FirstDivergence
	}
	for _, c := range []struct {
		name string
		l, r *core.Result
	}{{"never sampled on the right", caps[0], caps[1]}, {"never sampled on the left", caps[1], caps[0]}, {"a child sampled on one side", caps[2], caps[0]}} {
		if st, p, fd := compare(c.l, c.r); st != "unknown" || p != "unknown" || fd["status"] != "unknown" {
			t.Errorf("%s: status %s, process %s, first divergence %v; want unknown", c.name, st, p, fd)
		}
	}
	if st, p, fd := compare(caps[2], caps[3]); st != "changed" || p != "changed" || fd["dimension"] != "process" {
		t.Errorf("another child: status %s, process %s, first divergence %v", st, p, fd)
	}
	if st, p, fd := compare(caps[2], caps[4]); st != "changed" || p != "changed" || fd["dimension"] != "process" {
		t.Errorf("the child in its own session: status %s, process %s, first divergence %v", st, p, fd)
	}
}

// Both captures carry the same residual unknowns; the comparison states
// each once. Before, every shared limitation was listed twice.
func TestCompareProcessCapturesStatesEachLimitationOnce(t *testing.T) {
	r := run{input: 1, frames: []ports.CaptureFrame{{AtMS: 0, Data: "name? "}, {AtMS: 100, Data: "rea\r\n"}}}
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: &notedCapturer{&scriptedCapturer{runs: []run{r, r}}}})
	scenario := map[string]any{"executable": "/bin/sh", "events": []any{map[string]any{"type": "input", "at_ms": 100, "data": "rea\n"}}}
	l, rr := call("capture_process_scenario", scenario), call("capture_process_scenario", scenario)
	if len(l.Evidence.Limitations) == 0 {
		t.Fatal("the captures have no limitations to repeat")
	}
	res := call("compare_process_captures", map[string]any{
		"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.Evidence.EvidenceID)},
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(rr.Evidence.EvidenceID)}})
	seen := map[string]bool{}
	for _, lim := range res.Evidence.Limitations {
		if seen[lim] {
			t.Errorf("limitation stated twice: %q", lim)
		}
		seen[lim] = true
	}
}

// notedCapturer adds the residual unknowns every real capture has.
type notedCapturer struct{ *scriptedCapturer }

func (n *notedCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c, err := n.scriptedCapturer.CaptureProcess(ctx, req)
	if c != nil {
		c.Coverage = []ports.CoverageNote{{Scope: ports.ScopeProcess, Reason: "the process tree was sampled"},
			{Scope: ports.ScopeNetwork, Reason: "network traffic is not observed"}}
	}
	return c, err
}

// exitCapturer is fakeCapturer's capture with the next output and exit code.
type exitCapturer struct {
	outputs []string
	codes   []int
}

func (e *exitCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c, err := fakeCapturer{}.CaptureProcess(ctx, req)
	if err != nil {
		return nil, err
	}
	c.Frames[0].Data, e.outputs = e.outputs[0], e.outputs[1:]
	code := e.codes[0]
	c.Exit.Code, e.codes = &code, e.codes[1:]
	return c, nil
}

// Every dimension that changed says how: its first differing item on each
// side, not only the earliest dimension's (first_divergence). Before, v1
// exiting 2 and v2 exiting 7 with another output gave exit "changed" and
// the exit codes only by reading both captures.
func TestCompareProcessCapturesSaysHowEachDimensionChanged(t *testing.T) {
	is := is.New(t)
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: &exitCapturer{outputs: []string{"done v1\r\n", "done v2\r\n"}, codes: []int{2, 7}}})
	l, r := call("capture_process_scenario", map[string]any{"executable": "/bin/sh"}), call("capture_process_scenario", map[string]any{"executable": "/bin/sh"})
	res := call("compare_process_captures", map[string]any{
		"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.Evidence.EvidenceID)},
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}})
	var out struct {
		Dimensions []struct {
			Dimension, Status string
			Difference        *struct {
				Index       int
				Left, Right map[string]any
			}
		}
		FirstDivergence map[string]any `json:"first_divergence"`
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
	is.Equal(out.FirstDivergence["dimension"], "terminal")
	for _, d := range out.Dimensions {
		switch d.Dimension {
		case "exit":
			is.Equal(d.Status, "changed")
			is.True(d.Difference != nil)
			is.Equal(d.Difference.Left["exit"].(map[string]any)["exit_code"], float64(2))
			is.Equal(d.Difference.Right["exit"].(map[string]any)["exit_code"], float64(7))
		case "terminal":
			is.True(d.Difference != nil)
		case "interaction":
			is.Equal(d.Status, "unchanged")
			is.True(d.Difference == nil) // nothing differs
		}
	}
}

// A long terminal text that differs is shown as a window around its first
// difference, saying where the window starts, how long the whole text is
// and where to read it. Before, `ls -la /usr/lib` against `ls -la
// /usr/bin` answered 222 KB: both whole texts (5.6 KB and 101 KB) in the
// terminal difference and again in first_divergence.
func TestCompareProcessCapturesWindowsLongTerminalText(t *testing.T) {
	is := is.New(t)
	shared := strings.Repeat("drwxr-xr-x 2 root root 4096 Dec  6 09:57 entry\r\n", 1000) // 48 KB in common
	left := shared + "left-only line\r\n" + strings.Repeat("l", 30000)
	right := shared + "right-only line é\r\n" + strings.Repeat("r", 60000)
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: &exitCapturer{outputs: []string{left, right}, codes: []int{0, 0}}})
	l, r := call("capture_process_scenario", map[string]any{"executable": "/bin/sh"}), call("capture_process_scenario", map[string]any{"executable": "/bin/sh"})
	res := call("compare_process_captures", map[string]any{
		"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.Evidence.EvidenceID)},
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}})
	is.True(res.Evidence != nil)
	if n := len(res.Evidence.NormalizedResult); n > 12000 {
		t.Errorf("normalized_result is %d bytes; want the differing texts cut to a window", n)
	}
	type item struct {
		Data       string `json:"data"`
		DataOffset *int   `json:"data_offset"`
		DataBytes  *int   `json:"data_bytes"`
	}
	var out struct {
		Dimensions []struct {
			Dimension  string
			Difference *struct{ Left, Right item }
		}
		FirstDivergence struct{ Left, Right item } `json:"first_divergence"`
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
	check := func(where string, it item, whole string) {
		t.Helper()
		if it.DataOffset == nil || it.DataBytes == nil {
			t.Fatalf("%s: no data_offset/data_bytes (data %d bytes)", where, len(it.Data))
		}
		if *it.DataBytes != len(whole) {
			t.Errorf("%s: data_bytes %d, want %d", where, *it.DataBytes, len(whole))
		}
		if *it.DataOffset+len(it.Data) > len(whole) || whole[*it.DataOffset:*it.DataOffset+len(it.Data)] != it.Data {
			t.Errorf("%s: the window is not the text at data_offset %d", where, *it.DataOffset)
		}
		if !strings.Contains(it.Data, "-only line") || !utf8.ValidString(it.Data) {
			t.Errorf("%s: the window %.200q misses the first difference or splits a character", where, it.Data)
		}
	}
	check("first_divergence left", out.FirstDivergence.Left, left)
	check("first_divergence right", out.FirstDivergence.Right, right)
	for _, d := range out.Dimensions {
		if d.Dimension == "terminal" {
			is.True(d.Difference != nil)
			check("terminal difference right", d.Difference.Right, right)
		}
	}
	said := false
	for _, lim := range res.Evidence.Limitations {
		said = said || (strings.Contains(lim, "data_offset") && strings.Contains(lim, "capture"))
	}
	if !said {
		t.Errorf("no limitation says the texts are cut and where the whole text is: %q", res.Evidence.Limitations)
	}
}
