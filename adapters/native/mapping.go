package native

import (
	"os"
	"sync"
)

// mapping is a read-only memory mapping of the whole file, so that the
// code and data a whole-file scan reads are views of the page cache rather
// than copies on the heap (a 270 MB binary otherwise holds its code twice
// while the heap grows to twice what is live).
//
// Views are valid only while the mapping is pinned: every Analysis method
// that reads views pins it (Analysis.enter) and Close unmaps it once the
// last pin is released, so a concurrent Close never unmaps bytes a
// computation is reading. Nothing a list caches points into it.
type mapping struct {
	mu     sync.Mutex
	data   []byte
	users  int
	closed bool
	unmap  func([]byte) error
	advise func([]byte) // tells the system the pages are not needed (nil: not supported)
}

// drop gives the resident pages inside the file bytes [off, off+n) back
// to the system (the pages it only partly covers are kept); they are read
// again from the page cache when next accessed, so views stay valid. The
// caller holds a pin. A nil mapping or a system without the call does
// nothing.
func (m *mapping) drop(off, n uint64) {
	if m == nil || m.advise == nil || n == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	size := uint64(len(m.data))
	if m.data == nil || off >= size {
		return
	}
	page := uint64(os.Getpagesize())
	lo, hi := (off+page-1)&^(page-1), (off+min(n, size-off))&^(page-1)
	if lo < hi {
		m.advise(m.data[lo:hi])
	}
}

// pin reports whether the mapping is still open and, if so, keeps it so
// until unpin.
func (m *mapping) pin() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.users++
	return true
}

func (m *mapping) unpin() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.users--
	m.release()
}

// close unmaps now, or when the last pin is released.
func (m *mapping) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.release()
}

func (m *mapping) release() {
	if m.closed && m.users == 0 && m.data != nil {
		m.unmap(m.data) // nothing to report: the bytes were only read
		m.data = nil
	}
}
