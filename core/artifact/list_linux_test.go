//go:build linux && (amd64 || arm64 || riscv64)

package artifact

import "testing"

// TestWalkWithoutOpenat2: where openat2 is refused, each directory is
// opened through os.Root and listed the same way.
func TestWalkWithoutOpenat2(t *testing.T) {
	was := noOpenat2.Swap(true)
	defer noOpenat2.Store(was)
	checkWalk(t, walkTree(t))
}
