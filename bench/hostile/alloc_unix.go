//go:build unix

package hostile

import (
	"os"
	"syscall"
)

// allocated is the bytes a file occupies on disk.
func allocated(info os.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
