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

// The DWARF an Analysis loads (for source lines, signatures, and the
// symbols of a file without .symtab) is charged like its lists: held until
// Close, and a budget too small for it refuses the call that needs it,
// naming it, without caching the refusal.
func TestDWARFIsChargedUntilClose(t *testing.T) {
	is := is.New(t)
	acc := &portstest.MemoryAccount{Max: 1 << 30}
	ctx := ports.WithMemory(context.Background(), acc)
	a, err := native.OpenFile(ctx, fixturePath(t, "c-g"))
	is.NoErr(err)
	procs, err := a.Procedures(ctx)
	is.NoErr(err)
	var main uint64
	for _, p := range procs {
		if p.Name == "main" {
			main = p.Address
		}
	}
	is.True(main != 0)
	_, err = a.SourceAt(ctx, main)
	is.NoErr(err)
	is.True(acc.Charged("the DWARF debug information") > 0)
	is.NoErr(a.Close(ctx))
	for range 100 {
		if acc.InUse() == 0 {
			break
		}
		runtimeGosched()
	}
	is.Equal(acc.InUse(), int64(0))

	// Without .symtab the symbols come from DWARF: the same load, charged
	// to the call that loads it.
	tiny := &portstest.MemoryAccount{Max: 64}
	tctx := ports.WithMemory(context.Background(), tiny)
	b, err := native.OpenFile(tctx, fixturePath(t, "c-dwarf"))
	is.NoErr(err)
	defer b.Close(context.Background())
	_, err = b.SourceAt(tctx, 0x1000) // the line table's DWARF is the first charge
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(le.What, "the DWARF debug information")
	acc2 := &portstest.MemoryAccount{Max: 1 << 30}
	names, err := b.Names(ports.WithMemory(context.Background(), acc2)) // not cached
	is.NoErr(err)
	is.True(acc2.Charged("the DWARF debug information") > 0)
	found := false
	for _, n := range names {
		found = found || n.Name == "main"
	}
	is.True(found) // named by DWARF
}
