package artifact

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestHashingOneLargeFileReportsProgress: reading one large file (a 4 GiB
// entry took 17 s here) observes progress as its bytes go by, not only per
// 500 files. Before, an inventory of a ZIP holding one 4 GiB entry sent
// "started" and, 17 s later, "sealing the graph": nothing in between to
// reset a client's request timeout (the TypeScript SDK's is 60 s).
func TestHashingOneLargeFileReportsProgress(t *testing.T) {
	defer func(n int64) { progressBytes = n }(progressBytes)
	progressBytes = 1 << 20 // the read buffer's size: one observation per chunk
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 5<<20+100), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	_, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: defaultArtifactLimits,
		ResultOnly: true, Observe: func(s string) {
			mu.Lock()
			seen = append(seen, s)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range seen {
		if strings.HasPrefix(s, "read ") && strings.Contains(s, "big.bin") {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d byte-progress observations for 5 MiB read, want 5: %q", n, seen)
	}
}
