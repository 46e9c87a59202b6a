package asar

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// WriteEntry is one entry to write. Entries are inserted in slice order, the
// order @electron/asar would crawl them: to reproduce its bytes, give them in
// glob's order (localeCompare "en" of the full paths, a directory before its
// contents).
type WriteEntry struct {
	Path string // slash-separated, relative
	Type Type
	// Data is a file's content, unless Open is set, in which case Open is
	// called twice: once to hash, once to copy.
	Data       []byte
	Open       func() (io.ReadCloser, error)
	Executable bool // recorded for packed files only, as @electron/asar does
	// Unpacked keeps a file's bytes out of the archive (or, for a directory,
	// the bytes of the files directly inside it).
	Unpacked bool
	Link     string // for links: the target, relative to the archive root
}

// WriteOptions configures Write. A nil *WriteOptions means the defaults.
type WriteOptions struct {
	// UnpackedDir receives the bytes of unpacked files (and unpacked links as
	// symlinks). When empty, Write leaves them to the caller and WriteFile
	// uses "<name>.unpacked".
	UnpackedDir string
}

// BlockSize is the integrity block size @electron/asar uses.
const BlockSize = 4 << 20

// maxPackedSize is @electron/asar's limit on a packed file's size.
const maxPackedSize = 1<<32 - 1

// WriteFile writes an archive to name and unpacked files beside it.
func WriteFile(name string, files []WriteEntry, opts *WriteOptions) error {
	o := WriteOptions{}
	if opts != nil {
		o = *opts
	}
	if o.UnpackedDir == "" {
		o.UnpackedDir = name + ".unpacked"
	}
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("asar: write: %w", err)
	}
	if err := Write(f, files, &o); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("asar: write: %w", err)
	}
	return nil
}

// Write writes an archive holding files to w, byte-identical to what
// @electron/asar 3.x's createPackageWithOptions writes for the same entries in
// the same order: the same JSON key order (integer-like names first, as in a
// JavaScript object), integrity with 4 MiB blocks, decimal-string offsets and
// pickle padding. Missing parent directories are created. Names are checked as
// a Reader checks them, so Write never produces an archive NewReader rejects
// for its names.
func Write(w io.Writer, files []WriteEntry, opts *WriteOptions) error {
	o := WriteOptions{}
	if opts != nil {
		o = *opts
	}
	b := &builder{root: newObj()}
	b.root.set("files", newObj())
	if err := b.check(files); err != nil {
		return err
	}
	var packed []int
	for i := range files {
		e := &files[i]
		b.index = i
		var err error
		switch e.Type {
		case TypeDir:
			err = b.insertDir(e.Path, e.Unpacked)
		case TypeLink:
			err = b.insertLink(e.Path, e.Unpacked, e.Link)
		case TypeFile:
			var keep bool
			keep, err = b.insertFile(e)
			if keep {
				packed = append(packed, i)
			}
		default:
			err = fmt.Errorf("asar: write %s: unknown entry type %d", e.Path, e.Type)
		}
		if err != nil {
			return err
		}
	}

	var js bytes.Buffer
	writeJSON(&js, b.root)
	n := js.Len()
	padded := (n + 3) &^ 3
	hdr := make([]byte, 16+padded)
	binary.LittleEndian.PutUint32(hdr[0:], 4)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(8+padded))
	binary.LittleEndian.PutUint32(hdr[8:], uint32(4+padded))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(n))
	copy(hdr[16:], js.Bytes())
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("asar: write: %w", err)
	}
	for _, i := range packed {
		e := &files[i]
		if err := copyContent(w, e, b.sizes[i]); err != nil {
			return err
		}
	}
	if o.UnpackedDir != "" {
		return writeUnpacked(o.UnpackedDir, files, b)
	}
	return nil
}

func (b *builder) check(files []WriteEntry) error {
	seen := map[string]bool{}
	folds := map[string]string{}
	b.sizes = make([]int64, len(files))
	b.unpacked = make([]bool, len(files))
	for _, e := range files {
		if err := checkPath(e.Path, 4096); err != nil {
			return fmt.Errorf("asar: write: %w", err)
		}
		if seen[e.Path] {
			return fmt.Errorf("asar: write: %w", &NameError{Name: e.Path, Reason: "duplicate"})
		}
		seen[e.Path] = true
		dir, base := path.Split(e.Path)
		k := dir + "\x00" + foldKey(base)
		if other, ok := folds[k]; ok {
			return fmt.Errorf("asar: write: %w (collides with %q)", &NameError{Name: e.Path, Reason: "case-collision"}, other)
		}
		folds[k] = e.Path
		if e.Type == TypeLink {
			if err := checkPath(e.Link, 4096); err != nil {
				return fmt.Errorf("asar: write %s: link target: %w", e.Path, err)
			}
		}
	}
	return nil
}

// builder mirrors @electron/asar's Filesystem class closely enough that the
// JSON comes out the same.
type builder struct {
	root     *obj
	offset   int64
	sizes    []int64
	unpacked []bool
	index    int
}

func (b *builder) nodeFromDirectory(p string) (*obj, error) {
	cur := b.root
	if p == "" {
		return cur, nil
	}
	for _, d := range strings.Split(p, "/") {
		files, ok := cur.get("files").(*obj)
		if !ok {
			return nil, fmt.Errorf("asar: write %s: %q is not a directory", p, d)
		}
		next, ok := files.get(d).(*obj)
		if !ok {
			next = newObj()
			next.set("files", newObj())
			files.set(d, next)
		}
		cur = next
	}
	return cur, nil
}

func (b *builder) nodeFromPath(p string) (*obj, error) {
	if p == "" {
		return b.root, nil
	}
	dir, name := path.Split(p)
	parent, err := b.nodeFromDirectory(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return nil, err
	}
	files, ok := parent.get("files").(*obj)
	if !ok {
		if parent.has("files") || parent.has("link") || parent.has("size") {
			return nil, fmt.Errorf("asar: write %s: parent is not a directory", p)
		}
		files = newObj()
		parent.set("files", files)
	}
	n, ok := files.get(name).(*obj)
	if !ok {
		n = newObj()
		files.set(name, n)
	}
	return n, nil
}

func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func (b *builder) insertDir(p string, unpack bool) error {
	n, err := b.nodeFromPath(p)
	if err != nil {
		return err
	}
	if unpack {
		n.set("unpacked", true)
	}
	if !n.has("files") {
		n.set("files", newObj())
	}
	return nil
}

func (b *builder) insertLink(p string, unpack bool, link string) error {
	n, err := b.nodeFromPath(p)
	if err != nil {
		return err
	}
	dir, err := b.nodeFromPath(parentDir(p))
	if err != nil {
		return err
	}
	if unpack || dir.get("unpacked") == true {
		n.set("unpacked", true)
		b.unpacked[b.index] = true
	}
	n.set("link", link)
	return nil
}

// insertFile records a file and reports whether its bytes go in the archive.
func (b *builder) insertFile(e *WriteEntry) (bool, error) {
	i := b.index
	dir, err := b.nodeFromPath(parentDir(e.Path))
	if err != nil {
		return false, err
	}
	n, err := b.nodeFromPath(e.Path)
	if err != nil {
		return false, err
	}
	size, in, err := integrity(e)
	if err != nil {
		return false, err
	}
	b.sizes[i] = size
	if e.Unpacked || dir.get("unpacked") == true {
		b.unpacked[i] = true
		n.set("size", size)
		n.set("unpacked", true)
		n.set("integrity", in)
		return false, nil
	}
	if size > maxPackedSize {
		return false, fmt.Errorf("asar: write %s: file size can not be larger than 4.2GB", e.Path)
	}
	n.set("size", size)
	n.set("offset", strconv.FormatInt(b.offset, 10))
	n.set("integrity", in)
	if e.Executable {
		n.set("executable", true)
	}
	b.offset += size
	return true, nil
}

func content(e *WriteEntry) (io.ReadCloser, error) {
	if e.Open == nil {
		return io.NopCloser(bytes.NewReader(e.Data)), nil
	}
	rc, err := e.Open()
	if err != nil {
		return nil, fmt.Errorf("asar: write %s: %w", e.Path, err)
	}
	return rc, nil
}

// integrity hashes a file the way @electron/asar does: the whole file, plus
// each 4 MiB block and then whatever remains, even when nothing does.
func integrity(e *WriteEntry) (int64, *obj, error) {
	rc, err := content(e)
	if err != nil {
		return 0, nil, err
	}
	defer rc.Close()
	whole, blk := sha256.New(), sha256.New()
	var blocks []string
	var size, in int64
	buf := make([]byte, 256<<10)
	for {
		k, err := rc.Read(buf[:min(int64(len(buf)), BlockSize-in)])
		whole.Write(buf[:k])
		blk.Write(buf[:k])
		size += int64(k)
		in += int64(k)
		if in == BlockSize {
			blocks = append(blocks, hex.EncodeToString(blk.Sum(nil)))
			blk.Reset()
			in = 0
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, nil, fmt.Errorf("asar: write %s: %w", e.Path, err)
		}
	}
	blocks = append(blocks, hex.EncodeToString(blk.Sum(nil)))
	o := newObj()
	o.set("algorithm", "SHA256")
	o.set("hash", hex.EncodeToString(whole.Sum(nil)))
	o.set("blockSize", int64(BlockSize))
	o.set("blocks", blocks)
	return size, o, nil
}

func copyContent(w io.Writer, e *WriteEntry, size int64) error {
	rc, err := content(e)
	if err != nil {
		return err
	}
	defer rc.Close()
	n, err := io.Copy(w, io.LimitReader(rc, size))
	if err != nil {
		return fmt.Errorf("asar: write %s: %w", e.Path, err)
	}
	if n != size {
		return fmt.Errorf("asar: write %s: content changed size from %d to %d bytes", e.Path, size, n)
	}
	return nil
}

func writeUnpacked(dir string, files []WriteEntry, b *builder) error {
	for i := range files {
		e := &files[i]
		if !b.unpacked[i] {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("asar: write unpacked %s: %w", e.Path, err)
		}
		if e.Type == TypeLink {
			_ = os.Remove(dst)
			if err := os.Symlink(filepath.FromSlash(relativeLink(e.Path, e.Link)), dst); err != nil {
				return fmt.Errorf("asar: write unpacked %s: %w", e.Path, err)
			}
			continue
		}
		mode := os.FileMode(0o644)
		if e.Executable {
			mode = 0o755
		}
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
		if err != nil {
			return fmt.Errorf("asar: write unpacked %s: %w", e.Path, err)
		}
		err = copyContent(f, e, b.sizes[i])
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("asar: write unpacked %s: %w", e.Path, cerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// obj is a JavaScript object as JSON.stringify sees it: integer-like keys in
// ascending numeric order, then the other keys in insertion order.
type obj struct {
	keys []string
	vals map[string]any
}

func newObj() *obj { return &obj{vals: map[string]any{}} }

func (o *obj) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *obj) get(k string) any { return o.vals[k] }

func (o *obj) has(k string) bool { _, ok := o.vals[k]; return ok }

// arrayIndex reports whether k is a canonical array index (0 to 2^32-2),
// which JavaScript orders before other keys.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	v, err := strconv.ParseUint(k, 10, 64)
	if err != nil || v > 1<<32-2 {
		return 0, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	return v, true
}

func (o *obj) ordered() []string {
	var ints, rest []string
	for _, k := range o.keys {
		if _, ok := arrayIndex(k); ok {
			ints = append(ints, k)
		} else {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(ints, func(a, b string) int {
		x, _ := arrayIndex(a)
		y, _ := arrayIndex(b)
		return cmp.Compare(x, y)
	})
	return append(ints, rest...)
}

func writeJSON(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *obj:
		buf.WriteByte('{')
		for i, k := range v.ordered() {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			writeJSON(buf, v.vals[k])
		}
		buf.WriteByte('}')
	case string:
		writeString(buf, v)
	case int64:
		buf.WriteString(strconv.FormatInt(v, 10))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case []string:
		buf.WriteByte('[')
		for i, s := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, s)
		}
		buf.WriteByte(']')
	default:
		panic(fmt.Sprintf("asar: writeJSON: unexpected %T", v)) // programmer error
	}
}

// writeString quotes s as JSON.stringify does: only '"', '\\' and control
// characters are escaped; '<', '>', '&', U+2028 and U+2029 are not.
func writeString(buf *bytes.Buffer, s string) {
	const hexDigits = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			buf.WriteString(`\"`)
		case c == '\\':
			buf.WriteString(`\\`)
		case c == '\b':
			buf.WriteString(`\b`)
		case c == '\f':
			buf.WriteString(`\f`)
		case c == '\n':
			buf.WriteString(`\n`)
		case c == '\r':
			buf.WriteString(`\r`)
		case c == '\t':
			buf.WriteString(`\t`)
		case c < 0x20:
			buf.WriteString(`\u00`)
			buf.WriteByte(hexDigits[c>>4])
			buf.WriteByte(hexDigits[c&0xf])
		default:
			buf.WriteByte(c)
		}
	}
	buf.WriteByte('"')
}
