//go:build linux && (amd64 || arm64 || riscv64)

package artifact

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"path"
	"slices"
	"syscall"
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
		return listFD(int(f.Fd()), rel, sc)
	}
	defer syscall.Close(fd)
	return listFD(fd, rel, sc)
}

func listFD(fd int, rel string, sc *listScratch) ([]dirEntry, error) {
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
		ents = append(ents, dirEntry{name: name, mode: statMode(st.Mode), size: st.Size, mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec})
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
