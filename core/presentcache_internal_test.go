package core

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestPresentationCacheCurrent(t *testing.T) {
	fresh, err := NewDefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WritePresentations(&buf, fresh); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), presentedJSON) {
		t.Fatal("core/presented.json is stale: run `go generate ./core` and commit it")
	}
	cat, err := NewDefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range cat.Operations() {
		if op.cached() == nil {
			t.Fatalf("%s: no current cached presentation", op.Name)
		}
		f, _ := fresh.Lookup(op.Name)
		for _, p := range []SchemaProfile{ProfileFull, ProfileCompact} {
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
	cat, err := NewDefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	op, _ := cat.Lookup("list_segments")
	if op.cached() == nil {
		t.Fatal("list_segments is not cached")
	}
	op.Input = json.RawMessage(`{"type":"object","description":"changed","additionalProperties":false}`)
	if op.cached() != nil {
		t.Fatal("a changed input schema still uses the cache")
	}
	if !bytes.Contains(op.AdvertisedInput(ProfileFull), []byte("changed")) {
		t.Fatal("the changed input schema was not presented")
	}
}
