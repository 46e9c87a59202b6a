package artifact_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/artifact"
	"rea/ports"
)

// account is a bounded memory account that counts what is held.
type account struct {
	mu        sync.Mutex
	max, used int64
	peak      int64
}

func (a *account) Reserve(what string, n int64) (func(), error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used+n > a.max {
		return nil, &ports.LimitError{What: what, Limit: "TEST_MEMORY", Max: a.max, InUse: a.used, Requested: n}
	}
	a.used += n
	a.peak = max(a.peak, a.used)
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			a.used -= n
			a.mu.Unlock()
		})
	}, nil
}

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

	big := &account{max: 1 << 30}
	g, err := artifact.Build(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	g.Close()
	is.True(big.peak > 500*100)  // every occurrence was charged
	is.Equal(big.used, int64(0)) // and released

	small := &account{max: 16 << 10}
	_, err = artifact.Build(ports.WithMemory(context.Background(), small), req)
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeResourceConstraint)
	is.Equal(e.Details["limit"], "TEST_MEMORY")
	is.Equal(small.used, int64(0))
}
