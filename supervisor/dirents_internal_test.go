//go:build linux

package supervisor

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/matryer/is"
)

// readDirents lists a directory as os.ReadDir does, across several
// getdents64 buffers, and stops at its limit; readPIDs lists /proc's
// process directories with an inode number each.
func TestReadDirents(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	var want []string
	for i := range 600 { // more entries than one 16 KiB buffer holds
		name := "file-with-a-longish-name-" + strconv.Itoa(i)
		is.NoErr(os.WriteFile(filepath.Join(dir, name), nil, 0o600))
		want = append(want, name)
	}
	var got []string
	is.NoErr(readDirents(dir, 0, func(n []byte, ino uint64) {
		got = append(got, string(n))
		is.True(ino != 0)
	}))
	slices.Sort(got)
	slices.Sort(want)
	is.Equal(got, want)

	got = got[:0]
	is.NoErr(readDirents(dir, 10, func(n []byte, _ uint64) { got = append(got, string(n)) }))
	is.Equal(len(got), 10)

	err := readDirents(filepath.Join(dir, "missing"), 0, func([]byte, uint64) {})
	is.True(os.IsNotExist(err))

	ents, err := readPIDs(t.Context())
	is.NoErr(err)
	self := slices.IndexFunc(ents, func(e pidEntry) bool { return e.pid == os.Getpid() })
	is.True(self >= 0)
	is.True(ents[self].ino != 0)
}
