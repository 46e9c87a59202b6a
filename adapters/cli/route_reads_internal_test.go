package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// readBytes is the bytes this process has read through read system calls
// (/proc/self/io's rchar).
func readBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skip("no /proc/self/io here")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no rchar in /proc/self/io")
	return 0
}

// TestRoutingReadsTheHeadersOnly: rea analyze picks its route from a
// file's headers; open_binary then hashes it. Before, the route hashed it
// too, so `rea analyze` read every byte of a binary twice (0.2 s of 0.9 s
// of CPU on Debian's chromium, 297 MB). The same holds for rea compare's
// check that both sides are native binaries.
func TestRoutingReadsTheHeadersOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads are counted from /proc/self/io")
	}
	is := is.New(t)
	head, err := os.ReadFile("/proc/self/exe")
	is.NoErr(err)
	p := filepath.Join(t.TempDir(), "big")
	is.NoErr(os.WriteFile(p, head[:64<<10], 0o644))
	is.NoErr(os.Truncate(p, 256<<20)) // an ELF header and 256 MiB of holes
	before := readBytes(t)
	is.Equal(routeAnalyze(context.Background(), p), "") // the native overview
	other := filepath.Join(t.TempDir(), "bundle.json")
	is.NoErr(os.WriteFile(other, []byte("{}"), 0o644))
	c := &compareCmd{Left: p, Right: other}
	handled, err := c.compareBinaries(&env{ctx: context.Background()})
	is.True(handled && err != nil) // one native binary and one bundle: invalid_request
	if read := readBytes(t) - before; read > 16<<20 {
		t.Fatalf("routing read %d MiB of a 256 MiB file", read>>20)
	}
}
