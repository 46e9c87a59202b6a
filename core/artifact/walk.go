package artifact

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"rea/ports"
)

// dirEntry is one entry of a directory listing (listDir) with its lstat.
type dirEntry struct {
	name        []byte
	mode        fs.FileMode
	size, mtime int64
	node        fsNode
	settled     bool // a directory that changed last before settledCut, on the root's file system
}

// fsNode is what the recheck of a settled directory compares beside the
// stamp (recheckSettled): the inode, and the change time, which the kernel
// sets on every change to the inode (its names for a directory) and no
// user can set. Zero where the listing does not give them.
type fsNode struct {
	ino   uint64
	ctime int64
}

func (e *dirEntry) stamp() fileStamp { return fileStamp{size: e.size, mtime: e.mtime, mode: e.mode} }

// walk records every entry under the directory root without following
// symbolic links, in fs.WalkDir's order (depth first, each directory's
// entries sorted by name), so the items, and the limit or error a tree
// meets first, are the same as a walk with it. The listings, most of a
// walk's system calls, are made ahead on other cores (lookahead) while
// the items are added in that order on this one.
func (b *graphBuilder) walk(ctx context.Context) error {
	b.prepareHeld()
	la := newLookahead(b, runtime.GOMAXPROCS(0)-1)
	defer la.stop()
	return b.walkDir(ctx, b.root, la.list(b.root, nil), la, &listScratch{})
}

// listed is one directory's listing made into its items (one block) and
// the files' declared sizes, or the listing's error.
type listed struct {
	dir     *Item
	parent  *Item // the directory whose listing dir is in; nil for the root
	block   []Item
	sizes   []int64
	err     error
	claimed atomic.Bool // a lister (a worker or the walk itself) took it
	done    chan struct{}
}

// makeBlock lists dir and makes its entries' items, in one block: an
// item's name is the end of its path, and its path under the root is its
// path.
func (b *graphBuilder) makeBlock(l *listed, sc *listScratch) {
	defer close(l.done)
	dir := l.dir
	ents, err := b.listWalked(dir, l.parent, sc)
	if err != nil {
		l.err = err
		return
	}
	block := make([]Item, len(ents))
	sizes := make([]int64, len(ents))
	for i := range ents {
		e := &ents[i]
		p := string(e.name)
		if dir != b.root {
			p = dir.Path + "/" + string(e.name)
		}
		// Field by field: the block is zero, and a whole Item written at
		// once while the collector runs (as it often does this early in a
		// process) takes a write barrier for each of its pointer words.
		it := &block[i]
		it.Path, it.name, it.fsRel, it.stamp = p, p[len(p)-len(e.name):], p, e.stamp()
		it.node, it.settled = e.node, e.settled
		switch t := e.mode.Type(); {
		case t&fs.ModeDir != 0:
			it.Kind = ports.EntryDirectory
		case t&fs.ModeSymlink != 0:
			it.Kind = ports.EntrySymlink
		default:
			it.Kind = ports.EntryFile
			sizes[i] = e.size
			it.declaredSize = &sizes[i]
			it.exec = e.mode&0o111 != 0
			if !e.mode.IsRegular() {
				it.special = e.mode.Type().String()
			}
		}
	}
	l.block, l.sizes = block, sizes
}

// lookahead lists directories ahead of the walk, first come first listed,
// on up to n workers; with none the walk lists each directory itself when
// it reaches it. A listing the walk needs before a worker took it is made
// by the walk.
type lookahead struct {
	b    *graphBuilder
	mu   sync.Mutex
	q    []*listed
	wake chan struct{}
	quit chan struct{}
	wg   sync.WaitGroup
}

func newLookahead(b *graphBuilder, n int) *lookahead {
	la := &lookahead{b: b, wake: make(chan struct{}, 1), quit: make(chan struct{})}
	for range max(n, 0) {
		la.wg.Go(la.work)
	}
	return la
}

// list queues the listing of dir, an entry of parent's, and returns it.
func (la *lookahead) list(dir, parent *Item) *listed {
	l := &listed{dir: dir, parent: parent, done: make(chan struct{})}
	la.mu.Lock()
	la.q = append(la.q, l)
	la.mu.Unlock()
	select {
	case la.wake <- struct{}{}:
	default:
	}
	return l
}

// take waits for l's listing, making it here when no worker took it yet.
func (la *lookahead) take(l *listed, sc *listScratch) {
	if l.claimed.CompareAndSwap(false, true) {
		la.b.makeBlock(l, sc)
	}
	<-l.done
}

func (la *lookahead) work() {
	sc := &listScratch{}
	for {
		la.mu.Lock()
		var l *listed
		for len(la.q) > 0 && l == nil {
			if la.q[0].claimed.CompareAndSwap(false, true) {
				l = la.q[0]
			}
			la.q[0] = nil
			la.q = la.q[1:]
		}
		more := len(la.q) > 0
		la.mu.Unlock()
		if more {
			select { // another worker may take the rest
			case la.wake <- struct{}{}:
			default:
			}
		}
		if l != nil {
			la.b.makeBlock(l, sc)
			continue
		}
		select {
		case <-la.wake:
		case <-la.quit:
			return
		}
	}
}

// stop ends the workers once they finish the listings they took.
func (la *lookahead) stop() {
	close(la.quit)
	la.wg.Wait()
}

// walkDir adds dir's entries and walks into its subdirectories; sc is the
// walk's memory for a listing it makes itself (a block holds none of it).
func (b *graphBuilder) walkDir(ctx context.Context, dir *Item, l *listed, la *lookahead, sc *listScratch) error {
	la.take(l, sc)
	if l.err != nil {
		return &Failure{Reason: "io", Path: dir.Path, Err: l.err}
	}
	block := l.block
	// The subdirectories are queued in the walk's order before any is
	// walked into, so the workers list them while this one's entries are
	// added.
	subs := make([]*listed, len(block))
	for i := range block {
		if block[i].Kind == ports.EntryDirectory {
			subs[i] = la.list(&block[i], dir)
		}
	}
	for i := range block {
		if err := ctx.Err(); err != nil {
			return err
		}
		it := &block[i]
		if it.Kind == ports.EntrySymlink {
			var err error
			if it.link, err = b.fsRoot.Readlink(it.Path); err != nil {
				return &Failure{Reason: "io", Path: it.Path, Err: err}
			}
		}
		if err := b.add(it, dir.Path); err != nil {
			return err
		}
		if it.Kind == ports.EntryDirectory {
			if err := b.walkDir(ctx, it, subs[i], la, sc); err != nil {
				return err
			}
		}
	}
	return nil
}

// fsRelDir is a file-system directory's path under the root.
func (it *Item) fsRelDir() string {
	if it.fsRel == "" {
		return "."
	}
	return it.fsRel
}

// recheckDirs fails when the tree under the directory root is not the one
// walked: an entry added, removed, renamed or changed anywhere. Each
// directory walked is checked (on every core) in one of two ways, and the
// entries found must be as many as the walk's:
//
//   - listed again: each entry must be an item of the walk with the same
//     stat fingerprint. A listing of every known directory sees what a
//     second walk of the tree sees: an entry added, removed or changed
//     anywhere shows in its directory's listing (a new directory as a new
//     entry of its parent).
//   - settled (recheckSettled, Linux): a directory whose change time was
//     before the walk began, by more than any file system's time step, on
//     a local file system whose change times the kernel keeps. Its names
//     are not read again: each entry the walk found is stat'ed by name,
//     beneath the descriptor the walk listed it with, and must have the
//     same fingerprint, inode and change time. The change time is the
//     proof: the kernel sets a directory's on every entry added, removed
//     or renamed in it (and on any change to its own inode), from its
//     clock, and no system call sets it to a chosen value (utimensat sets
//     the modification time, and moves the change time to now). The
//     directory's own stat is its parent's entry (the root's is taken
//     before its listing), so an entry added after that stat changes it.
//     What the time alone could miss is a second change within the time
//     step of the change it was stat'ed after (ext4 and XFS step by a
//     clock tick without the kernel's fine-grained times, older ext
//     inodes by a second): a directory that changed within settleWindow
//     of the walk is listed again, as are all of them on a file system
//     whose times are the server's or a user program's (NFS, FUSE, ...)
//     and directories on another device than the root's. A file's change
//     time is compared too, so a settled directory's file rewritten with
//     its size and modification time put back is caught, which a listing
//     (the stamp alone) misses. Changes made with the system clock set
//     back to the exact nanosecond of an earlier change are not caught.
//
// The change reported is the first in the walk's order, as a second walk
// would meet it, whatever the order of the checks; a settled directory
// whose names changed is named itself (its change time moved) where its
// listing would name the entry.
func (b *graphBuilder) recheckDirs(ctx context.Context) error {
	var dirs []*Item
	fsItems := 0
	for _, it := range b.items {
		if it.box != nil {
			continue
		}
		if it != b.root {
			fsItems++
		}
		if it.Kind == ports.EntryDirectory {
			dirs = append(dirs, it)
		}
	}
	var (
		seen  atomic.Int64
		mu    sync.Mutex
		first *recheckFailure
	)
	note := func(f recheckFailure) {
		mu.Lock()
		if first == nil || f.before(first) {
			first = &f
		}
		mu.Unlock()
	}
	defer b.closeHeld()
	// Sixteen directories at a time: a listing is tens of system calls.
	parallel(len(dirs), 16, func(lo, hi int, w *recheckScratch) {
		n := 0
		defer func() { seen.Add(int64(n)) }()
		for _, dir := range dirs[lo:hi] {
			if ctx.Err() != nil {
				return
			}
			if k, ok := b.recheckSettled(dir, w, note); ok {
				n += k
				continue
			}
			b.relisted.Add(1)
			ents, err := b.listDir(dir.fsRelDir(), &w.sc)
			if err != nil {
				note(recheckFailure{at: dir.Path, listing: true, err: err})
				continue
			}
			for i := range ents {
				e := &ents[i]
				key := w.key[:0]
				if dir != b.root {
					key = append(append(key, dir.Path...), '/')
				}
				key = append(key, e.name...)
				w.key = key
				it, ok := b.byPath[string(key)]
				if !ok || it.box != nil || it.stamp != e.stamp() {
					note(recheckFailure{at: string(key), err: fmt.Errorf("%s changed", key)})
					continue
				}
				n++
			}
		}
	})
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		first = &recheckFailure{err: err}
	}
	if first != nil || int(seen.Load()) != fsItems {
		msg := "the directory changed while it was read"
		if first != nil {
			msg += ": " + first.err.Error()
		}
		return ChangedError(b.req.Op, b.req.Path, msg)
	}
	return nil
}

// recheckScratch is one recheck goroutine's memory: its listings and the
// path it looks up.
type recheckScratch struct {
	sc  listScratch
	key []byte
}

// recheckFailure is one difference the recheck found: an entry at a path,
// or a directory that could not be listed.
type recheckFailure struct {
	at      string
	listing bool // the directory at could not be listed (a walk meets this after the directory's own entry)
	err     error
}

func (f *recheckFailure) before(g *recheckFailure) bool {
	if c := walkOrder(f.at, g.at); c != 0 {
		return c < 0
	}
	return !f.listing && g.listing
}

// walkOrder compares two slash-separated paths in the order a depth-first
// walk with each directory's entries sorted by name visits them: component
// by component, a directory before what lies beneath it.
func walkOrder(a, b string) int {
	for {
		ca, ra, moreA := strings.Cut(a, "/")
		cb, rb, moreB := strings.Cut(b, "/")
		if c := strings.Compare(ca, cb); c != 0 {
			return c
		}
		switch {
		case !moreA && !moreB:
			return 0
		case !moreA:
			return -1
		case !moreB:
			return 1
		}
		a, b = ra, rb
	}
}
