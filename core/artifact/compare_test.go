package artifact_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func ref(ev *core.Evidence) map[string]any {
	return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
}

func inline(t *testing.T, ev *core.Evidence) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(ev)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

type diff struct {
	Path           string   `json:"logical_path"`
	Classification string   `json:"classification"`
	Aspects        []string `json:"aspects"`
}

func differences(t *testing.T, r map[string]any) map[string]diff {
	t.Helper()
	raw, _ := json.Marshal(r["differences"])
	var ds []diff
	json.Unmarshal(raw, &ds)
	out := map[string]diff{}
	for _, d := range ds {
		out[d.Path] = d
	}
	return out
}

func TestCompareArtifacts(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	base := []node{
		{path: "same.txt", data: "same"},
		{path: "changed.txt", data: "v1"},
		{path: "removed.txt", data: "gone"},
		{path: "run.sh", data: "#!/bin/sh\n", mode: 0o644},
		{path: "app.js", data: "a()"},
		{path: "app.js.map", data: `{"version":3}`},
	}
	left := writeTree(t, t.TempDir(), base...)
	right := writeTree(t, t.TempDir(),
		node{path: "same.txt", data: "same"},
		node{path: "changed.txt", data: "v2"},
		node{path: "added.txt", data: "new"},
		node{path: "run.sh", data: "#!/bin/sh\n", mode: 0o755},
		node{path: "app.js.map", data: `{"version":3}`},
		node{path: "app.asar", data: string(fakeBox("asar", fakeEntry{Path: "x.js", Data: "x", SHA: sum256("y")}))},
	)
	_, lev := mustCall(t, s, "inventory_artifact", map[string]any{"path": left})
	_, rev := mustCall(t, s, "inventory_artifact", map[string]any{"path": right, "integrity_policy": "record-and-continue"})

	r, cev := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(lev), "right": ref(rev)})
	is.Equal(r["status"], "contradiction")
	is.Equal(r["complete"], true)
	d := differences(t, r)
	is.Equal(d["changed.txt"].Classification, "changed")
	is.Equal(d["changed.txt"].Aspects, []string{"content"})
	is.Equal(d["added.txt"].Classification, "added")
	is.Equal(d["removed.txt"].Classification, "removed")
	is.Equal(d["run.sh"].Classification, "changed")
	is.Equal(d["run.sh"].Aspects, []string{"metadata"}) // the executable bit
	is.Equal(d["app.js"].Classification, "removed")
	is.Equal(d["app.js.map"].Aspects, []string{"relations"})     // its source is gone
	is.Equal(d["app.asar/x.js"].Classification, "contradiction") // added, and contradicted
	is.Equal(d["app.asar/x.js"].Aspects, []string{"integrity", "presence"})
	_, listed := d["same.txt"]
	is.True(!listed)
	counts := r["counts"].(map[string]any)
	is.Equal(counts["unchanged"], float64(1)) // same.txt
	// The root holds the changes, so it is changed too, not unchanged.
	is.Equal(d["."].Classification, "changed")
	is.Equal(d["."].Aspects, []string{"content"})
	is.Equal(cev.Confidence, core.ConfidenceDerived)
	is.Equal(len(cev.EvidenceLinks), 4) // both concise inventories and the complete graphs they retained

	// A contradiction is never unchanged: the same contradicted tree on both sides.
	r, _ = mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(rev), "right": ref(rev)})
	is.Equal(r["status"], "contradiction")
	is.Equal(differences(t, r)["app.asar/x.js"].Classification, "contradiction")
	is.Equal(differences(t, r)["app.asar/x.js"].Aspects, []string{"integrity"}) // the same observed bytes

	// Inline Evidence gives the same result as the retained reference.
	r1, _ := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(lev), "right": ref(rev)})
	r2, _ := mustCall(t, s, "compare_artifacts", map[string]any{"left": inline(t, lev), "right": inline(t, rev)})
	j1, _ := json.Marshal(r1)
	j2, _ := json.Marshal(r2)
	is.Equal(string(j1), string(j2))

	// inventory and inspect Evidence of the same tree compare equal.
	_, iev := mustCall(t, s, "inspect_artifact", map[string]any{"path": left})
	r, _ = mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(lev), "right": ref(iev)})
	is.Equal(r["status"], "equal")
	is.Equal(len(r["differences"].([]any)), 0)

	// max_differences bounds the list, not the counts.
	r, _ = mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(lev), "right": ref(rev), "max_differences": 1})
	is.Equal(len(r["differences"].([]any)), 1)
	is.Equal(r["differences_truncated"], true)
}

func TestCompareIncompleteIsNeverEqual(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	box := fakeBox("zip", fakeEntry{Path: "secret", Data: "x", Encrypted: true}, fakeEntry{Path: "plain", Data: "p"})
	p := filepath.Join(t.TempDir(), "a.zip")
	os.WriteFile(p, box, 0o644)
	// The concise inventory says it (its summary's verdict), and
	// compare_artifacts reads its retained complete graph.
	r0, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": p})
	is.Equal(r0["summary"].(map[string]any)["integrity"], "incomplete")
	_, full := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "detail": "complete"})
	_, occ, _ := decodeGraph(t, full)
	is.Equal(occ["secret"]["hash_status"], "unavailable")
	is.Equal(occ["secret"]["encrypted"], true)
	is.Equal(occ["secret"]["artifact_id"], nil)
	r, _ := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(ev), "right": ref(ev)})
	is.Equal(r["status"], "incomplete")
	is.Equal(r["complete"], false)
	is.Equal(differences(t, r)["secret"].Classification, "unknown")
}

func TestCompareRejectsBadEvidence(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := writeTree(t, t.TempDir(), node{path: "a", data: "a"})
	_, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir})
	missing := "ev_" + strings.Repeat("ab", 32)

	_, _, e := artCall(t, s, context.Background(), "compare_artifacts", map[string]any{"left": ref(ev),
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": missing}})
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(e.Details["reason"], "missing")
	is.Equal(e.Details["evidence_id"], missing)

	tampered := inline(t, ev)
	tampered["limitations"] = []any{"edited"}
	_, _, e = artCall(t, s, context.Background(), "compare_artifacts", map[string]any{"left": ref(ev), "right": tampered})
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)

	_, cmp := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(ev), "right": ref(ev)})
	_, _, e = artCall(t, s, context.Background(), "compare_artifacts", map[string]any{"left": ref(ev), "right": ref(cmp)})
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch) // compare Evidence is not a valid side
	is.Equal(e.Details["reason"], "wrong_operation")
	_, _, e = artCall(t, s, context.Background(), "compare_artifacts", map[string]any{"left": inline(t, ev), "right": inline(t, cmp)})
	is.Equal(e.Code, core.CodeInvalidRequest) // the input schema admits only artifact Evidence inline
}

func TestInspectArtifact(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := appTree(t, t.TempDir())
	r, ev := mustCall(t, s, "inspect_artifact", map[string]any{"path": dir})
	is.True(strings.HasPrefix(r["inspection_id"].(string), "ai_"))
	subj := r["subject"].(map[string]any)
	invID := subj["inventory_evidence_id"].(string)
	is.Equal(ev.EvidenceLinks, []core.EvidenceID{core.EvidenceID(invID)})
	inv, ok := s.Ledger().Get(core.EvidenceID(invID))
	is.True(ok) // the inventory was recorded too
	is.Equal(inv.Operation, "inventory_artifact")
	cov := r["coverage"].(map[string]any)
	is.Equal(cov["expanded_containers"], 1.0)
	is.Equal(cov["opaque_containers"], 2.0) // extra.zip, lib/inner.asar
	is.Equal(cov["complete"], false)
	is.Equal(len(r["unexplored_branches"].([]any)), 2)
	var statements []string
	for _, h := range r["hypotheses"].([]any) {
		statements = append(statements, h.(map[string]any)["statement"].(string))
	}
	all := strings.Join(statements, "\n")
	is.True(strings.Contains(all, "native add-on"))
	is.True(strings.Contains(all, "source map"))
	is.True(strings.Contains(all, "Electron"))
	probe := r["next_probes"].([]any)[0].(map[string]any)
	is.Equal(probe["operation"], "extract_artifact")
	rel := r["derived_relationships"].([]any)
	is.Equal(len(rel), 1)
	is.Equal(rel[0].(map[string]any)["to_logical_path"], "resources/app.asar/main.js")

	// Contradictions point at the recorded inventory.
	p := integrityFixture(t, elfSO(), true)
	r, _ = mustCall(t, s, "inspect_artifact", map[string]any{"path": p, "integrity_policy": "record-and-continue"})
	c := r["contradictions"].([]any)[0].(map[string]any)
	is.Equal(c["evidence_id"], r["subject"].(map[string]any)["inventory_evidence_id"])
	is.True(strings.Contains(c["statement"].(string), "b.js"))
}

func TestArtifactOperationsUseTheOpenTarget(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	_, _, e := artCall(t, s, context.Background(), "inventory_artifact", map[string]any{})
	is.Equal(e.Code, core.CodeTargetUnavailable)
	is.Equal(e.Details["reason"], "no_target")
}

// A directory is unchanged only when nothing beneath it differs: one whose
// file changed is changed, one whose file could not be read is unknown, and
// an untouched sibling stays unchanged.
func TestCompareArtifactsDirectoriesFollowTheirContents(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	tree := func(v string) string {
		dir := writeTree(t, t.TempDir(), node{path: "sub/deep/f.txt", data: v}, node{path: "same/g.txt", data: "g"}, node{path: "pipes/keep.txt", data: "k"})
		is.NoErr(syscall.Mkfifo(filepath.Join(dir, "pipes", "fifo"), 0o644))
		return dir
	}
	_, lev := mustCall(t, s, "inventory_artifact", map[string]any{"path": tree("v1")})
	_, rev := mustCall(t, s, "inventory_artifact", map[string]any{"path": tree("v2")})
	r, _ := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(lev), "right": ref(rev)})
	d := differences(t, r)
	for _, p := range []string{".", "sub", "sub/deep", "sub/deep/f.txt"} {
		is.Equal(d[p].Classification, "changed")
		is.Equal(d[p].Aspects, []string{"content"})
	}
	is.Equal(d["pipes"].Classification, "unknown") // its fifo was not read
	_, listed := d["same"]
	is.True(!listed)
	counts := r["counts"].(map[string]any)
	is.Equal(counts["unchanged"], float64(3)) // same, same/g.txt and pipes/keep.txt
	is.Equal(counts["changed"], float64(4))
	is.Equal(counts["unknown"], float64(2)) // pipes and pipes/fifo
}

// Evidence of the wrong operation is refused with the one issue that names
// the operations accepted, not the retained-reference form's dozen.
func TestCompareArtifactsWrongEvidenceNamesTheOperations(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := writeTree(t, t.TempDir(), node{path: "a.txt", data: "a"})
	_, inv := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir})
	_, ext := mustCall(t, s, "extract_artifact", map[string]any{"path": dir})
	defer func() {
		var r struct {
			OutputRoot string `json:"output_root"`
		}
		json.Unmarshal(ext.NormalizedResult, &r)
		os.RemoveAll(r.OutputRoot)
	}()
	_, _, e := artCall(t, s, context.Background(), "compare_artifacts", map[string]any{"left": inline(t, inv), "right": inline(t, ext)})
	is.True(e != nil)
	is.Equal(e.Code, core.CodeInvalidRequest)
	issues := e.Details["issues"].([]core.Issue)
	is.Equal(len(issues), 1)
	is.Equal(issues[0].Path, []any{"right", "operation"})
	is.True(strings.Contains(issues[0].Message, "inventory_artifact"))
}

// TestInspectArtifactProposesTheApplicationAnalysis: an inspection that
// finds JavaScript (an Electron archive) proposes the call that maps it,
// with the same path and integrity policy. Before, inspect_artifact on an
// Electron app's ZIP said "This is (or contains) an Electron application
// archive with 4 JavaScript file(s)" and proposed no next probe at all.
func TestInspectArtifactProposesTheApplicationAnalysis(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := appTree(t, t.TempDir())
	for _, policy := range []string{"fail", "record-and-continue"} {
		r, _ := mustCall(t, s, "inspect_artifact", map[string]any{"path": dir, "integrity_policy": policy})
		var found map[string]any
		for _, p := range r["next_probes"].([]any) {
			if p := p.(map[string]any); p["operation"] == "analyze_javascript_application" {
				found = p
			}
		}
		is.True(found != nil) // the application analysis is proposed
		want := map[string]any{"path": dir, "detail": "summary"}
		if policy != "fail" {
			want["integrity_policy"] = policy
		}
		is.Equal(found["arguments"], want)
	}
}

// TestContradictionSaysWhatElseDiffers: a contradicted entry present on
// both sides also carries the aspects in which the two entries differ, so
// an agent sees whether the observed bytes changed between the builds.
// Before, a file verified on the left and tampered on the right read
// aspects ["integrity"] alone, as when both sides hold the same bytes.
func TestContradictionSaysWhatElseDiffers(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.asar"), filepath.Join(dir, "bad.asar")
	os.WriteFile(good, fakeBox("asar", fakeEntry{Path: "main.js", Data: "run()", SHA: "ok"}), 0o644)
	os.WriteFile(bad, fakeBox("asar", fakeEntry{Path: "main.js", Data: "pwn()", SHA: sum256("run()")}), 0o644)
	_, lev := mustCall(t, s, "inventory_artifact", map[string]any{"path": good})
	_, rev := mustCall(t, s, "inventory_artifact", map[string]any{"path": bad, "integrity_policy": "record-and-continue"})
	r, _ := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(lev), "right": ref(rev)})
	is.Equal(r["status"], "contradiction")
	d := differences(t, r)["main.js"]
	is.Equal(d.Classification, "contradiction")
	is.Equal(d.Aspects, []string{"integrity", "content"})
}
