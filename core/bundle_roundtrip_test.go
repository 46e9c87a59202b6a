package core_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// Anything export_evidence_bundle writes, import_evidence_bundle reads back:
// a retained error whose envelope holds a string of several MiB, and records
// whose values number well over a million, in one bundle (issue 14: the
// reference's read limits, strings of 1 MiB and 1,000,000 values, refused
// rea's own exports).
func TestBundleRoundTripsPastTheReferenceReadLimits(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	long := strings.Repeat("y", 3<<20) // one 3 MiB string
	env, err := json.Marshal(map[string]any{"error": map[string]any{"code": "execution_failure", "message": long}})
	is.NoErr(err)
	_, err = s.RetainError("inventory_artifact", json.RawMessage(`{"path":"/x"}`), env)
	is.NoErr(err)
	var many bytes.Buffer // 1.5 million values in one record's parameters
	many.WriteString(`{"values":[`)
	for i := 0; i < 1_500_000; i++ {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteByte('0')
	}
	many.WriteString(`]}`)
	_, err = s.RetainError("inventory_artifact", many.Bytes(), []byte(`{"error":{"code":"execution_failure"}}`))
	is.NoErr(err)

	path := filepath.Join(t.TempDir(), "b.json")
	bndCall(t, s, "export_evidence_bundle", map[string]any{"path": path})
	fresh := bndSession(t)
	_, res := bndCall(t, fresh, "import_evidence_bundle", map[string]any{"path": path})
	is.Equal(res["imported"], float64(2))
	n, _ := fresh.Ledger().Len()
	is.Equal(n, 2)
}

// Import limits follow the session's ledger bound (REA_LEDGER_MAX_BYTES),
// not the 64 MiB floor: a ledger of 96 MiB filled to its limit, holding one
// string of 70 MiB, exports a bundle of about 96 MiB, past the 80 MiB and
// 64 MiB-string limits a 64 MiB ledger implies, and that bundle reads back
// into a fresh session with the same bound.
func TestBundleRoundTripsAtARaisedLedgerLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a 96 MiB ledger")
	}
	is := is.New(t)
	t.Setenv("REA_LEDGER_MAX_BYTES", strconv.Itoa(96<<20))
	s := bndSession(t)
	_, maxB := s.Ledger().Room()
	is.Equal(maxB, int64(96<<20))
	retain := func(i, n int) error {
		env, err := json.Marshal(map[string]any{"error": map[string]any{"code": "execution_failure", "message": strings.Repeat("z", n)}})
		is.NoErr(err)
		_, err = s.RetainError("inventory_artifact", json.RawMessage(fmt.Sprintf(`{"path":"/x/%d"}`, i)), env)
		return err
	}
	is.NoErr(retain(0, 70<<20)) // one string longer than a 64 MiB ledger
	n := 1
	for ; n < 100; n++ {
		if err := retain(n, 2<<20); err != nil {
			break // the ledger is full
		}
	}
	free, _ := s.Ledger().Room()
	is.True(free < 2<<20) // filled to the limit
	path := filepath.Join(t.TempDir(), "b.json")
	bndCall(t, s, "export_evidence_bundle", map[string]any{"path": path})
	st, err := os.Stat(path)
	is.NoErr(err)
	is.True(st.Size() > core.BundleLimitsFor(core.LedgerMaxBytes).MaxBytes) // past what a 64 MiB ledger allows

	fresh := bndSession(t)
	_, res := bndCall(t, fresh, "import_evidence_bundle", map[string]any{"path": path})
	is.Equal(res["imported"], float64(n))
	got, _ := fresh.Ledger().Len()
	is.Equal(got, n)
}

// The import limits derive from the ledger bound they serve.
func TestBundleLimitsFollowTheLedgerBound(t *testing.T) {
	is := is.New(t)
	l := core.BundleLimitsFor(core.LedgerMaxBytes)
	is.Equal(l.MaxBytes, int64(80<<20))
	is.Equal(l.MaxStringBytes, 64<<20)
	is.Equal(l.MaxNodes, 40<<20)
	t.Setenv("REA_LEDGER_MAX_BYTES", strconv.Itoa(1<<30))
	l = core.DefaultBundleLimits()
	is.Equal(l.MaxBytes, int64(1<<30+16<<20))
	is.Equal(l.MaxStringBytes, 1<<30)
}

// REA_LEDGER_MAX_RECORDS sets a new ledger's record bound, and an import
// with more new records than the ledger has room for fails soon after the
// first record too many (records are parsed a window of 8 per core ahead):
// the rest of the file is never read, so a defect after that point is not
// what the caller hears about.
func TestLedgerRecordBoundIsASettingCheckedAsRecordsArrive(t *testing.T) {
	is := is.New(t)
	src := bndSession(t)
	total := 8*runtime.GOMAXPROCS(0) + 20
	for i := 1; i <= total; i++ {
		_, err := src.Ledger().Record(numbered(t, i, "x"))
		is.NoErr(err)
	}
	path := filepath.Join(t.TempDir(), "b.json")
	bndCall(t, src, "export_evidence_bundle", map[string]any{"path": path})
	b, err := os.ReadFile(path)
	is.NoErr(err)

	t.Setenv(core.LedgerRecordsEnv, "3")
	is.NoErr(core.CheckLedgerSettings())
	dst := bndSession(t)
	e := bndErr(t, dst, "import_evidence_bundle", map[string]any{"path": path})
	is.Equal(e.Code, core.CodeTruncated)
	is.Equal(e.Details["maximum"], 3)
	is.Equal(e.Details["setting"], core.LedgerRecordsEnv)
	is.True(strings.Contains(e.Message, "more than 3 new records"))
	is.True(strings.HasPrefix(e.Remediation, "Start rea with "+core.LedgerRecordsEnv)) // nothing to clear in an empty ledger
	n, _ := dst.Ledger().Len()
	is.Equal(n, 0)

	// The same bundle cut short before its last records: the bound is what
	// fails, not the JSON that was never reached.
	cut := filepath.Join(t.TempDir(), "cut.json")
	dec := json.NewDecoder(bytes.NewReader(b))
	for tok, err := dec.Token(); tok != "records"; tok, err = dec.Token() {
		is.NoErr(err)
	}
	_, err = dec.Token() // [
	is.NoErr(err)
	for i := 0; i < total-5; i++ {
		var raw json.RawMessage
		is.NoErr(dec.Decode(&raw))
	}
	end := int(dec.InputOffset()) + 2 // the comma and the next record's brace
	is.NoErr(os.WriteFile(cut, b[:end], 0o600))
	e = bndErr(t, dst, "import_evidence_bundle", map[string]any{"path": cut})
	is.Equal(e.Code, core.CodeTruncated)

	t.Setenv(core.LedgerRecordsEnv, strconv.Itoa(total))
	ok := bndSession(t)
	_, res := bndCall(t, ok, "import_evidence_bundle", map[string]any{"path": path})
	is.Equal(res["imported"], float64(total))
}

// An invalid ledger setting is a configuration error naming the setting.
func TestLedgerSettingsAreValidated(t *testing.T) {
	for _, env := range []string{core.LedgerRecordsEnv, core.LedgerBytesEnv} {
		for _, v := range []string{"", "0", "01", "+5", "1e3", "abc", " 5", "9007199254740992", "-1"} {
			t.Run(env+"="+v, func(t *testing.T) {
				is := is.New(t)
				t.Setenv(env, v)
				err := core.CheckLedgerSettings()
				is.True(err != nil)
				ce := core.AsError("t", err)
				is.Equal(ce.Code, core.CodeConfigurationInvalid)
				is.True(strings.Contains(ce.Message, env))
			})
		}
	}
	is := is.New(t)
	t.Setenv(core.LedgerBytesEnv, "1048575") // below 1 MiB
	is.True(core.CheckLedgerSettings() != nil)
	t.Setenv(core.LedgerBytesEnv, "1048576")
	t.Setenv(core.LedgerRecordsEnv, "250000")
	is.NoErr(core.CheckLedgerSettings())
	is.Equal(core.DefaultLedgerRecords(), 250000)
	is.Equal(core.DefaultLedgerBytes(), int64(1<<20))
}
