package jsapp

import (
	"testing"

	"rea/core"
)

// jagDigest must hash the same bytes as Digest.
func TestJagDigestMatchesDigest(t *testing.T) {
	off := int64(7)
	label := "a<b>&\u2028é"
	values := []any{
		map[string]any{"kind": "x", "identity": identity(idCanonicalPath, stabilityVersion, map[string]any{"path": "a/b.js", "artifact_sha256": "00"})},
		map[string]any{"node_id": "n", "label": &label, "properties": map[string]any{"n": 1, "f": 1.5, "l": []any{"a", true, nil}, "s": []string{"x"}},
			"evidence": at("p", off), "identifier_strategy": IDStrategy{"s", "t"}},
		map[string]any{"evidence": GraphEvidence{Basis: "b", Locations: []GraphLocation{{Path: "p", Offset: nil}, {Path: "q", Offset: &off}}}},
	}
	for _, v := range values {
		if got, want := jagDigest(v), core.MustDigest(v); got != want {
			t.Errorf("jagDigest %s != Digest %s for %v", got, want, v)
		}
	}
}

func TestSourceMapDecoding(t *testing.T) {
	sm, err := parseSourceMap([]byte(`{"version":3,"sources":["a.js","b.js"],"mappings":"AAAA,CAAC;ACCA;;AHAA"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.Segments) != 4 || sm.Segments[2].src != 1 || sm.Segments[2].line != 1 {
		t.Fatalf("segments %+v", sm.Segments)
	}
	if sm.OutOfRange != 1 { // the last segment names source -2
		t.Fatalf("out of range %d", sm.OutOfRange)
	}
	if bad := sm.checkGenerated(3); bad != 1 { // "x\ny\n" is three lines
		t.Fatalf("lines past the end %d", bad)
	}
	for _, bad := range []string{`{"version":2,"sources":[],"mappings":""}`, `{"version":3,"sources":[],"mappings":"g"}`, `not json`,
		`{"sections":[{"offset":{"line":0,"column":0}}]}`} {
		if _, err := parseSourceMap([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if _, ok := resolveSourcePath("dist", "../../etc/passwd"); ok {
		t.Error("a source above the app resolved")
	}
	if p, ok := resolveSourcePath("dist", "../src/a.js"); !ok || p != "src/a.js" {
		t.Errorf("resolve: %q %v", p, ok)
	}
	if b, err := decodeDataURL("data:application/json;charset=utf-8;base64,e30="); err != nil || string(b) != "{}" {
		t.Errorf("data url: %q %v", b, err)
	}
}

func TestCmpUTF16(t *testing.T) {
	// In UTF-16 a surrogate pair (0xD83D ...) sorts before U+FF5E, unlike in code points.
	if cmpUTF16("\U0001F600", "\uFF5E") >= 0 {
		t.Error("a surrogate pair must sort before U+FF5E")
	}
	if cmpUTF16("a", "ab") >= 0 || cmpUTF16("b", "a") <= 0 || cmpUTF16("x", "x") != 0 {
		t.Error("basic order")
	}
}
