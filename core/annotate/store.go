package annotate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"rea/core"
	"rea/core/codeloc"
	"rea/ports"
)

// Predicate marks the Evidence that records a change to the annotations
// of a target. The overlay rea keeps for engines without their own store is
// derived from these records alone, so it travels in bundles and is
// restored by importing one.
const Predicate = "rea.annotation-mutation"

// Where annotations live.
const (
	storeOverlay = "rea-overlay" // rea's overlay, derived from mutation Evidence
	storeEngine  = "engine"      // the engine's own database (ports.Annotator)
)

// Limits of annotation text.
const (
	maxNameBytes    = 255
	maxCommentChars = 4096
	maxBatchNames   = 1000
)

// AnnotationChange is one annotation change as a mutation record states it.
type AnnotationChange struct {
	Kind     ports.AnnotationKind `json:"kind"`
	Address  string               `json:"address"`
	Value    *string              `json:"value"`    // null: removed
	Previous *string              `json:"previous"` // null: there was none
	// Revision counts the changes of this (kind, address) of this target,
	// from 1; PreviousEvidenceID is the record of the one before.
	Revision           int              `json:"revision"`
	PreviousEvidenceID *core.EvidenceID `json:"previous_evidence_id"`
	Changed            bool             `json:"changed"`
}

// AnnotationMutation is the result of the annotation-setting operations
// (set_address_name, set_addresses_names, set_comment, set_inline_comment,
// set_bookmark, unset_bookmark) and the normalized result of their mutation
// records.
type AnnotationMutation struct {
	Document string             `json:"document"`
	Store    string             `json:"store"`
	Changes  []AnnotationChange `json:"changes"`
}

const changeSchema = `{"type":"object","additionalProperties":false,"required":["kind","address","value","previous","revision","previous_evidence_id","changed"],
 "properties":{"kind":{"enum":["name","comment","inline_comment","bookmark"]},"address":{"$ref":"#/$defs/hex"},
  "value":{"type":["string","null"],"description":"The annotation after the change; null when it was removed."},
  "previous":{"type":["string","null"],"description":"The annotation before the change; null when there was none."},
  "revision":{"type":"integer","minimum":1,"description":"Which change of this kind at this address of this target this is, from 1."},
  "previous_evidence_id":{"type":["string","null"],"description":"The mutation record of the change before, or null."},
  "changed":{"type":"boolean","description":"false when the annotation already had this value (nothing was recorded as a new revision)."}}}`

const mutationResultSchema = `{"type":"object","additionalProperties":false,"required":["document","store","changes"],
 "properties":{"document":{"type":"string"},"store":{"enum":["rea-overlay","engine"],"description":"rea-overlay: kept by rea as mutation Evidence (exported in bundles); engine: kept in the engine's own database, and recorded here too."},
  "changes":{"type":"array","items":` + changeSchema + `}},` + hexDefs + `}`

const hexDefs = `"$defs":{"hex":{"type":"string","pattern":"^0x(0|[1-9a-f][0-9a-f]{0,15})$"}}`

// entry is the current annotation of one (kind, address).
type entry struct {
	value    string
	revision int
	id       core.EvidenceID
	removed  bool // the record removed the annotation
}

type key struct {
	kind ports.AnnotationKind
	addr uint64
}

// overlay is the annotations of one target, derived from mutation records.
type overlay struct {
	sha     string
	entries map[key]entry
	// revisions holds the latest revision of every key, removed ones too.
	revisions map[key]entry
	// setAside holds, by key, the records of the latest revision that the
	// tie-break passed over: two sessions' changes merged by an import.
	setAside map[key][]entry
	skipped  int // changes that could not be read
}

func (o *overlay) get(k ports.AnnotationKind, addr uint64) (string, bool) {
	e, ok := o.entries[key{k, addr}]
	return e.value, ok
}

// list returns the annotations of kind sorted by address.
func (o *overlay) list(k ports.AnnotationKind) []ports.Annotation {
	out := []ports.Annotation{}
	for kk, e := range o.entries {
		if kk.kind == k {
			out = append(out, ports.Annotation{Kind: k, Address: kk.addr, Text: e.value})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// setAsideNote says, for a reading tool's limitations, which values of the
// annotation of kind at addr another session set at the same revision and
// the tie-break set aside; "" when none was. tool sets the annotation.
func (o *overlay) setAsideNote(k ports.AnnotationKind, addr uint64, tool string) string {
	lost := o.setAside[key{k, addr}]
	if len(lost) == 0 {
		return ""
	}
	win := o.revisions[key{k, addr}]
	var vals []string
	for _, e := range lost {
		v := strconv.Quote(e.value)
		if e.removed {
			v = "a removal"
		}
		vals = append(vals, fmt.Sprintf("%s (%s)", v, e.id))
	}
	return fmt.Sprintf("Sessions merged by an import changed the %s at %s at the same revision %d: %s set aside for the record with the greatest evidence_id (%s); call %s to set another value.",
		k, core.Hex(addr), win.revision, strings.Join(vals, ", ")+map[bool]string{true: " was", false: " were"}[len(vals) == 1], win.id, tool)
}

// overlayCache keeps the latest overlay of a session until its ledger
// changes.
type overlayCache struct {
	mu  sync.Mutex
	gen uint64
	ok  bool
	ov  map[string]*overlay // by target sha256
}

// overlayOf returns the overlay of the bound target.
func overlayOf(c *core.Call) *overlay {
	_, _, t := c.Bound()
	sha := ""
	if t != nil {
		sha = t.SHA256
	}
	cache := c.State("annotate.overlay", func() any { return &overlayCache{} }).(*overlayCache)
	cache.mu.Lock()
	defer cache.mu.Unlock()
	gen := c.RetainedGeneration()
	if !cache.ok || cache.gen != gen {
		cache.ov, cache.gen, cache.ok = buildOverlays(c.Records()), gen, true
	}
	if o, ok := cache.ov[sha]; ok {
		return o
	}
	return &overlay{sha: sha, entries: map[key]entry{}, revisions: map[key]entry{}}
}

// buildOverlays replays every mutation record: for each (target, kind,
// address) the highest revision wins, and of two records with one
// revision (two sessions' changes merged by import) the greater
// evidence_id, so every session derives the same overlay from the same
// records. Records that cannot be read are counted, never fatal.
func buildOverlays(recs []*core.Evidence) map[string]*overlay {
	out := map[string]*overlay{}
	for _, e := range recs {
		if e.PredicateType != Predicate || e.Subject == nil {
			continue
		}
		sha := e.Subject.Digest.SHA256
		o := out[sha]
		if o == nil {
			o = &overlay{sha: sha, entries: map[key]entry{}, revisions: map[key]entry{}, setAside: map[key][]entry{}}
			out[sha] = o
		}
		var r AnnotationMutation
		if err := json.Unmarshal(e.NormalizedResult, &r); err != nil {
			o.skipped++
			continue
		}
		for _, ch := range r.Changes {
			addr, err := core.ParseHex(ch.Address)
			if err != nil || !validKind(ch.Kind) || ch.Revision < 1 {
				o.skipped++
				continue
			}
			if !ch.Changed {
				continue
			}
			k := key{ch.Kind, addr}
			v := ""
			if ch.Value != nil {
				v = *ch.Value
			}
			en := entry{value: v, revision: ch.Revision, id: e.EvidenceID, removed: ch.Value == nil}
			cur, have := o.revisions[k]
			if have && cur.revision == ch.Revision && cur.id != e.EvidenceID {
				lost := en
				if cur.id < e.EvidenceID {
					lost = cur
				}
				o.setAside[k] = append(o.setAside[k], lost)
			}
			if have && (cur.revision > ch.Revision || (cur.revision == ch.Revision && cur.id > e.EvidenceID)) {
				continue
			}
			o.revisions[k] = en
			if ch.Value != nil {
				o.entries[k] = en
			} else {
				delete(o.entries, k)
			}
		}
	}
	// Only the latest revision's ties matter, and not one that repeats the
	// value kept.
	for _, o := range out {
		for k, lost := range o.setAside {
			win := o.revisions[k]
			kept := lost[:0]
			for _, e := range lost {
				if e.revision == win.revision && (e.value != win.value || e.removed != win.removed) {
					kept = append(kept, e)
				}
			}
			sort.Slice(kept, func(i, j int) bool { return kept[i].id < kept[j].id })
			if len(kept) == 0 {
				delete(o.setAside, k)
			} else {
				o.setAside[k] = kept
			}
		}
	}
	return out
}

func validKind(k ports.AnnotationKind) bool {
	for _, x := range ports.AnnotationKinds() {
		if x == k {
			return true
		}
	}
	return false
}

// store reads and changes annotations: the engine's own when the bound
// analysis is a ports.Annotator, else rea's overlay. A kind the engine does
// not keep (its Annotations says ErrUnsupported: Hopper's bookmarks) is
// kept in the overlay too, so every annotation tool that binary_session
// lists as available works with every engine.
type store struct {
	c      *core.Call
	engine ports.Annotator // nil: the overlay
	ov     *overlay
	// overlaid marks the kinds the engine does not keep.
	overlaid map[ports.AnnotationKind]bool
	// v is the view of the target (begin sets it): the segments an
	// engine's refusal of an address names as the nearest.
	v *view
}

func storeOf(c *core.Call) *store {
	a, _, _ := c.Bound()
	s := &store{c: c, ov: overlayOf(c), overlaid: map[ports.AnnotationKind]bool{}}
	s.engine, _ = a.(ports.Annotator)
	return s
}

func (s *store) name() string {
	if s.engine != nil {
		return storeEngine
	}
	return storeOverlay
}

// setAsideNote is the overlay's note on a merge that set a value of kind
// at addr aside (overlay.setAsideNote); "" for a kind the engine keeps.
func (s *store) setAsideNote(k ports.AnnotationKind, addr uint64) string {
	if s.keeps(k) {
		return ""
	}
	tool := map[ports.AnnotationKind]string{ports.AnnotationName: "set_address_name", ports.AnnotationComment: "set_comment",
		ports.AnnotationInlineComment: "set_inline_comment", ports.AnnotationBookmark: "set_bookmark"}[k]
	return s.ov.setAsideNote(k, addr, tool)
}

// keeps reports whether the engine keeps kind k, as far as known: a kind
// is overlaid once the engine has refused to list it.
func (s *store) keeps(k ports.AnnotationKind) bool {
	return s.engine != nil && !s.overlaid[k]
}

// nameOf is the store of kind k: the overlay for a kind the engine does not
// keep. A caller asks after get or list, which find that out.
func (s *store) nameOf(k ports.AnnotationKind) string {
	if s.keeps(k) {
		return storeEngine
	}
	return storeOverlay
}

// annotations is the engine's listing of kind k; ok is false when the
// engine does not keep k, which overlays it from then on. at is the
// address the caller looks for in it (nil: the whole listing), which a
// not_found refusal names.
func (s *store) annotations(ctx context.Context, k ports.AnnotationKind, at *uint64) (l []ports.Annotation, ok bool, err error) {
	if !s.keeps(k) {
		return nil, false, nil
	}
	l, err = s.engine.Annotations(ctx, k)
	if errors.Is(err, ports.ErrUnsupported) {
		s.overlaid[k] = true
		return nil, false, nil
	}
	if err != nil {
		return nil, false, notFound(s.c.Op.Name, strings.ReplaceAll(string(k), "_", " ")+"s", at, s.engineErr(k, err))
	}
	return l, true, nil
}

// notFound is the refusal of a call during which the engine answered not
// found (ports.ErrNotFound) to what rea lists for it (the target's
// documents, segments, procedures or names; the annotations of a kind),
// not to an argument: invalid_request with details.reason not_found,
// details.looked_for what was listed and details.address the address the
// call looked for in it, when one (else absent). Other errors are
// returned as they are.
func notFound(op, what string, at *uint64, err error) error {
	if !errors.Is(err, ports.ErrNotFound) {
		return err
	}
	details := map[string]any{"operation": op, "reason": "not_found", "looked_for": what}
	msg := fmt.Sprintf("%s: the engine answered not found when asked for its %s", op, what)
	if at != nil {
		details["address"] = core.Hex(*at)
		msg += " (looking for the one at " + core.Hex(*at) + ")"
	}
	return &core.Error{Code: core.CodeInvalidRequest, Err: err, Message: fmt.Sprintf("%s: %v", msg, err), Details: details,
		Remediation: "The engine does not find the target rea opened, or what it listed of it before (its document may have changed): close_binary, then open_binary the target again, or choose another engine with provider_id."}
}

// errUnsupportedKind is returned for a kind the engine does not keep.
var errUnsupportedKind = errors.New("the engine does not keep this kind of annotation")

// get returns the annotation of kind at addr.
func (s *store) get(ctx context.Context, k ports.AnnotationKind, addr uint64) (string, bool, error) {
	l, kept, err := s.annotations(ctx, k, &addr)
	if err != nil {
		return "", false, err
	}
	if !kept {
		v, ok := s.ov.get(k, addr)
		return v, ok, nil
	}
	for _, a := range l {
		if a.Address == addr {
			return a.Text, true, nil
		}
	}
	return "", false, nil
}

func (s *store) list(ctx context.Context, k ports.AnnotationKind) ([]ports.Annotation, error) {
	l, kept, err := s.annotations(ctx, k, nil)
	if err != nil {
		return nil, err
	}
	if !kept {
		return s.ov.list(k), nil
	}
	sort.Slice(l, func(i, j int) bool { return l[i].Address < l[j].Address })
	return l, nil
}

func (s *store) engineErr(k ports.AnnotationKind, err error) error {
	op := s.c.Op.Name
	switch {
	case errors.Is(err, ports.ErrUnsupported):
		return &core.Error{Code: core.CodeCapabilityUnavailable, Err: errors.Join(errUnsupportedKind, err),
			Message: fmt.Sprintf("%s: the engine does not keep %s annotations", op, k),
			Details: map[string]any{"operation": op, "reason": "annotation_kind_unsupported", "kind": string(k)}}
	case errors.Is(err, ports.ErrMalformed):
		return &core.Error{Code: core.CodeInvalidRequest, Err: err, Message: fmt.Sprintf("%s: the engine refused the %s: %v", op, k, err),
			Details: map[string]any{"operation": op, "reason": "annotation_refused"}}
	}
	return err
}

// set changes the annotation of kind at addr, the argument at path (value
// nil removes it), and returns the change a mutation record states;
// nothing changes on error.
func (s *store) set(ctx context.Context, k ports.AnnotationKind, addr uint64, value *string, path []any) (AnnotationChange, error) {
	prev, had, err := s.get(ctx, k, addr)
	if err != nil {
		return AnnotationChange{}, err
	}
	ch := AnnotationChange{Kind: k, Address: core.Hex(addr), Value: value}
	if had {
		ch.Previous = &prev
	}
	last, seen := s.ov.revisions[key{k, addr}]
	ch.Revision = 1
	if seen {
		ch.Revision, ch.PreviousEvidenceID = last.revision+1, &last.id
	}
	same := (value == nil && !had) || (value != nil && had && *value == prev)
	if same {
		if value == nil {
			return AnnotationChange{}, s.absent(k, addr, nil)
		}
		if seen { // the record that set the value this one repeats
			ch.Revision, ch.PreviousEvidenceID = last.revision, &last.id
		}
		return ch, nil // recorded, but not a new revision
	}
	ch.Changed = true
	if s.keeps(k) { // else the mutation record is the change, in the overlay
		var err error
		if value == nil {
			err = s.engine.RemoveAnnotation(ctx, k, addr)
			if errors.Is(err, ports.ErrNotFound) { // removed since it was listed
				return AnnotationChange{}, s.absent(k, addr, err)
			}
		} else {
			err = s.engine.SetAnnotation(ctx, ports.Annotation{Kind: k, Address: addr, Text: *value})
			if errors.Is(err, ports.ErrNotFound) { // the engine maps no byte there
				var segs []ports.Segment
				if s.v != nil {
					segs, _, _ = viewTarget{s.v, s.ov}.Segments(ctx)
				}
				return AnnotationChange{}, codeloc.EngineUnmapped(s.c.Op.Name, path, addr, segs, err)
			}
		}
		if err != nil {
			return AnnotationChange{}, s.engineErr(k, err)
		}
	}
	return ch, nil
}

// absent is the refusal to remove the annotation of kind at addr, which
// is not there (cause: the engine's ErrNotFound, or nil).
func (s *store) absent(k ports.AnnotationKind, addr uint64, cause error) error {
	return &core.Error{Code: core.CodeInvalidRequest, Err: cause,
		Message:     fmt.Sprintf("%s: there is no %s at %s", s.c.Op.Name, k, core.Hex(addr)),
		Remediation: "List the bookmarks with list_bookmarks; removing one that is not there changes nothing.",
		Details:     map[string]any{"operation": s.c.Op.Name, "reason": "annotation_absent", "kind": string(k), "address": core.Hex(addr)}}
}

// checkText validates a name or comment; path names the argument.
func checkText(op string, k ports.AnnotationKind, text string, path []any) error {
	bad := func(msg string) error {
		return core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonInvalidValue, Message: msg})
	}
	if !utf8.ValidString(text) {
		return bad("not valid UTF-8")
	}
	switch k {
	case ports.AnnotationName:
		switch {
		case text == "":
			return bad("a name cannot be empty")
		case len(text) > maxNameBytes:
			return bad(fmt.Sprintf("a name is at most %d bytes; this one is %d", maxNameBytes, len(text)))
		case strings.ContainsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
			return bad("a name cannot hold white space or control characters")
		}
		if _, err := core.ParseHex(text); err == nil {
			return bad("a name cannot look like an address (it would be read as one)")
		}
		if codeloc.HasOffset(text) {
			return bad("a name cannot end in +OFFSET (it would be read as an offset from the name before it)")
		}
	case ports.AnnotationComment, ports.AnnotationInlineComment, ports.AnnotationBookmark:
		if k != ports.AnnotationBookmark && strings.TrimSpace(text) == "" {
			return bad("a comment cannot be empty or only white space")
		}
		if n := utf8.RuneCountInString(text); n > maxCommentChars {
			return bad(fmt.Sprintf("at most %d characters; this text has %d", maxCommentChars, n))
		}
		if strings.ContainsFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
			return bad("control characters other than newline and tab are not allowed")
		}
	}
	return nil
}
