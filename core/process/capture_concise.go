package process

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"

	"rea/core"
	"rea/ports"
)

// A concise capture (the default) keeps every section of the complete
// result, its terminal's frames changed: each rendered screen is given as
// the lines that changed since the one before it (no serialized_state, the
// styled copy of the same lines) and each output frame's data is cut to
// conciseFrameData bytes. When the result would still exceed
// conciseCaptureBytes, only the first items of its long lists are given
// (conciseCapture: process samples and filesystem entries first, then
// processes and file effects, then frames, each halved down to
// conciseMinFrames), with the event journal's entries for them. The final
// screen stays whole but for its serialized_state and its trailing blank
// rows (trimmed_blank_rows says how many); counts say how many
// frames, bytes, processes, samples, entries and effects the complete
// record holds. The complete result is sealed as a "detail":"complete"
// call records it, retained, and named by parent_evidence_id and
// evidence_links[0]; compare_process_captures reads it through either
// form. Before, `ls -la /usr/bin` answered 407 KB over MCP: each of 29
// rendered frames carried its 24 lines twice (lines and serialized_state),
// beside the output frames holding the same text.
const (
	conciseCaptureBytes = 16 << 10
	conciseFrameData    = 1024
	conciseMinFrames    = 4
)

// CaptureTerminalChanges is a concise result's terminal.
type CaptureTerminalChanges struct {
	Frames             []CaptureFrameExcerpt `json:"frames"`
	RenderedFrames     []CaptureScreenChange `json:"rendered_frames"`
	FinalScreen        *CaptureScreen        `json:"final_screen"`         // null when no terminal was observed
	FrameCount         int                   `json:"frame_count"`          // output frames in the complete record
	RenderedFrameCount int                   `json:"rendered_frame_count"` // rendered frames in the complete record
	OutputBytes        int                   `json:"output_bytes"`         // bytes of every output frame's data
}

// CaptureFrameExcerpt is an output frame whose data may be cut: data_bytes
// is the length of the whole.
type CaptureFrameExcerpt struct {
	Sequence  int    `json:"sequence"`
	AtMS      int64  `json:"at_ms"`
	Data      string `json:"data"`
	DataBytes int    `json:"data_bytes"`
}

// CaptureLineChange is a screen line that differs from the same row of the
// screen before.
type CaptureLineChange struct {
	Row  int    `json:"row"`
	Text string `json:"text"`
}

// CaptureScreenChange is a rendered frame as what changed: the rows whose
// text differs from the previous rendered frame's (the first frame's from
// a blank screen); the other rows are as before, and rows past the
// previous screen's are blank.
type CaptureScreenChange struct {
	Sequence     int                 `json:"sequence"`
	AtMS         int64               `json:"at_ms"`
	Columns      int                 `json:"columns"`
	Rows         int                 `json:"rows"`
	Cursor       CaptureCursor       `json:"cursor"`
	ActiveBuffer string              `json:"active_buffer"`
	ChangedLines []CaptureLineChange `json:"changed_lines"`
}

// CaptureScreen is a rendered frame without its styled serialization, and
// without its trailing blank rows: a program that wrote three lines on a
// 24-row screen leaves 21 blank rows, which say nothing a count does not.
// Lines are the rows up to the last that is not blank; TrimmedBlankRows
// says how many blank rows followed (Rows is the screen's height).
// manifest.final_screen_sha256 stays the digest of the whole screen.
type CaptureScreen struct {
	Sequence         int           `json:"sequence"`
	AtMS             int64         `json:"at_ms"`
	Columns          int           `json:"columns"`
	Rows             int           `json:"rows"`
	Cursor           CaptureCursor `json:"cursor"`
	ActiveBuffer     string        `json:"active_buffer"`
	Lines            []string      `json:"lines"`              // rows 0.. up to the last that is not blank
	TrimmedBlankRows int           `json:"trimmed_blank_rows"` // blank rows after lines, not listed
}

func screenOf(f *CaptureRenderedFrame) *CaptureScreen {
	if f == nil {
		return nil
	}
	lines := core.NonNil(f.Lines)
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	return &CaptureScreen{Sequence: f.Sequence, AtMS: f.AtMS, Columns: f.Columns, Rows: f.Rows, Cursor: f.Cursor,
		ActiveBuffer: f.ActiveBuffer, Lines: lines[:n], TrimmedBlankRows: len(lines) - n}
}

// changedLines is the rows of cur that differ from prev's (a row prev does
// not have is blank).
func changedLines(prev, cur []string) []CaptureLineChange {
	out := []CaptureLineChange{}
	for i, l := range cur {
		if (i < len(prev) && prev[i] == l) || (i >= len(prev) && l == "") {
			continue
		}
		out = append(out, CaptureLineChange{Row: i, Text: l})
	}
	return out
}

// cutUTF8 is s cut to at most n bytes, not inside a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// conciseListing is how many items of each list a concise capture gives:
// the first ones, all unless cut.
type conciseListing struct {
	frames, rendered, samples, tree, before, after, effects int
}

// conciseCapture is the concise form of full and what it lists of each
// list. Over conciseCaptureBytes, lists are cut, each to its first items,
// halved down to conciseMinFrames: first the process samples and the
// filesystem checkpoints (the tree and the effects say what they amount
// to), then whichever is longer in JSON of the process tree with the file
// effects and the output with the rendered frames; the event journal's
// entries for what is left out go with it.
func conciseCapture(full *CaptureProcessScenarioResult) (res *CaptureProcessScenarioResult, listed conciseListing) {
	term, _ := full.Terminal.(CaptureTerminalRecord)
	out := CaptureTerminalChanges{Frames: []CaptureFrameExcerpt{}, RenderedFrames: []CaptureScreenChange{}, FinalScreen: screenOf(term.FinalScreen),
		FrameCount: len(term.Frames), RenderedFrameCount: len(term.RenderedFrames)}
	allFrames := make([]CaptureFrameExcerpt, len(term.Frames))
	for i, f := range term.Frames {
		out.OutputBytes += len(f.Data)
		allFrames[i] = CaptureFrameExcerpt{Sequence: f.Sequence, AtMS: f.AtMS, Data: cutUTF8(f.Data, conciseFrameData), DataBytes: len(f.Data)}
	}
	allRendered := make([]CaptureScreenChange, len(term.RenderedFrames))
	var prev []string
	for i, f := range term.RenderedFrames {
		allRendered[i] = CaptureScreenChange{Sequence: f.Sequence, AtMS: f.AtMS, Columns: f.Columns, Rows: f.Rows, Cursor: f.Cursor,
			ActiveBuffer: f.ActiveBuffer, ChangedLines: changedLines(prev, f.Lines)}
		prev = f.Lines
	}
	ps, fs := full.Processes, full.Filesystem
	total := conciseListing{len(allFrames), len(allRendered), len(ps.Samples), len(ps.Tree), len(fs.Before), len(fs.After), len(fs.Effects)}
	page := *full
	page.Processes.SampleCount, page.Processes.TreeCount = &total.samples, &total.tree
	page.Filesystem.BeforeCount, page.Filesystem.AfterCount, page.Filesystem.EffectCount = &total.before, &total.after, &total.effects
	tiers := [3]int{max(total.samples, total.before, total.after), max(total.tree, total.effects), max(total.frames, total.rendered)}
	for {
		listed = conciseListing{min(tiers[2], total.frames), min(tiers[2], total.rendered), min(tiers[0], total.samples), min(tiers[1], total.tree),
			min(tiers[0], total.before), min(tiers[0], total.after), min(tiers[1], total.effects)}
		out.Frames, out.RenderedFrames = allFrames[:listed.frames], allRendered[:listed.rendered]
		page.Terminal = out
		page.Processes.Samples, page.Processes.Tree = ps.Samples[:listed.samples], ps.Tree[:listed.tree]
		page.Filesystem.Before, page.Filesystem.After, page.Filesystem.Effects = fs.Before[:listed.before], fs.After[:listed.after], fs.Effects[:listed.effects]
		page.EventJournal = full.EventJournal
		if listed != total {
			page.EventJournal = []CaptureJournalEntry{}
			for _, j := range full.EventJournal {
				if (j.Collection == ports.JournalFrames && j.Index >= listed.frames) || (j.Collection == ports.JournalRenderedFrames && j.Index >= listed.rendered) ||
					(j.Collection == ports.JournalProcessSamples && j.Index >= listed.samples) {
					continue
				}
				page.EventJournal = append(page.EventJournal, j)
			}
		}
		if b, err := json.Marshal(&page); err == nil && len(b) <= conciseCaptureBytes {
			break
		}
		switch tree, term := jsonBytes(page.Processes.Tree, page.Filesystem.Effects), jsonBytes(out.Frames, out.RenderedFrames); {
		case tiers[0] > conciseMinFrames:
			tiers[0] = max(tiers[0]/2, conciseMinFrames)
		case tiers[1] > conciseMinFrames && (tree >= term || tiers[2] <= conciseMinFrames):
			tiers[1] = max(tiers[1]/2, conciseMinFrames)
		case tiers[2] > conciseMinFrames:
			tiers[2] = max(tiers[2]/2, conciseMinFrames)
		default:
			return &page, listed
		}
	}
	return &page, listed
}

// conciseRaw is raw_result (captureRaw's) for a concise capture listing
// listed of page's lists: the raw frames of the listed output frames, each
// cut to conciseFrameData bytes (raw_bytes: the whole), and the first
// processes and process samples, as many as the tree and samples listed
// (both are in the same order). raw itself is not changed.
func conciseRaw(raw any, page *CaptureProcessScenarioResult, listed conciseListing) any {
	m, ok := raw.(map[string]any)
	if !ok {
		return raw
	}
	out := maps.Clone(m)
	seqs := map[any]bool{}
	for _, f := range page.Terminal.(CaptureTerminalChanges).Frames {
		seqs[f.Sequence] = true
	}
	frames := []any{}
	rf, _ := m["raw_frames"].([]any)
	for _, f := range rf {
		fm, _ := f.(map[string]any)
		if fm == nil || !seqs[fm["sequence"]] {
			continue
		}
		if r, _ := fm["raw"].(string); len(r) > conciseFrameData {
			fm = maps.Clone(fm)
			fm["raw"], fm["raw_bytes"] = cutUTF8(r, conciseFrameData), len(r)
		}
		frames = append(frames, fm)
	}
	out["raw_frames"] = frames
	for key, n := range map[string]int{"processes": listed.tree, "process_samples": listed.samples} {
		if l, ok := m[key].([]any); ok && len(l) > n {
			out[key] = l[:n]
		}
	}
	return out
}

// jsonBytes is the length of vs in JSON.
func jsonBytes(vs ...any) int {
	n := 0
	for _, v := range vs {
		b, _ := json.Marshal(v)
		n += len(b)
	}
	return n
}

// conciseNote is the limitation of a concise capture listing listed of
// page's lists; withRaw says raw_result is cut alike (conciseRaw).
func conciseNote(page *CaptureProcessScenarioResult, listed conciseListing, withRaw bool) string {
	term := page.Terminal.(CaptureTerminalChanges)
	note := fmt.Sprintf("Concise capture: each rendered frame is its changed_lines since the one before, and an output frame's data is cut to %d bytes (data_bytes: the whole); "+
		"the complete capture, every frame whole with serialized_state and every list whole, is retained as parent_evidence_id (compare_process_captures reads it), or call with \"detail\":\"complete\".", conciseFrameData)
	if term.FrameCount == 0 && term.RenderedFrameCount == 0 {
		// A launch that failed drew nothing: what the concise form does to
		// frames would describe none.
		note = "Concise capture: no output or rendered frame was observed, so none is cut; the complete capture, every list whole, is retained as parent_evidence_id " +
			"(compare_process_captures reads it), or call with \"detail\":\"complete\"."
	}
	var parts []string
	part := func(n, of int, what string) {
		if n < of {
			parts = append(parts, fmt.Sprintf("the first %d of %d %s", n, of, what))
		}
	}
	part(listed.frames, term.FrameCount, "output frames (terminal.frame_count)")
	part(listed.rendered, term.RenderedFrameCount, "rendered frames (terminal.rendered_frame_count)")
	part(listed.tree, *page.Processes.TreeCount, "processes (processes.tree_count)")
	part(listed.samples, *page.Processes.SampleCount, "process samples (processes.sample_count)")
	part(listed.before, *page.Filesystem.BeforeCount, "filesystem entries before (filesystem.before_count)")
	part(listed.after, *page.Filesystem.AfterCount, "filesystem entries after (filesystem.after_count)")
	part(listed.effects, *page.Filesystem.EffectCount, "file effects (filesystem.effect_count)")
	if len(parts) > 0 {
		note += " Listed: " + strings.Join(parts, ", ") + ", and the event_journal entries of those listed."
		if withRaw {
			note += " raw_result lists as many processes and samples, and the listed frames' raw data."
		}
	}
	return note
}

// conciseCaptureObservation seals obs (the complete capture) as a
// "detail":"complete" call records it, retains it, and returns the concise
// observation naming it.
func conciseCaptureObservation(c *core.Call, obs *core.Observation, full *CaptureProcessScenarioResult) (*core.Observation, error) {
	parent, err := c.RetainComplete(obs)
	if err != nil {
		return nil, err
	}
	page, listed := conciseCapture(full)
	page.ParentEvidenceID = string(parent)
	out := *obs
	out.Result, out.Raw = page, conciseRaw(obs.Raw, page, listed)
	out.Limitations = append([]string{conciseNote(page, listed, true)}, obs.Limitations...)
	out.Links = []core.EvidenceID{parent}
	return &out, nil
}

// concisePartial makes the capture in a failed capture's
// details.partial_observation concise, as a capture that succeeded is: the
// complete partial observation pc is sealed (its first limitation saying
// the capture failed, with e's code and message) as a "detail":"complete"
// call records it, retained, and named by the concise capture's
// parent_evidence_id; details.partial_observation.limitations says what
// the concise form leaves out. Before, the error carried every frame whole
// with its serialized_state. When the record cannot be sealed or retained
// (a full ledger), the complete form stays in the details.
func concisePartial(c *core.Call, err error, pc *ports.ProcessCapture) {
	var e *core.Error
	if !errors.As(err, &e) {
		return
	}
	po, _ := e.Details["partial_observation"].(map[string]any)
	if po == nil {
		return
	}
	obs, full := captureObservation(pc)
	full.Failure = &CaptureFailure{Code: string(e.Code), Message: e.Message}
	obs.Limitations = append([]string{fmt.Sprintf("This capture failed (%s: %s); this record is its partial observation.", e.Code, e.Message)}, obs.Limitations...)
	parent, serr := c.RetainComplete(obs)
	if serr != nil {
		// Unsealed (an executable never read has no digest to name it
		// by) or unretained (a full ledger): the complete record stays,
		// and its limitations say why.
		why := serr.Error()
		if pc.Executable.SelectedSHA256 == "" {
			why = "the executable was never read, so no digest names it"
		}
		po["limitations"] = partialLimitations("it could not be retained as Evidence ("+why+"), so nothing is cut and no parent_evidence_id names it", full.ResidualUnknowns)
		return
	}
	page, listed := conciseCapture(full)
	page.ParentEvidenceID = string(parent)
	po["capture"] = page
	po["limitations"] = []string{conciseNote(page, listed, false)}
}
