package artifact

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTotalCheckedBeforeReading: a directory whose files add up to more
// than max_total_bytes fails with that limit before any file is hashed,
// and the error names the limit and both sizes.
func TestTotalCheckedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	l := defaultArtifactLimits
	l.MaxTotalBytes = 250
	_, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: l,
		Observe: func(s string) { seen = append(seen, s) }})
	if err == nil || !strings.Contains(err.Error(), "max_total_bytes exceeded (300 > 250)") {
		t.Fatalf("got %v, want max_total_bytes exceeded (300 > 250)", err)
	}
	for _, s := range seen {
		if strings.HasPrefix(s, "hashing") || strings.HasPrefix(s, "hashed") {
			t.Fatalf("files were read before the limit was checked: %q", seen)
		}
	}
	l.MaxTotalBytes = 300
	if _, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: l}); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}
