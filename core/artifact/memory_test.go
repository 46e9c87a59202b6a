package artifact_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/artifact"
	"rea/ports"
	"rea/ports/portstest"
)

// An inventory charges its occurrences to the call's memory account while
// it builds and releases them when done; an account too small for them
// refuses the call with resource_constraint naming the limit.
func TestInventoryIsChargedToTheCallBudget(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	for i := range 500 {
		is.NoErr(os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%04d.txt", i)), []byte("x"), 0o644))
	}
	req := artifact.Request{Op: "inventory_artifact", Path: dir, Policy: "fail",
		Limits: artifact.Limits{MaxEntries: 1000, MaxTotalBytes: 1 << 20, MaxEntryBytes: 1 << 20, MaxCompressionRatio: 100, MaxDepth: 4, MaxPathBytes: 4096}}

	big := &portstest.MemoryAccount{Max: 1 << 30}
	g, err := artifact.Build(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	g.Close()
	is.True(big.Peak() > 500*100)   // every occurrence was charged
	is.Equal(big.InUse(), int64(0)) // and released

	small := &portstest.MemoryAccount{Max: 16 << 10}
	_, err = artifact.Build(ports.WithMemory(context.Background(), small), req)
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeResourceConstraint)
	is.Equal(e.Details["limit"], "TEST_MEMORY")
	is.Equal(small.InUse(), int64(0))
}
