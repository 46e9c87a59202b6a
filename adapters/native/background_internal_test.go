package native

import (
	"context"
	"testing"
)

// A decoder gives way while a foreground query runs and resumes when the
// query leaves; a cancelled job does not wait.
func TestGateGivesWay(t *testing.T) {
	var g gate
	g.wait(context.Background()) // no query: returns at once
	release := g.enter()
	waiting := make(chan struct{})
	done := make(chan struct{})
	go func() {
		close(waiting)
		g.wait(context.Background())
		close(done)
	}()
	<-waiting
	release()
	<-done
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer g.enter()()
	g.wait(ctx) // a cancelled job does not wait
}
