package core_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func TestSnapshotsAndResources(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	ev := bndRecord(t, s, 1, "x")
	_, snap := bndCall(t, s, "snapshot_evidence_bundle", map[string]any{})
	d := snap["bundle_digest"].(string)
	is.Equal(snap["bundle_uri"], "rea://evidence-bundle/"+d)
	is.Equal(snap["scope"], "session")
	is.Equal(snap["survives_session"], false)
	is.Equal(snap["records"], float64(1))
	_, again := bndCall(t, s, "snapshot_evidence_bundle", map[string]any{})
	is.Equal(again["bundle_digest"], d) // unchanged bundle, same snapshot

	c, err := s.ReadResource(context.Background(), "rea://evidence-bundle/"+d)
	is.NoErr(err)
	sum := sha256.Sum256(c.Text)
	is.Equal(hex.EncodeToString(sum[:]), d)
	is.Equal(c.MIMEType, "application/json")
	c, err = s.ReadResource(context.Background(), "rea://evidence/"+string(ev.EvidenceID))
	is.NoErr(err)
	want, _ := ev.MarshalCanonical()
	is.Equal(string(c.Text), string(want))
	for _, uri := range []string{"rea://evidence/ev_" + strings.Repeat("0", 64), "rea://evidence-bundle/" + strings.Repeat("0", 64), "rea://evidence/bogus", "file:///etc/passwd"} {
		_, err = s.ReadResource(context.Background(), uri)
		is.True(errors.Is(err, core.ErrResourceNotFound))
	}
	_, rel := bndCall(t, s, "release_evidence_bundle", map[string]any{"bundle_digest": d})
	is.Equal(rel["released"], true)
	_, rel = bndCall(t, s, "release_evidence_bundle", map[string]any{"bundle_digest": d})
	is.Equal(rel["released"], false)
	_, err = s.ReadResource(context.Background(), "rea://evidence-bundle/"+d)
	is.True(errors.Is(err, core.ErrResourceNotFound))

	// At most 16 snapshots; close_binary drops them all.
	for i := 0; i < core.MaxSnapshots; i++ {
		bndRecord(t, s, 100+i, "x")
		bndCall(t, s, "snapshot_evidence_bundle", map[string]any{})
	}
	bndRecord(t, s, 999, "x")
	e := bndErr(t, s, "snapshot_evidence_bundle", map[string]any{})
	is.Equal(e.Code, core.CodeTruncated)
	is.Equal(e.Details["limit"], "snapshots")
	_, last := bndCall(t, s, "get_evidence_bundle", map[string]any{"detail": "summary"})
	is.Equal(last["total_retained_records"], float64(18))
	bndCall(t, s, "close_binary", map[string]any{})
	_, snap = bndCall(t, s, "snapshot_evidence_bundle", map[string]any{})
	is.Equal(snap["records"], float64(0))
}

func TestGetEvidenceBundleSummary(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	af := bndAnalyzeFunction(t, "x", 1)
	s.Ledger().Record(af)
	ls := sample(t, "/usr/bin/ls")
	s.Ledger().Record(ls)
	bndRecord(t, s, 1, "x")
	_, sum := bndCall(t, s, "get_evidence_bundle", map[string]any{"detail": "summary"})
	is.Equal(sum["kind"], "evidence-bundle-summary")
	is.Equal(sum["matching_records"], float64(3))
	is.Equal(sum["filters"], map[string]any{})
	_, sum = bndCall(t, s, "get_evidence_bundle", map[string]any{"detail": "summary", "filters": map[string]any{"procedure_address": "0x1000"}})
	is.Equal(sum["matching_records"], float64(1))
	rec := sum["records"].([]any)[0].(map[string]any)
	is.Equal(rec["retention"], "complete-record")
	d := rec["native_dossier"].(map[string]any)
	is.Equal(d["available"], true)
	is.Equal(d["procedure_name"], "check_license")
	vf := d["value_flow"].(map[string]any)
	is.Equal(vf["status"], "observed")
	is.Equal(vf["omitted_operations_lower_bound"], float64(3))
	is.Equal(vf["known_omitted_inputs"], nil) // missing counts stay null
	_, sum = bndCall(t, s, "get_evidence_bundle", map[string]any{"detail": "summary", "filters": map[string]any{"operation": "list_segments", "target_sha256": ls.Subject.Digest.SHA256, "analysis_profile_digest": ls.AnalysisProfile.Digest}})
	is.Equal(sum["matching_records"], float64(1))
	is.Equal(sum["records"].([]any)[0].(map[string]any)["native_dossier"].(map[string]any)["reason"], "different-operation")
	_, sum = bndCall(t, s, "get_evidence_bundle", map[string]any{"detail": "summary", "filters": map[string]any{"evidence_id": string(af.EvidenceID), "operation": "list_segments"}})
	is.Equal(sum["matching_records"], float64(0))
	// Filters require summary.
	e := bndErr(t, s, "get_evidence_bundle", map[string]any{"filters": map[string]any{"operation": "x"}})
	is.Equal(e.Code, core.CodeInvalidRequest)
	is.Equal(bndErr(t, s, "get_evidence_bundle", map[string]any{"detail": "complete"}).Code, core.CodeInvalidRequest)
	// The complete bundle is the default.
	_, full := bndCall(t, s, "get_evidence_bundle", map[string]any{})
	is.Equal(len(full["records"].([]any)), 3)
}

func TestCompareBundles(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	a1, a2 := numbered(t, 1, "same"), numbered(t, 2, "before")
	b2 := numbered(t, 2, "after") // same question (n=2), different answer
	b3 := numbered(t, 3, "new")
	ev := func(es ...*core.Evidence) map[string]any {
		recs := []any{}
		for _, e := range es {
			recs = append(recs, e)
		}
		return map[string]any{"kind": "evidence", "records": recs}
	}
	res, c := bndCall(t, s, "compare_bundles", map[string]any{"left": ev(a1, a2), "right": ev(a1, b2, b3)})
	is.Equal(res.Evidence.Confidence, core.ConfidenceDerived)
	is.Equal(c["conclusion"], "different")
	is.Equal(c["counts"], map[string]any{"added": 1.0, "removed": 0.0, "changed": 1.0, "unchanged": 1.0})
	ch := c["changed"].([]any)[0].(map[string]any)
	is.Equal(ch["reasons"], []any{"normalized_result"})
	is.Equal(ch["left"].(map[string]any)["evidence_id"], string(a2.EvidenceID))

	// Identical complete sets: no differences observed; identical
	// incomplete ones (a truncated dossier) are indeterminate.
	_, c = bndCall(t, s, "compare_bundles", map[string]any{"left": ev(a1), "right": ev(a1)})
	is.Equal(c["conclusion"], "no-differences-observed")
	af := bndAnalyzeFunction(t, "x", 2)
	s.Ledger().Record(af)
	ref := map[string]any{"kind": "evidence", "records": []any{map[string]any{"kind": "retained-evidence", "evidence_id": af.EvidenceID}}}
	_, c = bndCall(t, s, "compare_bundles", map[string]any{"left": ref, "right": ev(af)})
	is.Equal(c["conclusion"], "indeterminate")
	_, c = bndCall(t, s, "compare_bundles", map[string]any{"left": ev(), "right": ev()})
	is.Equal(c["conclusion"], "indeterminate")
}

// The 64 MiB byte budget: a ledger of about 6 MiB snapshotted as it grows
// runs out of bytes before it runs out of snapshots, and the refusal says so.
func TestSnapshotByteBudget(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	payload := strings.Repeat("p", 1<<20)
	var total float64
	var last string
	for i := 0; ; i++ {
		bndRecord(t, s, 1000+i, payload)
		res, err := s.Call(context.Background(), "snapshot_evidence_bundle", bndArgs(t, map[string]any{}), nil)
		if err != nil {
			var e *core.Error
			is.True(errors.As(err, &e))
			is.Equal(e.Code, core.CodeTruncated)
			is.Equal(e.Details["limit"], "bytes")
			is.Equal(e.Details["maximum"], core.MaxSnapshotBytes)
			is.True(i < core.MaxSnapshots) // bytes, not the count, ran out
			is.True(total <= core.MaxSnapshotBytes)
			break
		}
		raw, _ := res.StructuredJSON()
		var out struct {
			Result struct {
				Bytes        float64
				BundleDigest string `json:"bundle_digest"`
			}
		}
		is.NoErr(json.Unmarshal(raw, &out))
		total += out.Result.Bytes
		last = out.Result.BundleDigest
		is.True(i < core.MaxSnapshots)
	}
	// Releasing the largest snapshot gives its bytes back.
	_, rel := bndCall(t, s, "release_evidence_bundle", map[string]any{"bundle_digest": last})
	is.Equal(rel["released"], true)
	_, snap := bndCall(t, s, "snapshot_evidence_bundle", map[string]any{})
	is.True(snap["records"].(float64) >= 6)
}
