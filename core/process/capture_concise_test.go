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
	"rea/core/standard"
	"rea/ports"
)

// listingCapturer returns the same capture of a long listing each time: 30
// output frames of 50 lines, each rendered as a 24-line screen with its
// styled serialization, as `ls -la /usr/bin` is.
type listingCapturer struct{}

func (listingCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	return listingCapture(req), nil
}

// listingCapture is listingCapturer's capture.
func listingCapture(req ports.CaptureRequest) *ports.ProcessCapture {
	sha := strings.Repeat("ab", 32)
	code, elapsed := 0, int64(300)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &ports.ProcessCapture{RunID: req.RunID, Scenario: req.Scenario,
		Executable: ports.ExecutableIdentity{Path: "/bin/ls", SelectedSHA256: sha, SHA256: sha, State: ports.IdentityUnchanged},
		StartedAt:  t0, CompletedAt: t0.Add(time.Second),
		Exit:                 ports.CaptureExit{Reason: "exited", Exited: true, Code: &code, ElapsedMS: &elapsed},
		Settlement:           ports.Settlement{State: ports.SettlementQuiesced},
		Manifest:             ports.CaptureManifest{ProviderVersion: "3", Platform: "linux", Architecture: "amd64", StartedAt: t0, CompletedAt: t0.Add(time.Second)},
		NormalizationApplied: ports.NormalizationRecord{Version: "rea-capture-normalization-v1"}}
	var all []string
	for i := range 30 {
		var data strings.Builder
		for j := range 50 {
			l := fmt.Sprintf("-rwxr-xr-x  1 root root %10d Jan 14  2023  tool-%04d", i*1000+j, i*50+j)
			all = append(all, l)
			data.WriteString(l + "\r\n")
		}
		c.Frames = append(c.Frames, ports.CaptureFrame{Sequence: i, AtMS: int64(i), Data: data.String()})
		c.EventJournal = append(c.EventJournal, ports.JournalEntry{CaptureOrder: 2 * i, Collection: ports.JournalFrames, Index: i})
		screen := append(all[len(all)-23:len(all):len(all)], "")
		c.RenderedFrames = append(c.RenderedFrames, ports.RenderedFrame{Sequence: i, AtMS: int64(i), Columns: 80, Rows: 24, CursorY: 23,
			ActiveBuffer: ports.BufferNormal, Lines: screen, SerializedState: "\x1b[0m" + strings.Join(screen, "\r\n")})
		c.EventJournal = append(c.EventJournal, ports.JournalEntry{CaptureOrder: 2*i + 1, Collection: ports.JournalRenderedFrames, Index: i})
	}
	c.FinalScreen = c.RenderedFrames[len(c.RenderedFrames)-1]
	return c
}

// A capture is concise by default: each rendered frame is the lines that
// changed, output frames' data is cut, long lists are a first page, and the
// complete record (what "detail":"complete" returns) is retained as
// parent_evidence_id, through which compare_process_captures reads either
// form alike. Before, every frame carried its lines and serialized_state:
// `ls -la /usr/bin` answered 407 KB over MCP.
func TestCaptureIsConciseByDefault(t *testing.T) {
	is := is.New(t)
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: listingCapturer{}})
	concise := call("capture_process_scenario", map[string]any{"executable": "/bin/ls"})
	complete := call("capture_process_scenario", map[string]any{"executable": "/bin/ls", "detail": "complete"})
	cb, _ := json.Marshal(concise.Evidence)
	fb, _ := json.Marshal(complete.Evidence)
	t.Logf("concise %d bytes, complete %d bytes", len(cb), len(fb))
	if len(concise.Evidence.NormalizedResult) > 20<<10 {
		t.Errorf("the concise normalized_result is %d bytes; want at most 20 KB", len(concise.Evidence.NormalizedResult))
	}
	var c struct {
		Parent   string `json:"parent_evidence_id"`
		Terminal struct {
			Frames []struct {
				Data      string `json:"data"`
				DataBytes int    `json:"data_bytes"`
			} `json:"frames"`
			Rendered []map[string]json.RawMessage `json:"rendered_frames"`
			Final    map[string]json.RawMessage   `json:"final_screen"`
			Count    int                          `json:"frame_count"`
			Bytes    int                          `json:"output_bytes"`
		} `json:"terminal"`
		Journal []any `json:"event_journal"`
	}
	is.NoErr(json.Unmarshal(concise.Evidence.NormalizedResult, &c))
	// The complete record is the one a "detail":"complete" call makes.
	is.Equal(c.Parent, string(complete.Evidence.EvidenceID))
	is.Equal(len(concise.Evidence.EvidenceLinks), 1)
	is.Equal(concise.Evidence.EvidenceLinks[0], complete.Evidence.EvidenceID)
	is.Equal(c.Terminal.Count, 30)
	is.True(c.Terminal.Bytes > 30*50*50)
	t.Logf("listed %d frames, %d rendered", len(c.Terminal.Frames), len(c.Terminal.Rendered))
	is.True(len(c.Terminal.Frames) >= 4 && len(c.Terminal.Frames) < 30)
	is.True(len(c.Journal) == 2*len(c.Terminal.Frames)) // the listed frames' entries only
	for _, f := range c.Terminal.Frames {
		is.True(len(f.Data) <= 1024 && f.DataBytes > len(f.Data))
	}
	for i, r := range c.Terminal.Rendered {
		if _, has := r["serialized_state"]; has {
			t.Errorf("rendered frame %d keeps serialized_state", i)
		}
		if _, has := r["lines"]; has {
			t.Errorf("rendered frame %d keeps every line", i)
		}
		var changed []struct {
			Row  int
			Text string
		}
		is.NoErr(json.Unmarshal(r["changed_lines"], &changed))
		if i == 0 && len(changed) != 23 { // the blank last row is no change
			t.Errorf("the first screen's changed lines: %d, want 23", len(changed))
		}
	}
	if _, has := c.Terminal.Final["serialized_state"]; has {
		t.Error("the final screen keeps serialized_state")
	}
	var lines []string
	is.NoErr(json.Unmarshal(c.Terminal.Final["lines"], &lines))
	is.Equal(len(lines), 23) // the blank last row is trimmed
	is.Equal(string(c.Terminal.Final["trimmed_blank_rows"]), "1")
	is.True(strings.Contains(lines[22], "tool-1499"))
	said := false
	for _, l := range concise.Evidence.Limitations {
		said = said || strings.Contains(l, "parent_evidence_id") && strings.Contains(l, "first")
	}
	is.True(said)

	// Both forms compare alike, as retained references and inline.
	ref := func(r *core.Result) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}
	}
	dims := func(l, r any) string {
		t.Helper()
		res := call("compare_process_captures", map[string]any{"left": l, "right": r})
		var out struct {
			Status     string
			Dimensions []struct{ Dimension, Status string }
		}
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
		return fmt.Sprint(out.Status, out.Dimensions)
	}
	var inline map[string]any
	is.NoErr(json.Unmarshal(cb, &inline))
	want := dims(ref(complete), ref(complete))
	is.True(strings.Contains(want, "{terminal unchanged}"))
	is.Equal(dims(ref(concise), ref(complete)), want)
	is.Equal(dims(inline, ref(concise)), want)
}

// A concise capture passed inline to a connection that does not hold its
// complete record is refused with an error naming that record and what to
// pass instead; the client sees the canonical envelope, not a comparison of
// excerpts.
func TestCompareProcessCapturesNamesAMissingCompleteRecord(t *testing.T) {
	is := is.New(t)
	first := caller(t, standard.Families(), &core.RegistryOptions{Capturer: listingCapturer{}})
	concise := first("capture_process_scenario", map[string]any{"executable": "/bin/ls"})
	b, _ := json.Marshal(concise.Evidence)
	var inline map[string]any
	is.NoErr(json.Unmarshal(b, &inline))

	cat, err := core.Assemble(standard.Families()...)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{Capturer: listingCapturer{}})
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	defer s.Close(context.Background())
	raw, _ := json.Marshal(map[string]any{"left": inline, "right": inline})
	_, err = s.Call(context.Background(), "compare_process_captures", raw, nil)
	var ce *core.Error
	if !errors.As(err, &ce) {
		t.Fatalf("compare of a concise capture without its complete record: %v", err)
	}
	is.Equal(ce.Code, core.CodeEvidenceIntegrityMismatch)
	is.True(strings.Contains(ce.Message, "concise") && strings.Contains(ce.Remediation, "complete"))
	is.Equal(ce.Details["reason"], "missing")
}

// shortCapturer is listingCapturer's capture of a program that wrote
// three lines: its final screen is three lines and 21 blank rows.
type shortCapturer struct{}

func (shortCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c := listingCapture(req)
	screen := make([]string, 24)
	screen[0], screen[1], screen[2] = "one", "", "three"
	c.FinalScreen = ports.RenderedFrame{Sequence: -1, AtMS: 40, Columns: 80, Rows: 24, CursorY: 3, ActiveBuffer: ports.BufferNormal,
		Lines: screen, SerializedState: "one\r\n\r\nthree\r\n"}
	c.Manifest.FinalScreenSHA256 = strings.Repeat("cd", 32)
	return c, nil
}

// A concise capture's final screen lists its rows up to the last that is
// not blank and says how many blank rows it trimmed; a blank row between
// two written ones stays, the complete record keeps every row, and the
// digest is still the whole screen's. Before, a concise final screen
// listed every blank row of the terminal.
func TestConciseFinalScreenTrimsTrailingBlankRows(t *testing.T) {
	is := is.New(t)
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: shortCapturer{}})
	type screen struct {
		Terminal struct {
			Final struct {
				Rows    int      `json:"rows"`
				Lines   []string `json:"lines"`
				Trimmed *int     `json:"trimmed_blank_rows"`
			} `json:"final_screen"`
		} `json:"terminal"`
		Manifest struct {
			Digest string `json:"final_screen_sha256"`
		} `json:"manifest"`
	}
	var concise, complete screen
	is.NoErr(json.Unmarshal(call("capture_process_scenario", map[string]any{"executable": "/bin/ls"}).Evidence.NormalizedResult, &concise))
	is.NoErr(json.Unmarshal(call("capture_process_scenario", map[string]any{"executable": "/bin/ls", "detail": "complete"}).Evidence.NormalizedResult, &complete))
	f := concise.Terminal.Final
	is.Equal(f.Lines, []string{"one", "", "three"})
	is.True(f.Trimmed != nil)
	is.Equal(*f.Trimmed, 21)
	is.Equal(f.Rows, 24)
	is.Equal(concise.Manifest.Digest, strings.Repeat("cd", 32))
	is.Equal(len(complete.Terminal.Final.Lines), 24)
	is.True(complete.Terminal.Final.Trimmed == nil)
}
