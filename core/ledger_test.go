package core_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func numbered(t *testing.T, n int, payload string) *core.Evidence {
	v := "0.1.0"
	e := &core.Evidence{Provider: core.ProviderRef{ID: "rea", Name: "rea", Version: &v}, Operation: "test",
		Parameters: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n)), NormalizedResult: json.RawMessage(fmt.Sprintf("%q", payload))}
	if err := e.Seal(); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestLedgerIdempotentAndConflict(t *testing.T) {
	is := is.New(t)
	l := core.NewLedger()
	a := sample(t, "/usr/bin/ls")
	r, err := l.Record(a)
	is.NoErr(err)
	is.Equal(r, core.Added)
	b := sample(t, "/elsewhere/ls") // same content, other path
	r, err = l.Record(b)
	is.NoErr(err)
	is.Equal(r, core.Duplicate)
	n, _ := l.Len()
	is.Equal(n, 1)

	forged := *a
	forged.NormalizedResult = json.RawMessage(`{"total":42}`)
	_, err = l.Record(&forged)
	ce := core.AsError("t", err)
	is.Equal(ce.Code, core.CodeEvidenceIntegrityMismatch)
	got, ok := l.Get(a.EvidenceID)
	is.True(ok)
	is.Equal(string(got.NormalizedResult), string(a.NormalizedResult)) // nothing lost or replaced
}

func TestLedgerRecordBound(t *testing.T) {
	is := is.New(t)
	l := core.NewLedgerLimits(3, 0)
	for i := 0; i < 3; i++ {
		_, err := l.Record(numbered(t, i, "x"))
		is.NoErr(err)
	}
	_, err := l.Record(numbered(t, 3, "x"))
	ce := core.AsError("t", err)
	is.Equal(ce.Code, core.CodeTruncated)
	is.Equal(ce.Details["limit"], "records")
	is.Equal(ce.Details["maximum"], 3)
	n, _ := l.Len()
	is.Equal(n, 3)
}

func TestLedgerDefaultBounds(t *testing.T) {
	is := is.New(t)
	l := core.NewLedger()
	for i := 0; i < core.LedgerMaxRecords; i++ {
		if _, err := l.Record(numbered(t, i, "")); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	_, err := l.Record(numbered(t, core.LedgerMaxRecords, ""))
	is.Equal(core.AsError("t", err).Details["limit"], "records")
}

func TestLedgerByteBound(t *testing.T) {
	is := is.New(t)
	l := core.NewLedgerLimits(0, core.LedgerMaxBytes)
	big := strings.Repeat("0", 1<<20) // 1 MiB payload
	var err error
	i := 0
	for ; i < 100 && err == nil; i++ {
		_, err = l.Record(numbered(t, i, big))
	}
	ce := core.AsError("t", err)
	is.Equal(ce.Code, core.CodeTruncated)
	is.Equal(ce.Details["limit"], "bytes")
	_, size := l.Len()
	is.True(size <= core.LedgerMaxBytes)
	is.True(i > 60) // 64 MiB holds about 63 records of 1 MiB
}

func TestLedgerResolveMissing(t *testing.T) {
	is := is.New(t)
	l := core.NewLedger()
	id := core.EvidenceID("ev_" + sha)
	_, err := l.Resolve(id)
	ce := core.AsError("t", err)
	is.Equal(ce.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(ce.Details["evidence_id"], string(id))
	is.Equal(ce.Details["reason"], "missing")
	is.Equal(ce.Details["actual"], nil)
	e := sample(t, "/usr/bin/ls")
	_, _ = l.Record(e)
	got, err := l.Resolve(e.EvidenceID)
	is.NoErr(err)
	is.Equal(got.EvidenceID, e.EvidenceID)
	ref, _ := json.Marshal(core.Reference(e.EvidenceID))
	is.Equal(string(ref), `{"kind":"retained-evidence","evidence_id":"`+string(e.EvidenceID)+`"}`)
	l.Clear()
	_, err = l.Resolve(e.EvidenceID)
	is.True(err != nil)
}

func TestDefaultLedgerBytesScalesAndObeysSetting(t *testing.T) {
	t.Setenv(core.LedgerBytesEnv, "")
	if got := core.DefaultLedgerBytes(); got < core.LedgerMaxBytes || got > 4<<30 {
		t.Fatalf("default %d is outside [64 MiB, 4 GiB]", got)
	}
	t.Setenv(core.LedgerBytesEnv, "300000000")
	if got := core.DefaultLedgerBytes(); got != 300000000 {
		t.Fatalf("setting 300000000 gave %d", got)
	}
	if free, max := core.NewLedger().Room(); free != 300000000 || max != 300000000 {
		t.Fatalf("a new ledger has room %d of %d", free, max)
	}
	t.Setenv(core.LedgerBytesEnv, "12") // below 1 MiB: ignored
	if got := core.DefaultLedgerBytes(); got < core.LedgerMaxBytes {
		t.Fatalf("a tiny setting gave %d", got)
	}
}

// TestLedgerResolveMissingSaysWhatToPass: a reference this connection does
// not hold says so and names what to pass instead, as ResolveParent's
// missing parent does. Before, its details read "expected":
// "retained-evidence", which is what was passed.
func TestLedgerResolveMissingSaysWhatToPass(t *testing.T) {
	is := is.New(t)
	id := core.EvidenceID("ev_" + sha)
	_, err := core.NewLedger().Resolve(id)
	ce := core.AsError("t", err)
	is.Equal(ce.Details["actual"], nil)
	expected, _ := ce.Details["expected"].(string)
	is.True(strings.Contains(expected, "this connection holds"))
	instead, _ := ce.Details["pass_instead"].(string)
	is.True(strings.Contains(instead, string(id)+" inline") && strings.Contains(instead, "again"))
	is.True(strings.Contains(ce.Message, "not held on this connection"))
	is.True(strings.HasPrefix(ce.Remediation, "Pass "+instead+"; or "))
}
