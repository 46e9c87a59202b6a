package native

import (
	"debug/elf"
	"fmt"
	"slices"
	"sync"
)

// One set of patterns per set of libraries, shared by every analysis in
// the process. An open keeps its patterns (about 12 MB for libc.a and
// libm.a) until discovery has matched its procedures or the analysis
// closes (libraries.go, libdiscover.go); a server that opens many static
// targets and never runs discovery would otherwise hold one copy per
// target. The patterns depend only on the files read and the target's
// machine and class, and matching only reads them, so the analyses that
// hold patterns of the same files hold the same index: the first builds
// it and reserves its memory against its own account, the others take a
// reference, and the last one to let go releases the reservation.
//
// The key is the listed paths with their identities (libcache.go's
// argument: a file's content does not change without its identity
// changing), the machine and the class; an entry is used only when every
// file it read (a GNU ld script's inputs included) still has the identity
// it had. Where a file has no identity, or the result depended on more
// than the files (nocache), the patterns are not shared. Two opens that
// build at the same time each build; the second to finish keeps the
// first's and lets its own go, so that at most one stays held.

// sharedPatterns is one shared index and what reading it told.
type sharedPatterns struct {
	ix      *libIndex
	release func() // the reservation, released with the last reference
	refs    int
	files   []libFile
	used    []libUse
	notes   []string
}

var libShared = struct {
	mu sync.Mutex
	m  map[string]*sharedPatterns
}{m: map[string]*sharedPatterns{}}

// libShareKey is the key of the patterns of paths for machine m and class
// c, or false when a file has no identity.
func libShareKey(paths []string, m elf.Machine, c elf.Class) (string, bool) {
	return identities(fmt.Sprintf("machine=%d class=%d", m, c), paths)
}

// sharedIndex takes a reference to the index held under key, filling res
// as reading the libraries would have; nil when none is held or a file it
// read has changed since.
func (res *libResult) sharedIndex(key string) (*libIndex, func()) {
	libShared.mu.Lock()
	defer libShared.mu.Unlock()
	e := libShared.m[key]
	if e == nil {
		return nil, nil
	}
	if !unchanged(e.files) {
		delete(libShared.m, key) // its holders keep it; new opens read the files again
		return nil, nil
	}
	e.refs++
	res.files = append(res.files, e.files...)
	res.notes = append(res.notes, e.notes...)
	for _, u := range e.used {
		res.used = append(res.used, libUse{path: u.path, sha256: u.sha256})
	}
	return e.ix, e.unref(key)
}

// share offers the index res just built under key and returns the one to
// use, with the function that lets it go: the held one when another open
// built it first (its own is released at once).
func (res *libResult) share(key string, ix *libIndex, release func()) (*libIndex, func()) {
	libShared.mu.Lock()
	defer libShared.mu.Unlock()
	if e := libShared.m[key]; e != nil && slices.Equal(e.files, res.files) {
		release()
		e.refs++
		return e.ix, e.unref(key)
	}
	e := &sharedPatterns{ix: ix, release: release, refs: 1, files: slices.Clone(res.files), notes: slices.Clone(res.notes), used: slices.Clone(res.used)}
	libShared.m[key] = e
	return ix, e.unref(key)
}

// unref is the function that lets one reference to e go (once).
func (e *sharedPatterns) unref(key string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			libShared.mu.Lock()
			defer libShared.mu.Unlock()
			e.refs--
			if e.refs > 0 {
				return
			}
			if libShared.m[key] == e {
				delete(libShared.m, key)
			}
			e.release()
		})
	}
}

// heldPatterns is the number of pattern sets held in the process.
func heldPatterns() int {
	libShared.mu.Lock()
	defer libShared.mu.Unlock()
	return len(libShared.m)
}
