package native_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// account is a memory account with a bound; it counts what is held.
type account struct {
	mu        sync.Mutex
	max, used int64
	whats     map[string]int64
}

func (a *account) Reserve(what string, n int64) (func(), error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used+n > a.max {
		return nil, &ports.LimitError{What: what, Limit: "TEST_MEMORY", Max: a.max, InUse: a.used, Requested: n}
	}
	a.used += n
	if a.whats == nil {
		a.whats = map[string]int64{}
	}
	a.whats[what] += n
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			a.used -= n
			a.mu.Unlock()
		})
	}, nil
}

func (a *account) inUse() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// The lists an Analysis caches (symbols, procedures, names, strings, the
// cross-reference index) are charged to the account of the call that
// computes them and held until Close, which releases all of it; a budget
// too small for a list refuses that call with the limit error, and the
// refusal is not cached.
func TestCachedListsAreChargedUntilClose(t *testing.T) {
	is := is.New(t)
	path := fixturePath(t, "c")
	acc := &account{max: 1 << 30}
	ctx := ports.WithMemory(context.Background(), acc)
	a, err := native.OpenFile(ctx, path)
	is.NoErr(err)
	_, err = a.Procedures(ctx)
	is.NoErr(err)
	_, err = a.Names(ctx)
	is.NoErr(err)
	_, err = a.Strings(ctx)
	is.NoErr(err)
	_, err = a.ReferencesTo(ctx, 0, ^uint64(0))
	is.NoErr(err)
	is.True(acc.inUse() > 0)
	for _, what := range []string{"the procedures list", "the names list", "the symbol tables", "the strings list", "the cross-reference index"} {
		if acc.whats[what] == 0 {
			t.Errorf("%s not charged (charged: %v)", what, acc.whats)
		}
	}
	is.NoErr(a.Close(ctx))
	for range 100 { // the index is released once nothing computes it
		if acc.inUse() == 0 {
			break
		}
		runtimeGosched()
	}
	is.Equal(acc.inUse(), int64(0)) // Close released everything

	tiny := &account{max: 64}
	tctx := ports.WithMemory(context.Background(), tiny)
	b, err := native.OpenFile(tctx, path)
	is.NoErr(err)
	defer b.Close(context.Background())
	_, err = b.Names(tctx)
	var le *ports.LimitError
	is.True(errors.As(err, &le)) // refused by the budget
	is.Equal(le.Limit, "TEST_MEMORY")
	names, err := b.Names(ctx) // the refusal was not cached
	is.NoErr(err)
	is.True(len(names) > 0)
}

func runtimeGosched() { time.Sleep(10 * time.Millisecond) }
