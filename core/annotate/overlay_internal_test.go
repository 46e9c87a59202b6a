package annotate

import (
	"encoding/json"
	"strings"
	"testing"

	"rea/core"
	"rea/ports"
)

func mutationRecord(t *testing.T, id string, sha string, changes ...AnnotationChange) *core.Evidence {
	t.Helper()
	b, err := json.Marshal(AnnotationMutation{Document: "elf", Store: storeOverlay, Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	return &core.Evidence{EvidenceID: core.EvidenceID(id), PredicateType: Predicate, Subject: &core.Subject{Digest: core.SubjectDigest{SHA256: sha}}, NormalizedResult: b}
}

func str(s string) *string { return &s }

// The overlay is the same whatever order the records come in: the highest
// revision wins, then the greater evidence_id; removals remove; records
// that cannot be read are counted, not fatal; other targets are apart.
func TestBuildOverlays(t *testing.T) {
	recs := []*core.Evidence{
		mutationRecord(t, "ev_b", "t1", AnnotationChange{Kind: ports.AnnotationComment, Address: "0x10", Value: str("second"), Revision: 2, Changed: true}),
		mutationRecord(t, "ev_a", "t1", AnnotationChange{Kind: ports.AnnotationComment, Address: "0x10", Value: str("first"), Revision: 1, Changed: true}),
		mutationRecord(t, "ev_c", "t1", AnnotationChange{Kind: ports.AnnotationComment, Address: "0x10", Value: str("other session"), Revision: 2, Changed: true}),
		mutationRecord(t, "ev_d", "t1", AnnotationChange{Kind: ports.AnnotationBookmark, Address: "0x20", Value: str(""), Revision: 1, Changed: true}),
		mutationRecord(t, "ev_e", "t1", AnnotationChange{Kind: ports.AnnotationBookmark, Address: "0x20", Value: nil, Revision: 2, Changed: true}),
		mutationRecord(t, "ev_f", "t1", AnnotationChange{Kind: ports.AnnotationName, Address: "0x30", Value: str("same"), Revision: 1, Changed: false}),
		mutationRecord(t, "ev_g", "t1", AnnotationChange{Kind: "colour", Address: "0x30", Value: str("red"), Revision: 1, Changed: true}),
		mutationRecord(t, "ev_h", "t2", AnnotationChange{Kind: ports.AnnotationName, Address: "0x10", Value: str("elsewhere"), Revision: 1, Changed: true}),
		{EvidenceID: "ev_i", PredicateType: Predicate, Subject: &core.Subject{Digest: core.SubjectDigest{SHA256: "t1"}}, NormalizedResult: json.RawMessage(`[1,2]`)},
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8}, {8, 7, 6, 5, 4, 3, 2, 1, 0}, {2, 0, 4, 3, 1, 8, 5, 7, 6}} {
		var in []*core.Evidence
		for _, i := range order {
			in = append(in, recs[i])
		}
		ov := buildOverlays(in)
		o := ov["t1"]
		if v, _ := o.get(ports.AnnotationComment, 0x10); v != "other session" {
			t.Errorf("order %v: comment = %q, want the revision-2 record with the greater evidence_id", order, v)
		}
		if _, ok := o.get(ports.AnnotationBookmark, 0x20); ok {
			t.Errorf("order %v: a removed bookmark is still there", order)
		}
		if _, ok := o.get(ports.AnnotationName, 0x30); ok {
			t.Errorf("order %v: an unchanged record set a name", order)
		}
		// The revision-2 record the tie-break passed over is noted, not
		// the revision-1 one a later revision replaced.
		if lost := o.setAside[key{ports.AnnotationComment, 0x10}]; len(lost) != 1 || lost[0].id != "ev_b" || lost[0].value != "second" {
			t.Errorf("order %v: set aside %+v, want ev_b's \"second\"", order, lost)
		}
		if n := o.setAsideNote(ports.AnnotationComment, 0x10, "set_comment"); !strings.Contains(n, `"second" (ev_b) was set aside`) || !strings.Contains(n, "(ev_c)") {
			t.Errorf("order %v: note %q", order, n)
		}
		if len(o.setAside) != 1 {
			t.Errorf("order %v: %d keys set aside, want 1", order, len(o.setAside))
		}
		if o.skipped != 2 {
			t.Errorf("order %v: skipped %d unreadable changes, want 2", order, o.skipped)
		}
		if v, _ := ov["t2"].get(ports.AnnotationName, 0x10); v != "elsewhere" {
			t.Errorf("order %v: the other target's name = %q", order, v)
		}
		if _, ok := o.get(ports.AnnotationName, 0x10); ok {
			t.Errorf("order %v: another target's name leaked", order)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		kind ports.AnnotationKind
		text string
		ok   bool
	}{
		{ports.AnnotationName, "check_license", true},
		{ports.AnnotationName, "", false},
		{ports.AnnotationName, "two words", false},
		{ports.AnnotationName, "0x401000", false},
		{ports.AnnotationName, "1234", false},
		{ports.AnnotationName, string(make([]byte, 256)), false},
		{ports.AnnotationComment, "line one\n\tline two", true},
		{ports.AnnotationComment, " \n ", false},
		{ports.AnnotationComment, "bell\a", false},
		{ports.AnnotationComment, "\xff", false},
		{ports.AnnotationBookmark, "", true},
	} {
		err := checkText("op", c.kind, c.text, []any{"x"})
		if (err == nil) != c.ok {
			t.Errorf("checkText(%s, %q) = %v, want ok %v", c.kind, c.text, err, c.ok)
		}
	}
}
