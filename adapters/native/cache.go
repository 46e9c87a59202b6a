package native

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"rea/ports"
	"rea/snapshot"
)

// The warm cache: a completed whole-file discovery is kept in a
// rea/snapshot store (Options.CacheDir) keyed by the file's SHA-256, the
// analysis code (the SHA-256 of the running executable, so that a rebuilt
// rea never reads what another build computed) and the profile, and the
// next open of the same bytes reads it instead of discovering again. What
// is kept is what discovery decides (procedures, ranges, which ranges yield
// references, functions that do not return, counts); everything else is
// recomputed from the file as on a cold open, so results are identical.
// A cut-short computation is never stored; an entry that does not decode
// is ignored.

// cacheEntry is the entry's name inside its partition.
const cacheEntry = "discovery"

// cacheMagic opens every entry; its last byte is the format version.
var cacheMagic = []byte("rea-native-discovery\x01")

// DefaultCacheMaxBytes bounds the cache root when Options.CacheMaxBytes is 0.
const DefaultCacheMaxBytes = 2 << 30

var (
	buildOnce sync.Once
	buildID   string
)

// codeBuild identifies the analysis code: the digest of the executable
// running it, or "" when it cannot be read (the cache is then not used).
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
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return
		}
		buildID = Version + "+" + hex.EncodeToString(h.Sum(nil))
	})
	return buildID
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
	prof := sha256.Sum256(fmt.Appendf(nil, "max_string_bytes=%d min_string_chars=%d", a.opts.MaxStringBytes, a.opts.MinStringChars))
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
	st := snapshot.Store{Root: a.opts.CacheDir}
	b := encodeProgram(p)
	if len(b) > snapshot.MaxEntryBytes {
		return
	}
	if st.Put(key, cacheEntry, b) == nil {
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
	return e.b
}

// errCache: an entry that does not decode.
var errCache = errors.New("native: cache entry does not decode")

// decodeProgram reads an entry of encodeProgram. It checks every count
// against the bytes left and every invariant the program relies on
// (addresses strictly increasing, ranges not wrapping, swept indexes in
// order and in bounds), so a corrupt entry is an error, never a panic or a
// large allocation.
func decodeProgram(b []byte) (*program, error) {
	if len(b) < len(cacheMagic) || string(b[:len(cacheMagic)]) != string(cacheMagic) {
		return nil, errCache
	}
	d := &cacheReader{b: b[len(cacheMagic):]}
	p := &program{}
	p.insns = int(d.count(1 << 62))
	p.codeBytes = d.uint()
	p.rounds = int(d.count(1 << 30))
	p.decoded = int64(d.count(1 << 62))
	p.truncated = d.bool()
	for range d.count(uint64(len(d.b))) {
		p.limits = append(p.limits, d.str())
	}
	n := d.count(uint64(len(d.b)) / 7) // a procedure takes at least 7 bytes
	p.procs = make([]ports.Procedure, 0, n)
	p.ranges = make([]ports.FunctionRange, 0, n)
	prev := uint64(0)
	for i := range n {
		delta := d.uint()
		if i > 0 && delta == 0 || prev+delta < prev {
			return nil, errCache
		}
		pr := ports.Procedure{Address: prev + delta, Name: d.str(), Size: d.uint(), Source: d.str(), External: d.bool(), Thunk: d.bool(), ThunkTarget: d.str()}
		prev = pr.Address
		span := d.uint()
		if pr.Address+span < pr.Address {
			return nil, errCache
		}
		p.procs = append(p.procs, pr)
		p.ranges = append(p.ranges, ports.FunctionRange{Start: pr.Address, End: pr.Address + span, EndSource: d.str()})
		if d.err != nil {
			return nil, d.err
		}
	}
	ns := d.count(uint64(len(d.b)))
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
	nr := d.count(uint64(len(d.b)))
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
	if d.err != nil || len(d.b) != 0 {
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

// cacheReader reads what cacheWriter wrote; the first error sticks and every read
// after it returns zero values.
type cacheReader struct {
	b    []byte
	strs []string
	err  error
}

func (d *cacheReader) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCache
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length and fails above max.
func (d *cacheReader) count(max uint64) uint64 {
	v := d.uint()
	if v > max {
		d.err = errCache
		return 0
	}
	return v
}

func (d *cacheReader) bool() bool {
	if d.err != nil || len(d.b) == 0 || d.b[0] > 1 {
		d.err = errCache
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
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
		d.err = errCache
		return ""
	}
	n := d.count(uint64(len(d.b)))
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	d.strs = append(d.strs, s)
	return s
}
