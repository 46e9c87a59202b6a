package core

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
)

// bundleSide is one side of compare_bundles, loaded.
type bundleSide struct {
	kind     string
	label    string
	records  []*Evidence
	unknowns []*Unknown
}

// loadSide resolves {kind:"bundle",path}, {kind:"session"} or
// {kind:"evidence",records:[Evidence | retained reference]}.
func loadSide(ctx context.Context, s *Session, name string, v map[string]any) (*bundleSide, error) {
	kind, _ := v["kind"].(string)
	side := &bundleSide{kind: kind}
	switch kind {
	case "bundle":
		path, _ := v["path"].(string)
		side.label = path
		info, err := ReadBundleFile(ctx, path, nil, func(e *Evidence) error { side.records = append(side.records, e); return nil })
		if err != nil {
			return nil, err
		}
		side.unknowns = info.Unknowns
	case "session":
		side.label = "session"
		src := s.bundleSource()
		for r := range src.Records {
			side.records = append(side.records, r)
		}
		side.unknowns = src.Unknowns
	case "evidence":
		side.label = "evidence"
		items, _ := v["records"].([]any)
		seen := map[EvidenceID]bool{}
		for i, it := range items {
			m, _ := it.(map[string]any)
			var ev *Evidence
			if k, _ := m["kind"].(string); k == "retained-evidence" {
				id, _ := m["evidence_id"].(string)
				e, err := s.ledger.Resolve(EvidenceID(id))
				if err != nil {
					return nil, err
				}
				ev = e
			} else {
				raw, err := MarshalNoEscape(m)
				if err != nil {
					return nil, err
				}
				e, err := ParseEvidence(raw)
				if err != nil {
					ce := AsError("compare_bundles", err)
					ce.Message = fmt.Sprintf("compare_bundles: %s.records[%d]: %s", name, i, ce.Message)
					return nil, ce
				}
				ev = e
			}
			if !seen[ev.EvidenceID] {
				seen[ev.EvidenceID] = true
				side.records = append(side.records, ev)
			}
		}
	}
	sort.Slice(side.records, func(i, j int) bool { return side.records[i].EvidenceID < side.records[j].EvidenceID })
	return side, nil
}

// slotKey groups records that answer the same question: the same
// operation and predicate with the same parameters, about the same bytes,
// from the same provider. Two records in one slot with different IDs are a
// change.
func slotKey(e *Evidence) string {
	h := sha256.New()
	h.Write([]byte(e.Operation + "\x00" + e.PredicateType + "\x00" + e.Provider.ID + "\x00"))
	if e.Subject != nil {
		arch := ""
		if e.Subject.Architecture != nil {
			arch = *e.Subject.Architecture
		}
		h.Write([]byte(e.Subject.Digest.SHA256 + "\x00" + e.Subject.Format + "\x00" + arch))
	}
	h.Write([]byte{0})
	h.Write(e.Parameters)
	return hex.EncodeToString(h.Sum(nil))
}

// incompleteness says why a record cannot vouch for a complete answer, or
// "" when it can: failed operations, truncated or paged results, results
// with more to read, and records whose limitations say so.
func incompleteness(e *Evidence) string {
	if e.PredicateType == "rea.error" {
		return "the operation failed"
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(e.NormalizedResult, &top) != nil {
		return ""
	}
	flag := func(m map[string]json.RawMessage) string {
		for _, k := range []string{"truncated", "has_more"} {
			if string(m[k]) == "true" {
				return k
			}
		}
		if string(m["exhausted"]) == "false" {
			return "not exhausted"
		}
		return ""
	}
	if f := flag(top); f != "" {
		return "the result is " + f
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var sub map[string]json.RawMessage
		if json.Unmarshal(top[k], &sub) == nil {
			if f := flag(sub); f != "" {
				return k + " is " + f
			}
		}
	}
	return ""
}

// compareEntry is one added or removed record.
type compareEntry struct {
	EvidenceID    EvidenceID `json:"evidence_id"`
	Operation     string     `json:"operation"`
	SubjectSHA256 *string    `json:"subject_sha256"`
	ProviderID    string     `json:"provider_id"`
	Incomplete    *string    `json:"incomplete"`
}

func entryOf(e *Evidence) compareEntry {
	c := compareEntry{EvidenceID: e.EvidenceID, Operation: e.Operation, ProviderID: e.Provider.ID}
	if e.Subject != nil {
		d := e.Subject.Digest.SHA256
		c.SubjectSHA256 = &d
	}
	if why := incompleteness(e); why != "" {
		c.Incomplete = &why
	}
	return c
}

// changedPair is one slot whose record differs between the sides.
type changedPair struct {
	Slot       string       `json:"slot"`
	Left       compareEntry `json:"left"`
	Right      compareEntry `json:"right"`
	Reasons    []string     `json:"reasons"`
	Comparable bool         `json:"comparable"`
}

// changeReasons names the fields that differ between two records of a slot.
func changeReasons(a, b *Evidence) []string {
	var out []string
	eq := func(x, y any) bool {
		cx, err1 := CanonicalJSON(x)
		cy, err2 := CanonicalJSON(y)
		return err1 == nil && err2 == nil && bytes.Equal(cx, cy)
	}
	if !bytes.Equal(a.NormalizedResult, b.NormalizedResult) {
		out = append(out, "normalized_result")
	}
	if !bytes.Equal(a.RawResult, b.RawResult) {
		out = append(out, "raw_result")
	}
	if !eq(a.Provider, b.Provider) {
		out = append(out, "provider_version")
	}
	if !eq(a.AnalysisProfile, b.AnalysisProfile) {
		out = append(out, "analysis_profile")
	}
	if a.Confidence != b.Confidence {
		out = append(out, "confidence")
	}
	if a.Authority != b.Authority {
		out = append(out, "authority")
	}
	if !eq(a.Environment, b.Environment) {
		out = append(out, "environment")
	}
	if !eq(a.Limitations, b.Limitations) {
		out = append(out, "limitations")
	}
	if !eq(a.Locations, b.Locations) {
		out = append(out, "locations")
	}
	if !eq(a.EvidenceLinks, b.EvidenceLinks) {
		out = append(out, "evidence_links")
	}
	if len(out) == 0 {
		out = append(out, "identity")
	}
	return out
}

// compareSides compares two Evidence sets record by record and their
// unknowns. Incomplete evidence never yields "no-differences-observed".
func compareSides(ctx context.Context, left, right *bundleSide) (*CompareBundlesResult, error) {
	type slot struct{ l, r []*Evidence }
	slots := map[string]*slot{}
	get := func(k string) *slot {
		if slots[k] == nil {
			slots[k] = &slot{}
		}
		return slots[k]
	}
	for _, e := range left.records {
		get(slotKey(e)).l = append(get(slotKey(e)).l, e)
	}
	for _, e := range right.records {
		get(slotKey(e)).r = append(get(slotKey(e)).r, e)
	}
	keys := make([]string, 0, len(slots))
	for k := range slots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	added, removed, changed := []compareEntry{}, []compareEntry{}, []changedPair{}
	unchanged := 0
	var reasons []string
	for i, k := range keys {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := slots[k]
		inRight := map[EvidenceID]bool{}
		for _, e := range s.r {
			inRight[e.EvidenceID] = true
		}
		var ls, rs []*Evidence
		inLeft := map[EvidenceID]bool{}
		for _, e := range s.l {
			inLeft[e.EvidenceID] = true
			if inRight[e.EvidenceID] {
				unchanged++
			} else {
				ls = append(ls, e)
			}
		}
		for _, e := range s.r {
			if !inLeft[e.EvidenceID] {
				rs = append(rs, e)
			}
		}
		if len(ls) == 1 && len(rs) == 1 {
			p := changedPair{Slot: k, Left: entryOf(ls[0]), Right: entryOf(rs[0]), Reasons: changeReasons(ls[0], rs[0])}
			p.Comparable = p.Left.Incomplete == nil && p.Right.Incomplete == nil
			if !p.Comparable {
				p.Reasons = append(p.Reasons, "incomplete")
			}
			changed = append(changed, p)
			continue
		}
		for _, e := range ls {
			removed = append(removed, entryOf(e))
		}
		for _, e := range rs {
			added = append(added, entryOf(e))
		}
	}
	incomplete := func(side *bundleSide) []string {
		out := []string{}
		for _, e := range side.records {
			if why := incompleteness(e); why != "" {
				out = append(out, string(e.EvidenceID))
			}
		}
		return out
	}
	li, ri := incomplete(left), incomplete(right)
	unk := compareUnknowns(left.unknowns, right.unknowns)

	comparableChanges := 0
	for _, p := range changed {
		if p.Comparable {
			comparableChanges++
		}
	}
	conclusion := "no-differences-observed"
	unkDiff := len(unk.Added)+len(unk.Removed)+len(unk.Changed) > 0
	switch {
	case len(added) > 0 || len(removed) > 0 || comparableChanges > 0 || unkDiff:
		conclusion = "different"
	case len(changed) > 0:
		conclusion = "indeterminate"
		reasons = append(reasons, "every changed record is incomplete on at least one side, so the change may be an artifact of truncation")
	}
	if conclusion == "no-differences-observed" {
		if len(left.records) == 0 && len(right.records) == 0 {
			conclusion = "indeterminate"
			reasons = append(reasons, "neither side holds any record")
		}
		if len(li)+len(ri) > 0 {
			conclusion = "indeterminate"
			reasons = append(reasons, fmt.Sprintf("%d left and %d right records are incomplete; identical incomplete evidence does not show equivalence", len(li), len(ri)))
		}
	}
	if reasons == nil {
		reasons = []string{}
	}
	return &CompareBundlesResult{
		Left:   ComparedSide{Kind: left.kind, Source: left.label, Records: len(left.records), UnknownRevisions: len(left.unknowns), IncompleteRecords: li},
		Right:  ComparedSide{Kind: right.kind, Source: right.label, Records: len(right.records), UnknownRevisions: len(right.unknowns), IncompleteRecords: ri},
		Counts: CompareCounts{Added: len(added), Removed: len(removed), Changed: len(changed), Unchanged: unchanged},
		Added:  added, Removed: removed, Changed: changed, Unknowns: unk, Conclusion: conclusion, ConclusionReasons: reasons,
	}, nil
}

// compareUnknowns compares the latest revision of each unknown.
func compareUnknowns(left, right []*Unknown) ComparedUnknowns {
	latest := func(revs []*Unknown) map[UnknownID]*Unknown {
		m := map[UnknownID]*Unknown{}
		for _, u := range revs {
			if cur := m[u.UnknownID]; cur == nil || cur.Revision < u.Revision {
				m[u.UnknownID] = u
			}
		}
		return m
	}
	l, r := latest(left), latest(right)
	added, removed, changed := []string{}, []string{}, []ChangedUnknown{}
	for _, id := range slices.Sorted(maps.Keys(l)) {
		ru, ok := r[id]
		if !ok {
			removed = append(removed, string(id))
			continue
		}
		if lu := l[id]; lu.RevisionDigest != ru.RevisionDigest {
			changed = append(changed, ChangedUnknown{UnknownID: string(id), LeftRevision: lu.Revision, RightRevision: ru.Revision,
				LeftStatus: lu.Status, RightStatus: ru.Status, LeftRevisionDigest: lu.RevisionDigest, RightRevisionDigest: ru.RevisionDigest})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(r)) {
		if _, ok := l[id]; !ok {
			added = append(added, string(id))
		}
	}
	return ComparedUnknowns{Added: added, Removed: removed, Changed: changed}
}
