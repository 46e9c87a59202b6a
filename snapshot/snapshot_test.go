package snapshot_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

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
