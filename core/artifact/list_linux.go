//go:build linux && (amd64 || arm64 || riscv64)

package artifact

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A directory is listed with three kinds of system call and no others: one
// openat2 for the directory (beneath the root, as files are opened), getdents
// until it is read, and one fstatat per entry relative to the directory's
// descriptor. os.Root's ReadDir did the same lstat per entry but opened each
// directory component by component from the root (two calls per level) and
// allocated a DirEntry, a FileInfo and a path per entry; on a tree of small
// files the walk and the recheck were mostly that.

// listScratch is one lister's reusable memory: the directory's records as
// the kernel wrote them, and where each name starts in them.
type listScratch struct {
	buf   []byte
	names []direntName
	ents  []dirEntry
}

// direntName is where a name lies in the records: buf[at:at+n], followed
// by its NUL.
type direntName struct{ at, n int }

const (
	atSymlinkNofollow = 0x100 // AT_SYMLINK_NOFOLLOW, the same on every Linux architecture
	direntNameOff     = int(unsafe.Offsetof(syscall.Dirent{}.Name))
	direntReclenOff   = int(unsafe.Offsetof(syscall.Dirent{}.Reclen))
)

// listDir lists the directory rel under the root: its entries other than
// "." and "..", sorted by name, each with its lstat; an entry that vanished
// between the listing and its lstat is left out, as os.ReadDir does. The
// entries' names are valid until sc lists again.
func (b *graphBuilder) listDir(rel string, sc *listScratch) ([]dirEntry, error) {
	fd, ok := openDirBeneath(b.fsDir, rel)
	if !ok {
		// Refused or unavailable: os.Root opens it, or gives the error.
		f, err := b.fsRoot.Open(rel)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return b.listFD(int(f.Fd()), rel, sc)
	}
	defer syscall.Close(fd)
	return b.listFD(fd, rel, sc)
}

// The walk holds each directory's descriptor from its listing to the end
// of the recheck (up to maxHeld of them, and a quarter of the process's
// open-file limit, for all the inventories running at once): a subdirectory and a file are opened beneath their
// directory's descriptor, one name for the kernel to resolve where from
// the root it resolves the whole path again, and the recheck stat's a
// settled directory's entries beneath it without opening or listing it
// again (recheckSettled). A directory not held is opened from the root,
// as before, and listed again by the recheck.
const maxHeld = 16384

// heldLeft is how many more directory descriptors the process's walks may
// hold (heldBudget sets it once).
var (
	heldLeft   atomic.Int64
	heldBudget = sync.OnceFunc(func() {
		var lim syscall.Rlimit
		if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
			heldLeft.Store(int64(min(lim.Cur/4, maxHeld)))
		}
	})
)

// settleWindow is how long before the walk began a directory must have
// changed last for the recheck to take its change time as the proof that
// its names did not change (recheckSettled): twice the coarsest
// change-time step of the file systems in ctimeFS (a second, ext4 inodes
// of 128 bytes). A variable for the tests.
var settleWindow = 2 * time.Second

// ctimeFS are the file systems (statfs magic) whose change times the
// kernel itself sets, from its clock, on every change: ext2/3/4, XFS,
// Btrfs, tmpfs and F2FS. On others (NFS, whose times are the server's,
// FUSE, a user program's, overlay, vfat, ...) every directory is listed again.
var ctimeFS = [...]int64{0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0xF2F52010}

// prepareHeld readies the walk's descriptors before anything is listed:
// how many may be held, and, on a file system of ctimeFS, the change time
// before which a directory is settled (settledCut) and the root's own
// stat, taken before its listing as its subdirectories' are in theirs.
func (b *graphBuilder) prepareHeld() {
	start := time.Now().UnixNano() // before any stat of the walk
	heldBudget()
	if b.fsDir == nil {
		return
	}
	fd := int(b.fsDir.Fd())
	var sfs syscall.Statfs_t
	var st syscall.Stat_t
	if syscall.Fstatfs(fd, &sfs) != nil || !slices.Contains(ctimeFS[:], int64(sfs.Type)) || syscall.Fstat(fd, &st) != nil {
		return
	}
	b.settledCut, b.rootDev = start-settleWindow.Nanoseconds(), st.Dev
	e := b.entryOf(&st)
	b.root.stamp, b.root.node, b.root.settled = e.stamp(), e.node, e.settled
}

// entryOf makes a listing's entry (but its name) of its lstat.
func (b *graphBuilder) entryOf(st *syscall.Stat_t) dirEntry {
	ctime := st.Ctim.Sec*1e9 + st.Ctim.Nsec
	return dirEntry{mode: statMode(st.Mode), size: st.Size, mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		node: fsNode{ino: st.Ino, ctime: ctime}, settled: ctime < b.settledCut && st.Dev == b.rootDev}
}

// listWalked lists dir, an entry of parent's (nil for the root), for the
// walk: beneath parent's held descriptor when it has one, and holds dir's
// while the budget allows.
func (b *graphBuilder) listWalked(dir, parent *Item, sc *listScratch) ([]dirEntry, error) {
	const flags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC
	rel := dir.fsRelDir()
	fd, ok := -1, false
	if parent != nil && parent.held > 0 {
		fd, ok = openat2At(int(parent.held-1), dir.name, flags)
	}
	if !ok {
		if fd, ok = openDirBeneath(b.fsDir, rel); !ok {
			return b.listDir(rel, sc)
		}
	}
	ents, err := b.listFD(fd, rel, sc)
	if err != nil || !b.hold(dir, fd) {
		syscall.Close(fd)
	}
	return ents, err
}

// hold keeps fd as dir's descriptor, if the budget allows.
func (b *graphBuilder) hold(dir *Item, fd int) bool {
	if heldLeft.Add(-1) < 0 {
		heldLeft.Add(1)
		return false
	}
	dir.held = int32(fd + 1)
	b.mu.Lock()
	b.heldDirs = append(b.heldDirs, dir)
	b.mu.Unlock()
	return true
}

// closeHeld closes the directories' descriptors; their entries are opened
// from the root after.
func (b *graphBuilder) closeHeld() {
	b.mu.Lock()
	dirs := b.heldDirs
	b.heldDirs = nil
	b.mu.Unlock()
	for _, d := range dirs {
		fd := int(d.held - 1)
		d.held = 0
		syscall.Close(fd)
	}
	heldLeft.Add(int64(len(dirs)))
}

// recheckSettled checks a settled, held directory's entries (recheckDirs):
// each stat'ed by name beneath its descriptor must have the walk's stamp
// and node; the root's own stat is compared too (a subdirectory's is its
// parent's entry). ok is false for any other directory: it is listed
// again. n is the entries found unchanged.
func (b *graphBuilder) recheckSettled(dir *Item, w *recheckScratch, note func(recheckFailure)) (n int, ok bool) {
	if dir.held == 0 || !dir.settled {
		return 0, false
	}
	fd := int(dir.held - 1)
	var st syscall.Stat_t
	if dir == b.root {
		if err := syscall.Fstat(fd, &st); err != nil || b.changed(dir, &st) {
			note(recheckFailure{at: "", err: errors.New("the root directory changed")})
			return 0, true
		}
	}
	for _, c := range dir.children {
		key := append(append(w.key[:0], c.name...), 0)
		w.key = key
		_, _, errno := syscall.Syscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(&key[0])), uintptr(unsafe.Pointer(&st)),
			atSymlinkNofollow, 0, 0)
		switch {
		case errno != 0 && errno != syscall.ENOENT:
			note(recheckFailure{at: c.Path, err: &fs.PathError{Op: "lstatat", Path: c.Path, Err: errno}})
		case errno != 0 || c.box != nil || b.changed(c, &st):
			note(recheckFailure{at: c.Path, err: fmt.Errorf("%s changed", c.Path)})
		default:
			n++
		}
	}
	return n, true
}

// changed is whether st is not it as the walk stat'ed it.
func (b *graphBuilder) changed(it *Item, st *syscall.Stat_t) bool {
	e := b.entryOf(st)
	return e.stamp() != it.stamp || e.node != it.node
}

func (b *graphBuilder) listFD(fd int, rel string, sc *listScratch) ([]dirEntry, error) {
	buf := sc.buf[:0]
	for {
		if cap(buf)-len(buf) < 8<<10 {
			buf = slices.Grow(buf, max(8<<10, cap(buf)))
		}
		n, err := syscall.ReadDirent(fd, buf[len(buf):cap(buf)])
		if err != nil {
			sc.buf = buf
			return nil, &fs.PathError{Op: "readdirent", Path: rel, Err: err}
		}
		if n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	sc.buf = buf
	// The names, NUL-terminated in the records, are sorted and stat'ed where
	// they lie.
	names := sc.names[:0]
	for off := 0; off+direntNameOff <= len(buf); {
		reclen := int(binary.NativeEndian.Uint16(buf[off+direntReclenOff:]))
		if reclen <= direntNameOff || off+reclen > len(buf) {
			break
		}
		at := off + direntNameOff
		n := bytes.IndexByte(buf[at:off+reclen], 0) // the kernel ends every name with one
		off += reclen
		if n < 0 {
			continue
		}
		if name := buf[at : at+n]; n > 0 && string(name) != "." && string(name) != ".." {
			names = append(names, direntName{at, n})
		}
	}
	sc.names = names
	nameOf := func(d direntName) []byte { return buf[d.at : d.at+d.n] }
	slices.SortFunc(names, func(x, y direntName) int { return bytes.Compare(nameOf(x), nameOf(y)) })
	ents := sc.ents[:0]
	for _, d := range names {
		var st syscall.Stat_t
		_, _, errno := syscall.Syscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(&buf[d.at])), uintptr(unsafe.Pointer(&st)),
			atSymlinkNofollow, 0, 0)
		name := nameOf(d)
		switch errno {
		case 0:
		case syscall.ENOENT:
			continue // removed since it was listed
		default:
			return nil, &fs.PathError{Op: "lstatat", Path: path.Join(rel, string(name)), Err: errno}
		}
		e := b.entryOf(&st)
		e.name = name
		ents = append(ents, e)
	}
	sc.ents = ents
	return ents, nil
}

// statMode is the os.FileMode os.Lstat makes of a stat mode: the conversion
// of os/stat_linux.go (fillFileStatFromSys), which the os package does not
// export; TestWalkIsWalkDir compares the two.
func statMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
