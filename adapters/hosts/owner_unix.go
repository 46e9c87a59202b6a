//go:build unix

package hosts

import (
	"io/fs"
	"os"
	"syscall"
)

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

func writableDir(dir string) bool {
	err := syscall.Access(dir, 2) // W_OK
	return err == nil || err == syscall.ENOENT
}
