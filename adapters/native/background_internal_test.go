package native

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// A decoder gives way while a foreground query runs and resumes when the
// query leaves; it waits a slice at most; a cancelled job does not wait.
func TestGateGivesWay(t *testing.T) {
	old := gateSlice
	t.Cleanup(func() { gateSlice = old })
	gateSlice = time.Hour // only the query's leaving can end this wait

	var g gate
	g.wait(context.Background()) // no query: returns at once
	release := g.enter()
	done := make(chan struct{})
	go func() {
		g.wait(context.Background())
		close(done)
	}()
	// The decoder must still be waiting while the query runs. (A gate that
	// does not wait closes done at once; yielding gives it the chance.)
	for range 100 {
		runtime.Gosched()
	}
	time.Sleep(20 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("the decoder did not wait for the foreground query")
	default:
	}
	release()
	<-done

	gateSlice = time.Millisecond // a query that stays: the decoder resumes after a slice
	defer g.enter()()
	g.wait(context.Background())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gateSlice = time.Hour
	g.wait(ctx) // a cancelled job does not wait
}
