package hopper

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"rea/ports"
)

// Analysis is one lazy Hopper session on one target. Its first query starts
// the engine under the startup deadline; concurrent queries share that
// start. A start that fails, times out or is abandoned by every waiting
// caller is cleaned up completely and the next query starts afresh. An
// engine that dies after it was ready is reported by every later query and
// never silently replaced.
type Analysis struct {
	p       *Provider
	install Installation
	target  ports.Target
	loader  []string
	profile ports.Profile
	version string

	life context.Context // ends at Close: bounds the engine's process
	end  context.CancelFunc

	mu       sync.Mutex
	closed   bool
	eng      *engine
	starting *attempt
	crashed  error

	cacheMu sync.Mutex
	procs   []ports.Procedure
	ranges  []ports.FunctionRange // one per procedure
	segs    []ports.Segment
	hasSegs bool
}

var (
	_ ports.Analysis         = (*Analysis)(nil)
	_ ports.DocumentLister   = (*Analysis)(nil)
	_ ports.SegmentLister    = (*Analysis)(nil)
	_ ports.ProcedureLister  = (*Analysis)(nil)
	_ ports.NameLister       = (*Analysis)(nil)
	_ ports.StringLister     = (*Analysis)(nil)
	_ ports.ByteReader       = (*Analysis)(nil)
	_ ports.Decompiler       = (*Analysis)(nil)
	_ ports.FunctionAnalyzer = (*Analysis)(nil)
	_ ports.LineageReporter  = (*Analysis)(nil)
)

type attempt struct {
	done    chan struct{}
	eng     *engine
	err     error
	waiters int
	cancel  context.CancelFunc
}

func newAnalysis(p *Provider, in Installation, t ports.Target, loader []string, prof ports.Profile, version string) *Analysis {
	life, end := context.WithCancel(context.Background())
	return &Analysis{p: p, install: in, target: t, loader: loader, profile: prof, version: version, life: life, end: end}
}

// Version is "launcher-sha256:<hex>": Hopper reports no version without
// starting, so the launcher's digest stands for the build.
func (a *Analysis) Version() string { return a.version }

// Profile is the analysis profile (PROVIDERS.md §2.1).
func (a *Analysis) Profile() ports.Profile { return a.profile }

// ProcessLineage is the lineage observed once after the handshake, or
// unavailable before the engine started.
func (a *Analysis) ProcessLineage(ctx context.Context) ports.ProcessLineage {
	a.mu.Lock()
	eng := a.eng
	a.mu.Unlock()
	if eng == nil {
		return ports.ProcessLineage{Status: ports.LineageUnavailable, ObservedAt: time.Now(), Reason: ports.LineageReasonLauncherGone}
	}
	return eng.lineage
}

// engineFor returns the ready engine, starting it (or joining the pending
// start) when needed, with a waiting notice every waitInterval to a caller
// observing progress.
func (a *Analysis) engineFor(ctx context.Context) (*engine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	switch {
	case a.closed:
		a.mu.Unlock()
		return nil, fmt.Errorf("hopper: analysis is closed: %w", ports.ErrUnavailable)
	case a.crashed != nil:
		err := a.crashed
		a.mu.Unlock()
		return nil, err
	case a.eng != nil:
		eng := a.eng
		a.mu.Unlock()
		return eng, nil
	}
	att := a.starting
	if att == nil {
		sctx, cancel := context.WithTimeout(a.life, a.p.opts.StartupTimeout)
		att = &attempt{done: make(chan struct{}), cancel: cancel}
		a.starting = att
		go func() {
			defer cancel()
			eng, err := a.start(sctx)
			if err != nil {
				switch {
				case errors.Is(sctx.Err(), context.DeadlineExceeded):
					err = &StartupError{Kind: "timeout", Deadline: a.p.opts.StartupTimeout, Err: err}
				case sctx.Err() != nil:
					err = &StartupError{Kind: "cancelled", Err: context.Canceled}
				}
			}
			a.mu.Lock()
			att.eng, att.err = eng, err
			if a.starting == att {
				a.starting = nil
				if err == nil {
					a.eng = eng
				}
			}
			a.mu.Unlock()
			close(att.done)
			if err == nil {
				go a.watch(eng)
			}
		}()
	}
	att.waiters++
	a.mu.Unlock()

	began := time.Now()
	tick := time.NewTicker(waitInterval)
	defer tick.Stop()
	for {
		select {
		case <-att.done:
			if att.err != nil {
				return nil, att.err
			}
			return att.eng, nil
		case <-tick.C:
			ports.Observe(ctx, "hopper_startup", fmt.Sprintf("waiting for Hopper's analysis and bridge readiness (%d s elapsed)",
				int(time.Since(began).Round(time.Second)/time.Second)))
		case <-ctx.Done():
			a.mu.Lock()
			att.waiters--
			last := att.waiters == 0
			a.mu.Unlock()
			if last {
				att.cancel()
				<-att.done
			}
			return nil, &StartupError{Kind: "cancelled", Err: ctx.Err()}
		}
	}
}

// watch marks the analysis crashed when a ready engine dies on its own.
func (a *Analysis) watch(eng *engine) {
	select {
	case <-eng.run.Exited():
	case <-eng.wire.dead:
	case <-a.life.Done():
		return
	}
	a.mu.Lock()
	if a.closed || a.eng != eng {
		a.mu.Unlock()
		return
	}
	a.crashed = fmt.Errorf("hopper: %w", errCrashed)
	a.mu.Unlock()
	eng.wire.close()
	cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = eng.run.Cleanup(cctx)
}

// Close shuts the engine down, removes the private root, and reports owned
// resources that remain as a *ports.CleanupError. A pending start is
// abandoned first.
func (a *Analysis) Close(ctx context.Context) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	att, eng := a.starting, a.eng
	a.mu.Unlock()
	if att != nil {
		att.cancel()
		<-att.done
	}
	defer a.end()
	if eng == nil {
		return nil
	}
	return eng.shutdown(ctx)
}

// query asks the engine (starting it when needed).
func (a *Analysis) query(ctx context.Context, method string, params map[string]any, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	eng, err := a.engineFor(ctx)
	if err != nil {
		return err
	}
	if err := eng.wire.call(ctx, method, params, out); err != nil {
		a.mu.Lock()
		crashed := a.crashed
		a.mu.Unlock()
		if crashed != nil && ctx.Err() == nil {
			return crashed
		}
		return fmt.Errorf("hopper: %s: %w", method, err)
	}
	return nil
}
