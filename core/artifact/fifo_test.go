//go:build unix

package artifact_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core/artifact"
)

// A file swapped for a FIFO between the directory walk and hashing must not
// block the inventory: the open does not wait for a writer, and the item is
// reported as no longer a regular file.
func TestFileSwappedForFIFODoesNotBlock(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	victim := filepath.Join(dir, "b.txt")
	is.NoErr(os.WriteFile(victim, []byte("b"), 0o644))
	swapped := false
	req := artifact.Request{Op: "inventory_artifact", Path: dir, Policy: "fail",
		Limits: artifact.Limits{MaxEntries: 100, MaxTotalBytes: 1 << 20, MaxEntryBytes: 1 << 20, MaxCompressionRatio: 100, MaxDepth: 4, MaxPathBytes: 4096},
		Observe: func(msg string) {
			if strings.HasPrefix(msg, "hashing") && !swapped {
				swapped = true
				is.NoErr(os.Remove(victim))
				is.NoErr(syscall.Mkfifo(victim, 0o644))
			}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := artifact.Build(ctx, req)
		done <- err
	}()
	select {
	case err := <-done:
		is.True(swapped)
		is.True(err != nil) // the swapped item cannot be read as it was walked
		var f *artifact.Failure
		is.True(errors.As(err, &f) || strings.Contains(err.Error(), "regular"))
	case <-ctx.Done():
		t.Fatal("the inventory blocked on a FIFO")
	}
}

// A directory swapped for a link to outside the root between the walk and
// hashing must not let the inventory read the outside file.
func TestDirectorySwappedForEscapingLinkIsNotFollowed(t *testing.T) {
	is := is.New(t)
	base := t.TempDir()
	dir := filepath.Join(base, "app")
	outside := filepath.Join(base, "outside")
	is.NoErr(os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	is.NoErr(os.MkdirAll(outside, 0o755))
	is.NoErr(os.WriteFile(filepath.Join(dir, "lib", "a.js"), []byte("inside"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(outside, "a.js"), []byte("inside"), 0o644)) // same size and bytes
	swapped := false
	req := artifact.Request{Op: "inventory_artifact", Path: dir, Policy: "fail",
		Limits: artifact.Limits{MaxEntries: 100, MaxTotalBytes: 1 << 20, MaxEntryBytes: 1 << 20, MaxCompressionRatio: 100, MaxDepth: 4, MaxPathBytes: 4096},
		Observe: func(msg string) {
			if strings.HasPrefix(msg, "hashing") && !swapped {
				swapped = true
				is.NoErr(os.RemoveAll(filepath.Join(dir, "lib")))
				is.NoErr(os.Symlink(outside, filepath.Join(dir, "lib")))
			}
		}}
	_, err := artifact.Build(context.Background(), req)
	is.True(swapped)
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "escapes")) // refused at the open, not only by the final recheck
}
