package snapshot_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/snapshot"
)

func TestStore(t *testing.T) {
	is := is.New(t)
	s := snapshot.Store{Root: t.TempDir()}
	k := snapshot.Key{TargetSHA256: "ab", Engine: "ghidra", Build: "12.1.4", ProfileDigest: "p1"}
	_, ok, err := s.Get(k, "list_segments {}")
	is.NoErr(err)
	is.True(!ok) // empty store misses
	is.NoErr(s.Put(k, "list_segments {}", []byte(`[1]`)))
	b, ok, err := s.Get(k, "list_segments {}")
	is.NoErr(err)
	is.True(ok)
	is.Equal(string(b), `[1]`)

	for _, other := range []snapshot.Key{
		{TargetSHA256: "cd", Engine: "ghidra", Build: "12.1.4", ProfileDigest: "p1"},
		{TargetSHA256: "ab", Engine: "ghidra", Build: "12.1.5", ProfileDigest: "p1"},
		{TargetSHA256: "ab", Engine: "ghidra", Build: "12.1.4", ProfileDigest: "p2"},
		{TargetSHA256: "ab", Engine: "native", Build: "12.1.4", ProfileDigest: "p1"},
	} {
		_, ok, err := s.Get(other, "list_segments {}")
		is.NoErr(err)
		is.True(!ok) // any part of the key is a different partition
	}
	is.NoErr(s.Invalidate(k))
	_, ok, _ = s.Get(k, "list_segments {}")
	is.True(!ok) // invalidated by key

	var disabled snapshot.Store
	is.NoErr(disabled.Put(k, "x", []byte("1")))
	_, ok, _ = disabled.Get(k, "x")
	is.True(!ok) // the zero store is disabled
}

func TestStoreRefusesSymlinks(t *testing.T) {
	is := is.New(t)
	root := t.TempDir()
	s := snapshot.Store{Root: root}
	k := snapshot.Key{TargetSHA256: "ab"}
	is.NoErr(s.Put(k, "n", []byte("1")))
	entries, _ := filepath.Glob(filepath.Join(root, k.Digest(), "*.entry"))
	is.Equal(len(entries), 1)
	secret := filepath.Join(t.TempDir(), "secret")
	is.NoErr(os.WriteFile(secret, []byte("s"), 0o600))
	is.NoErr(os.Remove(entries[0]))
	is.NoErr(os.Symlink(secret, entries[0]))
	_, ok, err := s.Get(k, "n")
	is.True(!ok)
	is.True(err != nil) // a symlinked entry is an error, never followed
	is.True(!errors.Is(err, snapshot.ErrTooLarge))
	info, err := os.Stat(filepath.Join(root, k.Digest()))
	is.NoErr(err)
	is.Equal(info.Mode().Perm(), os.FileMode(0o700))
}

// Trim evicts the least recently used partitions down to the bound, never
// the one kept; Usage and Clear see only the store's partitions.
func TestTrimUsageClear(t *testing.T) {
	is := is.New(t)
	s := snapshot.Store{Root: t.TempDir()}
	keys := make([]snapshot.Key, 4)
	for i := range keys {
		keys[i] = snapshot.Key{TargetSHA256: fmt.Sprint(i), Engine: "e", Build: "b", ProfileDigest: "p"}
		is.NoErr(s.Put(keys[i], "x", make([]byte, 1000)))
		old := time.Now().Add(time.Duration(i-10) * time.Hour)
		is.NoErr(os.Chtimes(filepath.Join(s.Root, keys[i].Digest()), old, old))
		entries, err := os.ReadDir(filepath.Join(s.Root, keys[i].Digest()))
		is.NoErr(err)
		for _, e := range entries {
			is.NoErr(os.Chtimes(filepath.Join(s.Root, keys[i].Digest(), e.Name()), old, old))
		}
	}
	is.NoErr(os.WriteFile(filepath.Join(s.Root, "not-a-partition"), []byte("keep me"), 0o600))
	u, err := s.Usage()
	is.NoErr(err)
	is.Equal(u, snapshot.Usage{Partitions: 4, Bytes: 4000})
	s.Touch(keys[0], "x")           // the oldest becomes the newest
	is.NoErr(s.Trim(3500, keys[1])) // keys[1] is the oldest now but kept
	for i, want := range []bool{true, true, false, true} {
		_, ok, err := s.Get(keys[i], "x")
		is.NoErr(err)
		is.Equal(ok, want) // keys[2], the least recently used not kept, is evicted
	}
	u, err = s.Clear()
	is.NoErr(err)
	is.Equal(u, snapshot.Usage{Partitions: 3, Bytes: 3000})
	_, err = os.Stat(filepath.Join(s.Root, "not-a-partition"))
	is.NoErr(err)
}
