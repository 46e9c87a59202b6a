package native

import (
	"context"
	"testing"
)

// A decoder gives way while a foreground query runs, unless it is one of
// the workers that keep going, and resumes when the query leaves.
func TestGateGivesWay(t *testing.T) {
	var g gate
	g.wait(context.Background(), 1, 2) // no query: returns at once
	release := g.enter()
	g.wait(context.Background(), 0, 2) // worker 0 of 2 keeps going
	done := make(chan struct{})
	go func() {
		g.wait(context.Background(), 1, 2)
		close(done)
	}()
	release()
	<-done
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer g.enter()()
	g.wait(ctx, 0, 1) // a cancelled job does not wait
}
