package core_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
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
