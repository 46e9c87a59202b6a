//go:build linux

package supervisor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// readBounded reads a /proc file with plain system calls: it allocates the
// bytes it returns and the path's NUL-terminated copy, no *os.File (which
// is made non-blocking and offered to the poller, at each of the thousands
// of reads a capture's sampler makes each second). It keeps its contract: at
// most limit bytes and ErrTooLarge past them, os.ErrNotExist for a file
// that is gone. Before, a read of /proc/self/stat allocated 5 times.
func TestReadBoundedAllocatesNoFile(t *testing.T) {
	is := is.New(t)
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := readBounded("/proc/self/stat", 4096); err != nil {
			t.Fatal(err)
		}
	})
	t.Log("allocations per read:", allocs)
	is.True(allocs <= 2)

	want, err := os.ReadFile("/proc/self/cmdline")
	is.NoErr(err)
	got, err := readBounded("/proc/self/cmdline", 1<<20)
	is.NoErr(err)
	is.Equal(got, want)

	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	is.NoErr(os.WriteFile(big, []byte(strings.Repeat("x", 5000)), 0o600))
	b, err := readBounded(big, 4999)
	is.True(errors.Is(err, ErrTooLarge))
	is.Equal(len(b), 4999)
	b, err = readBounded(big, 5000)
	is.NoErr(err)
	is.Equal(len(b), 5000)
	b, err = readBounded(big, 0)
	is.True(errors.Is(err, ErrTooLarge))
	is.Equal(len(b), 0)

	_, err = readBounded(filepath.Join(dir, "gone"), 10)
	is.True(errors.Is(err, os.ErrNotExist))
}
