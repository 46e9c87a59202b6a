package artifact_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core/artifact"
)

// TestSizedIsToldTheBytesAhead: Sized hears, once and before any file is
// read, how many bytes the tree's files declare.
func TestSizedIsToldTheBytesAhead(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	is.NoErr(os.WriteFile(filepath.Join(dir, "a.js"), []byte(strings.Repeat("a", 1000)), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(dir, "lib", "b.js"), []byte(strings.Repeat("b", 234)), 0o644))
	var told []int64
	read := false
	req := artifact.Request{Op: "inventory_artifact", Path: dir, Policy: "fail",
		Limits: artifact.Limits{MaxEntries: 100, MaxTotalBytes: 1 << 20, MaxEntryBytes: 1 << 20, MaxCompressionRatio: 100, MaxDepth: 4, MaxPathBytes: 4096},
		Sized: func(n int64) {
			is.True(!read) // before any file is read
			told = append(told, n)
		},
		Wants:   func(string, int64) bool { return true },
		Content: func(string, string, []byte) { read = true }}
	g, err := artifact.Build(context.Background(), req)
	is.NoErr(err)
	g.Close()
	is.True(read)
	is.Equal(told, []int64{1234})
}
