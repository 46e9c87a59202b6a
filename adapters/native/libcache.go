package native

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"rea/ports"
	"rea/snapshot"
)

// The library cache: what the signature libraries named in a target (the
// match at open, libraries.go) is kept in the warm cache's store
// (Options.CacheDir, cache.go), so that the next open of the same target
// with the same libraries reads a few kilobytes instead of reading,
// hashing and turning into patterns the 11 MB of libc.a and libm.a.
//
// The entry's partition is keyed by the target's SHA-256, the analysis
// code (codeBuild) and the libraries' file identities: path, device,
// inode, size, modification and change times to the nanosecond. The
// entry lists every file the match read (a GNU ld script's inputs
// included) with its identity then and its SHA-256, and is used only
// when every one of them still has that identity. Identity, not content,
// so that a warm open does not hash the archives: a file's content does
// not change without its change time changing (the kernel sets ctime on
// every write, truncation, rename onto it and attribute change, and no
// call sets it back: utimes and cp -p restore mtime, not ctime), and a
// package manager replaces a file by renaming a new one onto it (a new
// inode). What it misses: a file system without nanosecond change times
// (FAT's two seconds) rewritten to the same size within one tick, or a
// change made below the file system (a raw write to the block device).
// The profile's SHA-256 of each library is the one computed when the
// entry was made from the same identity, so it stays true under the same
// argument. Where the system gives no change time (libident_other.go)
// the cache is not used.
//
// An entry that does not decode, or that names files whose identity
// changed, is ignored and replaced; a result that depends on more than
// the files (the memory budget refused the patterns) is never stored.

// libCacheEntry is the entry's name inside its partition.
const libCacheEntry = "libraries"

// libCacheMagic opens every entry; its last byte is the format version.
var libCacheMagic = []byte("rea-native-libraries\x03")

// libFile is one file the match read (or tried to), with its identity.
type libFile struct {
	path string
	id   string
}

// fileIdentity is path's identity, or a description of why it cannot be
// read ("absent: ..."), which is as much an identity: the note it gave is
// right as long as the file stays absent. False: the system gives no
// identity the cache can trust.
func fileIdentity(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "absent: " + err.Error(), true
	}
	return statIdentity(st)
}

// libCacheKey is the partition of the target's library match, or false
// when the cache is off, the target cannot be digested or a library file
// has no identity.
func (a *Analysis) libCacheKey(ctx context.Context, paths []string) (snapshot.Key, bool) {
	if a.opts.CacheDir == "" {
		return snapshot.Key{}, false
	}
	build := codeBuild()
	if build == "" {
		return snapshot.Key{}, false
	}
	sum := a.opts.sha256
	if len(sum) != 64 {
		var err error
		if sum, err = a.digest(ctx); err != nil {
			return snapshot.Key{}, false
		}
	}
	a.sha256 = sum // the warm cache's key (cache.go) need not read the file again
	ids, ok := identities("signature_libraries", paths)
	if !ok {
		return snapshot.Key{}, false
	}
	prof := sha256.Sum256([]byte(ids))
	return snapshot.Key{TargetSHA256: sum, Engine: ID, Build: build, ProfileDigest: hex.EncodeToString(prof[:])}, true
}

// identities is head followed by each path with its file identity, or
// false when a file has none.
func identities(head string, paths []string) (string, bool) {
	var b strings.Builder
	b.WriteString(head)
	for _, p := range paths {
		id, ok := fileIdentity(p)
		if !ok {
			return "", false
		}
		fmt.Fprintf(&b, " path=%q identity=%q", p, id)
	}
	return b.String(), true
}

// unchanged reports whether every file still has the identity recorded.
func unchanged(files []libFile) bool {
	for _, f := range files {
		if id, ok := fileIdentity(f.path); !ok || id != f.id {
			return false
		}
	}
	return true
}

// libCached fills res from the cache and reports whether it could.
func (a *Analysis) libCached(key snapshot.Key, res *libResult) bool {
	st := snapshot.Store{Root: a.opts.CacheDir}
	b, ok, err := st.Get(key, libCacheEntry)
	if err != nil || !ok {
		return false
	}
	got, err := decodeLibResult(b)
	if err != nil {
		return false // a corrupt or foreign entry is ignored and replaced
	}
	if !unchanged(got.files) {
		return false // a file changed since: matched again, and the entry replaced
	}
	res.files, res.used, res.notes = got.files, got.used, got.notes
	res.ambiguous, res.short, res.refuted, res.byCallers = got.ambiguous, got.short, got.refuted, got.byCallers
	res.cands = got.cands
	res.labels = make([]ports.Name, len(got.cands))
	for i, c := range got.cands {
		res.labels[i] = ports.Name{Address: c.addr, Name: c.name, Kind: "function"}
	}
	st.Touch(key, libCacheEntry)
	return true
}

// libStore writes res to the cache and trims the root to its bound.
func (a *Analysis) libStore(key snapshot.Key, res *libResult) {
	a.put(key, libCacheEntry, encodeLibResult(res))
}

// encodeLibResult writes what the match at open decided.
func encodeLibResult(res *libResult) []byte {
	e := &cacheWriter{b: slices.Clone(libCacheMagic), strs: map[string]uint64{}}
	e.uint(uint64(len(res.files)))
	for _, f := range res.files {
		e.str(f.path)
		e.str(f.id)
	}
	e.uint(uint64(len(res.used)))
	for _, u := range res.used {
		e.str(u.path)
		e.str(u.sha256)
		e.uint(uint64(u.matched))
	}
	e.uint(uint64(res.ambiguous))
	e.uint(uint64(res.short))
	e.uint(uint64(res.refuted))
	e.uint(uint64(res.byCallers))
	e.uint(uint64(len(res.notes)))
	for _, n := range res.notes {
		e.str(n)
	}
	e.uint(uint64(len(res.cands)))
	prev := uint64(0)
	for _, c := range res.cands {
		e.uint(c.addr - prev) // increasing (match names addresses in order)
		prev = c.addr
		e.str(c.name)
		e.uint(c.size)
	}
	return e.b
}

// decodeLibResult reads an entry of encodeLibResult, checking every count
// against the bytes left and every invariant the result relies on
// (addresses increasing, names not empty, counts that add up),
// so a corrupt entry is an error, never a panic or a large allocation.
func decodeLibResult(b []byte) (*libResult, error) {
	if len(b) < len(libCacheMagic) || string(b[:len(libCacheMagic)]) != string(libCacheMagic) {
		return nil, errCache
	}
	d := &cacheReader{b: b, pos: len(libCacheMagic)}
	res := &libResult{}
	for range d.count(d.left() / 2) {
		res.files = append(res.files, libFile{path: d.str(), id: d.str()})
	}
	total := uint64(0)
	for range d.count(d.left() / 3) {
		u := libUse{path: d.str(), sha256: d.str()}
		n := d.count(1 << 40)
		u.matched = int(n)
		total += n
		if len(u.sha256) != 64 {
			return nil, errCache
		}
		res.used = append(res.used, u)
	}
	res.ambiguous = int(d.count(1 << 40))
	res.short = int(d.count(1 << 40))
	res.refuted = int(d.count(1 << 40))
	res.byCallers = int(d.count(1 << 40))
	for range d.count(d.left()) {
		res.notes = append(res.notes, d.str())
	}
	n := d.count(d.left() / 3) // a name takes at least 3 bytes
	if n != total {
		return nil, errCache
	}
	prev := uint64(0)
	for i := range n {
		delta := d.uint()
		if i > 0 && delta == 0 || prev+delta < prev {
			return nil, errCache
		}
		prev += delta
		c := candidate{addr: prev, name: d.str(), size: d.uint(), source: "library", rank: rankLibrary}
		if c.name == "" || d.err != nil { // a name given by callers may have no length
			return nil, errCache
		}
		res.cands = append(res.cands, c)
	}
	if res.byCallers > len(res.cands) {
		return nil, errCache
	}
	if d.err != nil || d.left() != 0 {
		return nil, errCache
	}
	return res, nil
}
