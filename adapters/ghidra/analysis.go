package ghidra

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"rea/ports"
	"rea/snapshot"
)

// Analysis is one lazy Ghidra session on one target. Its first query starts
// the engine (import, auto-analysis, bridge handshake) under the startup
// deadline; concurrent queries share that start. A start that fails, times
// out or is abandoned by every waiting caller is cleaned up completely and
// the next query starts afresh. An engine that dies after it was ready is
// reported to every later query and never silently replaced.
type Analysis struct {
	p       *Provider
	install Installation
	target  ports.Target
	profile ports.Profile
	digest  string // profile digest, committed in the session descriptor
	key     snapshot.Key

	life context.Context // ends at Close: bounds the engine's process
	end  context.CancelFunc

	mu       sync.Mutex
	closed   bool
	eng      *engine
	starting *attempt
	crashed  error
	hits     []string        // operations answered from the snapshot
	wrote    map[string]bool // snapshot entries this analysis's engine answered

	cacheMu sync.Mutex
	procs   []ports.Procedure
	ranges  []ports.FunctionRange // one per procedure
	refs    []ports.Reference     // the whole table, once listed
	segs    []ports.Segment
	loaded  bool
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
	_ ports.SignatureReader  = (*Analysis)(nil)
	_ ports.FunctionAnalyzer = (*Analysis)(nil)
	_ ports.CrossReferencer  = (*Analysis)(nil)
	_ ports.Disassembler     = (*Analysis)(nil)
	_ ports.LineageReporter  = (*Analysis)(nil)
)

// attempt is one engine start shared by the callers waiting for it.
type attempt struct {
	done    chan struct{}
	eng     *engine
	err     error
	waiters int
	cancel  context.CancelFunc
}

func newAnalysis(p *Provider, in Installation, t ports.Target, prof ports.Profile) *Analysis {
	life, end := context.WithCancel(context.Background())
	d := profileDigest(prof)
	return &Analysis{
		p: p, install: in, target: t, profile: prof, digest: d,
		key:  snapshot.Key{TargetSHA256: t.SHA256, Engine: "ghidra", Build: in.Version, ProfileDigest: d},
		life: life, end: end,
	}
}

// Version is the Ghidra build discovery found (the bridge confirms it at the
// handshake).
func (a *Analysis) Version() string { return a.install.Version }

// Profile is the analysis profile (PROVIDERS.md §1.3).
func (a *Analysis) Profile() ports.Profile { return a.profile }

// SnapshotHits lists, in order, the operations this analysis answered from
// an analysis snapshot instead of the engine.
func (a *Analysis) SnapshotHits() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.hits...)
}

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
// start) when needed. While it waits and ctx carries progress, it reports a
// waiting notice every waitInterval with the elapsed time.
func (a *Analysis) engineFor(ctx context.Context) (*engine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	switch {
	case a.closed:
		a.mu.Unlock()
		return nil, fmt.Errorf("ghidra: analysis is closed: %w", ports.ErrUnavailable)
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
			ports.Observe(ctx, "ghidra_startup", fmt.Sprintf("waiting for import, analysis and bridge readiness (%d s elapsed)",
				int(time.Since(began).Round(time.Second)/time.Second)))
		case <-ctx.Done():
			a.mu.Lock()
			att.waiters--
			last := att.waiters == 0
			a.mu.Unlock()
			if last {
				// Nobody waits any more: abandon the start and clean it up
				// before answering, so nothing it owned outlives the call.
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
	a.crashed = fmt.Errorf("ghidra: %w", errCrashed)
	a.mu.Unlock()
	eng.wire.close()
	cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	eng.cleanupErr = eng.run.Cleanup(cctx)
}

// Close shuts the engine down (shutdown request, then the supervisor's stop
// sequence), removes the private root, and reports owned resources that
// remain as a *ports.CleanupError. A pending start is abandoned first.
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
	// The engine's context ends only after the graceful shutdown, so the
	// supervisor's stop sequence does not race the shutdown request.
	defer a.end()
	if eng == nil {
		return nil
	}
	return eng.shutdown(ctx)
}

// usable fails when ctx is done or the analysis is closed, so cached
// answers are not given after Close.
func (a *Analysis) usable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return fmt.Errorf("ghidra: analysis is closed: %w", ports.ErrUnavailable)
	}
	return nil
}

// query answers method(params) from the snapshot when it holds the result,
// else from the engine (starting it), recording the result in the snapshot.
func (a *Analysis) query(ctx context.Context, method string, params map[string]any, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if closed {
		return fmt.Errorf("ghidra: analysis is closed: %w", ports.ErrUnavailable)
	}
	store := a.p.store()
	pj, err := json.Marshal(params)
	if err != nil {
		return err
	}
	name := method + " " + string(pj)
	if b, ok, _ := store.Get(a.key, name); ok && json.Unmarshal(b, out) == nil {
		a.mu.Lock()
		own := a.wrote[name]
		if !own {
			a.hits = append(a.hits, method)
		}
		a.mu.Unlock()
		if !own { // an entry this engine wrote moments ago is not a snapshot's answer
			ports.Observe(ctx, "analysis_snapshot", ports.SnapshotLimitation)
			ports.Note(ctx, ports.SnapshotLimitation)
		}
		return nil
	}
	eng, err := a.engineFor(ctx)
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := eng.wire.call(ctx, method, params, &raw); err != nil {
		a.mu.Lock()
		crashed := a.crashed
		a.mu.Unlock()
		if crashed != nil && ctx.Err() == nil {
			return crashed
		}
		return fmt.Errorf("ghidra: %s: %w", method, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("ghidra: %s: %w: %v", method, errProtocol, err)
	}
	if store.Put(a.key, name, raw) == nil { // a cache that cannot be written is only slower
		a.mu.Lock()
		if a.wrote == nil {
			a.wrote = map[string]bool{}
		}
		a.wrote[name] = true
		a.mu.Unlock()
	}
	return nil
}
