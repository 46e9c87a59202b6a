package jsapp

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"rea/ports"
)

// TestCollectionOnceTheLinkFactsAreReleased: with the host's tuning on, a
// graph of collectBeforeSealNodes nodes or more is collected once the link
// facts are let go of (before the source maps phase, whose heap goal would
// otherwise still be the one the linking phases set), and again before the
// seal; without the tuning, never.
func TestCollectionOnceTheLinkFactsAreReleased(t *testing.T) {
	dir := t.TempDir()
	for i := range collectBeforeSealNodes {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", i)), []byte("module.exports = 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "b.js"), []byte("module.exports = 2;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var kept []*ports.JSFacts
	engine := keptFactsEngine{mu: &sync.Mutex{}, kept: &kept}
	var released []bool // at each collection: were the link facts let go of
	was := collectGarbage
	t.Cleanup(func() { collectGarbage = was })
	collectGarbage = func() {
		for _, f := range kept {
			if f.Imports != nil {
				released = append(released, false)
				return
			}
		}
		released = append(released, true)
	}
	analyzedWith(t, dir, engine)
	if len(released) != 0 {
		t.Fatalf("%d collections started with the tuning off", len(released))
	}
	tunedAt70(t)
	kept = nil
	analyzedWith(t, dir, engine)
	if len(released) != 2 || !released[0] || !released[1] || len(kept) <= collectBeforeSealNodes {
		t.Fatalf("collections at %v (link facts released or not) over %d files, want two, both after the release", released, len(kept))
	}
}
