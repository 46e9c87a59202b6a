package cdp

import (
	"strings"
	"testing"
)

// A long TMPDIR (tests and sandboxes nest them deep) would put Chromium's
// sockets past the Unix path limit, and Chromium exits at start-up.
func TestProfileParentKeepsSocketPathsShort(t *testing.T) {
	t.Setenv("TMPDIR", "/tmp/"+strings.Repeat("d", 80))
	if got := profileParent(); got != "/tmp" {
		t.Fatalf("profileParent() = %q with a long TMPDIR, want /tmp", got)
	}
	t.Setenv("TMPDIR", "/tmp/short")
	if got := profileParent(); got != "/tmp/short" {
		t.Fatalf("profileParent() = %q, want TMPDIR when it is short", got)
	}
}
