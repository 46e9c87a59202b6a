package asar

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sync"
	"sync/atomic"

	"rea/ports"
)

// Opener is the ports.ContainerOpener for ASAR archives: it lets core build an
// artifact graph of an archive without knowing the format. Unpacked files are
// read through the request's Companion ("<name>.unpacked/<path>"), never
// from the file system directly, so the caller decides where they may come
// from. An Opener is stateless and safe for concurrent use.
type Opener struct{}

var _ ports.ContainerOpener = Opener{}

// Recognize reports "asar" for the ASAR prefix: a size pickle holding 4,
// then a header pickle whose JSON starts with an object.
func (Opener) Recognize(head []byte, name string) (string, bool) {
	if len(head) < 17 || binary.LittleEndian.Uint32(head) != 4 {
		return "", false
	}
	n := binary.LittleEndian.Uint32(head[12:])
	if n < 2 || head[16] != '{' {
		return "", false
	}
	return "asar", true
}

// OpenContainer parses the archive's header within req.Limits.
func (Opener) OpenContainer(ctx context.Context, req ports.ContainerRequest) (ports.Container, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := &Options{MaxEntries: req.Limits.MaxEntries, MaxDepth: req.Limits.MaxDepth, MaxPathBytes: req.Limits.MaxPathBytes, SkipUnsafeNames: true}
	// The header is read whole and parsed into a tree kept while the
	// container is open: charge three times its declared size (checked
	// against the archive's size and MaxHeaderBytes by NewReader) first.
	var prefix [8]byte
	release := func() {}
	if n, _ := req.ReaderAt.ReadAt(prefix[:], 0); n == len(prefix) && req.Size > 8 {
		hs := min(int64(binary.LittleEndian.Uint32(prefix[4:])), req.Size-8)
		var err error
		if release, err = ports.Reserve(ctx, "the ASAR header", 3*hs); err != nil {
			return nil, err
		}
	}
	r, err := NewReader(req.ReaderAt, req.Size, o)
	if err != nil {
		release()
		return nil, containerError(err)
	}
	c := &container{r: r, req: req, release: sync.OnceFunc(release)}
	for _, e := range r.Entries() {
		ce := ports.ContainerEntry{Path: e.Path, Executable: e.Executable, Unpacked: e.Unpacked, CompressedSize: -1, Offset: -1}
		switch e.Type {
		case TypeDir:
			ce.Kind = ports.EntryDirectory
		case TypeLink:
			ce.Kind, ce.Link = ports.EntrySymlink, e.Link
		default:
			ce.Kind, ce.Size = ports.EntryFile, e.Size
			if !e.Unpacked {
				ce.Offset, ce.Length = e.Offset, e.Size
			}
			if in := e.Integrity; in != nil && in.Algorithm == "SHA256" && isHex64(in.Hash) {
				ce.DeclaredSHA256 = in.Hash
			}
		}
		c.entries = append(c.entries, ce)
	}
	for _, e := range r.Rejected() {
		re := ports.RejectedEntry{Name: e.Path, Index: e.Index, Reason: e.Reason, Kind: ports.EntryFile, Size: e.Size, CompressedSize: -1}
		switch e.Type {
		case TypeDir:
			re.Kind, re.Size = ports.EntryDirectory, 0
		case TypeLink:
			re.Kind, re.Size = ports.EntrySymlink, 0
		}
		c.rejected = append(c.rejected, re)
	}
	return c, nil
}

type container struct {
	r        *Reader
	req      ports.ContainerRequest
	entries  []ports.ContainerEntry
	rejected []ports.RejectedEntry
	read     atomic.Int64 // bytes yielded by every Open, for MaxTotalBytes
	release  func()       // the header's memory reservation
}

func (c *container) Entries() []ports.ContainerEntry { return c.entries }

// Rejected lists the entries left out for unsafe names or links
// (ports.EntryRejecter).
func (c *container) Rejected() []ports.RejectedEntry { return c.rejected }

func (c *container) Close() error {
	c.release()
	return c.r.Close()
}

// Open returns a packed file's bytes from the archive, or an unpacked file's
// from the companion. A missing companion is reason unavailable.
func (c *container) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, ok := c.r.Lookup(name)
	if !ok || e.Type != TypeFile {
		return nil, &ports.ContainerError{Format: "asar", Reason: ports.ContainerFormat, Path: name, Err: errors.New("not a file in the archive")}
	}
	if !e.Unpacked {
		rc, err := c.r.Open(name)
		if err != nil {
			return nil, err
		}
		return c.bounded(rc, name), nil
	}
	missing := &ports.ContainerError{Format: "asar", Reason: ports.ContainerUnavailable, Path: name, Err: ErrUnpackedMissing}
	if c.req.Companion == nil {
		return nil, missing
	}
	rc, err := c.req.Companion(ctx, path.Join(c.req.Name+".unpacked", name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing
	}
	if err != nil {
		return nil, &ports.ContainerError{Format: "asar", Reason: ports.ContainerUnavailable, Path: name, Err: err}
	}
	return c.bounded(rc, name), nil
}

// bounded enforces the request's MaxEntryBytes and MaxTotalBytes (across
// every Open of the container) on what a reader yields, whatever the header
// declares: an unpacked companion can be larger than its entry says.
func (c *container) bounded(rc io.ReadCloser, name string) io.ReadCloser {
	l := c.req.Limits
	if l.MaxEntryBytes <= 0 && l.MaxTotalBytes <= 0 {
		return rc
	}
	return &boundedReader{rc: rc, c: c, name: name}
}

type boundedReader struct {
	rc   io.ReadCloser
	c    *container
	name string
	n    int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	k, err := b.rc.Read(p)
	if k > 0 {
		b.n += int64(k)
		total := b.c.read.Add(int64(k))
		l := b.c.req.Limits
		limit := ""
		switch {
		case l.MaxEntryBytes > 0 && b.n > l.MaxEntryBytes:
			limit = "max_entry_bytes"
		case l.MaxTotalBytes > 0 && total > l.MaxTotalBytes:
			limit = "max_total_bytes"
		}
		if limit != "" {
			return 0, &ports.ContainerError{Format: "asar", Reason: ports.ContainerLimit, Path: b.name, Limit: limit,
				Err: errors.New("more bytes than the limit allows")}
		}
	}
	return k, err
}

func (b *boundedReader) Close() error { return b.rc.Close() }

// containerError classifies a Reader error for core.
func containerError(err error) error {
	var fe *FormatError
	if !errors.As(err, &fe) {
		return &ports.ContainerError{Format: "asar", Reason: ports.ContainerIO, Err: err}
	}
	ce := &ports.ContainerError{Format: "asar", Reason: ports.ContainerFormat, Path: fe.Path, Err: formatDetail{fe, err}}
	var ne *NameError
	switch {
	case errors.As(err, &ne) && ne.Reason == "too-long":
		ce.Reason, ce.Limit = ports.ContainerLimit, "max_path_bytes"
	case fe.Reason == ReasonPath || fe.Reason == ReasonLink:
		ce.Reason = ports.ContainerPath
	case fe.Reason == ReasonDepth:
		ce.Reason, ce.Limit = ports.ContainerLimit, "max_depth"
	case fe.Reason == ReasonLimit:
		ce.Reason, ce.Limit = ports.ContainerLimit, "max_entries"
		if fe.Path == "" {
			ce.Limit = "max_header_bytes" // only the header size is checked before any entry
		}
	}
	return ce
}

// formatDetail is a *FormatError as a *ports.ContainerError carries it: the
// container error already names the format, the reason and the entry, so
// this says only the problem and where in the archive it was found. It
// unwraps to the error it came from, so errors.As still finds the
// *FormatError.
type formatDetail struct {
	fe  *FormatError
	err error
}

func (d formatDetail) Error() string {
	return fmt.Sprintf("%s (archive byte %d)", d.fe.Msg, d.fe.Offset)
}

func (d formatDetail) Unwrap() error { return d.err }

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
