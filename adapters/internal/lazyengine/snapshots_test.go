package lazyengine_test

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/internal/lazyengine"
	"rea/ports"
	"rea/snapshot"
)

type seen struct{ msgs []string }

func (s *seen) Observe(phase, msg string) { s.msgs = append(s.msgs, phase+": "+msg) }

// TestSnapshots: an answer one session kept is another session's hit (and
// observed as such), not its own; the key partitions; Stop ends reads and
// writes; the zero value keeps nothing.
func TestSnapshots(t *testing.T) {
	is := is.New(t)
	store := snapshot.Store{Root: t.TempDir()}
	key := snapshot.Key{TargetSHA256: "ab", Engine: "e", Build: "1", ProfileDigest: "p"}
	params := map[string]any{"offset": 0, "limit": 500}
	var out []string

	first := &lazyengine.Snapshots{Store: store, Key: key}
	is.True(!first.Get(t.Context(), "list", params, &out))
	first.Put("list", params, json.RawMessage(`["a","b"]`))
	is.True(first.Get(t.Context(), "list", params, &out)) // its own answer
	is.Equal(len(first.Hits()), 0)

	var s seen
	second := &lazyengine.Snapshots{Store: store, Key: key}
	out = nil
	is.True(second.Get(ports.WithProgress(t.Context(), &s), "list", params, &out))
	is.Equal(out, []string{"a", "b"})
	is.Equal(second.Hits(), []string{"list"})
	is.Equal(s.msgs, []string{"analysis_snapshot: " + ports.SnapshotLimitation})
	is.True(!second.Get(t.Context(), "list", map[string]any{"offset": 500, "limit": 500}, &out)) // other parameters

	other := key
	other.ProfileDigest = "q"
	is.True(!(&lazyengine.Snapshots{Store: store, Key: other}).Get(t.Context(), "list", params, &out))

	second.Stop()
	is.True(!second.Get(t.Context(), "list", params, &out))
	second.Put("more", params, json.RawMessage(`[]`))
	is.True(!first.Get(t.Context(), "more", params, &out)) // nothing kept after Stop

	var off lazyengine.Snapshots
	off.Put("list", params, json.RawMessage(`[]`))
	is.True(!off.Get(t.Context(), "list", params, &out))
}
