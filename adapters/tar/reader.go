package tar

import (
	stdtar "archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"rea/ports"
)

// limits are ports.ContainerLimits with the adapter's defaults, those of
// adapters/zip.
type limits struct {
	maxEntries    int
	maxEntryBytes int64
	maxTotalBytes int64
	maxRatio      int64
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
		maxRatio:      pick(l.MaxCompressionRatio, 1000),
		maxDepth:      int(pick(int64(l.MaxDepth), 1<<20)),
		maxPathBytes:  int(pick(int64(l.MaxPathBytes), 4096)),
	}
}

// span locates a file's bytes in the container (plain tar) or the spool.
type span struct{ off, size int64 }

// declared is one entry as the archive declares it, before names are
// checked against each other.
type declared struct {
	name   string // as declared
	path   string // cleaned: no trailing slash, no leading "./"
	index  int
	kind   ports.EntryKind
	hard   bool // a hard link: a file whose bytes are those of the entry link names
	link   string
	exec   bool
	data   span
	reason string // why it is left out, or ""
}

// container is an open tar archive.
type container struct {
	format   string
	lim      limits
	entries  []ports.ContainerEntry
	rejected []ports.RejectedEntry
	files    map[string]span
	data     io.ReaderAt // the archive (plain tar) or the spool
	spool    *os.File
	spoolRm  string // the spool's name when it could not be unlinked at once
	read     atomic.Int64
	release  func()
	once     sync.Once
}

var _ ports.Container = (*container)(nil)
var _ ports.EntryRejecter = (*container)(nil)

func (c *container) indexBytes() int64 {
	n := int64(len(c.entries)+len(c.rejected)) * int64(unsafe.Sizeof(ports.ContainerEntry{})+unsafe.Sizeof(span{})+48)
	for _, e := range c.entries {
		n += int64(2*len(e.Path) + len(e.Link))
	}
	for _, e := range c.rejected {
		n += int64(len(e.Name))
	}
	return n
}

func open(ctx context.Context, format string, req ports.ContainerRequest) (*container, error) {
	c := &container{format: format, lim: withDefaults(req.Limits), files: map[string]span{}}
	src := io.NewSectionReader(req.ReaderAt, 0, req.Size)
	var decls []declared
	var err error
	if format == FormatTar {
		c.data = req.ReaderAt
		decls, err = c.index(ctx, stdtar.NewReader(src), src, req.Size, nil)
	} else {
		decls, err = c.indexCompressed(ctx, src, req.Size)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	if err := c.resolve(decls); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// indexCompressed decompresses the archive once, through a reader that
// stops at MaxCompressionRatio, spooling every file's bytes.
func (c *container) indexCompressed(ctx context.Context, src io.Reader, size int64) ([]declared, error) {
	var dec io.Reader
	switch c.format {
	case FormatGzip:
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, c.formatErr("", fmt.Errorf("gzip header: %w", err))
		}
		defer zr.Close()
		dec = zr
	case FormatZstd:
		release, err := ports.Reserve(ctx, "the zstd decoder's window", maxWindow+(1<<20))
		if err != nil {
			return nil, err
		}
		defer release()
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return nil, c.formatErr("", fmt.Errorf("zstd header: %w", err))
		}
		defer zr.Close()
		dec = zr
	}
	f, err := os.CreateTemp("", "rea-tar-*.spool")
	if err != nil {
		return nil, &ports.ContainerError{Format: c.format, Reason: ports.ContainerIO, Err: fmt.Errorf("spool: %w", err)}
	}
	c.spool, c.data = f, f
	if os.Remove(f.Name()) != nil {
		c.spoolRm = f.Name() // removed at Close instead
	}
	br := &boundReader{ctx: ctx, r: dec, max: ratioBound(size, c.lim.maxRatio), format: c.format}
	decls, err := c.index(ctx, stdtar.NewReader(br), nil, -1, f)
	if br.err != nil {
		return nil, br.err // the ratio or a done ctx, whatever tar made of it
	}
	return decls, err
}

// boundReader yields at most max decompressed bytes and stops when ctx is
// done; err keeps why it stopped.
type boundReader struct {
	ctx    context.Context
	r      io.Reader
	n, max int64
	format string
	err    error
}

func (b *boundReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if err := b.ctx.Err(); err != nil {
		b.err = err
		return 0, err
	}
	k, err := b.r.Read(p)
	b.n += int64(k)
	if b.n > b.max {
		b.err = ports.ContainerLimitError(b.format, "max_compression_ratio", "", b.n, b.max, "bytes decompressed")
		return 0, b.err
	}
	return k, err
}

// index reads every header. With seek (a plain tar of size bytes), a file's
// data offset is where the reader stands after its header; with spool, its
// bytes are copied there.
func (c *container) index(ctx context.Context, tr *stdtar.Reader, seek io.Seeker, size int64, spool *os.File) ([]declared, error) {
	var decls []declared
	var total, spooled int64
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, stdtar.ErrInsecurePath) {
			return nil, c.formatErr("", err)
		}
		if h.Typeflag == stdtar.TypeXGlobalHeader {
			continue // archive-wide pax records (git archive writes one), not an entry
		}
		if len(decls) >= c.lim.maxEntries {
			return nil, ports.ContainerLimitError(c.format, "max_entries", "", int64(len(decls)+1), int64(c.lim.maxEntries), "entries")
		}
		if len(h.Name) > c.lim.maxPathBytes {
			return nil, ports.ContainerLimitError(c.format, "max_path_bytes", h.Name, int64(len(h.Name)), int64(c.lim.maxPathBytes), "bytes of name")
		}
		d := declared{name: h.Name, index: i, kind: ports.EntryFile}
		var dir bool
		d.path, dir = clean(h.Name)
		if d.path == "" && dir && h.Typeflag == stdtar.TypeDir {
			continue // "./": the archive's root
		}
		d.reason = ports.UnsafeName(d.path)
		switch h.Typeflag {
		case stdtar.TypeReg, stdtar.TypeCont:
			d.exec, d.data = h.Mode&0o111 != 0, span{-1, h.Size}
			if isSparse(h) {
				d.reason = "sparse"
				break
			}
			if h.Size > c.lim.maxEntryBytes {
				return nil, ports.ContainerLimitError(c.format, "max_entry_bytes", h.Name, h.Size, c.lim.maxEntryBytes, "bytes")
			}
			if d.reason != "" {
				break // its bytes are skipped, not kept
			}
			if total += h.Size; total > c.lim.maxTotalBytes {
				return nil, ports.ContainerLimitError(c.format, "max_total_bytes", h.Name, total, c.lim.maxTotalBytes, "bytes declared")
			}
			if seek != nil {
				off, err := seek.Seek(0, io.SeekCurrent)
				if err != nil {
					return nil, &ports.ContainerError{Format: c.format, Reason: ports.ContainerIO, Path: h.Name, Err: err}
				}
				if h.Size > size-off {
					return nil, c.formatErr(h.Name, fmt.Errorf("its %d bytes run past the end of the %d-byte archive", h.Size, size))
				}
				d.data = span{off, h.Size}
				break
			}
			n, err := io.CopyN(spool, tr, h.Size)
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = fmt.Errorf("its data ends after %d of the %d bytes its header declares: %w", n, h.Size, io.ErrUnexpectedEOF)
				}
				return nil, c.formatErr(h.Name, err)
			}
			d.data = span{spooled, h.Size}
			spooled += h.Size
		case stdtar.TypeLink:
			d.hard, d.link = true, h.Linkname
		case stdtar.TypeSymlink:
			d.kind, d.link = ports.EntrySymlink, h.Linkname
			if d.reason == "" && (!utf8.ValidString(h.Linkname) || strings.IndexByte(h.Linkname, 0) >= 0) {
				d.reason = "link-utf8"
			}
		case stdtar.TypeDir:
			d.kind = ports.EntryDirectory
		default: // devices, FIFOs, volume labels...: no bytes to offer
			if d.reason == "" {
				d.reason = "special"
			}
		}
		if dir && d.kind != ports.EntryDirectory && d.reason == "" {
			d.reason = "empty" // "name/" declared as something other than a directory
		}
		if len(d.link) > c.lim.maxPathBytes {
			return nil, ports.ContainerLimitError(c.format, "max_path_bytes", h.Name, int64(len(d.link)), int64(c.lim.maxPathBytes), "bytes of link target")
		}
		if d.reason == "" && strings.Count(d.path, "/")+1 > c.lim.maxDepth {
			return nil, ports.ContainerLimitError(c.format, "max_depth", h.Name, int64(strings.Count(d.path, "/")+1), int64(c.lim.maxDepth), "levels")
		}
		decls = append(decls, d)
	}
	return decls, nil
}

// isSparse reports a GNU sparse file, old or pax style.
func isSparse(h *stdtar.Header) bool {
	if h.Typeflag == stdtar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// resolve leaves out every copy of a name declared twice (a directory twice
// apart), files used as directories and hard links that do not lead to a
// file listed before them, and gives each hard link its target's bytes.
func (c *container) resolve(decls []declared) error {
	seen := make(map[string]ports.EntryKind, len(decls))
	shared := map[string]bool{}
	for _, d := range decls {
		if d.reason != "" {
			continue
		}
		if k, ok := seen[d.path]; ok && (k != ports.EntryDirectory || d.kind != ports.EntryDirectory) {
			shared[d.path] = true
		}
		seen[d.path] = d.kind
	}
	kinds := map[string]ports.EntryKind{}
	for i := range decls {
		d := &decls[i]
		if d.reason == "" && shared[d.path] {
			d.reason = "duplicate"
		}
		if d.reason == "" {
			kinds[d.path] = d.kind
		}
	}
	asDir := map[string]bool{}
	for name := range kinds {
		for p := parent(name); p != ""; p = parent(p) {
			if k, ok := kinds[p]; ok && k != ports.EntryDirectory {
				asDir[p] = true
			}
		}
	}
	listed := map[string]bool{}
	var total int64
	for i := range decls {
		d := &decls[i]
		if d.reason == "" && asDir[d.path] {
			d.reason = "file-as-directory"
		}
		if d.reason == "" && d.hard {
			target, _ := clean(d.link)
			s, ok := c.files[target]
			if !ok || ports.UnsafeName(target) != "" {
				d.reason = "hardlink"
			} else {
				d.data = s
			}
		}
		if d.reason != "" {
			e := ports.RejectedEntry{Name: d.name, Index: d.index, Reason: d.reason, Kind: d.kind, CompressedSize: -1}
			if d.kind == ports.EntryFile {
				e.Size = d.data.size
			}
			c.rejected = append(c.rejected, e)
			continue
		}
		if d.kind == ports.EntryDirectory && listed[d.path] {
			continue // a directory declared twice is harmless
		}
		listed[d.path] = true
		e := ports.ContainerEntry{Path: d.path, Kind: d.kind, CompressedSize: -1, Offset: -1}
		switch d.kind {
		case ports.EntryFile:
			e.Size, e.Executable = d.data.size, d.exec
			if total += d.data.size; total > c.lim.maxTotalBytes {
				return ports.ContainerLimitError(c.format, "max_total_bytes", d.name, total, c.lim.maxTotalBytes, "bytes declared")
			}
			if c.spool == nil {
				e.Offset, e.Length = d.data.off, d.data.size
			}
			c.files[d.path] = d.data
		case ports.EntrySymlink:
			e.Link = d.link
		}
		c.entries = append(c.entries, e)
	}
	return nil
}

// Entries lists the entries in the order the archive declares them, those
// left out apart.
func (c *container) Entries() []ports.ContainerEntry { return c.entries }

// Rejected lists the entries left out, in the order the archive declares
// them.
func (c *container) Rejected() []ports.RejectedEntry { return c.rejected }

// Open returns a file's bytes (a hard link's are its target's), bounded by
// MaxEntryBytes and, over every Open, MaxTotalBytes.
func (c *container) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, ok := c.files[name]
	if !ok {
		return nil, c.formatErr(name, errors.New("not a file in the archive"))
	}
	return &ports.EntryReader{Format: c.format, Path: name, R: io.NewSectionReader(c.data, s.off, s.size), MaxEntry: c.lim.maxEntryBytes, MaxTotal: c.lim.maxTotalBytes, Total: &c.read}, nil
}

// Close releases the spool and the index's memory; it may be called twice.
func (c *container) Close() error {
	var err error
	c.once.Do(func() {
		if c.release != nil {
			c.release()
		}
		if c.spool != nil {
			err = c.spool.Close()
			if c.spoolRm != "" {
				os.Remove(c.spoolRm)
			}
		}
	})
	return err
}

// ratioBound is the most bytes a compressed archive of size bytes may
// decompress to.
func ratioBound(size, ratio int64) int64 {
	s := max(size, 1)
	if s > (1<<62)/ratio {
		return 1 << 62
	}
	return s * ratio
}

// clean drops a directory's trailing slash and leading "./" components,
// which tar writes for "tar -cf x.tar ." ("./", "./src/a.js").
func clean(name string) (string, bool) {
	p, dir := strings.CutSuffix(name, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "." {
		p = ""
	}
	return p, dir
}

func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func (c *container) formatErr(name string, err error) error {
	return &ports.ContainerError{Format: c.format, Reason: ports.ContainerFormat, Path: name, Err: err}
}
