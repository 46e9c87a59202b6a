package native

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRegionsEndWithTheFile: a region's file bytes end where the file
// does, whatever its header claims. The fuzz input claims-past-eof (an
// AArch64 ELF of 2 KB with an executable region of some 150 GB of file
// bytes at an offset past its end) made whole-file discovery size its
// per-byte code sets by the claim: run twice in one process, it asked for
// 19 GB at once and the kernel killed the test.
func TestRegionsEndWithTheFile(t *testing.T) {
	text, err := os.ReadFile("testdata/fuzz/FuzzNewAnalysis/claims-past-eof")
	if err != nil {
		t.Fatal(err)
	}
	lit := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(text)), "go test fuzz v1"))
	data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAnalysis(bytes.NewReader([]byte(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	claimed := false
	for _, r := range newMemMap(a.img).regions {
		if r.off > uint64(len(data)) && r.fileSize > 0 || r.off <= uint64(len(data)) && r.fileSize > uint64(len(data))-r.off {
			t.Errorf("%s claims %d file bytes at %#x in a file of %d", r.name, r.fileSize, r.off, len(data))
		}
		claimed = claimed || r.exec
	}
	if !claimed {
		t.Fatal("the input has no executable region: it no longer tests the claim")
	}
}
