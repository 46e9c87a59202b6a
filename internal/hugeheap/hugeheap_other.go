//go:build !linux

package hugeheap

// Prepare does nothing off Linux.
func Prepare() bool { return false }

func prepareOnce(int) bool { return false }
