package process_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// buildCapturer returns the capture of a long build: little terminal
// output, 60 processes sampled 2,000 times, a tree of 400 files before and
// 700 after (300 created), as `make -j` over a source tree is.
type buildCapturer struct{}

func (buildCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	sha := strings.Repeat("cd", 32)
	code, elapsed := 0, int64(100000)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &ports.ProcessCapture{RunID: req.RunID, Scenario: req.Scenario,
		Executable: ports.ExecutableIdentity{Path: "/usr/bin/make", SelectedSHA256: sha, SHA256: sha, State: ports.IdentityUnchanged},
		StartedAt:  t0, CompletedAt: t0.Add(100 * time.Second),
		Exit:                 ports.CaptureExit{Reason: "exited", Exited: true, Code: &code, ElapsedMS: &elapsed},
		Settlement:           ports.Settlement{State: ports.SettlementQuiesced},
		Manifest:             ports.CaptureManifest{ProviderVersion: "3", Platform: "linux", Architecture: "amd64", StartedAt: t0, CompletedAt: t0.Add(100 * time.Second)},
		NormalizationApplied: ports.NormalizationRecord{Version: "rea-capture-normalization-v1"}}
	order := 0
	journal := func(coll string, i int) {
		c.EventJournal = append(c.EventJournal, ports.JournalEntry{CaptureOrder: order, Collection: coll, Index: i})
		order++
	}
	c.Frames = []ports.CaptureFrame{{Sequence: 0, AtMS: 10, Data: "cc -c a.c\r\n"}, {Sequence: 1, AtMS: 99000, Data: "done\r\n"}}
	screen := make([]string, 24)
	screen[0] = "cc -c a.c"
	c.RenderedFrames = []ports.RenderedFrame{{Sequence: 0, AtMS: 10, Columns: 80, Rows: 24, CursorY: 1, ActiveBuffer: ports.BufferNormal, Lines: append([]string(nil), screen...)}}
	screen[1] = "done"
	c.RenderedFrames = append(c.RenderedFrames, ports.RenderedFrame{Sequence: 1, AtMS: 99000, Columns: 80, Rows: 24, CursorY: 2, ActiveBuffer: ports.BufferNormal, Lines: screen})
	c.FinalScreen = c.RenderedFrames[1]
	journal(ports.JournalFrames, 0)
	journal(ports.JournalRenderedFrames, 0)
	for i := range 60 {
		c.NormalizedProcesses = append(c.NormalizedProcesses, ports.NormalizedProcess{ID: i + 1, ParentID: 1, GroupID: 1, SessionID: 1, Command: fmt.Sprintf("cc -c f%02d.c", i), FirstSeenMS: int64(i * 1000)})
		c.Processes = append(c.Processes, ports.CapturedProcess{PID: 1000 + i, ParentPID: 999, ProcessGroupID: 999, SessionID: 999, Comm: "cc",
			Argv: []string{"cc", "-c", fmt.Sprintf("f%02d.c", i)}, ArgvReadable: true, FirstSeenMS: int64(i * 1000), LastSeenMS: int64(i*1000 + 900)})
	}
	for i := range 2000 {
		c.ProcessSamples = append(c.ProcessSamples, ports.ProcessSample{AtMS: int64(i * 50), PID: 1000 + i%60, ParentPID: 999, ProcessGroupID: 999, SessionID: 999, Command: "cc"})
		journal(ports.JournalProcessSamples, i)
	}
	journal(ports.JournalFrames, 1)
	journal(ports.JournalRenderedFrames, 1)
	file := func(i int) ports.FileEntry {
		return ports.FileEntry{Path: fmt.Sprintf("root_0/src/f%04d.o", i), Type: "file", Mode: 0o644, Size: int64(1000 + i), SHA256: strings.Repeat("ef", 32)}
	}
	for i := range 400 {
		c.FilesBefore = append(c.FilesBefore, file(i))
	}
	c.FilesAfter = append([]ports.FileEntry(nil), c.FilesBefore...)
	for i := 400; i < 700; i++ {
		c.FilesAfter = append(c.FilesAfter, file(i))
		c.FileEffects = append(c.FileEffects, ports.FileEffect{Path: file(i).Path, Effect: "created"})
	}
	journal(ports.JournalFilesystem, 0)
	journal(ports.JournalFilesystem, 1)
	return c, nil
}

// A concise capture lists the first process samples and filesystem
// entries (then processes and file effects), with their exact totals, when
// they would make it long; the complete record holds the rest, and the
// terminal (small here) stays whole. Before, every sample, process, entry
// and effect was listed: 474 KB of normalized_result for this build.
func TestConciseCaptureCutsSamplesAndFiles(t *testing.T) {
	is := is.New(t)
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: buildCapturer{}})
	concise := call("capture_process_scenario", map[string]any{"executable": "make"})
	complete := call("capture_process_scenario", map[string]any{"executable": "make", "detail": "complete"})
	t.Logf("concise normalized_result %d bytes, complete %d", len(concise.Evidence.NormalizedResult), len(complete.Evidence.NormalizedResult))
	if len(concise.Evidence.NormalizedResult) > 20<<10 {
		t.Errorf("the concise normalized_result is %d bytes; want at most 20 KB", len(concise.Evidence.NormalizedResult))
	}
	var c struct {
		Terminal struct {
			Frames   []any `json:"frames"`
			Rendered []any `json:"rendered_frames"`
		} `json:"terminal"`
		Processes struct {
			Tree    []any `json:"tree"`
			Samples []struct {
				AtMS int64 `json:"at_ms"`
			} `json:"samples"`
			Count     *int `json:"sample_count"`
			TreeCount *int `json:"tree_count"`
		} `json:"processes"`
		Filesystem struct {
			Before      []struct{ Path string } `json:"before"`
			After       []struct{ Path string } `json:"after"`
			Effects     []any                   `json:"effects"`
			BeforeCount *int                    `json:"before_count"`
			AfterCount  *int                    `json:"after_count"`
			EffectCount *int                    `json:"effect_count"`
		} `json:"filesystem"`
		Journal []struct {
			Collection string `json:"collection"`
			Index      int    `json:"index"`
		} `json:"event_journal"`
	}
	is.NoErr(json.Unmarshal(concise.Evidence.NormalizedResult, &c))
	is.Equal(len(c.Terminal.Frames), 2) // the terminal is whole
	is.Equal(len(c.Terminal.Rendered), 2)
	is.True(c.Processes.TreeCount != nil && *c.Processes.TreeCount == 60)
	is.True(c.Processes.Count != nil && *c.Processes.Count == 2000)
	is.True(c.Filesystem.EffectCount != nil && *c.Filesystem.EffectCount == 300)
	is.True(c.Filesystem.BeforeCount != nil && *c.Filesystem.BeforeCount == 400)
	is.True(c.Filesystem.AfterCount != nil && *c.Filesystem.AfterCount == 700)
	t.Logf("listed %d samples, %d entries before, %d after; %d processes, %d effects", len(c.Processes.Samples), len(c.Filesystem.Before), len(c.Filesystem.After),
		len(c.Processes.Tree), len(c.Filesystem.Effects))
	is.True(len(c.Processes.Samples) >= 4 && len(c.Processes.Samples) < 2000)
	is.True(len(c.Filesystem.Before) >= 4 && len(c.Filesystem.Before) < 400)
	is.True(len(c.Filesystem.After) >= 4 && len(c.Filesystem.After) < 700)
	is.Equal(c.Processes.Samples[1].AtMS, int64(50)) // the first ones
	is.Equal(c.Filesystem.After[0].Path, "root_0/src/f0000.o")
	// The tree and the effects, which say what the samples and entries
	// amount to, are cut only after them.
	is.True(len(c.Processes.Tree) > len(c.Processes.Samples) && len(c.Processes.Tree) <= 60)
	is.True(len(c.Filesystem.Effects) > len(c.Filesystem.After) && len(c.Filesystem.Effects) < 300)
	samples := 0
	for _, j := range c.Journal {
		if j.Collection == "process_samples" {
			is.True(j.Index < len(c.Processes.Samples))
			samples++
		}
	}
	is.Equal(samples, len(c.Processes.Samples)) // the listed samples' entries only
	is.Equal(len(c.Journal), 4+2+samples)
	said := false
	for _, l := range concise.Evidence.Limitations {
		said = said || strings.Contains(l, fmt.Sprintf("the first %d of 2000 process samples", len(c.Processes.Samples))) &&
			strings.Contains(l, fmt.Sprintf("the first %d of 700 filesystem entries after", len(c.Filesystem.After)))
	}
	is.True(said)

	// raw_result lists the same first processes and samples.
	var raw struct {
		Processes []any `json:"processes"`
		Samples   []any `json:"process_samples"`
	}
	is.NoErr(json.Unmarshal(concise.Evidence.RawResult, &raw))
	is.Equal(len(raw.Processes), len(c.Processes.Tree))
	is.Equal(len(raw.Samples), len(c.Processes.Samples))
	if b, _ := json.Marshal(concise.Evidence); len(b) > 32<<10 {
		t.Errorf("the concise Evidence is %d bytes; want at most 32 KB", len(b))
	}

	// The complete record holds every sample and entry, and a comparison
	// reads it through the concise capture.
	var full struct {
		Processes struct {
			Samples []any `json:"samples"`
			Count   *int  `json:"sample_count"`
		} `json:"processes"`
		Filesystem struct {
			After []any `json:"after"`
		} `json:"filesystem"`
	}
	is.NoErr(json.Unmarshal(complete.Evidence.NormalizedResult, &full))
	is.Equal(len(full.Processes.Samples), 2000)
	is.Equal(full.Processes.Count, nil) // no counts in the complete form
	is.Equal(len(full.Filesystem.After), 700)
	ref := func(r *core.Result) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}
	}
	cmp := func(l, r any) string {
		res := call("compare_process_captures", map[string]any{"left": l, "right": r})
		var out struct {
			Status     string
			Dimensions []struct{ Dimension, Status string }
		}
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
		return fmt.Sprint(out.Status, out.Dimensions)
	}
	want := cmp(ref(complete), ref(complete))
	is.True(strings.Contains(want, "{filesystem unchanged}") && strings.Contains(want, "{process unchanged}"))
	is.Equal(cmp(ref(concise), ref(complete)), want)
}
