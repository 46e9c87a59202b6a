package hopper

import (
	"context"
	"fmt"
	"sync"
	"time"

	"rea/adapters/internal/lazyengine"
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
	demo    bool // the launcher is the Linux demo: run through the X11 helper

	// lazy starts the engine at the first query and owns its lifetime.
	lazy *lazyengine.Holder[*engine]

	noteMu sync.Mutex
	noted  map[ports.AnnotationKind]map[uint64]bool // addresses rea commented in this session

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

func newAnalysis(p *Provider, in Installation, t ports.Target, loader []string, prof ports.Profile, version string) *Analysis {
	a := &Analysis{p: p, install: in, target: t, loader: loader, profile: prof, version: version}
	a.lazy = lazyengine.New(lazyengine.Config[*engine]{
		Name: "hopper", Phase: "hopper_startup", Waiting: "waiting for Hopper's analysis and bridge readiness",
		Timeout: p.opts.StartupTimeout, Interval: waitInterval,
		Start: a.start,
		Fail: func(kind string, d time.Duration, err error) error {
			return &StartupError{Kind: kind, Deadline: d, Err: err}
		},
		Watch:   func(e *engine) []<-chan struct{} { return []<-chan struct{}{e.run.Exited(), e.wire.dead} },
		Crashed: errCrashed,
		Reap: func(e *engine) {
			e.wire.close()
			cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			_ = e.run.Cleanup(cctx)
		},
		Shutdown: func(ctx context.Context, e *engine) error { return e.shutdown(ctx) },
	})
	return a
}

// Version is "launcher-sha256:<hex>": Hopper reports no version without
// starting, so the launcher's digest stands for the build.
func (a *Analysis) Version() string { return a.version }

// Profile is the analysis profile (PROVIDERS.md §2.1).
func (a *Analysis) Profile() ports.Profile { return a.profile }

// ProcessLineage is the lineage observed once after the handshake, or the
// zero ProcessLineage (not observed) while the engine has not started.
func (a *Analysis) ProcessLineage(ctx context.Context) ports.ProcessLineage {
	eng, ok := a.lazy.Ready()
	if !ok {
		return ports.ProcessLineage{}
	}
	return eng.lineage
}

// Close shuts the engine down, removes the private root, and reports owned
// resources that remain as a *ports.CleanupError. A pending start is
// abandoned first.
func (a *Analysis) Close(ctx context.Context) error { return a.lazy.Close(ctx) }

// query asks the engine (starting it when needed).
func (a *Analysis) query(ctx context.Context, method string, params map[string]any, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	eng, err := a.lazy.Get(ctx)
	if err != nil {
		return err
	}
	if err := eng.wire.call(ctx, method, params, out); err != nil {
		if crashed := a.lazy.Crashed(); crashed != nil && ctx.Err() == nil {
			return crashed
		}
		return fmt.Errorf("hopper: %s: %w", method, err)
	}
	return nil
}
