package cdptest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"rea/supervisor"
)

// NodeProcess is a Node program started with --inspect=127.0.0.1:0 under a
// supervisor Run, for live tests of the V8 inspector lane.
type NodeProcess struct {
	Run *supervisor.Run
	// Endpoint is the inspector's http://127.0.0.1:PORT.
	Endpoint string
	// TargetID is the id in the "Debugger listening" line.
	TargetID string
	// Ready is closed when the program writes a line starting with
	// readyPrefix on stdout ("" means at once).
	Ready chan struct{}
}

var listening = regexp.MustCompile(`Debugger listening on ws://(127\.0\.0\.1:[0-9]+)/([A-Za-z0-9-]+)`)

// StartNode runs `node --inspect=127.0.0.1:0 script` in dir as an owned
// process and waits for the inspector to listen. The caller must call
// Stop. Skippable errors wrap exec.ErrNotFound.
func StartNode(ctx context.Context, dir, script, readyPrefix string, extraArgs ...string) (*NodeProcess, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	run, err := supervisor.New(&supervisor.Options{GraceDelay: time.Second})
	if err != nil {
		return nil, err
	}
	args := append([]string{"--inspect=127.0.0.1:0"}, extraArgs...)
	args = append(args, script)
	if err := run.Start(ctx, supervisor.Spec{Path: node, Args: args, Dir: dir}); err != nil {
		run.Cleanup(ctx)
		return nil, err
	}
	p := &NodeProcess{Run: run, Ready: make(chan struct{})}
	found := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(run.Stderr())
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- [2]string{m[1], m[2]}
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	go func() {
		sc := bufio.NewScanner(run.Stdout())
		closed := false
		if readyPrefix == "" {
			close(p.Ready)
			closed = true
		}
		for sc.Scan() {
			if !closed && strings.HasPrefix(sc.Text(), readyPrefix) {
				close(p.Ready)
				closed = true
			}
		}
	}()
	select {
	case m, ok := <-found:
		if !ok {
			p.Stop(ctx)
			return nil, errors.New("node exited before its inspector listened")
		}
		p.Endpoint, p.TargetID = "http://"+m[0], m[1]
	case <-time.After(20 * time.Second):
		p.Stop(ctx)
		return nil, fmt.Errorf("node's inspector did not listen within 20 s")
	}
	return p, nil
}

// Stop ends the program and everything it started, and reports what
// remains.
func (p *NodeProcess) Stop(ctx context.Context) error {
	return p.Run.Cleanup(ctx)
}
