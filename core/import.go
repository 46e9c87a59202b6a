package core

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
)

// ImportResult is import_evidence_bundle's result.
type ImportResult struct {
	Imported      int `json:"imported"`
	Total         int `json:"total"`
	UnknownsAdded int `json:"unknowns_added"`
}

// prepareRecords sizes each record's masked form (see Ledger.Record)
// before any lock; its digest is taken only where an ID is retained.
func prepareRecords(recs []*Evidence) ([]*ledgerEntry, error) {
	out := make([]*ledgerEntry, 0, len(recs))
	for _, e := range recs {
		p := &ledgerEntry{ev: e}
		if err := e.writeCanonical(&countWriter{w: io.Discard, n: &p.size}, formMasked); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Merge records every record or none: a record whose ID is retained with
// different content (subject name and local_path masked) is
// evidence_integrity_mismatch; a merge that would exceed the bounds is
// truncated. It returns how many records were new.
func (l *Ledger) Merge(recs []*Evidence) (added int, err error) {
	prep, err := prepareRecords(recs)
	if err != nil {
		return 0, AsError("import_evidence_bundle", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mergeLocked(prep, true)
}

// mergeLocked checks every record first and inserts only when all pass and
// commit is set.
func (l *Ledger) mergeLocked(prep []*ledgerEntry, commit bool) (int, error) {
	newIDs := map[EvidenceID]bool{}
	var newBytes int64
	for _, p := range prep {
		if old, ok := l.records[p.ev.EvidenceID]; ok {
			if old.digest() != p.digest() {
				return 0, &Error{Code: CodeEvidenceIntegrityMismatch,
					Message: "import evidence bundle: conflicting evidence record " + string(p.ev.EvidenceID) + ": the session retains different content under this id",
					Details: map[string]any{"evidence_id": string(p.ev.EvidenceID), "reason": "conflicting_record", "operation": "import_evidence_bundle"}}
			}
			continue
		}
		if !newIDs[p.ev.EvidenceID] {
			newIDs[p.ev.EvidenceID] = true
			newBytes += p.size
		}
	}
	if len(l.records)+len(newIDs) > l.max {
		return 0, l.importFull(fmt.Sprintf("%d new records", len(newIDs)))
	}
	if l.bytes+newBytes > l.maxB {
		return 0, &Error{Code: CodeTruncated, Message: fmt.Sprintf("import evidence bundle: %d new bytes do not fit the ledger (%d of %d bytes used); nothing was imported", newBytes, l.bytes, l.maxB),
			Remediation: "Export the bundle with export_evidence_bundle, then close_binary to clear the ledger, and import again; or start rea with " + LedgerBytesEnv + " set to more bytes.",
			Details:     map[string]any{"limit": "bytes", "maximum": l.maxB, "truncated": true, "operation": "import_evidence_bundle"}}
	}
	if !commit {
		return len(newIDs), nil
	}
	for _, p := range prep {
		if _, ok := l.records[p.ev.EvidenceID]; ok {
			continue
		}
		l.records[p.ev.EvidenceID] = p
		l.bytes += p.size
		l.gen++
	}
	return len(newIDs), nil
}

// ImportBundleFile validates the bundle at path completely, then merges its
// records and unknowns into this session atomically: on any failure nothing
// changes.
//
// limits nil means the limits of this session's ledger (BundleLimitsFor its
// maximum), so a bundle exported from a ledger as large as this one reads
// back.
func (s *Session) ImportBundleFile(ctx context.Context, path string, limits *BundleLimits) (*ImportResult, error) {
	if limits == nil {
		_, maxB := s.ledger.Room()
		l := BundleLimitsFor(maxB)
		limits = &l
	}
	// The record bound is checked as records arrive: a bundle with more new
	// records than the ledger has room for fails soon after the first one
	// too many (records are parsed a small window ahead), not after the
	// whole file is validated.
	var recs []*Evidence
	fresh, prev := 0, EvidenceID("")
	info, err := ReadBundleFile(ctx, path, limits, func(e *Evidence) error {
		if _, ok := s.ledger.Get(e.EvidenceID); !ok && e.EvidenceID != prev {
			fresh++
			if err := s.ledger.roomFor(fresh); err != nil {
				return err
			}
		}
		prev = e.EvidenceID
		recs = append(recs, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.importRecords(ctx, recs, info.Unknowns)
}

// roomFor is nil when n more records fit, else importFull.
func (l *Ledger) roomFor(n int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.records)+n <= l.max {
		return nil
	}
	return l.importFull(fmt.Sprintf("more than %d new records", n-1))
}

// importFull is the truncated error of an import whose new records (what)
// do not fit; l.mu is held.
func (l *Ledger) importFull(what string) *Error {
	fix := "Start rea with " + LedgerRecordsEnv + " set to more records than the bundle holds." // an empty ledger: nothing to clear
	if len(l.records) > 0 {
		fix = "Export the bundle with export_evidence_bundle, then close_binary to clear the ledger, and import again; or start rea with " + LedgerRecordsEnv + " set to more records."
	}
	return &Error{Code: CodeTruncated, Message: fmt.Sprintf("import evidence bundle: %s do not fit the ledger (%d of %d records used); nothing was imported", what, len(l.records), l.max),
		Remediation: fix,
		Details:     map[string]any{"limit": "records", "maximum": l.max, "truncated": true, "operation": "import_evidence_bundle", "setting": LedgerRecordsEnv}}
}

// importRecords merges validated records and unknowns: everything is
// checked under the locks before anything is inserted.
func (s *Session) importRecords(ctx context.Context, recs []*Evidence, unks []*Unknown) (*ImportResult, error) {
	prep, err := prepareRecords(recs)
	if err != nil {
		return nil, AsError("import_evidence_bundle", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &s.retained
	r.mu.Lock()
	defer r.mu.Unlock()
	l := s.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.mergeLocked(prep, false); err != nil {
		return nil, err
	}
	addRevs, newUnknowns, err := r.planUnknownMerge(unks)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	added, err := l.mergeLocked(prep, true)
	if err != nil {
		return nil, err // unreachable: checked above under the same lock
	}
	for _, u := range addRevs {
		if r.unknowns == nil {
			r.unknowns = map[UnknownID][]*Unknown{}
		}
		r.unknowns[u.UnknownID] = append(r.unknowns[u.UnknownID], u)
		r.revisions++
	}
	return &ImportResult{Imported: added, Total: len(l.records), UnknownsAdded: newUnknowns}, nil
}

// planUnknownMerge decides which imported revisions are new. Where the
// session and the bundle both hold a revision they must agree on its
// digest; the bundle may extend a chain the session holds, never fork it.
func (r *retainedState) planUnknownMerge(unks []*Unknown) (add []*Unknown, newUnknowns int, err error) {
	byID := map[UnknownID][]*Unknown{}
	for _, u := range unks {
		byID[u.UnknownID] = append(byID[u.UnknownID], u)
	}
	total := r.revisions
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		chain := byID[id]
		have := r.unknowns[id]
		for _, u := range chain {
			if u.Revision <= len(have) {
				if have[u.Revision-1].RevisionDigest != u.RevisionDigest {
					return nil, 0, unknownErr("import_evidence_bundle", CodeRevisionConflict, "revision-conflict",
						fmt.Sprintf("unknown %s revision %d differs from the revision this session holds", id, u.Revision),
						map[string]any{"unknown_id": string(id), "revision": u.Revision})
				}
				continue
			}
			add = append(add, u)
			total++
		}
		if len(have) == 0 {
			newUnknowns++
		}
	}
	latest := r.latestLocked()
	for _, u := range add {
		if cur := latest[u.UnknownID]; cur == nil || cur.Revision < u.Revision {
			latest[u.UnknownID] = u
		}
	}
	if cyc := dependsOnCycle(latest); cyc != nil {
		return nil, 0, unknownErr("import_evidence_bundle", CodeEvidenceIntegrityMismatch, "depends-on-cycle",
			"with this session's unknowns the imported depends-on relationships form a cycle: "+fmt.Sprint(cyc), map[string]any{"cycle": cyc})
	}
	if len(r.unknowns)+newUnknowns > MaxUnknowns || total > MaxUnknownRevisions {
		return nil, 0, unknownErr("import_evidence_bundle", CodeTruncated, "limit", "the unknowns do not fit this session's registry; nothing was imported",
			map[string]any{"limit": "unknowns", "maximum": MaxUnknowns, "truncated": true})
	}
	return add, newUnknowns, nil
}
