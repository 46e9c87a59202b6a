package core_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// bndBundle builds a session with records and an unknown of three
// revisions and returns its exported canonical bytes.
func bndBundle(t *testing.T) (*core.Session, []byte) {
	t.Helper()
	s := bndSession(t)
	ev := bndRecord(t, s, 1, "payload-marker")
	bndRecord(t, s, 2, "second")
	s.Ledger().Record(sample(t, "/usr/bin/ls"))
	_, rec := bndCall(t, s, "record_unknown", map[string]any{"domain": "native.control-flow", "question": "Who calls  check?", "supporting_evidence_ids": []string{string(ev.EvidenceID)}})
	id := rec["unknown"].(map[string]any)["unknown_id"].(string)
	bndCall(t, s, "update_unknown", map[string]any{"unknown_id": id, "status": "investigating"})
	bndCall(t, s, "update_unknown", map[string]any{"unknown_id": id, "severity": "high"})
	path := filepath.Join(t.TempDir(), "b.json")
	if _, err := s.Export(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, b
}

func bndRead(b []byte, lim *core.BundleLimits) (*core.BundleInfo, []*core.Evidence, error) {
	var recs []*core.Evidence
	info, err := core.ReadBundle(context.Background(), bytes.NewReader(b), lim, func(e *core.Evidence) error { recs = append(recs, e); return nil })
	return info, recs, err
}

func TestReadBundleRoundTrip(t *testing.T) {
	is := is.New(t)
	s, b := bndBundle(t)
	info, recs, err := bndRead(b, nil)
	is.NoErr(err)
	n, _ := s.Ledger().Len()
	is.Equal(len(recs), n)
	is.Equal(info.Records, n)
	is.Equal(len(info.Unknowns), 3)
	sum := sha256.Sum256(b)
	is.Equal(info.Digest, hex.EncodeToString(sum[:]))
	is.Equal(info.Bytes, int64(len(b)))

	// Importing into a fresh session restores everything; again is a no-op.
	fresh := bndSession(t)
	path := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(path, b, 0o600)
	_, res := bndCall(t, fresh, "import_evidence_bundle", map[string]any{"path": path})
	is.Equal(res["imported"], float64(n))
	is.Equal(res["unknowns_added"], float64(1))
	_, res = bndCall(t, fresh, "import_evidence_bundle", map[string]any{"path": path})
	is.Equal(res["imported"], float64(0))
	is.Equal(res["total"], float64(n))
	_, list := bndCall(t, fresh, "list_unknowns", map[string]any{"include_history": true})
	is.Equal(len(list["unknowns"].([]any)), 3)
	// The re-export is byte-identical.
	again := filepath.Join(t.TempDir(), "again.json")
	_, err = fresh.Export(context.Background(), again, nil)
	is.NoErr(err)
	b2, _ := os.ReadFile(again)
	is.Equal(string(b2), string(b))
}

// bndEdit decodes a bundle, lets f change it and re-encodes it compactly
// (keys sorted by encoding/json, which matches JCS for these ASCII keys).
func bndEdit(t *testing.T, b []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := core.CanonicalJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadBundleRejectsBadInput(t *testing.T) {
	_, good := bndBundle(t)
	flip := bytes.Replace(good, []byte("payload-marker"), []byte("payload-markeR"), 1)
	deep := []byte(`{"artifacts":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`)
	long := []byte(`{"artifacts":["` + strings.Repeat("a", 1<<20+1) + `"]}`)
	var pretty bytes.Buffer
	json.Indent(&pretty, good, "", " ")
	cases := []struct {
		name   string
		in     []byte
		lim    *core.BundleLimits
		code   core.Code
		reason string
		msg    string
	}{
		{"one changed byte in a record", flip, nil, core.CodeEvidenceIntegrityMismatch, "id_mismatch", "records["},
		{"reordered manifests", bndEdit(t, good, func(m map[string]any) {
			p := m["providers"].([]any)
			p[0], p[1] = p[1], p[0]
		}), nil, core.CodeEvidenceIntegrityMismatch, "non-canonical", "manifests are not canonical"},
		{"duplicate ids", bndEdit(t, good, func(m map[string]any) {
			r := m["records"].([]any)
			m["records"] = append([]any{r[0]}, r...)
		}), nil, core.CodeEvidenceIntegrityMismatch, "duplicate-evidence-id", "more than once"},
		{"gap in an unknown's revisions", bndEdit(t, good, func(m map[string]any) {
			u := m["unknowns"].([]any)
			m["unknowns"] = []any{u[0], u[2]}
		}), nil, core.CodeEvidenceIntegrityMismatch, "revision-gap", "without gaps"},
		{"tampered unknown", bndEdit(t, good, func(m map[string]any) {
			m["unknowns"].([]any)[1].(map[string]any)["severity"] = "low"
		}), nil, core.CodeEvidenceIntegrityMismatch, "integrity", "revision_digest"},
		{"unsorted records", bndEdit(t, good, func(m map[string]any) {
			r := m["records"].([]any)
			r[0], r[1] = r[1], r[0]
		}), nil, core.CodeEvidenceIntegrityMismatch, "non-canonical", "not sorted"},
		{"pretty-printed", pretty.Bytes(), nil, core.CodeEvidenceIntegrityMismatch, "non-canonical", "canonical"},
		{"trailing newline", append(append([]byte{}, good...), '\n'), nil, core.CodeEvidenceIntegrityMismatch, "non-canonical", "canonical"},
		{"unknown field", bndEdit(t, good, func(m map[string]any) { m["bundle_version"] = 2 }), nil, core.CodeEvidenceIntegrityMismatch, "invalid-json", "bundle_version"},
		{"missing field", bndEdit(t, good, func(m map[string]any) { delete(m, "captures") }), nil, core.CodeEvidenceIntegrityMismatch, "invalid-json", "captures"},
		{"one record, not a bundle", bndEdit(t, good, func(m map[string]any) {
			clear(m)
			m["evidence_id"], m["operation"] = "ev_"+strings.Repeat("0", 64), "inventory_artifact"
		}), nil, core.CodeEvidenceIntegrityMismatch, "invalid-json", "holds one Evidence record"},
		{"truncated", good[:len(good)/2], nil, core.CodeEvidenceIntegrityMismatch, "invalid-json", ""},
		{"not json", []byte("PK\x03\x04"), nil, core.CodeEvidenceIntegrityMismatch, "invalid-json", ""},
		{"too deep", deep, nil, core.CodeInvalidRequest, "too-large", "depth"},
		{"string too long", long, &core.BundleLimits{MaxBytes: 1 << 30, MaxDepth: 64, MaxStringBytes: 1 << 20, MaxNodes: 1 << 20}, core.CodeInvalidRequest, "too-large", "string"},
		{"too many nodes", good, &core.BundleLimits{MaxBytes: 1 << 30, MaxDepth: 64, MaxStringBytes: 1 << 20, MaxNodes: 50}, core.CodeInvalidRequest, "too-large", "nodes"},
		{"too many bytes", good, &core.BundleLimits{MaxBytes: 100, MaxDepth: 64, MaxStringBytes: 1 << 20, MaxNodes: 1 << 20}, core.CodeInvalidRequest, "too-large", "bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			_, _, err := bndRead(c.in, c.lim)
			is.True(err != nil)
			ce := core.AsError("import", err)
			is.Equal(ce.Code, c.code)
			is.Equal(ce.Details["reason"], c.reason)
			if !strings.Contains(ce.Message, c.msg) {
				t.Errorf("message %q lacks %q", ce.Message, c.msg)
			}
		})
	}
}

// A file that is not a bundle this rea reads says so in one prefix, and its
// advice says what the file is: no bundle at all, a bundle cut short, one
// of other fields (another version's), or one damaged. Before, all of them
// read "evidence bundle read: bundle: bundle schema: ..." (or "bundle:
// invalid character ...") with the integrity code's generic advice.
func TestReadBundleSaysWhatTheFileIs(t *testing.T) {
	_, good := bndBundle(t)
	cases := []struct {
		name, in, msg, advice string
	}{
		{"not json", "PK\x03\x04", "evidence bundle read: the file is not valid JSON: invalid character", "not an Evidence bundle"},
		{"empty", "", "evidence bundle read: the file is empty", "not an Evidence bundle"},
		{"an array", "[1]", "evidence bundle read: the file is JSON but not an object", "not an Evidence bundle"},
		{"another object", `{"name":"app","version":"1.0.0"}`, `evidence bundle read: the file is a JSON object without a bundle's fields (its first field is "name")`, "not an Evidence bundle"},
		{"cut", string(good[:len(good)/2]), "evidence bundle read: the file ends after " + strconv.Itoa(len(good)/2) + " bytes, before the end of records[", "cut short"},
		{"missing field", string(bndEdit(t, good, func(m map[string]any) { delete(m, "captures") })), `evidence bundle read: missing bundle field "captures"`, "another version of rea"},
		{"unknown field", string(bndEdit(t, good, func(m map[string]any) { m["zz"] = 1 })), `evidence bundle read: unknown bundle field "zz"`, "another version of rea"},
		{"damaged", `{"artifacts":[x`, "evidence bundle read: artifacts is not valid JSON: invalid character 'x'", "exactly as export_evidence_bundle wrote it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			_, _, err := bndRead([]byte(c.in), nil)
			env := core.AsError("import_evidence_bundle", err).Envelope().Error
			is.Equal(env.Code, core.CodeEvidenceIntegrityMismatch)
			is.Equal(env.Details["reason"], "invalid-json")
			if !strings.HasPrefix(env.Message, c.msg) || strings.Count(env.Message, ": ") > strings.Count(c.msg, ": ")+1 {
				t.Errorf("message %q, want %q", env.Message, c.msg)
			}
			if !strings.Contains(env.Remediation.Action, c.advice) {
				t.Errorf("advice %q lacks %q", env.Remediation.Action, c.advice)
			}
		})
	}
}

func TestReadBundleDependsOnCycle(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	var ids []string
	for _, q := range []string{"first?", "second?"} {
		_, r := bndCall(t, s, "record_unknown", map[string]any{"domain": "d", "question": q})
		ids = append(ids, r["unknown"].(map[string]any)["unknown_id"].(string))
	}
	bndCall(t, s, "update_unknown", map[string]any{"unknown_id": ids[0], "relationships": []any{map[string]any{"type": "depends-on", "unknown_id": ids[1]}}})
	e := bndErr(t, s, "update_unknown", map[string]any{"unknown_id": ids[1], "relationships": []any{map[string]any{"type": "depends-on", "unknown_id": ids[0]}}})
	is.Equal(e.Details["reason"], "depends-on-cycle")
	is.True(strings.Contains(e.Envelope().Error.Remediation.Action, "details.cycle")) // not the details.issues it has none of

	// Forge the cycle in a bundle: revisions with valid digests that
	// depend on each other.
	unks := s.Unknowns()
	var latestB *core.Unknown
	for _, u := range unks {
		if string(u.UnknownID) == ids[1] {
			latestB = u
		}
	}
	forged := *latestB
	prev := latestB.RevisionDigest
	forged.Revision, forged.PreviousRevisionDigest = latestB.Revision+1, &prev
	forged.Relationships = []core.Relationship{{Type: "depends-on", UnknownID: core.UnknownID(ids[0])}}
	d, err := forged.ComputeRevisionDigest()
	is.NoErr(err)
	forged.RevisionDigest = d
	var buf bytes.Buffer
	_, err = core.WriteBundle(context.Background(), &buf, core.SourceOf(s.Ledger().Records(), append(unks, &forged)), nil)
	is.NoErr(err)
	_, _, err = bndRead(buf.Bytes(), nil)
	is.Equal(core.AsError("t", err).Details["reason"], "depends-on-cycle")
}

func TestReadBundleFileRefusesWithoutReading(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	f, _ := os.Create(huge)
	f.Truncate(2 << 30) // sparse: 2 GiB that must never be read
	f.Close()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	cases := []struct {
		path, reason string
		code         core.Code
	}{
		{huge, "too-large", core.CodeInvalidRequest},
		{fifo, "not-file", core.CodeInvalidRequest},
		{dir, "not-file", core.CodeInvalidRequest},
		{filepath.Join(dir, "absent"), "missing", core.CodeInvalidRequest},
		{"relative.json", "path", core.CodeInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.reason+" "+filepath.Base(c.path), func(t *testing.T) {
			is := is.New(t)
			s := bndSession(t)
			e := bndErr(t, s, "import_evidence_bundle", map[string]any{"path": c.path})
			if c.reason == "path" { // the schema refuses a relative path first
				is.Equal(e.Code, core.CodeInvalidRequest)
				return
			}
			is.Equal(e.Code, c.code)
			is.Equal(e.Details["reason"], c.reason)
			is.Equal(e.Details["operation"], "read")
		})
	}
}

func TestImportIsAtomic(t *testing.T) {
	is := is.New(t)
	// An unknown revision that differs from the session's: nothing merges.
	a := bndSession(t)
	bndRecord(t, a, 1, "a")
	bndCall(t, a, "record_unknown", map[string]any{"domain": "d", "question": "q?", "severity": "high"})
	path := filepath.Join(t.TempDir(), "a.json")
	_, err := a.Export(context.Background(), path, nil)
	is.NoErr(err)

	b := bndSession(t)
	bndCall(t, b, "record_unknown", map[string]any{"domain": "d", "question": "q?", "severity": "low"})
	before, _ := b.Ledger().Len()
	e := bndErr(t, b, "import_evidence_bundle", map[string]any{"path": path})
	is.Equal(e.Code, core.CodeRevisionConflict)
	after, _ := b.Ledger().Len()
	is.Equal(after, before)

	// A ledger merge that does not fit, or conflicts, changes nothing.
	l := core.NewLedgerLimits(3, 0)
	l.Record(numbered(t, 1, "x"))
	_, err = l.Merge([]*core.Evidence{numbered(t, 2, "x"), numbered(t, 3, "x"), numbered(t, 4, "x")})
	is.Equal(core.AsError("t", err).Code, core.CodeTruncated)
	n, _ := l.Len()
	is.Equal(n, 1)
	forged := *numbered(t, 1, "x")
	forged.NormalizedResult = json.RawMessage(`"other"`)
	_, err = l.Merge([]*core.Evidence{numbered(t, 2, "x"), &forged})
	is.Equal(core.AsError("t", err).Code, core.CodeEvidenceIntegrityMismatch)
	n, _ = l.Len()
	is.Equal(n, 1)
	added, err := l.Merge([]*core.Evidence{numbered(t, 1, "x"), numbered(t, 2, "x")})
	is.NoErr(err)
	is.Equal(added, 1)
}
