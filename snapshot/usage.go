package snapshot

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Usage is what a cache root holds.
type Usage struct {
	Partitions int
	Bytes      int64
}

// partition is one partition directory with its size and last use.
type partition struct {
	name  string
	bytes int64
	used  time.Time
}

// partitions lists the partition directories of the root (names of 64 hex
// digits; anything else is not the store's and is left alone).
func (s Store) partitions() ([]partition, error) {
	des, err := os.ReadDir(s.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	var out []partition
	for _, de := range des {
		if !de.IsDir() || !isDigest(de.Name()) {
			continue
		}
		p := partition{name: de.Name()}
		files, err := os.ReadDir(filepath.Join(s.Root, de.Name()))
		if err != nil {
			continue // removed meanwhile by another process
		}
		for _, f := range files {
			info, err := f.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			p.bytes += info.Size()
			if info.ModTime().After(p.used) {
				p.used = info.ModTime()
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Usage reports the partitions of the root and their bytes.
func (s Store) Usage() (Usage, error) {
	if !s.Enabled() {
		return Usage{}, nil
	}
	ps, err := s.partitions()
	var u Usage
	for _, p := range ps {
		u.Partitions++
		u.Bytes += p.bytes
	}
	return u, err
}

// Touch marks partition k as used now, so that Trim evicts it last.
func (s Store) Touch(k Key, name string) {
	if s.Enabled() {
		now := time.Now()
		os.Chtimes(s.path(k, name), now, now) // best effort: a missing entry is simply not touched
	}
}

// Trim removes the least recently used partitions, other than keep, until
// the root holds at most max bytes. Several processes may trim at once: a
// partition removed under a reader is read whole or not at all (entries
// are read in one piece; on Unix an open file outlives its name).
func (s Store) Trim(max int64, keep Key) error {
	if !s.Enabled() || max <= 0 {
		return nil
	}
	ps, err := s.partitions()
	if err != nil {
		return err
	}
	var total int64
	for _, p := range ps {
		total += p.bytes
	}
	slices.SortFunc(ps, func(a, b partition) int { return cmp.Or(a.used.Compare(b.used), cmp.Compare(a.name, b.name)) })
	k := keep.Digest()
	for _, p := range ps {
		if total <= max {
			break
		}
		if p.name == k {
			continue
		}
		if err := os.RemoveAll(filepath.Join(s.Root, p.name)); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		total -= p.bytes
	}
	return nil
}

// Clear removes every partition of the root (and nothing else in it).
func (s Store) Clear() (Usage, error) {
	if !s.Enabled() {
		return Usage{}, nil
	}
	ps, err := s.partitions()
	var u Usage
	for _, p := range ps {
		if rerr := os.RemoveAll(filepath.Join(s.Root, p.name)); rerr != nil {
			return u, fmt.Errorf("snapshot: %w", rerr)
		}
		u.Partitions++
		u.Bytes += p.bytes
	}
	return u, err
}
