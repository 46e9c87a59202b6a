package core

import (
	"sort"
	"sync"
)

// Ledger limits.
const (
	LedgerMaxRecords = 10000
	LedgerMaxBytes   = 64 << 20
)

// Ledger is one connection's retained Evidence. It is safe for concurrent use.
type Ledger struct {
	mu      sync.Mutex
	records map[EvidenceID]*ledgerEntry
	bytes   int64
	max     int
	maxB    int64
	gen     uint64 // bumped whenever records are added or cleared (Generation)
}

type ledgerEntry struct {
	ev     *Evidence
	masked string // digest of the record's JCS with subject name and local_path masked
	size   int64
}

// RecordResult says whether Record stored a new record.
type RecordResult string

// Record outcomes.
const (
	Added     RecordResult = "added"
	Duplicate RecordResult = "duplicate"
)

// NewLedger returns an empty ledger with the default bounds.
func NewLedger() *Ledger { return NewLedgerLimits(LedgerMaxRecords, LedgerMaxBytes) }

// NewLedgerLimits returns an empty ledger with explicit bounds (embedders
// and tests); non-positive values take the defaults.
func NewLedgerLimits(maxRecords int, maxBytes int64) *Ledger {
	if maxRecords <= 0 {
		maxRecords = LedgerMaxRecords
	}
	if maxBytes <= 0 {
		maxBytes = LedgerMaxBytes
	}
	return &Ledger{records: map[EvidenceID]*ledgerEntry{}, max: maxRecords, maxB: maxBytes}
}

// Record stores e idempotently. Recording the same content twice is a
// Duplicate; different content under one ID is evidence_integrity_mismatch;
// a full ledger is truncated with details {limit, maximum, truncated}.
func (l *Ledger) Record(e *Evidence) (RecordResult, error) {
	m, size, err := e.digestForm(formMasked)
	if err != nil {
		return "", AsError("record evidence", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.records[e.EvidenceID]; ok {
		if old.masked == m {
			return Duplicate, nil
		}
		return "", &Error{Code: CodeEvidenceIntegrityMismatch,
			Message: "record evidence: different content under one evidence id",
			Details: map[string]any{"evidence_id": string(e.EvidenceID), "reason": "conflicting_record"}}
	}
	if len(l.records) >= l.max {
		return "", &Error{Code: CodeTruncated, Message: "record evidence: the session ledger holds its maximum number of records",
			Remediation: "Export the bundle with export_evidence_bundle, then close_binary to clear the ledger.",
			Details:     map[string]any{"limit": "records", "maximum": l.max, "truncated": true}}
	}
	if l.bytes+size > l.maxB {
		return "", &Error{Code: CodeTruncated, Message: "record evidence: the session ledger holds its maximum number of bytes",
			Remediation: "Export the bundle with export_evidence_bundle, then close_binary to clear the ledger.",
			Details:     map[string]any{"limit": "bytes", "maximum": l.maxB, "truncated": true}}
	}
	l.records[e.EvidenceID] = &ledgerEntry{ev: e, masked: m, size: size}
	l.bytes += size
	l.gen++
	return Added, nil
}

// Get returns a retained record.
func (l *Ledger) Get(id EvidenceID) (*Evidence, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.records[id]; ok {
		return r.ev, true
	}
	return nil, false
}

// Resolve looks up a retained reference; a missing one is the canonical
// evidence_integrity_mismatch with reason "missing".
func (l *Ledger) Resolve(id EvidenceID) (*Evidence, error) {
	if e, ok := l.Get(id); ok {
		return e, nil
	}
	return nil, &Error{Code: CodeEvidenceIntegrityMismatch,
		Message: "retained evidence " + string(id) + " is not in this connection's ledger",
		Remediation: "Use an evidence_id returned on this connection, pass the complete Evidence inline, " +
			"re-run the producing operation, or import an exported bundle first; close_binary clears retained records.",
		Details: map[string]any{"evidence_id": string(id), "reason": "missing", "expected": "retained-evidence", "actual": nil}}
}

// Len reports the number of records and their total bytes.
func (l *Ledger) Len() (records int, size int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.records), l.bytes
}

// Records returns the retained records sorted by evidence_id.
func (l *Ledger) Records() []*Evidence {
	l.mu.Lock()
	out := make([]*Evidence, 0, len(l.records))
	for _, r := range l.records {
		out = append(out, r.ev)
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].EvidenceID < out[j].EvidenceID })
	return out
}

// Clear drops every record.
func (l *Ledger) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = map[EvidenceID]*ledgerEntry{}
	l.bytes = 0
	l.gen++
}

// Generation changes whenever the ledger gains or loses records, so state
// derived from retained records (an annotation overlay) can be cached
// until it does.
func (l *Ledger) Generation() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// RetainedReference is the strict {"kind":"retained-evidence","evidence_id"}
// object that stands for a record in this connection's ledger.
type RetainedReference struct {
	Kind       string     `json:"kind"`
	EvidenceID EvidenceID `json:"evidence_id"`
}

// Reference returns the retained reference for id.
func Reference(id EvidenceID) RetainedReference {
	return RetainedReference{Kind: "retained-evidence", EvidenceID: id}
}
