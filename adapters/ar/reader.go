package ar

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"rea/adapters/internal/arfile"
	"rea/ports"
)

// limits are ports.ContainerLimits with the adapter's defaults, those of
// adapters/zip and adapters/tar.
type limits struct {
	maxEntries    int
	maxEntryBytes int64
	maxTotalBytes int64
	maxDepth      int
	maxPathBytes  int
}

func withDefaults(l ports.ContainerLimits) limits {
	pick := func(v, def int64) int64 {
		if v <= 0 {
			return def
		}
		return v
	}
	return limits{
		maxEntries:    int(pick(int64(l.MaxEntries), 100_000)),
		maxEntryBytes: pick(l.MaxEntryBytes, 4<<30),
		maxTotalBytes: pick(l.MaxTotalBytes, 16<<30),
		maxDepth:      int(pick(int64(l.MaxDepth), 1<<20)),
		maxPathBytes:  int(pick(int64(l.MaxPathBytes), 4096)),
	}
}

// maxNames bounds the GNU long-name table, as adapters/native does.
const maxNames = 16 << 20

// span locates a member's bytes in the archive.
type span struct{ off, size int64 }

// declared is one member as the archive declares it.
type declared struct {
	name   string
	index  int
	data   span
	exec   bool
	reason string // why it is left out, or ""
}

// container is an open ar archive, read in place.
type container struct {
	lim      limits
	entries  []ports.ContainerEntry
	rejected []ports.RejectedEntry
	files    map[string]span
	data     io.ReaderAt
	read     atomic.Int64
	release  func()
	once     sync.Once
}

var _ ports.Container = (*container)(nil)
var _ ports.EntryRejecter = (*container)(nil)

func (c *container) indexBytes() int64 {
	n := int64(len(c.entries)+len(c.rejected)) * int64(unsafe.Sizeof(ports.ContainerEntry{})+unsafe.Sizeof(span{})+48)
	for _, e := range c.entries {
		n += int64(2 * len(e.Path))
	}
	for _, e := range c.rejected {
		n += int64(len(e.Name))
	}
	return n
}

func open(ctx context.Context, req ports.ContainerRequest) (*container, error) {
	c := &container{lim: withDefaults(req.Limits), files: map[string]span{}, data: req.ReaderAt}
	var decls []declared
	var total int64
	err := arfile.Walk(req.ReaderAt, req.Size, arfile.Limits{Names: maxNames, Name: int64(c.lim.maxPathBytes)}, func(m arfile.Member) error {
		if len(decls)%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if len(decls) >= c.lim.maxEntries {
			return ports.ContainerLimitError(Format, "max_entries", "", int64(len(decls)+1), int64(c.lim.maxEntries), "members")
		}
		if len(m.Name) > c.lim.maxPathBytes {
			return ports.ContainerLimitError(Format, "max_path_bytes", m.Name, int64(len(m.Name)), int64(c.lim.maxPathBytes), "bytes of name")
		}
		if m.Size > c.lim.maxEntryBytes {
			return ports.ContainerLimitError(Format, "max_entry_bytes", m.Name, m.Size, c.lim.maxEntryBytes, "bytes")
		}
		d := declared{name: m.Name, index: len(decls), data: span{m.Off, m.Size}, exec: m.Mode&0o111 != 0, reason: ports.UnsafeName(m.Name)}
		if d.reason == "" {
			if total += m.Size; total > c.lim.maxTotalBytes {
				return ports.ContainerLimitError(Format, "max_total_bytes", m.Name, total, c.lim.maxTotalBytes, "bytes declared")
			}
			if depth := strings.Count(m.Name, "/") + 1; depth > c.lim.maxDepth {
				return ports.ContainerLimitError(Format, "max_depth", m.Name, int64(depth), int64(c.lim.maxDepth), "levels")
			}
		}
		decls = append(decls, d)
		return nil
	})
	var ae *arfile.Error
	switch {
	case errors.Is(err, arfile.ErrThin):
		return nil, &ports.ContainerError{Format: Format, Reason: ports.ContainerUnavailable, Err: err}
	case errors.As(err, &ae) && ae.Limit == "name":
		return nil, &ports.ContainerError{Format: Format, Reason: ports.ContainerLimit, Limit: "max_path_bytes", Err: err}
	case ae != nil:
		return nil, &ports.ContainerError{Format: Format, Reason: ports.ContainerFormat, Err: err}
	case err != nil:
		return nil, err // a ContainerError of ours, or a done ctx
	}
	if err := c.resolve(decls); err != nil {
		return nil, err
	}
	return c, nil
}

// resolve names the members. The first member of a name keeps it; the
// k-th (k >= 2) is listed as "name~k" (what "ar xN k" extracts), unless
// another member is declared under that name or it is over MaxPathBytes,
// when it is left out as a duplicate. Files whose names other members use
// as a directory are left out too.
func (c *container) resolve(decls []declared) error {
	declaredNames := make(map[string]bool, len(decls))
	for _, d := range decls {
		if d.reason == "" {
			declaredNames[d.name] = true
		}
	}
	copies := map[string]int{}
	paths := make([]string, len(decls))
	taken := make(map[string]bool, len(decls))
	for i, d := range decls {
		if d.reason != "" {
			continue
		}
		copies[d.name]++
		p := d.name
		if k := copies[d.name]; k > 1 {
			p = d.name + "~" + strconv.Itoa(k)
			if declaredNames[p] || taken[p] || len(p) > c.lim.maxPathBytes {
				decls[i].reason = "duplicate"
				continue
			}
		}
		paths[i], taken[p] = p, true
	}
	asDir := map[string]bool{}
	for p := range taken {
		for q := parent(p); q != ""; q = parent(q) {
			asDir[q] = true
		}
	}
	for i := range decls {
		d := &decls[i]
		if d.reason == "" && asDir[paths[i]] {
			d.reason = "file-as-directory"
		}
		if d.reason != "" {
			c.rejected = append(c.rejected, ports.RejectedEntry{Name: d.name, Index: d.index, Reason: d.reason, Kind: ports.EntryFile, Size: d.data.size, CompressedSize: -1})
			continue
		}
		c.entries = append(c.entries, ports.ContainerEntry{Path: paths[i], Kind: ports.EntryFile, Size: d.data.size, CompressedSize: -1,
			Executable: d.exec, Offset: d.data.off, Length: d.data.size})
		c.files[paths[i]] = d.data
	}
	return nil
}

// Entries lists the members in the order the archive declares them, those
// left out apart.
func (c *container) Entries() []ports.ContainerEntry { return c.entries }

// Rejected lists the members left out, in the order the archive declares
// them.
func (c *container) Rejected() []ports.RejectedEntry { return c.rejected }

// Open returns a member's bytes, bounded by MaxEntryBytes and, over every
// Open, MaxTotalBytes.
func (c *container) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, ok := c.files[name]
	if !ok {
		return nil, &ports.ContainerError{Format: Format, Reason: ports.ContainerFormat, Path: name, Err: errors.New("not a member of the archive")}
	}
	return &ports.EntryReader{Format: Format, Path: name, R: io.NewSectionReader(c.data, s.off, s.size), MaxEntry: c.lim.maxEntryBytes, MaxTotal: c.lim.maxTotalBytes, Total: &c.read}, nil
}

// Close releases the index's memory; it may be called twice.
func (c *container) Close() error {
	c.once.Do(func() {
		if c.release != nil {
			c.release()
		}
	})
	return nil
}

func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
