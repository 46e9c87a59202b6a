package core_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"rea/core"
	"rea/core/standard"
)

func TestPresentationCacheCurrent(t *testing.T) {
	fresh, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := core.WritePresentations(&buf, fresh); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), core.PresentedJSON) {
		t.Fatal("core/presented.json is stale: run `go generate ./core` and commit it")
	}
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range cat.Operations() {
		if !core.Cached(op) {
			t.Fatalf("%s: no current cached presentation", op.Name)
		}
		f, _ := fresh.Lookup(op.Name)
		for _, p := range []core.SchemaProfile{core.ProfileFull, core.ProfileCompact} {
			if !bytes.Equal(op.AdvertisedInput(p), f.AdvertisedInput(p)) || op.Presentation(p) != f.Presentation(p) {
				t.Fatalf("%s: cached %s presentation differs", op.Name, p)
			}
		}
		if !bytes.Equal(op.OutputSchema(), f.OutputSchema()) || !bytes.Equal(op.CompleteOutputSchema(), f.CompleteOutputSchema()) {
			t.Fatalf("%s: cached output schemas differ", op.Name)
		}
	}
}

// A changed declaration is presented afresh, never from a stale cache.
func TestPresentationCacheFingerprint(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	op, _ := cat.Lookup("list_segments")
	if !core.Cached(op) {
		t.Fatal("list_segments is not cached")
	}
	op.Input = json.RawMessage(`{"type":"object","description":"changed","additionalProperties":false}`)
	if core.Cached(op) {
		t.Fatal("a changed input schema still uses the cache")
	}
	if !bytes.Contains(op.AdvertisedInput(core.ProfileFull), []byte("changed")) {
		t.Fatal("the changed input schema was not presented")
	}
}
