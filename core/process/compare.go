package process

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"rea/core"
)

const captureEvidenceInput = `{"anyOf":[
  {"type":"object","description":"A retained reference to capture_process_scenario Evidence recorded on this connection.","additionalProperties":false,"required":["kind","evidence_id"],
   "properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
  {"type":"object","description":"Complete inline capture_process_scenario Evidence.","required":["evidence_id","operation","normalized_result"],
   "properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"type":"string"},"normalized_result":{"type":"object"}}}]}`

func opCompareProcessCaptures() *core.Operation {
	return &core.Operation{
		Name:  "compare_process_captures",
		Title: "Compare Process Captures",
		Description: "Compare two capture_process_scenario results dimension by dimension " +
			"(terminal, interaction, exit, process, filesystem, ports): each is changed, unchanged, added, removed, unknown (a residual " +
			"unknown of its scope, or different normalization) or truncated, with the first divergence. The terminal is compared as the " +
			"text and last screen between inputs, not by read chunk or time. A side that failed, or whose program exited before its events, is listed in " +
			"incomplete with what it did not observe, which is unknown, not changed.",
		Kind:    core.KindApplication,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Input: core.InputSchema([]string{"left", "right"}, `"left":`+captureEvidenceInput, `"right":`+captureEvidenceInput,
			`"max_capture_age_ms":{"type":"integer","minimum":0,"description":"Reject a capture completed longer ago than this."}`),
		Result: json.RawMessage(`{"type":"object","required":["status","left_evidence_id","right_evidence_id","contract","dimensions","first_divergence"],"properties":{"status":{"enum":["unchanged","changed","unknown","truncated"]},
 "left_evidence_id":{"type":"string"},"right_evidence_id":{"type":"string"},"contract":{"type":"object"},"dimensions":{"type":"array"},"first_divergence":{"type":"object"},"incomplete":{"type":"array"}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"left":{"kind":"retained-evidence","evidence_id":"ev_` + strings.Repeat("1", 64) +
			`"},"right":{"kind":"retained-evidence","evidence_id":"ev_` + strings.Repeat("2", 64) + `"},"max_capture_age_ms":3600000}`)},
		Handler: handleCompareProcessCaptures,
	}
}

// captureDoc is the part of a capture's normalized_result the comparison
// reads.
type captureDoc struct {
	Terminal struct {
		Frames   []map[string]any `json:"frames"`
		Rendered []map[string]any `json:"rendered_frames"`
	} `json:"terminal"`
	Interaction []map[string]any `json:"interaction_events"`
	Exit        map[string]any   `json:"exit"`
	Settlement  map[string]any   `json:"settlement"`
	Processes   struct {
		Tree    []map[string]any `json:"tree"`
		Samples []map[string]any `json:"samples"`
	} `json:"processes"`
	Ports      []map[string]any `json:"ports"`
	Filesystem struct {
		Before  []any `json:"before"`
		After   []any `json:"after"`
		Effects []any `json:"effects"`
	} `json:"filesystem"`
	Truncation struct {
		Truncated bool `json:"truncated"`
	} `json:"truncation"`
	Unknowns []struct {
		Scope  string `json:"scope"`
		Reason string `json:"reason"`
	} `json:"residual_unknowns"`
	Journal []struct {
		Collection string `json:"collection"`
		Index      int    `json:"index"`
	} `json:"event_journal"`
	Parent  string `json:"parent_evidence_id"` // a concise capture's complete record
	Failure *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"failure"` // a failed capture's error
	Manifest struct {
		Contract      string `json:"comparison_contract_sha256"`
		Normalization string `json:"normalization_sha256"`
		CompletedAt   string `json:"completed_at"`
	} `json:"manifest"`
}

// captureArg resolves the capture argument name. A concise capture is
// compared through the complete record it names; when this connection does
// not hold that record, a concise capture from which nothing the comparison
// reads was cut is compared as it is, its screens rebuilt (note says so),
// and one from which something was cut is refused, saying what to pass.
func captureArg(c *core.Call, name string) (ev *core.Evidence, d *captureDoc, note string, err error) {
	ev, err = c.EvidenceArg(name)
	if err != nil {
		return nil, nil, "", err
	}
	if err := isCapture(ev); err != nil {
		return nil, nil, "", err
	}
	if d, err = decodeCapture(c, name, ev); err != nil {
		return nil, nil, "", err
	}
	if d.Parent != "" {
		// A concise capture: its frames are changes and excerpts, so the
		// comparison reads the complete record it names.
		full, err := c.ResolveParent(ev, d.Parent)
		var ce *core.Error
		switch {
		case err == nil:
			if err := isCapture(full); err != nil {
				return nil, nil, "", err
			}
			if d, err = decodeCapture(c, name, full); err != nil {
				return nil, nil, "", err
			}
		case errors.As(err, &ce):
			cut, rerr := rebuildConcise(ev.NormalizedResult, d)
			if rerr != nil {
				return nil, nil, "", core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{name}, Reason: core.ReasonInvalidValue, Message: "concise capture does not decode: " + rerr.Error()})
			}
			if len(cut) > 0 {
				e := *ce
				e.Message = fmt.Sprintf("%s: %s: the concise capture %s names its complete record %s, which is not in this connection's ledger, and leaves out what the comparison reads: %s",
					c.Op.Name, name, ev.EvidenceID, d.Parent, strings.Join(cut, ", "))
				e.Remediation = fmt.Sprintf("Pass a complete capture inline instead: the record %s (in the connection that made it, resources/read rea://evidence/%s), "+
					"or the result of the same capture_process_scenario call with \"detail\":\"complete\". "+
					"Or call export_evidence_bundle there and import_evidence_bundle here, then pass the concise capture again.", d.Parent, d.Parent)
				e.Details = maps.Clone(ce.Details)
				if e.Details == nil {
					e.Details = map[string]any{}
				}
				e.Details["complete_evidence_id"], e.Details["cut"] = d.Parent, cut
				return nil, nil, "", &e
			}
			note = fmt.Sprintf("%s: the concise capture %s was compared as given, its screens rebuilt from their changed_lines: nothing the comparison reads was cut from it, "+
				"and its complete record %s is not in this connection's ledger.", name, ev.EvidenceID, d.Parent)
		default:
			return nil, nil, "", err
		}
	}
	c.KeepReference(name, ev)
	return ev, d, note, nil
}

// isCapture refuses Evidence that capture_process_scenario did not make:
// its operation and predicate, and its authority, which every capture has
// (controlled-replay) and the comparison carries on.
func isCapture(ev *core.Evidence) error {
	if ev.Operation == "capture_process_scenario" && ev.PredicateType == CapturePredicate && ev.Authority == captureAuthority {
		return nil
	}
	if ev.Operation == "capture_process_scenario" && ev.PredicateType == CapturePredicate {
		return &core.Error{Code: core.CodeEvidenceIntegrityMismatch,
			Message:     fmt.Sprintf("evidence %s: wrong authority (expected %s, got %s)", ev.EvidenceID, captureAuthority, ev.Authority),
			Remediation: "Pass capture_process_scenario Evidence as rea recorded it (authority " + captureAuthority + "), inline or as a retained reference.",
			Details:     map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "wrong_authority", "expected": captureAuthority, "actual": ev.Authority}}
	}
	return &core.Error{Code: core.CodeEvidenceIntegrityMismatch,
		Message:     fmt.Sprintf("evidence %s: wrong operation (expected capture_process_scenario, got %s)", ev.EvidenceID, ev.Operation),
		Remediation: "Pass capture_process_scenario Evidence, inline or as a retained reference.",
		Details:     map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "wrong_operation", "expected": "capture_process_scenario", "actual": ev.Operation}}
}

// conciseLists is what a concise capture says of the lists the comparison
// reads: what it lists, and the complete record's counts (absent from a
// concise capture made before they were cut).
type conciseLists struct {
	Terminal struct {
		Frames []struct {
			Data      string `json:"data"`
			DataBytes *int   `json:"data_bytes"`
		} `json:"frames"`
		Rendered           []CaptureScreenChange `json:"rendered_frames"`
		FrameCount         int                   `json:"frame_count"`
		RenderedFrameCount int                   `json:"rendered_frame_count"`
	} `json:"terminal"`
	Processes struct {
		Tree      []json.RawMessage `json:"tree"`
		TreeCount *int              `json:"tree_count"`
	} `json:"processes"`
	Filesystem struct {
		Before      []json.RawMessage `json:"before"`
		After       []json.RawMessage `json:"after"`
		Effects     []json.RawMessage `json:"effects"`
		BeforeCount *int              `json:"before_count"`
		AfterCount  *int              `json:"after_count"`
		EffectCount *int              `json:"effect_count"`
	} `json:"filesystem"`
}

// rebuildConcise lists what the concise capture raw (decoded as d) leaves
// out of what the comparison reads; when nothing, it gives each of d's
// rendered frames its lines, rebuilt from the changed_lines since the one
// before: rows a frame does not change are the previous frame's, blank
// past its rows (a rendered frame holds its rows lines,
// ports.RenderedFrame). Process samples are not compared, so cutting them
// does not count.
func rebuildConcise(raw json.RawMessage, d *captureDoc) (cut []string, err error) {
	var l conciseLists
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, err
	}
	t := l.Terminal
	some := func(n int, of *int, what string) {
		if of != nil && n < *of {
			cut = append(cut, fmt.Sprintf("the last %d of %d %s", *of-n, *of, what))
		}
	}
	some(len(t.Frames), &t.FrameCount, "output frames")
	some(len(t.Rendered), &t.RenderedFrameCount, "rendered frames")
	excerpts := 0
	for _, f := range t.Frames {
		if f.DataBytes != nil && *f.DataBytes > len(f.Data) {
			excerpts++
		}
	}
	if excerpts > 0 {
		cut = append(cut, fmt.Sprintf("the end of %d output frames' data", excerpts))
	}
	some(len(l.Processes.Tree), l.Processes.TreeCount, "processes")
	some(len(l.Filesystem.Before), l.Filesystem.BeforeCount, "filesystem entries before")
	some(len(l.Filesystem.After), l.Filesystem.AfterCount, "filesystem entries after")
	some(len(l.Filesystem.Effects), l.Filesystem.EffectCount, "file effects")
	if len(cut) > 0 {
		return cut, nil
	}
	if len(t.Rendered) != len(d.Terminal.Rendered) {
		return nil, errors.New("rendered frames differ in number")
	}
	var prev []string
	for i, f := range t.Rendered {
		if f.Rows < 0 || f.Rows > 1<<20 {
			return nil, fmt.Errorf("rendered frame %d has %d rows", i, f.Rows)
		}
		lines := make([]string, f.Rows)
		copy(lines, prev)
		for _, ch := range f.ChangedLines {
			if ch.Row < 0 || ch.Row >= f.Rows {
				return nil, fmt.Errorf("rendered frame %d changes row %d of %d", i, ch.Row, f.Rows)
			}
			lines[ch.Row] = ch.Text
		}
		d.Terminal.Rendered[i]["lines"] = lines
		prev = lines
	}
	return nil, nil
}

func decodeCapture(c *core.Call, name string, ev *core.Evidence) (*captureDoc, error) {
	var d captureDoc
	dec := json.NewDecoder(bytes.NewReader(ev.NormalizedResult))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{name}, Reason: core.ReasonInvalidValue, Message: "capture does not decode: " + err.Error()})
	}
	return &d, nil
}

// dimension lists, built from normalized forms only. Each item carries
// "at_ms" (or null) for first_divergence.

// terminalItems is the terminal as the program behaved, not as the reads
// fell: for each stretch between two dispatched interaction events (in the
// order the capture stored them), the text written and the last screen
// rendered. One run may read "rea\r\nhello rea\r\n" in one chunk and
// another in two, and a sleep may end in the next time bucket; neither is
// a change. Times are kept for first_divergence but not compared
// (timelessItems). Evidence without an event journal is compared frame by
// frame.
func terminalItems(d *captureDoc) []map[string]any {
	if len(d.Journal) == 0 {
		return terminalFrameItems(d)
	}
	var out []map[string]any
	var text strings.Builder
	var at any
	var screen map[string]any
	var after any // the interaction event the stretch follows
	flush := func() {
		out = append(out, map[string]any{"kind": "output", "after_event": after, "at_ms": at, "data": text.String()})
		if screen != nil {
			out = append(out, screen)
		}
		text.Reset()
		at, screen = nil, nil
	}
	for _, j := range d.Journal {
		switch j.Collection {
		case "interaction_events":
			if j.Index < 0 || j.Index >= len(d.Interaction) || d.Interaction[j.Index]["outcome"] != "dispatched" {
				continue
			}
			flush()
			after = d.Interaction[j.Index]["sequence"]
		case "frames":
			if j.Index < 0 || j.Index >= len(d.Terminal.Frames) {
				continue
			}
			f := d.Terminal.Frames[j.Index]
			if at == nil {
				at = f["at_ms"]
			}
			s, _ := f["data"].(string)
			text.WriteString(s)
		case "rendered_frames":
			if j.Index < 0 || j.Index >= len(d.Terminal.Rendered) {
				continue
			}
			r := d.Terminal.Rendered[j.Index]
			screen = map[string]any{"kind": "screen", "after_event": after, "at_ms": r["at_ms"], "lines": r["lines"], "cursor": r["cursor"],
				"active_buffer": r["active_buffer"], "columns": r["columns"], "rows": r["rows"]}
		}
	}
	flush()
	return out
}

// timeless is items without their times, as a dimension whose times are
// not compared compares them.
func timeless(items []map[string]any) []map[string]any {
	out := make([]map[string]any, len(items))
	for i, it := range items {
		if it == nil {
			continue
		}
		c := make(map[string]any, len(it))
		for k, v := range it {
			if k != "at_ms" {
				c[k] = v
			}
		}
		out[i] = c
	}
	return out
}

// terminalFrameItems is the terminal frame by frame, by time.
func terminalFrameItems(d *captureDoc) []map[string]any {
	var out []map[string]any
	i, j := 0, 0
	at := func(m map[string]any) int64 { n, _ := m["at_ms"].(json.Number).Int64(); return n }
	for i < len(d.Terminal.Frames) || j < len(d.Terminal.Rendered) {
		if j >= len(d.Terminal.Rendered) || (i < len(d.Terminal.Frames) && at(d.Terminal.Frames[i]) <= at(d.Terminal.Rendered[j])) {
			f := d.Terminal.Frames[i]
			out = append(out, map[string]any{"kind": "frame", "at_ms": f["at_ms"], "data": f["data"]})
			i++
			continue
		}
		r := d.Terminal.Rendered[j]
		out = append(out, map[string]any{"kind": "rendered", "at_ms": r["at_ms"], "lines": r["lines"], "cursor": r["cursor"],
			"active_buffer": r["active_buffer"], "columns": r["columns"], "rows": r["rows"]})
		j++
	}
	return out
}

func interactionItems(d *captureDoc) []map[string]any {
	var out []map[string]any
	for _, e := range d.Interaction {
		out = append(out, map[string]any{"at_ms": e["scheduled_at_ms"], "type": e["type"], "data": e["data"], "outcome": e["outcome"]})
	}
	return out
}

func exitItems(d *captureDoc) []map[string]any {
	e := map[string]any{}
	for k, v := range d.Exit {
		if k != "elapsed_ms" {
			e[k] = v
		}
	}
	return []map[string]any{{"at_ms": nil, "exit": e, "settlement": d.Settlement["state"]}}
}

func filesystemItems(d *captureDoc) []map[string]any {
	return []map[string]any{{"at_ms": nil, "name": "before", "files": d.Filesystem.Before},
		{"at_ms": nil, "name": "final", "files": d.Filesystem.After, "effects": d.Filesystem.Effects}}
}

func portItems(d *captureDoc) []map[string]any {
	var out []map[string]any
	for _, p := range d.Ports {
		out = append(out, map[string]any{"at_ms": nil, "protocol": p["protocol"], "loopback": p["loopback"], "port": p["port"]})
	}
	return out
}

var dimensions = []struct {
	name, scope string
	items       func(*captureDoc) []map[string]any
	reads       []string // the fields of normalized_result it reads, as a gap names them
	// compared, when set, is the items as compared: the terminal's
	// without their times, the processes' without their ids.
	compared func([]map[string]any) []map[string]any
	// unordered: the items are a multiset (sorted), and the first
	// difference is the first item either side lacks.
	unordered bool
	// sampled, when set, is how a dimension observed by sampling pairs its
	// items: under a residual unknown of its scope, an item seen on one
	// side only may have lived between two samples on the other, so
	// absence is not observed.
	sampled *sampling
	// pair, when set, rewrites items of the two sides that are one
	// another's, as read across the captures, alike (pairTempNames).
	pair func(l, r []map[string]any) ([]map[string]any, []map[string]any)
}{
	{"terminal", "terminal", terminalItems, []string{"terminal"}, timeless, false, nil, nil},
	{"interaction", "interaction", interactionItems, []string{"interaction_events"}, nil, false, nil, nil},
	{"exit", "exit", exitItems, []string{"exit", "settlement"}, nil, false, nil, nil},
	{"process", "process", processItems, []string{"processes"}, processCompared, true, &sampling{processCommand, processPlace, processPartlySeen}, pairTempNames},
	{"filesystem", "filesystem", filesystemItems, []string{"filesystem.before", "filesystem.after", "filesystem.effects"}, nil, false, nil, nil},
	{"ports", "network", portItems, []string{"ports"}, nil, false, nil, nil},
}

// sampling pairs the items of a sampled dimension (onlyAbsences).
type sampling struct {
	key   func(map[string]any) string // what the item is: a process's command
	place func(map[string]any) string // where it was: a process's parents and leaders
	// transient tells an item that may stand for another the other side
	// saw: a process sampled between its fork and its exec, or whose
	// arguments were never read (processPartlySeen).
	transient func(map[string]any) bool
}

// gap is what a capture did not observe: everything of a program it
// failed to launch, what its journal never stored of one whose capture
// failed later, and the terminal after each interaction event its
// program exited before (undispatched; the program's answer to it was
// never observed, though its exit was).
type gap struct {
	failed       bool
	reason       string
	missing      map[string]bool // fields of normalized_result, as dimensions' reads name them
	undispatched map[string]bool // sequences (canonical JSON) of the interaction events the program exited before
	dispatched   map[string]bool // and of those it received
}

func gapOf(d *captureDoc) *gap {
	g := &gap{missing: map[string]bool{}, undispatched: map[string]bool{}, dispatched: map[string]bool{}}
	launchFailed := d.Exit["reason"] == "failed"
	if d.Failure != nil || launchFailed {
		g.failed = true
		switch {
		case d.Failure != nil:
			g.reason = "the capture failed (" + d.Failure.Code + ": " + d.Failure.Message + ")"
		default:
			g.reason = "the capture failed: the program was not launched"
		}
		stored := map[string]bool{}
		for _, j := range d.Journal {
			stored[fmt.Sprint(j.Collection, j.Index)] = true
		}
		if launchFailed || !stored["lifecycle0"] {
			// The program was not observed to run to its end.
			for _, f := range []string{"terminal", "interaction_events", "exit", "processes", "ports"} {
				g.missing[f] = true
			}
		}
		if !stored["lifecycle1"] {
			g.missing["settlement"] = true
		}
		if !stored["filesystem_checkpoints0"] {
			g.missing["filesystem.before"] = true
		}
		if !stored["filesystem_checkpoints1"] {
			g.missing["filesystem.after"], g.missing["filesystem.effects"] = true, true
		}
	}
	if g.missing["interaction_events"] {
		return g
	}
	for _, e := range d.Interaction {
		switch e["outcome"] {
		case "target_exited":
			g.undispatched[canon(e["sequence"])] = true
		case "dispatched":
			g.dispatched[canon(e["sequence"])] = true
		}
	}
	return g
}

// keepReceived keeps of each side's undispatched events those the other
// side's program received: after an event neither received (or one side
// never got to, having failed) neither observed what followed, so neither
// lacks what the other saw.
func keepReceived(a, b *gap) {
	for _, s := range [][2]*gap{{a, b}, {b, a}} {
		for k := range s[0].undispatched {
			if !s[1].dispatched[k] {
				delete(s[0].undispatched, k)
			}
		}
	}
}

// undispatchedSeqs are g's undispatched events' sequences, in order.
func (g *gap) undispatchedSeqs() string {
	seqs := slices.Collect(maps.Keys(g.undispatched))
	slices.SortFunc(seqs, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) }) // numbers
	return strings.Join(seqs, ", ")
}

// why says why g's side is incomplete.
func (g *gap) why() string {
	var parts []string
	if g.reason != "" {
		parts = append(parts, g.reason)
	}
	if len(g.undispatched) > 0 && !g.missing["terminal"] {
		parts = append(parts, "the program exited before interaction events "+g.undispatchedSeqs()+" were dispatched, which the other capture's program received")
	}
	return strings.Join(parts, "; ")
}

// notObserved lists g's missing fields in the dimensions' order, then the
// terminal stretches it never saw.
func (g *gap) notObserved() []string {
	out := []string{}
	for _, dim := range dimensions {
		for _, f := range dim.reads {
			if g.missing[f] {
				out = append(out, f)
			}
		}
	}
	if len(g.undispatched) > 0 && !g.missing["terminal"] {
		out = append(out, "terminal after interaction events "+g.undispatchedSeqs())
	}
	return out
}

func (g *gap) incomplete() bool { return g.failed || len(g.undispatched) > 0 }

// unobserved names the fields of reads that g did not observe.
func (g *gap) unobserved(reads []string) []string {
	var out []string
	for _, f := range reads {
		if g.missing[f] {
			out = append(out, f)
		}
	}
	return out
}

// observedItems keeps of a dimension's items those both sides observed:
// the filesystem checkpoints neither side missed; for the terminal, the
// stretches after no interaction event that either program exited
// before.
func observedItems(name string, items []map[string]any, gl, gr *gap) []map[string]any {
	var out []map[string]any
	for _, it := range items {
		switch name {
		case "filesystem":
			if n := it["name"]; n == "before" && (gl.missing["filesystem.before"] || gr.missing["filesystem.before"]) ||
				n == "final" && (gl.missing["filesystem.after"] || gr.missing["filesystem.after"]) {
				continue
			}
		case "terminal":
			if k := canon(it["after_event"]); gl.undispatched[k] || gr.undispatched[k] {
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// processCommand keys a sampled process by its command (processItems).
func processCommand(p map[string]any) string { return canon(p["command"]) }

// onlyAbsences reports whether the sides differ only by items one of
// them did not see: no item that one side holds alone has a counterpart
// among those the other holds alone, the same item elsewhere (its key) or
// another in its place. Such a pair is an observed difference: a process
// under another parent, group or session, or one run where the other ran
// another (curl where wget ran, cc1 with -O2 where without). Items
// neither pairs (as f1.o's assembler in one run of make -j2 and f2.o's in
// the other, each missed by the other's samples) are absences. With
// transient, the items its sampling tells are left out on both sides
// first: they may stand for what the other side saw.
func onlyAbsences(l, r []map[string]any, s *sampling, transient bool) bool {
	if transient {
		keep := func(items []map[string]any) []map[string]any {
			var out []map[string]any
			for _, it := range items {
				if !s.transient(it) {
					out = append(out, it)
				}
			}
			return out
		}
		l, r = keep(l), keep(r)
	}
	alone := func(a, b []map[string]any) []map[string]any {
		n := map[string]int{}
		for _, it := range b {
			n[canon(it)]++
		}
		var out []map[string]any
		for _, it := range a {
			if k := canon(it); n[k] > 0 {
				n[k]--
			} else {
				out = append(out, it)
			}
		}
		return out
	}
	keys, places := map[string]bool{}, map[string]bool{}
	for _, it := range alone(r, l) {
		keys[s.key(it)], places[s.place(it)] = true, true
	}
	for _, it := range alone(l, r) {
		if keys[s.key(it)] || places[s.place(it)] {
			return false
		}
	}
	return true
}

// Differing terminal texts longer than windowAbove bytes are reported as a
// window of at most windowBytes, starting windowBefore bytes before their
// first difference: a comparison says where two runs diverge, and the whole
// texts stay in the captures it names.
const (
	windowAbove  = 4096
	windowBytes  = 2048
	windowBefore = 512
)

// windowTexts returns copies of a differing pair of items whose "data"
// text exceeds windowAbove bytes, cut to the window around the first byte
// at which the two texts differ, with "data_offset" (the window's start in
// the text) and "data_bytes" (the text's length). Windows never split a
// UTF-8 sequence. Items without long texts are returned as they are.
func windowTexts(a, b map[string]any) (map[string]any, map[string]any, bool) {
	la, _ := a["data"].(string)
	lb, _ := b["data"].(string)
	if len(la) <= windowAbove && len(lb) <= windowAbove {
		return a, b, false
	}
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	start := max(0, p-windowBefore)
	cut := func(it map[string]any, s string) map[string]any {
		if len(s) <= windowAbove {
			return it
		}
		from := min(start, len(s))
		for from > 0 && !utf8.RuneStart(s[from]) {
			from--
		}
		to := min(len(s), from+windowBytes)
		for to < len(s) && to > from && !utf8.RuneStart(s[to]) {
			to--
		}
		c := make(map[string]any, len(it)+2)
		for k, v := range it {
			c[k] = v
		}
		c["data"], c["data_offset"], c["data_bytes"] = s[from:to], from, len(s)
		return c
	}
	return cut(a, la), cut(b, lb), true
}

// rawJSON is the canonical form of an item the captures hold (null for
// none), for first_divergence.
func rawJSON(v any) json.RawMessage {
	if m, ok := v.(map[string]any); ok && m == nil {
		v = nil
	}
	b, err := core.CanonicalJSON(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

func canon(v any) string {
	b, err := core.CanonicalJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func handleCompareProcessCaptures(ctx context.Context, c *core.Call) (any, error) {
	lev, l, lnote, err := captureArg(c, "left")
	if err != nil {
		return nil, err
	}
	rev, r, rnote, err := captureArg(c, "right")
	if err != nil {
		return nil, err
	}
	in, err := core.Input[CompareProcessCapturesInput](c)
	if err != nil {
		return nil, err
	}
	if in.MaxCaptureAgeMS != nil {
		limit := int64(*in.MaxCaptureAgeMS)
		for _, side := range []struct {
			name string
			d    *captureDoc
		}{{"left", l}, {"right", r}} {
			done, perr := time.Parse(time.RFC3339Nano, side.d.Manifest.CompletedAt)
			if perr != nil || time.Since(done).Milliseconds() > limit {
				return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{side.name}, Reason: core.ReasonOutOfRange,
					Message: side.name + " capture is older than max_capture_age_ms (or has no completion time)"})
			}
		}
	}
	sameContract := l.Manifest.Contract != "" && l.Manifest.Contract == r.Manifest.Contract
	sameNorm := l.Manifest.Normalization == r.Manifest.Normalization
	truncated := l.Truncation.Truncated || r.Truncation.Truncated
	var lim []string
	for _, n := range []string{lnote, rnote} {
		if n != "" {
			lim = append(lim, n)
		}
	}
	if !sameContract {
		lim = append(lim, "The captures' comparison contracts differ (scenario, events or normalization); differences may come from the scenario rather than the program.")
	}
	if !sameNorm {
		lim = append(lim, "Capture normalization rules differ.")
	}
	residual := map[string]bool{}
	stated := map[string]bool{} // both sides' residual unknowns, each stated once
	for _, d := range []*captureDoc{l, r} {
		for _, u := range d.Unknowns {
			residual[u.Scope] = true
			if s := u.Scope + ": " + u.Reason; !stated[s] {
				stated[s] = true
				lim = append(lim, s)
			}
		}
	}
	gl, gr := gapOf(l), gapOf(r)
	keepReceived(gl, gr)
	var incomplete []ProcessCaptureGap
	for _, side := range []struct {
		name string
		ev   *core.Evidence
		g    *gap
	}{{"left", lev, gl}, {"right", rev, gr}} {
		if side.g.incomplete() {
			incomplete = append(incomplete, ProcessCaptureGap{Side: side.name, EvidenceID: string(side.ev.EvidenceID), Failed: side.g.failed,
				Reason: side.g.why(), NotObserved: side.g.notObserved()})
			lim = append(lim, fmt.Sprintf("The %s capture is incomplete: %s; a dimension reading what it did not observe is unknown unless what both observed differs (incomplete[].not_observed).",
				side.name, side.g.why()))
		}
	}
	type found struct {
		dim         string
		index       int
		left, right map[string]any
		la, ra      any
		min         int64
	}
	var first *found
	var clipped, windowed bool // a differing text was cut to its window
	gapped := false            // a dimension is unknown for what one side did not observe
	dims := []ProcessComparisonDimension{}
	overall := "unchanged"
	rank := map[string]int{"unchanged": 0, "unknown": 1, "changed": 2, "truncated": 3}
	for _, dim := range dimensions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		li, ri := dim.items(l), dim.items(r)
		if dim.pair != nil {
			li, ri = dim.pair(li, ri)
		}
		counts := [2]int{len(li), len(ri)}
		// What one side did not observe is not compared: only what both
		// observed can differ, and equality is then not proven.
		var unseen []string
		whole := false // a side observed nothing the dimension compares
		for _, side := range []struct {
			name string
			g    *gap
		}{{"left", gl}, {"right", gr}} {
			if u := side.g.unobserved(dim.reads); len(u) > 0 {
				unseen = append(unseen, fmt.Sprintf("the %s capture did not observe %s", side.name, strings.Join(u, ", ")))
				whole = whole || dim.name != "filesystem"
			} else if dim.name == "terminal" && len(side.g.undispatched) > 0 {
				unseen = append(unseen, fmt.Sprintf("the %s program exited before some interaction events, so its terminal after them was not observed", side.name))
			}
		}
		switch {
		case whole:
			li, ri = nil, nil
		case len(unseen) > 0:
			li, ri = observedItems(dim.name, li, gl, gr), observedItems(dim.name, ri, gl, gr)
		}
		lc, rc := li, ri // as compared
		if dim.compared != nil {
			lc, rc = dim.compared(li), dim.compared(ri)
		}
		equal := canon(lc) == canon(rc)
		status, reason := "", ""
		unproven := false // a difference that is no observation of one
		switch {
		case truncated:
			status, reason = "truncated", "At least one capture is truncated."
		case !sameNorm:
			status, reason = "unknown", "Capture normalization rules differ."
		case !equal && dim.sampled != nil && residual[dim.scope] && onlyAbsences(lc, rc, dim.sampled, false):
			unproven = true
			status, reason = "unknown", "The "+dim.name+" observations are sampled: what one side saw and the other did not may have lived between two of its samples."
		case !equal && dim.sampled != nil && residual[dim.scope] && onlyAbsences(lc, rc, dim.sampled, true):
			unproven = true
			status, reason = "unknown", "The "+dim.name+" observations are sampled: what one side saw and the other did not may have lived between two of its samples, "+
				"and a process with its parent's command (sampled between its fork and its exec) or with its name only in brackets (its arguments unread: it was exiting) may stand for what the other side saw."
		case !equal && len(li) == 0:
			status = "added"
		case !equal && len(ri) == 0:
			status = "removed"
		case !equal:
			status = "changed"
		case len(unseen) > 0:
			gapped = true
			status, reason = "unknown", strings.ToUpper(unseen[0][:1])+strings.Join(unseen, "; ")[1:]+"."
		case residual[dim.scope]:
			// An observed difference stands; equality is not proven while
			// a residual unknown of this scope remains.
			status, reason = "unknown", "A residual unknown of scope "+dim.scope+" prevents proving that nothing changed."
		default:
			status = "unchanged"
		}
		dims = append(dims, ProcessComparisonDimension{Dimension: dim.name, Status: status, Reason: core.OptString(reason),
			LeftCount: counts[0], RightCount: counts[1]})
		st := status
		if st == "added" || st == "removed" {
			st = "changed"
		}
		if rank[st] > rank[overall] {
			overall = st
		}
		if equal || truncated || unproven {
			continue
		}
		i, a, b, ok := 0, map[string]any(nil), map[string]any(nil), false
		if dim.unordered {
			i, a, b, ok = firstUnmatched(li, ri, lc, rc)
		} else {
			for ; i < max(len(li), len(ri)); i++ {
				if i < len(lc) && i < len(rc) && canon(lc[i]) == canon(rc[i]) {
					continue
				}
				a, b, ok = nil, nil, true
				if i < len(li) {
					a = li[i]
				}
				if i < len(ri) {
					b = ri[i]
				}
				break
			}
		}
		if !ok {
			continue
		}
		if a, b, clipped = windowTexts(a, b); clipped {
			windowed = true
		}
		f := &found{dim: dim.name, index: i, min: 1 << 62, left: a, right: b}
		if a != nil {
			f.la = a["at_ms"]
		}
		if b != nil {
			f.ra = b["at_ms"]
		}
		for _, t := range []any{f.la, f.ra} {
			if n, ok := t.(json.Number); ok {
				if v, _ := n.Int64(); v < f.min {
					f.min = v
				}
			}
		}
		if first == nil || f.min < first.min {
			first = f
		}
		dims[len(dims)-1].Difference = &ProcessDimensionDifference{Index: i, Left: rawJSON(a), Right: rawJSON(b)}
	}
	if windowed {
		lim = append(lim, fmt.Sprintf("Terminal texts over %d bytes are shown as a window of at most %d bytes around their first difference: "+
			"data_offset is where the window starts in the text and data_bytes the whole text's length; the whole text is in each capture's terminal frames (a concise capture's complete record, parent_evidence_id).",
			windowAbove, windowBytes))
	}
	var fd ProcessFirstDivergence
	switch {
	case truncated:
		fd = ProcessFirstDivergence{Status: "unknown", Reason: "At least one capture is truncated."}
	case first != nil:
		index := first.index
		fd = ProcessFirstDivergence{Status: "found", Dimension: first.dim, Index: &index, Left: rawJSON(first.left), Right: rawJSON(first.right),
			LeftAtMS: rawJSON(first.la), RightAtMS: rawJSON(first.ra)}
	case gapped:
		fd = ProcessFirstDivergence{Status: "unknown", Reason: "What one capture did not observe (incomplete) prevents proving that no divergence occurred."}
	case len(residual) > 0:
		fd = ProcessFirstDivergence{Status: "unknown", Reason: "Residual unknowns prevent proving that no divergence occurred."}
	default:
		fd = ProcessFirstDivergence{Status: "none"}
	}
	res := &CompareProcessCapturesResult{Status: overall, LeftEvidenceID: string(lev.EvidenceID), RightEvidenceID: string(rev.EvidenceID),
		Contract: ProcessComparisonContract{Equal: sameContract, LeftSHA256: l.Manifest.Contract, RightSHA256: r.Manifest.Contract,
			NormalizationEqual: sameNorm},
		Dimensions: dims, FirstDivergence: fd, Incomplete: incomplete}
	// Derived from two controlled-replay observations, the comparison has
	// their authority (as a replay's differential has, spec §2.2), not
	// the default shipped-artifact: it says nothing of a shipped file.
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Authority: captureAuthority, Limitations: lim,
		Links: []core.EvidenceID{lev.EvidenceID, rev.EvidenceID}}, nil
}
