package pty

import (
	"io"
	"sync/atomic"
	"time"
)

// liveView copies the program's terminal output to a person's terminal as it
// arrives (ports.WithTerminalView). The copy never slows the capture: a chunk
// a slow terminal cannot take in time is dropped from the view and counted,
// never from the observation. A nil *liveView does nothing.
type liveView struct {
	ch      chan []byte
	done    chan struct{}
	dropped atomic.Int64
}

func startView(w io.Writer) *liveView {
	if w == nil {
		return nil
	}
	v := &liveView{ch: make(chan []byte, 256), done: make(chan struct{})}
	go func() {
		defer close(v.done)
		for b := range v.ch {
			if _, err := w.Write(b); err != nil {
				for range v.ch { // the terminal is gone: drain, keep the capture unblocked
					v.dropped.Add(1)
				}
				return
			}
		}
	}()
	return v
}

// send queues one chunk (the caller's copy, not reused after).
func (v *liveView) send(b []byte) {
	if v == nil {
		return
	}
	select {
	case v.ch <- b:
	default:
		v.dropped.Add(1)
	}
}

// end closes the queue; only the chunk reader, the one sender, calls it.
func (v *liveView) end() {
	if v != nil {
		close(v.ch)
	}
}

// wait lets the view finish writing what was queued, for at most d.
func (v *liveView) wait(d time.Duration) {
	if v == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-v.done:
	case <-t.C:
	}
}
