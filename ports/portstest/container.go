package portstest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// ContainerSample is a valid container an opener must read.
type ContainerSample struct {
	Name      string // base name handed to Recognize and OpenContainer
	Data      []byte
	Format    string // what Recognize must report
	Companion func(ctx context.Context, name string) (io.ReadCloser, error)
}

// maxRead bounds what the suite reads from one entry of a hostile container.
const maxRead = 1 << 20

// RunContainer checks a ports.ContainerOpener against its contract on
// sample: Recognize reports the sample's format, rejects an empty head and
// survives garbage; the entries have safe, unique, relative paths, known
// kinds, consistent sizes and stored ranges inside the container; every
// readable file yields exactly its declared size and matches a declared
// SHA-256; opening a missing path, a directory or an unsafe name fails with a
// *ports.ContainerError; each ContainerLimits field that the sample exceeds
// (entries, path bytes, entry bytes, total bytes) fails with a
// *ports.ContainerError of reason limit naming that field, when opening or
// at the latest when reading; a cancelled context fails OpenContainer and
// Open with context.Canceled; Close is safe twice; concurrent readers see the
// same bytes; and truncated or corrupted copies of the sample fail with a
// *ports.ContainerError or open into entries that can be read without a
// panic.
func RunContainer(t *testing.T, o ports.ContainerOpener, s ContainerSample) {
	t.Helper()
	ctx := t.Context()
	open := func(ctx context.Context, data []byte, lim ports.ContainerLimits) (c ports.Container, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("OpenContainer panicked on %d bytes: %v", len(data), r)
			}
		}()
		return o.OpenContainer(ctx, ports.ContainerRequest{Name: s.Name, ReaderAt: bytes.NewReader(data), Size: int64(len(data)),
			Companion: s.Companion, Limits: lim})
	}

	t.Run("Recognize", func(t *testing.T) {
		is := is.New(t)
		format, ok := o.Recognize(s.Data[:min(len(s.Data), 4096)], s.Name)
		is.True(ok)
		is.Equal(format, s.Format)
		_, ok = o.Recognize(nil, s.Name)
		is.True(!ok) // an empty head is no container
		for _, head := range [][]byte{{0}, bytes.Repeat([]byte{0xff}, 64), s.Data[:min(len(s.Data), 3)]} {
			noPanic(t, "Recognize", func() { o.Recognize(head, "") })
		}
	})

	var entries []ports.ContainerEntry
	var contents map[string][]byte
	t.Run("Entries", func(t *testing.T) {
		is := is.New(t)
		c, err := open(ctx, s.Data, ports.ContainerLimits{})
		is.NoErr(err)
		defer c.Close()
		entries = c.Entries()
		is.True(len(entries) > 0) // the sample declares entries
		is.NoErr(checkEntries(entries, int64(len(s.Data))))
		contents, err = readAll(ctx, c, s)
		is.NoErr(err)
		for _, e := range entries {
			b, ok := contents[e.Path]
			if !ok {
				continue
			}
			is.Equal(int64(len(b)), e.Size) // a file yields its declared size
			if e.DeclaredSHA256 != "" {
				sum := sha256.Sum256(b)
				is.Equal(hex.EncodeToString(sum[:]), e.DeclaredSHA256) // the declared digest matches the bytes
			}
			if e.Offset >= 0 && e.CompressedSize < 0 {
				is.True(bytes.Equal(s.Data[e.Offset:e.Offset+e.Length], b)) // stored bytes are where Offset says
			}
		}
		is.True(len(contents) > 0) // no file could be read
	})
	if entries == nil {
		return
	}

	t.Run("OpenErrors", func(t *testing.T) {
		c, err := open(ctx, s.Data, ports.ContainerLimits{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		names := []string{"no/such/entry", "", "/etc/passwd", "../outside", "a\\b", "a\x00b"}
		for _, e := range entries {
			if e.Kind == ports.EntryDirectory {
				names = append(names, e.Path)
				break
			}
		}
		for _, name := range names {
			var err error
			noPanic(t, "Open", func() {
				var rc io.ReadCloser
				if rc, err = c.Open(ctx, name); err == nil {
					rc.Close()
				}
			})
			var ce *ports.ContainerError
			if !errors.As(err, &ce) {
				t.Errorf("Open(%q): %v, want a *ports.ContainerError", name, err)
			}
		}
	})

	t.Run("Limits", func(t *testing.T) {
		var files, longest int
		var biggest, total int64
		for _, e := range entries {
			longest = max(longest, len(e.Path))
		}
		for _, b := range contents { // the files the suite can read
			files++
			biggest = max(biggest, int64(len(b)))
			total += int64(len(b))
		}
		cases := []struct {
			limit string
			lim   ports.ContainerLimits
			apply bool
		}{
			{"max_entries", ports.ContainerLimits{MaxEntries: len(entries) - 1}, len(entries) > 1},
			{"max_path_bytes", ports.ContainerLimits{MaxPathBytes: longest - 1}, longest > 1},
			{"max_entry_bytes", ports.ContainerLimits{MaxEntryBytes: biggest - 1}, biggest > 1},
			{"max_total_bytes", ports.ContainerLimits{MaxTotalBytes: total - 1}, files > 1 && total > 1},
		}
		for _, tc := range cases {
			t.Run(tc.limit, func(t *testing.T) {
				if !tc.apply {
					t.Skip("the sample is too small to exceed this limit")
				}
				err := openAndRead(ctx, open, s, tc.lim)
				var ce *ports.ContainerError
				if !errors.As(err, &ce) || ce.Reason != ports.ContainerLimit || ce.Limit != tc.limit {
					t.Errorf("%+v: %v, want a *ports.ContainerError with reason limit and limit %s", tc.lim, err, tc.limit)
				}
			})
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		is := is.New(t)
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := open(cancelled, s.Data, ports.ContainerLimits{})
		is.True(errors.Is(err, context.Canceled)) // OpenContainer under a cancelled context
		c, err := open(ctx, s.Data, ports.ContainerLimits{})
		is.NoErr(err)
		defer c.Close()
		for path := range contents {
			_, err := c.Open(cancelled, path)
			is.True(errors.Is(err, context.Canceled)) // Open under a cancelled context
			break
		}
	})

	t.Run("CloseTwice", func(t *testing.T) {
		is := is.New(t)
		c, err := open(ctx, s.Data, ports.ContainerLimits{})
		is.NoErr(err)
		is.NoErr(c.Close())
		noPanic(t, "second Close", func() { c.Close() })
	})

	t.Run("Concurrent", func(t *testing.T) {
		is := is.New(t)
		c, err := open(ctx, s.Data, ports.ContainerLimits{})
		is.NoErr(err)
		defer c.Close()
		const workers = 4
		got := make([]map[string][]byte, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i := range workers {
			wg.Go(func() { got[i], errs[i] = readAll(ctx, c, s) })
		}
		wg.Wait()
		for i := range workers {
			is.NoErr(errs[i])
			is.True(reflect.DeepEqual(got[i], contents)) // concurrent readers see the same bytes
		}
	})

	t.Run("Hostile", func(t *testing.T) {
		for _, in := range hostileContainers(s.Data) {
			t.Run(in.name, func(t *testing.T) {
				c, err := open(ctx, in.b, ports.ContainerLimits{})
				if err != nil {
					var ce *ports.ContainerError
					if !errors.As(err, &ce) {
						t.Fatalf("OpenContainer: %v, want a *ports.ContainerError", err)
					}
					return
				}
				defer c.Close()
				for _, e := range c.Entries() {
					if e.Kind != ports.EntryFile || e.Unpacked || e.Encrypted {
						continue
					}
					noPanic(t, "reading "+e.Path, func() {
						rc, err := c.Open(ctx, e.Path)
						if err != nil {
							return
						}
						defer rc.Close()
						io.Copy(io.Discard, io.LimitReader(rc, maxRead))
					})
				}
			})
		}
	})
}

// readAll reads every file entry that can be read without a key or a
// missing companion.
func readAll(ctx context.Context, c ports.Container, s ContainerSample) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, e := range c.Entries() {
		if e.Kind != ports.EntryFile || e.Encrypted || (e.Unpacked && s.Companion == nil) {
			continue
		}
		rc, err := c.Open(ctx, e.Path)
		if err != nil {
			return nil, fmt.Errorf("open %q: %w", e.Path, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxRead))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("read %q: %w", e.Path, err)
		}
		out[e.Path] = b
	}
	return out, nil
}

// openAndRead opens the sample within lim and reads every file; the first
// error wins.
func openAndRead(ctx context.Context, open func(context.Context, []byte, ports.ContainerLimits) (ports.Container, error),
	s ContainerSample, lim ports.ContainerLimits) error {
	c, err := open(ctx, s.Data, lim)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = readAll(ctx, c, s)
	return err
}

var entryKinds = map[ports.EntryKind]bool{ports.EntryFile: true, ports.EntryDirectory: true, ports.EntrySymlink: true}

// checkEntries checks the entries of a container of size bytes.
func checkEntries(entries []ports.ContainerEntry, size int64) error {
	seen := map[string]bool{}
	for i, e := range entries {
		if err := checkEntryName(e.Path); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if seen[e.Path] {
			return fmt.Errorf("entry %d: %q listed twice", i, e.Path)
		}
		seen[e.Path] = true
		if !entryKinds[e.Kind] {
			return fmt.Errorf("entry %q: kind %q", e.Path, e.Kind)
		}
		if e.Link != "" && e.Kind != ports.EntrySymlink {
			return fmt.Errorf("entry %q: a link target on a %s", e.Path, e.Kind)
		}
		if e.Size < 0 || e.CompressedSize < -1 || e.Length < 0 {
			return fmt.Errorf("entry %q: negative size %d, compressed size %d or length %d", e.Path, e.Size, e.CompressedSize, e.Length)
		}
		if e.Kind != ports.EntryFile && e.Size != 0 {
			return fmt.Errorf("entry %q: a %s with size %d", e.Path, e.Kind, e.Size)
		}
		if e.Offset < -1 || (e.Offset >= 0 && e.Offset+e.Length > size) {
			return fmt.Errorf("entry %q: stored range [%d, +%d) outside the %d-byte container", e.Path, e.Offset, e.Length, size)
		}
		if e.DeclaredSHA256 != "" && (len(e.DeclaredSHA256) != 64 || strings.ToLower(e.DeclaredSHA256) != e.DeclaredSHA256) {
			return fmt.Errorf("entry %q: declared SHA-256 %q is not lowercase hex", e.Path, e.DeclaredSHA256)
		}
	}
	return nil
}

// hostileContainers are truncations and corruptions of a valid sample.
func hostileContainers(sample []byte) []image {
	var out []image
	for _, n := range []int{0, 4, 8, 12, 16, 17, 32, len(sample) / 2, len(sample) - 1} {
		if n >= 0 && n < len(sample) {
			out = append(out, image{fmt.Sprintf("prefix-%d", n), sample[:n:n]})
		}
	}
	for _, at := range []int{0, 4, 8, 9, 12, 13, 16, 20, 24, 30, len(sample) / 3, len(sample) / 2, len(sample) - 22, len(sample) - 12, len(sample) - 1} {
		if at >= 0 && at < len(sample) {
			b := bytes.Clone(sample)
			b[at] ^= 0xff
			out = append(out, image{fmt.Sprintf("flip-%d", at), b})
		}
	}
	return out
}
