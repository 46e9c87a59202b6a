package zip

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"rea/ports"
)

// Options bound what a Reader accepts. A nil *Options or a zero field means
// the default.
type Options struct {
	MaxEntries          int   // default 100,000
	MaxEntryBytes       int64 // one entry's uncompressed bytes, default 4 GiB
	MaxTotalBytes       int64 // all entries' uncompressed bytes, default 16 GiB
	MaxCompressionRatio int64 // uncompressed / compressed bytes of one entry, default 1000
	MaxPathBytes        int   // length of an entry name, default 4096
	// SkipUnsafeNames leaves entries with unsafe, duplicate or
	// file-as-directory names out of Entries and lists them in Rejected,
	// instead of failing the whole archive with a NameError.
	SkipUnsafeNames bool
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = 100_000
	}
	if c.MaxEntryBytes <= 0 {
		c.MaxEntryBytes = 4 << 30
	}
	if c.MaxTotalBytes <= 0 {
		c.MaxTotalBytes = 16 << 30
	}
	if c.MaxCompressionRatio <= 0 {
		c.MaxCompressionRatio = 1000
	}
	if c.MaxPathBytes <= 0 {
		c.MaxPathBytes = 4096
	}
	return c
}

// NameError reports an entry name that is unsafe as a relative path.
type NameError struct {
	Name   string
	Reason string // empty, dot, dot-dot, absolute, backslash, nul, utf8, duplicate, file-as-directory
}

func (e *NameError) Error() string { return fmt.Sprintf("unsafe entry name %q: %s", e.Name, e.Reason) }

// LimitError reports an entry or archive beyond a limit in Options. Value is
// what was declared or, while reading, what had been read when the limit
// tripped.
type LimitError struct {
	Limit string // max_entries, max_entry_bytes, max_total_bytes, max_compression_ratio, max_path_bytes
	Name  string // entry name, if any
	Value int64
	Max   int64
}

func (e *LimitError) Error() string {
	s := fmt.Sprintf("%s exceeded: %d > %d", e.Limit, e.Value, e.Max)
	if e.Name != "" {
		s += fmt.Sprintf(" (entry %q)", e.Name)
	}
	return s
}

// Reader is an open ZIP archive. It is safe for concurrent use.
type Reader struct {
	z        *stdzip.Reader
	opts     Options
	entries  []ports.ContainerEntry
	rejected []ports.RejectedEntry // with SkipUnsafeNames
	files    map[string]*stdzip.File
	read     atomic.Int64 // uncompressed bytes yielded by every Open
	closer   io.Closer
	release  func() // the memory reservation of the index (Opener), or nil
}

// indexBytes estimates what the reader holds per entry: archive/zip's File,
// the entry, the name map and the names.
func (r *Reader) indexBytes() int64 {
	n := int64(len(r.z.File)) * (int64(unsafe.Sizeof(stdzip.File{})) + int64(unsafe.Sizeof(ports.ContainerEntry{})) + 48)
	for _, f := range r.z.File {
		n += int64(2*len(f.Name) + len(f.Comment) + len(f.Extra))
	}
	return n
}

var _ ports.Container = (*Reader)(nil)

// NewReader reads the central directory of the archive held in the first
// size bytes of ra and checks every name and declared size.
func NewReader(ra io.ReaderAt, size int64, opts *Options) (*Reader, error) {
	o := opts.withDefaults()
	z, err := stdzip.NewReader(ra, size)
	if err != nil && !errors.Is(err, stdzip.ErrInsecurePath) {
		// ErrInsecurePath comes with a usable reader; our own checks below
		// give the typed reason.
		return nil, &ports.ContainerError{Format: "zip", Reason: ports.ContainerFormat, Err: err}
	}
	if len(z.File) > o.MaxEntries {
		return nil, limitErr(&LimitError{Limit: "max_entries", Value: int64(len(z.File)), Max: int64(o.MaxEntries)})
	}
	r := &Reader{z: z, opts: o, files: make(map[string]*stdzip.File, len(z.File))}
	kinds := map[string]ports.EntryKind{}
	index := map[string]int{} // an entry's position in the central directory, with SkipUnsafeNames
	// A name two entries share is ambiguous (tools disagree on which one
	// wins): when skipping, every copy is left out.
	var shared map[string]bool
	if o.SkipUnsafeNames {
		shared = sharedNames(z.File)
	}
	var total int64
	for i, f := range z.File {
		name, isDir := strings.CutSuffix(f.Name, "/")
		if len(f.Name) > o.MaxPathBytes {
			return nil, limitErr(&LimitError{Limit: "max_path_bytes", Name: f.Name, Value: int64(len(f.Name)), Max: int64(o.MaxPathBytes)})
		}
		reason := ports.UnsafeName(name)
		if reason == "" && shared[name] {
			reason = "duplicate"
		}
		if reason != "" {
			if !o.SkipUnsafeNames {
				return nil, nameErr(f.Name, reason)
			}
			r.reject(f, i, reason)
			continue
		}
		mode := f.Mode()
		e := ports.ContainerEntry{Path: name, Kind: ports.EntryFile, CompressedSize: int64(f.CompressedSize64),
			Offset: -1, Encrypted: f.Flags&0x1 != 0}
		switch {
		case isDir || mode.IsDir():
			e.Kind, e.CompressedSize = ports.EntryDirectory, -1
		case mode&fs.ModeSymlink != 0:
			e.Kind = ports.EntrySymlink
		default:
			e.Size = int64(f.UncompressedSize64)
			e.Executable = mode&0o111 != 0
			if f.UncompressedSize64 > uint64(o.MaxEntryBytes) {
				return nil, limitErr(&LimitError{Limit: "max_entry_bytes", Name: name, Value: clamp(f.UncompressedSize64), Max: o.MaxEntryBytes})
			}
			if f.UncompressedSize64 > uint64(ratioBound(int64(f.CompressedSize64), o.MaxCompressionRatio)) {
				return nil, limitErr(&LimitError{Limit: "max_compression_ratio", Name: name,
					Value: clamp(f.UncompressedSize64) / max(int64(f.CompressedSize64), 1), Max: o.MaxCompressionRatio})
			}
			total += e.Size
			if total > o.MaxTotalBytes {
				return nil, limitErr(&LimitError{Limit: "max_total_bytes", Name: name, Value: total, Max: o.MaxTotalBytes})
			}
		}
		if e.Kind != ports.EntryDirectory {
			if off, err := f.DataOffset(); err == nil {
				e.Offset, e.Length = off, int64(f.CompressedSize64)
			}
		}
		if prev, dup := kinds[name]; dup {
			if prev == ports.EntryDirectory && e.Kind == ports.EntryDirectory {
				continue // a directory listed twice is harmless
			}
			return nil, nameErr(f.Name, "duplicate")
		}
		kinds[name] = e.Kind
		r.files[name] = f
		r.entries = append(r.entries, e)
		if o.SkipUnsafeNames {
			index[name] = i // for a rejection found after the loop
		}
	}
	// A path used both as a file and as a parent directory cannot be
	// materialized.
	var asDir map[string]bool
	for name := range kinds {
		for p := parent(name); p != ""; p = parent(p) {
			if k, ok := kinds[p]; ok && k != ports.EntryDirectory {
				if !o.SkipUnsafeNames {
					return nil, nameErr(p, "file-as-directory")
				}
				if asDir == nil {
					asDir = map[string]bool{}
				}
				asDir[p] = true
			}
		}
	}
	if asDir != nil {
		// The file is left out; the entries beneath the name keep it as
		// their (implicit) directory.
		kept := r.entries[:0]
		for _, e := range r.entries {
			if asDir[e.Path] {
				r.reject(r.files[e.Path], index[e.Path], "file-as-directory")
				delete(r.files, e.Path)
				continue
			}
			kept = append(kept, e)
		}
		r.entries = kept
	}
	kept := r.entries[:0]
	for _, e := range r.entries {
		if e.Kind == ports.EntrySymlink {
			target, err := r.readLink(r.files[e.Path])
			var ne *NameError
			if err != nil && o.SkipUnsafeNames && errors.As(err, &ne) {
				// A link whose target is not text is left out as a bad
				// name is: what it points at cannot be recorded.
				r.reject(r.files[e.Path], index[e.Path], "link-"+ne.Reason)
				delete(r.files, e.Path)
				continue
			}
			if err != nil {
				return nil, err
			}
			e.Link = target
		}
		kept = append(kept, e)
	}
	r.entries = kept
	return r, nil
}

// Open opens the archive at name.
func Open(name string, opts *Options) (*Reader, error) {
	f, err := openFile(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &ports.ContainerError{Format: "zip", Reason: ports.ContainerIO, Err: err}
	}
	r, err := NewReader(f, st.Size(), opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Entries lists every entry in central-directory order (with
// SkipUnsafeNames, those not rejected).
func (r *Reader) Entries() []ports.ContainerEntry { return r.entries }

// Rejected lists the entries SkipUnsafeNames left out, in central-directory
// order except that files used as directories come last.
func (r *Reader) Rejected() []ports.RejectedEntry { return r.rejected }

func (r *Reader) reject(f *stdzip.File, index int, reason string) {
	e := ports.RejectedEntry{Name: f.Name, Index: index, Reason: reason, Kind: ports.EntryFile, Size: clamp(f.UncompressedSize64), CompressedSize: clamp(f.CompressedSize64)}
	switch mode := f.Mode(); {
	case strings.HasSuffix(f.Name, "/") || mode.IsDir():
		e.Kind, e.Size, e.CompressedSize = ports.EntryDirectory, 0, -1
	case mode&fs.ModeSymlink != 0:
		e.Kind = ports.EntrySymlink
	}
	r.rejected = append(r.rejected, e)
}

// sharedNames are the names more than one entry declares, a directory
// listed twice apart.
func sharedNames(files []*stdzip.File) map[string]bool {
	seen := make(map[string]bool, len(files)) // name -> declared as a file (or link)
	var shared map[string]bool
	for _, f := range files {
		name, isDir := strings.CutSuffix(f.Name, "/")
		file := !isDir && !f.Mode().IsDir()
		if wasFile, ok := seen[name]; ok && (file || wasFile) {
			if shared == nil {
				shared = map[string]bool{}
			}
			shared[name] = true
		}
		seen[name] = seen[name] || file
	}
	return shared
}

// Close closes the file opened by Open.
func (r *Reader) Close() error {
	if r.release != nil {
		r.release()
		r.release = nil
	}
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Open returns an entry's uncompressed bytes. The reader fails with a
// LimitError as soon as it has yielded more than MaxEntryBytes, more than
// MaxCompressionRatio times the stored size, or, across every Open of this
// Reader, more than MaxTotalBytes; archive/zip itself rejects bytes beyond
// the declared size and a wrong CRC-32.
func (r *Reader) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, ok := r.files[name]
	if !ok || f.Mode().IsDir() || strings.HasSuffix(f.Name, "/") {
		return nil, &ports.ContainerError{Format: "zip", Reason: ports.ContainerFormat, Path: name, Err: errors.New("not a file in the archive")}
	}
	if f.Flags&0x1 != 0 {
		return nil, &ports.ContainerError{Format: "zip", Reason: ports.ContainerUnavailable, Path: name, Err: errors.New("entry is encrypted")}
	}
	rc, err := f.Open()
	if err != nil {
		reason := ports.ContainerFormat
		if errors.Is(err, stdzip.ErrAlgorithm) {
			reason = ports.ContainerUnavailable
		}
		return nil, &ports.ContainerError{Format: "zip", Reason: reason, Path: name, Err: err}
	}
	return &boundedReader{rc: rc, r: r, name: name, declared: f.UncompressedSize64,
		maxEntry: r.opts.MaxEntryBytes, maxRatio: ratioBound(int64(f.CompressedSize64), r.opts.MaxCompressionRatio)}, nil
}

func (r *Reader) readLink(f *stdzip.File) (string, error) {
	rc, err := r.Open(context.Background(), strings.TrimSuffix(f.Name, "/"))
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, int64(r.opts.MaxPathBytes)+1))
	if err != nil {
		return "", err
	}
	if len(b) > r.opts.MaxPathBytes {
		return "", limitErr(&LimitError{Limit: "max_path_bytes", Name: f.Name, Value: int64(len(b)), Max: int64(r.opts.MaxPathBytes)})
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return "", nameErr(f.Name, "utf8")
	}
	return string(b), nil
}

// boundedReader counts what it yields and stops at the limits, whatever the
// headers say.
type boundedReader struct {
	rc       io.ReadCloser
	r        *Reader
	name     string
	n        int64
	declared uint64 // the uncompressed size the headers declare
	maxEntry int64
	maxRatio int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	k, err := b.rc.Read(p)
	if k > 0 {
		b.n += int64(k)
		total := b.r.read.Add(int64(k))
		switch {
		case b.n > b.maxEntry:
			return 0, limitErr(&LimitError{Limit: "max_entry_bytes", Name: b.name, Value: b.n, Max: b.maxEntry})
		case b.n > b.maxRatio:
			return 0, limitErr(&LimitError{Limit: "max_compression_ratio", Name: b.name, Value: b.n, Max: b.maxRatio})
		case total > b.r.opts.MaxTotalBytes:
			return 0, limitErr(&LimitError{Limit: "max_total_bytes", Name: b.name, Value: total, Max: b.r.opts.MaxTotalBytes})
		}
	}
	if err != nil && err != io.EOF {
		err = &ports.ContainerError{Format: "zip", Reason: ports.ContainerFormat, Path: b.name, Err: b.explain(err)}
	}
	return k, err
}

// explain says what archive/zip's errors about an entry's data mean: its
// ErrFormat is data past the declared size (reading stops there), its
// io.ErrUnexpectedEOF data short of it, its ErrChecksum a CRC mismatch.
// The error stays reachable with errors.Is.
func (b *boundedReader) explain(err error) error {
	switch {
	case errors.Is(err, stdzip.ErrFormat):
		return fmt.Errorf("its data runs past the %d bytes its header declares (a forged size, as ZIP bombs use, or a damaged archive); reading stopped there: %w", b.declared, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("its data ends after %d of the %d bytes its header declares (a truncated or damaged archive): %w", b.n, b.declared, err)
	case errors.Is(err, stdzip.ErrChecksum):
		return fmt.Errorf("its data does not match the CRC-32 its header declares (damaged or altered): %w", err)
	}
	return err
}

func (b *boundedReader) Close() error { return b.rc.Close() }

// ratioBound is the most bytes an entry stored in compressed bytes may
// yield; a stored size of 0 counts as 1 so an empty entry stays bounded.
func ratioBound(compressed, ratio int64) int64 {
	c := max(compressed, 1)
	if c > (1<<62)/ratio {
		return 1 << 62
	}
	return c * ratio
}

func clamp(v uint64) int64 {
	if v > 1<<62 {
		return 1 << 62
	}
	return int64(v)
}

func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func nameErr(name, reason string) error {
	return &ports.ContainerError{Format: "zip", Reason: ports.ContainerPath, Path: name, Err: &NameError{Name: name, Reason: reason}}
}

func limitErr(e *LimitError) error {
	return &ports.ContainerError{Format: "zip", Reason: ports.ContainerLimit, Path: e.Name, Limit: e.Limit, Err: e}
}
