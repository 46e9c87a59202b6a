//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package artifact

import (
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// openat2 resolves a whole path in one system call where os.Root opens and
// closes every component in turn. RESOLVE_BENEATH makes the kernel refuse
// any path, ".." or symbolic link that leaves the directory, which is the
// same containment os.Root gives; RESOLVE_NO_MAGICLINKS refuses /proc links.
const (
	sysOpenat2          = 437 // the same number on every architecture built here
	resolveNoMagiclinks = 0x02
	resolveBeneath      = 0x08
)

type openHow struct {
	flags   uint64
	mode    uint64
	resolve uint64
}

// noOpenat2 is set once the kernel (or a sandbox) has refused openat2 itself.
var noOpenat2 atomic.Bool

// openBeneath opens name read-only and non-blocking under the directory dir
// with openat2, never leaving it. ok is false when openat2 is unavailable
// or refused the path: the caller then opens through os.Root, which gives
// the error (or, for an absolute link that stays inside, the file).
func openBeneath(dir *os.File, name string) (f *os.File, ok bool) {
	fd, ok := openat2Beneath(dir, name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC)
	if !ok {
		return nil, false
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name)), true
}

// openReadBeneath is openBeneath for a file read once from its start: the
// bare descriptor, kept only if it is a regular file once open, read and
// closed with plain system calls. (os.NewFile asks the kernel whether the
// descriptor blocks and offers it to the poller, which refuses regular
// files: two calls per file that do nothing.) ok is false where
// openBeneath's would be, and for anything but a regular file: the caller
// then opens through openRegular, which gives the error.
func openReadBeneath(dir *os.File, name string) (rc io.ReadCloser, ok bool) {
	if dir == nil {
		return nil, false
	}
	return openReadAt(int(dir.Fd()), name)
}

// openReadAt is openReadBeneath beneath the directory descriptor at: a
// walked directory's, held open since its listing (listWalked), from which
// the kernel resolves one name where from the root it resolves every
// component of the path again. The descriptor's directory was itself
// opened beneath the root; a name resolved beneath it cannot leave it.
func openReadAt(at int, name string) (rc io.ReadCloser, ok bool) {
	fd, ok := openat2At(at, name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC)
	if !ok {
		return nil, false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, false
	}
	return &fdReader{fd: fd, name: name, left: st.Size}, true
}

// fdReader reads a regular file's descriptor (which never waits).
type fdReader struct {
	fd   int
	name string
	left int64 // the bytes the open file's fstat gave, less those read
}

// Read reads into p. A read that stops short of p exactly at the size the
// file had when it was opened is the file's end (io.EOF with the bytes), so
// a file read into a buffer one byte larger than it takes one read and no
// second one to see the end: a read system call per file of a tree of
// small files. A file that grew or shrank since is read to the read that
// returns nothing, and its changed size is what the recheck finds.
func (r *fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(r.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: r.name, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		if r.left -= int64(n); r.left == 0 && n < len(p) {
			return n, io.EOF
		}
		return n, nil
	}
}

// Close closes the descriptor once: its number may be another file's after.
func (r *fdReader) Close() error {
	if r.fd < 0 {
		return os.ErrClosed
	}
	fd := r.fd
	r.fd = -1
	return syscall.Close(fd)
}

// openDirBeneath is openBeneath for a directory to list, as a bare
// descriptor (the listing reads it with system calls; the caller closes it).
func openDirBeneath(dir *os.File, name string) (fd int, ok bool) {
	return openat2Beneath(dir, name, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
}

func openat2Beneath(dir *os.File, name string, flags int) (int, bool) {
	if dir == nil {
		return -1, false
	}
	return openat2At(int(dir.Fd()), name, flags)
}

func openat2At(at int, name string, flags int) (int, bool) {
	if noOpenat2.Load() {
		return -1, false
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return -1, false
	}
	how := openHow{flags: uint64(flags), resolve: resolveBeneath | resolveNoMagiclinks}
	fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(at), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	if errno != 0 {
		if errno == syscall.ENOSYS || errno == syscall.EPERM {
			noOpenat2.Store(true)
		}
		return -1, false
	}
	return int(fd), true
}
