package native_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
	"rea/ports/portstest"
)

// The lists an Analysis caches (symbols, procedures, names, strings, the
// cross-reference index) are charged to the account of the call that
// computes them and held until Close, which releases all of it; a budget
// too small for a list refuses that call with the limit error, and the
// refusal is not cached.
func TestCachedListsAreChargedUntilClose(t *testing.T) {
	is := is.New(t)
	path := fixturePath(t, "c")
	acc := &portstest.MemoryAccount{Max: 1 << 30}
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
	is.True(acc.InUse() > 0)
	for _, what := range []string{"the procedures list", "the names list", "the symbol tables", "the strings list", "the cross-reference index"} {
		if acc.Charged(what) == 0 {
			t.Errorf("%s not charged", what)
		}
	}
	is.NoErr(a.Close(ctx))
	for range 100 { // the index is released once nothing computes it
		if acc.InUse() == 0 {
			break
		}
		runtimeGosched()
	}
	is.Equal(acc.InUse(), int64(0)) // Close released everything

	tiny := &portstest.MemoryAccount{Max: 64}
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
