package portstest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"

	"rea/ports"
)

// FakeOpener is a working ports.ContainerOpener for a tiny archive format
// of its own ("fake-archive", built by [FakeArchive]): magic "REAFAKEA", a
// little-endian uint32 entry count, then per entry a uint16 path length, the
// path, a kind byte (0 file, 1 directory, 2 symlink), a uint32 length and
// that many bytes (a file's contents or a link's target). It checks names
// and enforces every ContainerLimits field while parsing and reading, like
// a real adapter. It is stateless and safe for concurrent use.
type FakeOpener struct{}

var _ ports.ContainerOpener = FakeOpener{}

const (
	fakeArchiveMagic  = "REAFAKEA"
	fakeArchiveFormat = "fake-archive"
)

// FakeArchiveEntry is one entry of a fake archive.
type FakeArchiveEntry struct {
	Path string
	Kind ports.EntryKind // file when empty
	Data []byte          // a file's contents
	Link string          // a symlink's target
}

// FakeArchive encodes entries in FakeOpener's format, as given (unsafe or
// duplicate names included, so tests can build hostile archives).
func FakeArchive(entries ...FakeArchiveEntry) []byte {
	var b bytes.Buffer
	b.WriteString(fakeArchiveMagic)
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(entries))))
	for _, e := range entries {
		b.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(e.Path))))
		b.WriteString(e.Path)
		data, kind := e.Data, byte(0)
		switch e.Kind {
		case ports.EntryDirectory:
			kind, data = 1, nil
		case ports.EntrySymlink:
			kind, data = 2, []byte(e.Link)
		}
		b.WriteByte(kind)
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(data))))
		b.Write(data)
	}
	return b.Bytes()
}

// Recognize reports "fake-archive" for the magic.
func (FakeOpener) Recognize(head []byte, _ string) (string, bool) {
	if bytes.HasPrefix(head, []byte(fakeArchiveMagic)) {
		return fakeArchiveFormat, true
	}
	return "", false
}

func archiveError(reason, path, limit string, err error) *ports.ContainerError {
	return &ports.ContainerError{Format: fakeArchiveFormat, Reason: reason, Path: path, Limit: limit, Err: err}
}

// OpenContainer parses the entry table within req.Limits.
func (FakeOpener) OpenContainer(ctx context.Context, req ports.ContainerRequest) (ports.Container, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: open: %w", fakeArchiveFormat, err)
	}
	if req.ReaderAt == nil || req.Size < 0 {
		return nil, archiveError(ports.ContainerIO, "", "", errors.New("no bytes"))
	}
	sr := io.NewSectionReader(req.ReaderAt, 0, req.Size)
	head := make([]byte, len(fakeArchiveMagic)+4)
	if _, err := io.ReadFull(sr, head); err != nil || string(head[:8]) != fakeArchiveMagic {
		return nil, archiveError(ports.ContainerFormat, "", "", errors.New("no fake-archive header"))
	}
	lim := req.Limits
	n := int64(binary.LittleEndian.Uint32(head[8:]))
	if lim.MaxEntries > 0 && n > int64(lim.MaxEntries) {
		return nil, archiveError(ports.ContainerLimit, "", "max_entries", fmt.Errorf("%d entries", n))
	}
	c := &fakeContainer{r: req.ReaderAt, limits: lim, byPath: map[string]int{}}
	off := int64(len(head))
	var total int64
	for i := int64(0); i < n; i++ {
		var fixed [2]byte
		if _, err := sr.ReadAt(fixed[:], off); err != nil {
			return nil, archiveError(ports.ContainerFormat, "", "", fmt.Errorf("entry %d at offset %d: truncated", i, off))
		}
		plen := int64(binary.LittleEndian.Uint16(fixed[:]))
		if lim.MaxPathBytes > 0 && plen > int64(lim.MaxPathBytes) {
			return nil, archiveError(ports.ContainerLimit, "", "max_path_bytes", fmt.Errorf("entry %d: %d-byte path", i, plen))
		}
		rest := make([]byte, plen+5)
		if _, err := sr.ReadAt(rest, off+2); err != nil {
			return nil, archiveError(ports.ContainerFormat, "", "", fmt.Errorf("entry %d at offset %d: truncated", i, off))
		}
		name := string(rest[:plen])
		kind, size := rest[plen], int64(binary.LittleEndian.Uint32(rest[plen+1:]))
		dataAt := off + 2 + plen + 5
		if size > req.Size-dataAt {
			return nil, archiveError(ports.ContainerFormat, name, "", fmt.Errorf("entry %d: %d bytes declared beyond the archive", i, size))
		}
		if err := checkEntryName(name); err != nil {
			return nil, archiveError(ports.ContainerPath, name, "", err)
		}
		if _, dup := c.byPath[name]; dup {
			return nil, archiveError(ports.ContainerPath, name, "", errors.New("duplicate entry"))
		}
		if lim.MaxDepth > 0 && strings.Count(name, "/")+1 > lim.MaxDepth {
			return nil, archiveError(ports.ContainerLimit, name, "max_depth", errors.New("too deep"))
		}
		e := ports.ContainerEntry{Path: name, CompressedSize: -1, Offset: -1}
		switch kind {
		case 0:
			if lim.MaxEntryBytes > 0 && size > lim.MaxEntryBytes {
				return nil, archiveError(ports.ContainerLimit, name, "max_entry_bytes", fmt.Errorf("%d bytes", size))
			}
			if total += size; lim.MaxTotalBytes > 0 && total > lim.MaxTotalBytes {
				return nil, archiveError(ports.ContainerLimit, name, "max_total_bytes", fmt.Errorf("%d bytes in all", total))
			}
			e.Kind, e.Size, e.Offset, e.Length = ports.EntryFile, size, dataAt, size
		case 1:
			if size != 0 {
				return nil, archiveError(ports.ContainerFormat, name, "", errors.New("a directory with contents"))
			}
			e.Kind = ports.EntryDirectory
		case 2:
			link := make([]byte, size)
			if _, err := sr.ReadAt(link, dataAt); err != nil {
				return nil, archiveError(ports.ContainerFormat, name, "", errors.New("truncated link"))
			}
			e.Kind, e.Link = ports.EntrySymlink, string(link)
		default:
			return nil, archiveError(ports.ContainerFormat, name, "", fmt.Errorf("entry kind %d", kind))
		}
		c.byPath[name] = len(c.entries)
		c.entries = append(c.entries, e)
		off = dataAt + size
	}
	return c, nil
}

// checkEntryName rejects the names no container may declare.
func checkEntryName(name string) error {
	switch {
	case name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
		return fmt.Errorf("name %q is empty or absolute", name)
	case strings.ContainsAny(name, "\\\x00"):
		return fmt.Errorf("name %q holds a backslash or NUL", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("name %q has an empty, . or .. component", name)
		}
	}
	return nil
}

type fakeContainer struct {
	r       io.ReaderAt
	limits  ports.ContainerLimits
	entries []ports.ContainerEntry
	byPath  map[string]int
	closed  atomic.Bool
}

func (c *fakeContainer) Entries() []ports.ContainerEntry {
	out := make([]ports.ContainerEntry, len(c.entries))
	copy(out, c.entries)
	return out
}

func (c *fakeContainer) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: open %q: %w", fakeArchiveFormat, name, err)
	}
	if c.closed.Load() {
		return nil, archiveError(ports.ContainerIO, name, "", fs.ErrClosed)
	}
	i, ok := c.byPath[name]
	if !ok || c.entries[i].Kind != ports.EntryFile {
		return nil, archiveError(ports.ContainerFormat, name, "", fmt.Errorf("not a file in the archive: %w", fs.ErrNotExist))
	}
	e := c.entries[i]
	return io.NopCloser(io.NewSectionReader(c.r, e.Offset, e.Length)), nil
}

// Close is safe to call more than once.
func (c *fakeContainer) Close() error {
	c.closed.Store(true)
	return nil
}
