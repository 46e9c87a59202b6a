//go:build linux

package native

import (
	"fmt"
	"io/fs"
	"syscall"
)

// statIdentity is a file's identity as the library cache keys it (see
// libcache.go): device, inode, size, and the modification and change
// times to the nanosecond.
func statIdentity(st fs.FileInfo) (string, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("dev=%d ino=%d size=%d mtime=%d.%09d ctime=%d.%09d", s.Dev, s.Ino, s.Size, s.Mtim.Sec, s.Mtim.Nsec, s.Ctim.Sec, s.Ctim.Nsec), true
}
