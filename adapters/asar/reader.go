package asar

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Options bounds what a Reader accepts. A nil *Options or a zero field means
// the default.
type Options struct {
	// UnpackedDir is the companion directory holding unpacked files.
	// Open sets it to "<archive>.unpacked"; with NewReader it is empty unless
	// given, and every unpacked file is then missing.
	UnpackedDir    string
	MaxHeaderBytes int64 // default 64 MiB
	MaxEntries     int   // default 1,000,000
	MaxDepth       int   // directory nesting, default 256
	MaxPathBytes   int   // length of a logical path, default 4096
	// AllowCaseCollisions accepts sibling names that differ only in case
	// ("Pod" and "pod"), which archives built on Linux can hold but which
	// cannot both be extracted on a case-insensitive file system. By default
	// they are a FormatError with reason "path".
	AllowCaseCollisions bool
	// SkipUnsafeNames leaves out, instead of refusing the archive, an entry
	// whose name is unsafe, repeated or (without AllowCaseCollisions) a
	// case collision, or a link whose target leaves the archive or loops,
	// with everything beneath it; Rejected lists them.
	SkipUnsafeNames bool
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = 64 << 20
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = 1_000_000
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = 256
	}
	if c.MaxPathBytes <= 0 {
		c.MaxPathBytes = 4096
	}
	return c
}

// Reader gives access to an archive's entries and contents. It is safe for
// concurrent use once constructed; its data must not change underneath it.
type Reader struct {
	ra         io.ReaderAt
	size       int64
	file       *os.File // set by Open
	root       *node
	byPath     map[string]*node
	entries    []*node // sorted by path
	rejected   []RejectedEntry
	raw        []byte
	dataOffset int64
	unpacked   *os.Root // nil when the companion directory is absent
	opts       Options
}

// Open opens the archive at name, with its companion "<name>.unpacked"
// directory for unpacked files.
func Open(name string) (*Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("asar: open: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("asar: open: %w", err)
	}
	r, err := NewReader(f, st.Size(), &Options{UnpackedDir: name + ".unpacked"})
	if err != nil {
		f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// NewReader parses the archive held in the first size bytes of ra.
func NewReader(ra io.ReaderAt, size int64, opts *Options) (*Reader, error) {
	o := opts.withDefaults()
	h, err := readHeader(ra, size, &o)
	if err != nil {
		return nil, err
	}
	for _, l := range h.links {
		if _, err := resolveLink(h.root, l, 0); err != nil {
			var fe *FormatError
			if !o.SkipUnsafeNames || !errors.As(err, &fe) {
				return nil, err
			}
			l.rejected = cmp.Or(l.rejected, "link-unresolvable")
		}
	}
	var rejected []RejectedEntry
	if o.SkipUnsafeNames {
		h.nodes, rejected = keep(h.nodes)
	}
	r := &Reader{
		rejected:   rejected,
		ra:         ra,
		size:       size,
		root:       h.root,
		raw:        h.raw,
		dataOffset: h.dataOffset,
		entries:    h.nodes,
		byPath:     make(map[string]*node, len(h.nodes)),
		opts:       o,
	}
	for _, n := range h.nodes {
		r.byPath[n.path] = n
		if n.typ == TypeDir {
			n.sorted = make([]*node, 0, len(n.children))
			for _, c := range n.children {
				if c.rejected == "" {
					n.sorted = append(n.sorted, c)
				}
			}
			slices.SortFunc(n.sorted, func(a, b *node) int { return strings.Compare(a.name, b.name) })
		}
	}
	h.root.sorted = make([]*node, 0, len(h.root.children))
	for _, c := range h.root.children {
		if c.rejected == "" {
			h.root.sorted = append(h.root.sorted, c)
		}
	}
	slices.SortFunc(h.root.sorted, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	slices.SortFunc(r.entries, func(a, b *node) int { return strings.Compare(a.path, b.path) })
	if o.UnpackedDir != "" {
		if root, err := os.OpenRoot(o.UnpackedDir); err == nil {
			r.unpacked = root
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("asar: open unpacked directory: %w", err)
		}
	}
	return r, nil
}

// Close releases the archive file opened by Open and the companion directory.
func (r *Reader) Close() error {
	var errs []error
	if r.unpacked != nil {
		errs = append(errs, r.unpacked.Close())
	}
	if r.file != nil {
		errs = append(errs, r.file.Close())
	}
	return errors.Join(errs...)
}

// RejectedEntry is an entry SkipUnsafeNames left out.
type RejectedEntry struct {
	Path   string // as declared: untrusted
	Reason string // a NameError reason, case-collision, or link-<reason> for a link
	Type   Type
	Size   int64 // a file's declared size
	Index  int   // position among the entries declared, in header order
}

// Rejected lists the entries SkipUnsafeNames left out (each one whose own
// name or link is at fault; what lies beneath it went with it), in header
// order.
func (r *Reader) Rejected() []RejectedEntry { return r.rejected }

// keep drops the rejected nodes and those beneath them, and lists the
// rejected ones.
func keep(nodes []*node) ([]*node, []RejectedEntry) {
	var rejected []RejectedEntry
	kept := nodes[:0:0]
	for _, n := range nodes {
		if n.rejected != "" {
			rejected = append(rejected, RejectedEntry{Path: n.path, Reason: n.rejected, Type: n.typ, Size: n.size, Index: n.index})
		}
		// A parent is declared, and so listed, before its children.
		n.dropped = n.rejected != "" || n.parent != nil && n.parent.dropped
		if !n.dropped {
			kept = append(kept, n)
		}
	}
	return kept, rejected
}

// Entries returns every entry, sorted by path in code-point order, so a
// directory precedes its contents.
func (r *Reader) Entries() []Entry {
	out := make([]Entry, len(r.entries))
	for i, n := range r.entries {
		out[i] = n.entry()
	}
	return out
}

// Lookup returns the entry at path without following a final link.
func (r *Reader) Lookup(path string) (Entry, bool) {
	n, ok := r.byPath[path]
	if !ok {
		return Entry{}, false
	}
	return n.entry(), true
}

// DataOffset is where file data starts: 8 plus the header pickle's size.
func (r *Reader) DataOffset() int64 { return r.dataOffset }

// RawHeader returns a copy of the header's JSON text.
func (r *Reader) RawHeader() []byte { return slices.Clone(r.raw) }

// Open returns a file's bytes, following links inside the archive. Packed
// files come back as readers that also implement io.ReaderAt and io.Seeker.
// An unpacked file is read from the companion directory as it is now, which
// may differ from what the header declares (see Verify); when it is absent the
// error wraps ErrUnpackedMissing.
func (r *Reader) Open(name string) (io.ReadCloser, error) {
	n, err := r.fileNode(name, "open")
	if err != nil {
		return nil, err
	}
	return r.openNode(n, name)
}

func (r *Reader) fileNode(name, op string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := lookup(r.root, name, true)
	if n == nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if n.typ != TypeFile {
		return nil, &fs.PathError{Op: op, Path: name, Err: errors.New("not a file")}
	}
	return n, nil
}

// openNode opens a file node's bytes.
func (r *Reader) openNode(n *node, name string) (io.ReadCloser, error) {
	if !n.unpacked {
		return &packedFile{SectionReader: io.NewSectionReader(r.ra, n.offset, n.size)}, nil
	}
	return r.openUnpacked(n, name)
}

func (r *Reader) openUnpacked(n *node, name string) (*os.File, error) {
	missing := &fs.PathError{Op: "open", Path: n.path, Err: ErrUnpackedMissing}
	if r.unpacked == nil {
		return nil, missing
	}
	p := filepath.FromSlash(n.path)
	// Stat first so a FIFO or device planted in the companion directory is
	// never opened.
	st, err := r.unpacked.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("unpacked file is not a regular file (%v)", st.Mode().Type())}
	}
	f, err := r.unpacked.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f, nil
}

// packedFile is a packed file's bytes.
type packedFile struct {
	*io.SectionReader
}

func (*packedFile) Close() error { return nil }
