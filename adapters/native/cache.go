package native

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"rea/ports"
	"rea/snapshot"
)

// The warm cache: a completed whole-file discovery is kept in a
// rea/snapshot store (Options.CacheDir) keyed by the file's SHA-256, the
// analysis code (the running executable's Go build ID, else its SHA-256,
// so that a rebuilt rea never reads what another build computed) and the profile, and the
// next open of the same bytes reads it instead of discovering again. What
// is kept is what discovery decides (procedures, ranges, which ranges yield
// references, functions that do not return, counts); everything else is
// recomputed from the file as on a cold open, so results are identical.
// A cut-short computation is never stored; an entry that does not decode
// is ignored.

// cacheEntry is the entry's name inside its partition.
const cacheEntry = "discovery"

// cacheMagic opens every entry; its last byte is the format version.
var cacheMagic = []byte("rea-native-discovery\x03") // 3: procedures' IFunc

// DefaultCacheMaxBytes bounds the cache root when Options.CacheMaxBytes is 0.
const DefaultCacheMaxBytes = 2 << 30

var (
	buildOnce sync.Once
	buildID   string
)

// codeBuild identifies the analysis code: the Go build ID of the
// executable running it (the go command's content hash of the linked
// binary, which it writes into the binary), else the executable's SHA-256,
// or "" when neither can be read (the cache is then not used). Reading the
// ID takes a page of the file; hashing rea's 38 MB executable took 25-30 ms
// of every CLI process that opened a binary.
func codeBuild() string {
	buildOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		if id := goBuildID(f); id != "" {
			buildID = Version + "+go:" + id
			return
		}
		h := sha256.New()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return
		}
		if _, err := io.Copy(h, f); err != nil {
			return
		}
		buildID = Version + "+" + hex.EncodeToString(h.Sum(nil))
	})
	return buildID
}

// goBuildIDHead is how much of an executable goBuildID reads: the go
// command's own reader looks as far.
const goBuildIDHead = 32 << 10

// goBuildID returns the Go build ID an executable's first 32 KB hold, or
// "". An ELF file holds it as a note (owner "Go", type 4) near the start;
// Mach-O and PE files at the start of their text, as
// "\xff Go build ID: \"ID\"\n \xff". An ID with no content part (built with
// -ldflags=-buildid=) identifies nothing and is not used.
func goBuildID(r io.Reader) string {
	head := make([]byte, goBuildIDHead)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	var id []byte
	if i := bytes.Index(head, []byte("\xff Go build ID: \"")); i >= 0 {
		rest := head[i+len("\xff Go build ID: \""):]
		if j := bytes.IndexByte(rest, '"'); j >= 0 {
			id = rest[:j]
		}
	} else {
		for off := 0; id == nil; {
			i := bytes.Index(head[off:], []byte("Go\x00\x00"))
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			if i < 12 {
				continue
			}
			for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				h := head[i-12 : i]
				size := int(bo.Uint32(h[4:]))
				if bo.Uint32(h) == 4 && bo.Uint32(h[8:]) == 4 && size > 0 && size <= 256 && i+4+size <= len(head) {
					id = head[i+4 : i+4+size]
					break
				}
			}
		}
	}
	s := string(id)
	parts := strings.Split(s, "/")
	if len(parts) < 2 || parts[len(parts)-1] == "" {
		return ""
	}
	for _, c := range s {
		if c <= ' ' || c > '~' || c == '"' {
			return ""
		}
	}
	return s
}

// cacheKey is the partition of this analysis, or false when the cache is
// off or the file cannot be digested.
func (a *Analysis) cacheKey(ctx context.Context) (snapshot.Key, bool) {
	if a.opts.CacheDir == "" || a.file == nil {
		return snapshot.Key{}, false
	}
	build := codeBuild()
	if build == "" {
		return snapshot.Key{}, false
	}
	sum := a.sha256
	if len(sum) != 64 {
		var err error
		if sum, err = a.digest(ctx); err != nil {
			return snapshot.Key{}, false
		}
	}
	prof := sha256.Sum256(fmt.Appendf(nil, "max_string_bytes=%d min_string_chars=%d%s", a.opts.MaxStringBytes, a.opts.MinStringChars, a.debugKey()+a.libraryKey()))
	return snapshot.Key{TargetSHA256: sum, Engine: ID, Build: build, ProfileDigest: hex.EncodeToString(prof[:])}, true
}

// digest is the SHA-256 of the file's bytes, read through a buffer rather
// than the mapping so that a warm open does not page the whole file in.
func (a *Analysis) digest(ctx context.Context) (string, error) {
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < a.src.size; off += int64(len(buf)) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := a.src.r.ReadAt(buf[:min(int64(len(buf)), a.src.size-off)], off)
		if err != nil && !(errors.Is(err, io.EOF) && int64(n) == a.src.size-off) {
			return "", err
		}
		h.Write(buf[:n])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cached is the discovery read from the cache, or nil.
func (a *Analysis) cached(key snapshot.Key) *program {
	st := snapshot.Store{Root: a.opts.CacheDir}
	b, ok, err := st.Get(key, cacheEntry)
	if err != nil || !ok {
		return nil
	}
	p, err := decodeProgram(b)
	if err != nil {
		return nil // a corrupt or foreign entry is ignored and replaced
	}
	st.Touch(key, cacheEntry)
	return p
}

// store writes p to the cache and trims the root to its bound. Failures
// only cost the next open its head start.
func (a *Analysis) store(key snapshot.Key, p *program) {
	a.put(key, cacheEntry, encodeProgram(p))
}

// put writes an entry of key's partition and trims the root to its
// bound; an entry over the store's limit is not kept.
func (a *Analysis) put(key snapshot.Key, entry string, b []byte) {
	if len(b) > snapshot.MaxEntryBytes {
		return
	}
	st := snapshot.Store{Root: a.opts.CacheDir}
	if st.Put(key, entry, b) == nil {
		st.Trim(a.opts.CacheMaxBytes, key)
	}
}

// encodeProgram writes what discovery decided.
func encodeProgram(p *program) []byte {
	e := &cacheWriter{b: slices.Clone(cacheMagic), strs: map[string]uint64{}}
	e.uint(uint64(p.insns))
	e.uint(p.codeBytes)
	e.uint(uint64(p.rounds))
	e.uint(uint64(p.decoded))
	e.bool(p.truncated)
	e.uint(uint64(len(p.limits)))
	for _, l := range p.limits {
		e.str(l)
	}
	e.uint(uint64(len(p.procs)))
	prev := uint64(0)
	for i, pr := range p.procs {
		e.uint(pr.Address - prev) // sorted: never negative
		prev = pr.Address
		e.str(pr.Name)
		e.uint(pr.Size)
		e.str(pr.Source)
		e.bool(pr.External)
		e.bool(pr.Thunk)
		e.bool(pr.IFunc)
		e.str(pr.ThunkTarget)
		r := p.ranges[i]
		e.uint(r.End - r.Start) // never negative: functionRanges
		e.str(r.EndSource)
	}
	e.uint(uint64(len(p.swept)))
	last := int32(-1)
	for _, i := range p.swept {
		e.uint(uint64(i - last)) // increasing
		last = i
	}
	noret := make([]uint64, 0, len(p.noret))
	for addr, ok := range p.noret {
		if ok {
			noret = append(noret, addr)
		}
	}
	slices.Sort(noret)
	e.uint(uint64(len(noret)))
	prev = 0
	for _, addr := range noret {
		e.uint(addr - prev)
		prev = addr
	}
	e.uint(uint64(len(p.parts)))
	prev = 0
	for _, pt := range p.parts {
		e.uint(pt.Start - prev) // sorted, not overlapping
		prev = pt.Start
		e.uint(pt.End - pt.Start)
		e.str(pt.EndSource)
		e.uint(pt.parent)
		e.str(pt.name)
		e.bool(pt.swept)
	}
	return e.b
}

// errCache: an entry that does not decode.
var errCache = errors.New("native: cache entry does not decode")

// decodeProgram reads an entry of encodeProgram. It checks every count
// against the bytes left and every invariant the program relies on
// (addresses strictly increasing, ranges not wrapping, swept indexes in
// order and in bounds), so a corrupt entry is an error, never a panic or a
// large allocation.
//
// It runs on every warm open of a large target (650k procedures on
// chromium): the reader walks the entry by index, most fields are one-byte
// varints read inline, and only non-empty strings are written into the
// freshly allocated lists (whose zero value is the empty string).
func decodeProgram(b []byte) (*program, error) {
	if len(b) < len(cacheMagic) || string(b[:len(cacheMagic)]) != string(cacheMagic) {
		return nil, errCache
	}
	d := &cacheReader{b: b, pos: len(cacheMagic)}
	p := &program{}
	p.insns = int(d.count(1 << 62))
	p.codeBytes = d.uint()
	p.rounds = int(d.count(1 << 30))
	p.decoded = int64(d.count(1 << 62))
	p.truncated = d.bool()
	for range d.count(d.left()) {
		p.limits = append(p.limits, d.str())
	}
	n := d.count(d.left() / 7) // a procedure takes at least 7 bytes
	p.procs = make([]ports.Procedure, n)
	p.ranges = make([]ports.FunctionRange, n)
	prev := uint64(0)
	for i := range n {
		delta := d.uint()
		if i > 0 && delta == 0 || prev+delta < prev {
			return nil, errCache
		}
		pr, r := &p.procs[i], &p.ranges[i]
		pr.Address = prev + delta
		prev = pr.Address
		if s := d.str(); s != "" {
			pr.Name = s
		}
		pr.Size = d.uint()
		if s := d.str(); s != "" {
			pr.Source = s
		}
		pr.External = d.bool()
		pr.Thunk = d.bool()
		pr.IFunc = d.bool()
		if s := d.str(); s != "" {
			pr.ThunkTarget = s
		}
		span := d.uint()
		if pr.Address+span < pr.Address {
			return nil, errCache
		}
		r.Start, r.End = pr.Address, pr.Address+span
		if s := d.str(); s != "" {
			r.EndSource = s
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	ns := d.count(d.left())
	p.swept = make([]int32, 0, ns)
	last := int64(-1)
	for range ns {
		delta := d.uint()
		if delta == 0 || delta > n || last+int64(delta) >= int64(n) {
			return nil, errCache
		}
		last += int64(delta)
		p.swept = append(p.swept, int32(last))
	}
	nr := d.count(d.left())
	p.noret = make(map[uint64]bool, nr)
	prev = 0
	for i := range nr {
		delta := d.uint()
		if i > 0 && delta == 0 || prev+delta < prev {
			return nil, errCache
		}
		prev += delta
		p.noret[prev] = true
	}
	np := d.count(d.left() / 6) // a part takes at least 6 bytes
	prev, end := uint64(0), uint64(0)
	for i := range np {
		var pt procPart
		delta := d.uint()
		pt.Start = prev + delta
		span := d.uint()
		pt.End = pt.Start + span
		if pt.Start < prev || (i > 0 && pt.Start < end) || span == 0 || pt.End < pt.Start {
			return nil, errCache
		}
		prev, end = pt.Start, pt.End
		pt.EndSource = d.str()
		pt.parent = d.uint()
		pt.name = d.str()
		pt.swept = d.bool()
		if _, ok := p.rangeIndex(pt.parent); !ok || d.err != nil {
			return nil, errCache
		}
		p.parts = append(p.parts, pt)
	}
	if len(p.parts) > 0 {
		p.indexParts()
	}
	if d.err != nil || d.left() != 0 {
		return nil, errCache
	}
	return p, nil
}

// cacheWriter writes uvarints, booleans and strings through a table: a string
// seen before is its index, a new one its index (the table's length) and
// its bytes.
type cacheWriter struct {
	b    []byte
	strs map[string]uint64
}

func (e *cacheWriter) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

func (e *cacheWriter) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *cacheWriter) str(s string) {
	if i, ok := e.strs[s]; ok {
		e.uint(i)
		return
	}
	i := uint64(len(e.strs))
	e.strs[s] = i
	e.uint(i)
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// cacheReader reads what cacheWriter wrote, from b[pos:]; the first error
// sticks and every read after it returns zero values.
type cacheReader struct {
	b    []byte
	pos  int
	strs []string
	err  error
}

// left is the number of bytes not read yet.
func (d *cacheReader) left() uint64 { return uint64(len(d.b) - d.pos) }

// uint reads a uvarint; the one-byte case (most fields) is inlined. After
// an error pos is at the end, so the fast path never reads on.
func (d *cacheReader) uint() uint64 {
	if p := d.pos; p < len(d.b) && d.b[p] < 0x80 {
		d.pos = p + 1
		return uint64(d.b[p])
	}
	return d.uintSlow()
}

func (d *cacheReader) uintSlow() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.pos += n
	return v
}

// fail records the error and stops every later read.
func (d *cacheReader) fail() {
	d.err, d.pos = errCache, len(d.b)
}

// count reads a length and fails above max.
func (d *cacheReader) count(max uint64) uint64 {
	v := d.uint()
	if v > max {
		d.fail()
		return 0
	}
	return v
}

func (d *cacheReader) bool() bool {
	if d.pos >= len(d.b) || d.b[d.pos] > 1 {
		d.fail()
		return false
	}
	v := d.b[d.pos] == 1
	d.pos++
	return v
}

func (d *cacheReader) str() string {
	i := d.uint()
	switch {
	case d.err != nil:
		return ""
	case i < uint64(len(d.strs)):
		return d.strs[i]
	case i > uint64(len(d.strs)):
		d.fail()
		return ""
	}
	n := d.uint() // checked against what is left after it is read
	if n > d.left() {
		d.fail()
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[d.pos : d.pos+int(n)])
	d.pos += int(n)
	d.strs = append(d.strs, s)
	return s
}
