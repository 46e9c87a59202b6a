package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress turns core's status observations into notifications/progress for
// one request: progress counts observations and strictly increases; at most
// one intermediate notification per interval; the terminal one is always
// sent; total is omitted (unknown).
type progress struct {
	ctx      context.Context
	ss       *sdk.ServerSession
	token    any
	interval time.Duration

	mu    sync.Mutex
	count int
	sent  int // the count carried by the last notification
	last  time.Time
	done  bool
}

func newProgress(ctx context.Context, ss *sdk.ServerSession, token any, interval time.Duration) *progress {
	return &progress{ctx: ctx, ss: ss, token: token, interval: interval}
}

func (p *progress) Observe(phase, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.count++
	now := time.Now()
	if !p.last.IsZero() && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	p.send(phase, message)
}

func (p *progress) Finish(phase, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	p.count++
	p.send(phase, message)
}

// send must be called with mu held.
func (p *progress) send(phase, message string) {
	if p.count <= p.sent || p.ss == nil {
		return
	}
	p.sent = p.count
	// Notification failures (a closed connection) must not fail the call.
	_ = p.ss.NotifyProgress(context.WithoutCancel(p.ctx), &sdk.ProgressNotificationParams{
		ProgressToken: p.token, Progress: float64(p.count), Message: phase + ": " + message,
	})
}
