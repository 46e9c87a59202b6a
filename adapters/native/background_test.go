package native_test

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// bigTarget is a binary with more code than native.EarlyCodeBytes: the Go
// toolchain's go command, present wherever these tests run.
func bigTarget(t *testing.T) string {
	path, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	return path
}

// recorder is a ports.Progress that keeps what it is told.
type recorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) Observe(phase, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, phase+": "+message)
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.msgs)
}

// On a large target the early list answers while discovery is held, from
// the tables; a query that needs the whole list waits, relaying progress,
// and gives up with its context; once discovery runs, the whole list holds
// every early procedure and the early list has not changed.
func TestEarlyProceduresBeforeDiscovery(t *testing.T) {
	is := is.New(t)
	path := bigTarget(t)
	release := make(chan struct{})
	p := native.New(native.HoldDiscovery(native.Options{DiscoverOnOpen: true}, release))
	an, err := p.Open(t.Context(), ports.Target{Path: path})
	is.NoErr(err)
	a := an.(*native.Analysis)
	defer a.Close(context.Background())

	first, err := a.EarlyProcedures(t.Context())
	is.NoErr(err)
	is.True(!first.Complete)             // more code than EarlyCodeBytes: the tables' list
	is.True(len(first.Procedures) > 100) // the go command keeps its symbols
	is.True(slices.IsSortedFunc(first.Procedures, func(x, y ports.Procedure) int { return cmp.Compare(x.Address, y.Address) }))
	is.True(!native.DiscoveryDone(a)) // held

	// A waiting query gives up with its context, and hears the progress.
	rec := &recorder{}
	ctx, cancel := context.WithCancel(ports.WithProgress(t.Context(), rec))
	errc := make(chan error, 1)
	go func() {
		_, err := a.Procedures(ctx)
		errc <- err
	}()
	for len(rec.all()) == 0 { // the waiter says it waits before it blocks
		select {
		case err := <-errc:
			t.Fatalf("Procedures returned while discovery was held: %v", err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	err = <-errc
	is.True(errors.Is(err, context.Canceled))
	is.True(strings.Contains(rec.all()[0], "whole-file discovery running"))

	close(release)
	all, err := a.Procedures(t.Context())
	is.NoErr(err)
	is.True(len(all) >= len(first.Procedures))
	at := map[uint64]bool{}
	for _, pr := range all {
		at[pr.Address] = true
	}
	for _, pr := range first.Procedures {
		is.True(at[pr.Address]) // every early procedure is in the whole list
	}
	again, err := a.EarlyProcedures(t.Context())
	is.NoErr(err)
	is.Equal(again, first) // the early list does not depend on how far discovery got
}

// On a small target the early list is the whole list.
// Without DiscoverOnOpen (a one-shot command), the early list starts no
// discovery: nothing would read it before the command exits.
func TestEarlyProceduresStartNoDiscovery(t *testing.T) {
	is := is.New(t)
	an, err := native.New(nil).Open(t.Context(), ports.Target{Path: bigTarget(t)})
	is.NoErr(err)
	a := an.(*native.Analysis)
	defer a.Close(context.Background())
	first, err := a.EarlyProcedures(t.Context())
	is.NoErr(err)
	is.True(!first.Complete)
	is.True(!native.DiscoveryStarted(a))
}

func TestEarlyProceduresCompleteOnSmallTargets(t *testing.T) {
	is := is.New(t)
	a, err := native.OpenFile(t.Context(), fixturePath(t, "c"))
	is.NoErr(err)
	defer a.Close(context.Background())
	e, err := a.EarlyProcedures(t.Context())
	is.NoErr(err)
	is.True(e.Complete)
	all, err := a.Procedures(t.Context())
	is.NoErr(err)
	is.Equal(e.Procedures, all)
}

// Background discovery stores its result in the warm cache when it
// completes, with no query waiting for it.
func TestBackgroundDiscoveryFillsTheCache(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	path := bigTarget(t)
	an, err := native.New(&native.Options{CacheDir: dir, DiscoverOnOpen: true}).Open(t.Context(), ports.Target{Path: path})
	is.NoErr(err)
	a := an.(*native.Analysis)
	native.WaitDiscovery(a)
	is.NoErr(a.Close(context.Background()))

	warm := openCached(t, dir, path)
	st, err := warm.Discovery(t.Context())
	is.NoErr(err)
	is.True(st.Cached) // read from what the background job stored
}

// Close stops a discovery that runs; queries then fail as closed.
func TestCloseStopsBackgroundDiscovery(t *testing.T) {
	is := is.New(t)
	release := make(chan struct{})
	defer close(release)
	an, err := native.New(native.HoldDiscovery(native.Options{DiscoverOnOpen: true}, release)).Open(t.Context(), ports.Target{Path: bigTarget(t)})
	is.NoErr(err)
	a := an.(*native.Analysis)
	errc := make(chan error, 1)
	go func() {
		_, err := a.Procedures(t.Context())
		errc <- err
	}()
	is.NoErr(a.Close(context.Background()))
	native.WaitDiscovery(a) // returns: the job saw the cancellation
	err = <-errc
	is.True(errors.Is(err, fs.ErrClosed))
}
