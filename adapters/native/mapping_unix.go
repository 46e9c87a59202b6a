//go:build unix

package native

import (
	"os"
	"syscall"
)

// mapFile maps the size bytes of f read-only, or returns nil when the
// system refuses (reads then go through ReadAt).
func mapFile(f *os.File, size int64) *mapping {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return &mapping{data: data, unmap: syscall.Munmap, advise: dontNeed}
}
