package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// bndVariedRecords covers the manifests: subjects, environments, a replay
// and a capture, unicode that JCS sorts by UTF-16 and number forms.
func bndVariedRecords(t *testing.T) []*core.Evidence {
	t.Helper()
	v := "0.1.0"
	recs := []*core.Evidence{sample(t, "/usr/bin/ls"), numbered(t, 1, "é\u2028<&>"), numbered(t, 2, "x")}
	replay := &core.Evidence{Provider: core.ProviderRef{ID: "rea", Name: "rea", Version: &v}, Operation: "replay", Authority: "controlled-replay",
		PredicateType: "rea.process-capture", Parameters: json.RawMessage(`{"b":1e2,"a":[1.50,-0,"\ud83d\ude00"],"\u00e9":1,"\ud83d\ude00":2,"z":0.1}`),
		NormalizedResult: json.RawMessage(`{"ok":true}`), Environment: &core.Environment{ID: "vm1", Platform: "linux", Architecture: "x86_64", Isolation: "virtual-machine"},
		Locations: []core.Location{{Kind: "address", Address: "0x10"}, {Kind: "artifact-path", Path: "a/b"}}}
	if err := replay.Seal(); err != nil {
		t.Fatal(err)
	}
	return append(recs, replay)
}

func TestAppendCanonicalEvidenceEqualsCanonicalJSON(t *testing.T) {
	is := is.New(t)
	for _, e := range append(bndVariedRecords(t), bndAnalyzeFunction(t, "int f() { return 1; }", 3)) {
		want, err := e.MarshalCanonical()
		is.NoErr(err)
		got, err := core.AppendCanonicalEvidence(nil, e)
		is.NoErr(err)
		is.Equal(string(got), string(want))
	}
}

func TestWriteBundleStreamsTheCanonicalBundle(t *testing.T) {
	is := is.New(t)
	recs := bndVariedRecords(t)
	var buf bytes.Buffer
	st, err := core.WriteBundle(context.Background(), &buf, core.SourceOf(recs, nil), nil)
	is.NoErr(err)
	b, err := core.NewBundleWith(recs, nil)
	is.NoErr(err)
	want, err := core.CanonicalJSON(b)
	is.NoErr(err)
	is.Equal(buf.String(), string(want))
	is.Equal(st.Bytes, int64(buf.Len()))
	is.Equal(st.Records, len(recs))
	var decoded core.Bundle
	is.NoErr(json.Unmarshal(buf.Bytes(), &decoded))
	is.Equal(len(decoded.Scenarios), 1)
	is.Equal(len(decoded.Captures), 1)
	is.Equal(len(decoded.Environments), 1)
}

func TestWriteBundleRefusesUnsortedSource(t *testing.T) {
	is := is.New(t)
	a, b := numbered(t, 1, "a"), numbered(t, 2, "b")
	if a.EvidenceID < b.EvidenceID {
		a, b = b, a
	}
	src := core.BundleSource{Records: func(yield func(*core.Evidence) bool) { _ = yield(a) && yield(b) }}
	_, err := core.WriteBundle(context.Background(), &bytes.Buffer{}, src, nil)
	is.True(err != nil)
}

func TestWriteBundleStopsWhenCancelled(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := core.WriteBundle(ctx, &bytes.Buffer{}, core.SourceOf([]*core.Evidence{numbered(t, 1, "a")}, nil), nil)
	is.True(errors.Is(err, context.Canceled))
}
