package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxEntryBytes bounds one entry (the spec's snapshot file limit).
const MaxEntryBytes = 64 << 20

// ErrTooLarge: an entry over MaxEntryBytes was neither written nor read.
var ErrTooLarge = errors.New("snapshot entry too large")

// Key names one partition: the same target bytes analysed by the same
// engine build under the same analysis profile.
type Key struct {
	TargetSHA256  string `json:"target_sha256"`
	Engine        string `json:"engine"`
	Build         string `json:"build"`
	ProfileDigest string `json:"profile_digest"`
}

// Digest is the partition's directory name: hex SHA-256 of the key's JSON.
func (k Key) Digest() string {
	b, _ := json.Marshal(k) // a struct of strings always encodes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Store is a cache root. The zero value is disabled: Get misses and Put does
// nothing. Safe for concurrent use by several processes: writes are atomic
// renames, and the last writer of an entry wins with identical content.
type Store struct {
	Root string
}

// Enabled reports whether s has a root.
func (s Store) Enabled() bool { return s.Root != "" }

func (s Store) path(k Key, name string) string {
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(s.Root, k.Digest(), hex.EncodeToString(sum[:])+".entry")
}

// Get returns the entry name of partition k, and false when there is none.
// A symlink, a non-regular file or an entry over MaxEntryBytes is an error,
// never followed or read.
func (s Store) Get(k Key, name string) ([]byte, bool, error) {
	if !s.Enabled() {
		return nil, false, nil
	}
	p := s.path(k, name)
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("snapshot: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("snapshot: %s is not a regular file", p)
	}
	if st.Size() > MaxEntryBytes {
		return nil, false, fmt.Errorf("snapshot: %s: %w", p, ErrTooLarge)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, false, fmt.Errorf("snapshot: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxEntryBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("snapshot: %w", err)
	}
	if len(b) > MaxEntryBytes {
		return nil, false, fmt.Errorf("snapshot: %s: %w", p, ErrTooLarge)
	}
	return b, true, nil
}

// Put writes the entry name of partition k atomically (mode 0600).
func (s Store) Put(k Key, name string, data []byte) error {
	if !s.Enabled() {
		return nil
	}
	if len(data) > MaxEntryBytes {
		return fmt.Errorf("snapshot: %s: %w", name, ErrTooLarge)
	}
	dir := filepath.Join(s.Root, k.Digest())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	f, err := os.CreateTemp(dir, ".staging-*")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path(k, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// Invalidate removes partition k and everything in it.
func (s Store) Invalidate(k Key) error {
	if !s.Enabled() {
		return nil
	}
	if err := os.RemoveAll(filepath.Join(s.Root, k.Digest())); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}
