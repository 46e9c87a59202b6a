package core

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
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
	masked string // digest of the record's JCS with subject name and local_path masked, once needed
	size   int64
}

func (r *ledgerEntry) digest() string {
	if r.masked == "" {
		r.masked, _, _ = r.ev.digestForm(formMasked)
	}
	return r.masked
}

// RecordResult says whether Record stored a new record.
type RecordResult string

// Record outcomes.
const (
	Added     RecordResult = "added"
	Duplicate RecordResult = "duplicate"
)

// Settings that raise (or lower) a session ledger's bounds.
const (
	LedgerBytesEnv   = "REA_LEDGER_MAX_BYTES"
	LedgerRecordsEnv = "REA_LEDGER_MAX_RECORDS"
)

// ledgerSetting reads a ledger setting (decimalSetting); ok false means
// unset.
func ledgerSetting(env string, least int64) (n int64, ok bool, err error) {
	v, set := os.LookupEnv(env)
	if !set {
		return 0, false, nil
	}
	n, err = decimalSetting(env, v, least)
	return n, err == nil, err
}

// CheckLedgerSettings validates REA_LEDGER_MAX_BYTES (at least 1 MiB) and
// REA_LEDGER_MAX_RECORDS (at least 1). Front ends call it at start-up and
// fail on its error; elsewhere an invalid value is ignored.
func CheckLedgerSettings() error {
	if _, _, err := ledgerSetting(LedgerBytesEnv, 1<<20); err != nil {
		return err
	}
	_, _, err := ledgerSetting(LedgerRecordsEnv, 1)
	return err
}

// DefaultLedgerBytes is the byte bound of a new ledger: REA_LEDGER_MAX_BYTES
// when it is set, else one sixteenth of the machine's memory, at least
// LedgerMaxBytes and at most 4 GiB. A large application's complete Evidence
// is tens of MB; the bound scales with the machine so that it fits where
// the memory does.
func DefaultLedgerBytes() int64 {
	if v, ok, _ := ledgerSetting(LedgerBytesEnv, 1<<20); ok {
		return v
	}
	return min(max(LedgerMaxBytes, physicalMemory()/16), 4<<30)
}

// DefaultLedgerRecords is the record bound of a new ledger:
// REA_LEDGER_MAX_RECORDS when it is set, else LedgerMaxRecords (the
// contract's 10,000).
func DefaultLedgerRecords() int {
	if v, ok, _ := ledgerSetting(LedgerRecordsEnv, 1); ok {
		return int(min(v, math.MaxInt32))
	}
	return LedgerMaxRecords
}

// physicalMemory is MemTotal from /proc/meminfo, or 0 where it is unknown.
func physicalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// NewLedger returns an empty ledger with the default bounds.
func NewLedger() *Ledger { return NewLedgerLimits(DefaultLedgerRecords(), DefaultLedgerBytes()) }

// Room reports the bytes the ledger can still take and its bound.
func (l *Ledger) Room() (free, maximum int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(0, l.maxB-l.bytes), l.maxB
}

// NewLedgerLimits returns an empty ledger with explicit bounds (embedders
// and tests); non-positive values take the defaults.
func NewLedgerLimits(maxRecords int, maxBytes int64) *Ledger {
	maxRecords, maxBytes = cmp.Or(max(maxRecords, 0), LedgerMaxRecords), cmp.Or(max(maxBytes, 0), LedgerMaxBytes)
	return &Ledger{records: map[EvidenceID]*ledgerEntry{}, max: maxRecords, maxB: maxBytes}
}

// Record stores e idempotently. Recording the same content twice is a
// Duplicate; different content under one ID is evidence_integrity_mismatch;
// a full ledger is truncated with details {limit, maximum, truncated}.
func (l *Ledger) Record(e *Evidence) (RecordResult, error) {
	var size int64 // its size; its masked digest only when the ID is retained already
	if err := e.writeCanonical(&countWriter{w: io.Discard, n: &size}, formMasked); err != nil {
		return "", AsError("record evidence", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.records[e.EvidenceID]; ok {
		if m, _, _ := e.digestForm(formMasked); old.digest() == m {
			return Duplicate, nil
		}
		return "", &Error{Code: CodeEvidenceIntegrityMismatch,
			Message: "record evidence: different content under one evidence id",
			Details: map[string]any{"evidence_id": string(e.EvidenceID), "reason": "conflicting_record"}}
	}
	if len(l.records) >= l.max {
		return "", &Error{Code: CodeTruncated, Message: "record evidence: the session ledger holds its maximum number of records",
			Remediation: "Export the bundle with export_evidence_bundle, then close_binary to clear the ledger; or start rea with " + LedgerRecordsEnv + " set to more records.",
			Details:     map[string]any{"limit": "records", "maximum": l.max, "truncated": true}}
	}
	if l.bytes+size > l.maxB {
		return "", &Error{Code: CodeTruncated, Message: fmt.Sprintf("record evidence: a %d-byte record does not fit the session ledger (%d of %d bytes used)", size, l.bytes, l.maxB),
			Remediation: "Export the bundle with export_evidence_bundle, then close_binary to clear the ledger; or start rea with " + LedgerBytesEnv + " set to more bytes.",
			Details:     map[string]any{"limit": "bytes", "maximum": l.maxB, "truncated": true}}
	}
	l.records[e.EvidenceID] = &ledgerEntry{ev: e, size: size}
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
// evidence_integrity_mismatch with reason "missing", whose details say
// what to pass instead (as ResolveParent's do).
func (l *Ledger) Resolve(id EvidenceID) (*Evidence, error) {
	if e, ok := l.Get(id); ok {
		return e, nil
	}
	instead := "the complete record " + string(id) + " inline, or the evidence_id of the operation that made it, called again on this connection"
	return nil, &Error{Code: CodeEvidenceIntegrityMismatch,
		Message:     "retained evidence " + string(id) + " is not held on this connection (not recorded here, cleared by close_binary, or retained by another connection)",
		Remediation: "Pass " + instead + "; or export_evidence_bundle where it was made, import_evidence_bundle here and pass the reference again.",
		Details:     map[string]any{"evidence_id": string(id), "reason": "missing", "expected": "a record this connection holds", "actual": nil, "pass_instead": instead}}
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
