package ghidra

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"rea/adapters/internal/lazyengine"
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

	// snap answers from, and keeps, the analysis snapshot.
	snap lazyengine.Snapshots

	// lazy starts the engine at the first query and owns its lifetime.
	lazy *lazyengine.Holder[*engine]

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

func newAnalysis(p *Provider, in Installation, t ports.Target, prof ports.Profile) *Analysis {
	d := profileDigest(prof)
	a := &Analysis{
		p: p, install: in, target: t, profile: prof, digest: d,
		snap: lazyengine.Snapshots{Store: p.store(), Key: snapshot.Key{TargetSHA256: t.SHA256, Engine: "ghidra", Build: in.Version, ProfileDigest: d}},
	}
	a.lazy = lazyengine.New(lazyengine.Config[*engine]{
		Name: "ghidra", Phase: "ghidra_startup", Waiting: "waiting for import, analysis and bridge readiness",
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
			e.cleanupErr = e.run.Cleanup(cctx)
		},
		Shutdown: func(ctx context.Context, e *engine) error { return e.shutdown(ctx) },
	})
	return a
}

// Version is the Ghidra build discovery found (the bridge confirms it at the
// handshake).
func (a *Analysis) Version() string { return a.install.Version }

// Profile is the analysis profile (PROVIDERS.md §1.3).
func (a *Analysis) Profile() ports.Profile { return a.profile }

// SnapshotHits lists, in order, the operations this analysis answered from
// an analysis snapshot instead of the engine.
func (a *Analysis) SnapshotHits() []string { return a.snap.Hits() }

// ProcessLineage is the lineage observed once after the handshake, or the
// zero ProcessLineage (not observed) while the engine has not started.
func (a *Analysis) ProcessLineage(ctx context.Context) ports.ProcessLineage {
	eng, ok := a.lazy.Ready()
	if !ok {
		return ports.ProcessLineage{}
	}
	return eng.lineage
}

// Close shuts the engine down (shutdown request, then the supervisor's stop
// sequence), removes the private root, and reports owned resources that
// remain as a *ports.CleanupError. A pending start is abandoned first.
func (a *Analysis) Close(ctx context.Context) error { return a.lazy.Close(ctx) }

// usable fails when ctx is done or the analysis is closed, so cached
// answers are not given after Close.
func (a *Analysis) usable(ctx context.Context) error { return a.lazy.Usable(ctx) }

// query answers method(params) from the snapshot when it holds the result,
// else from the engine (starting it), recording the result in the snapshot.
func (a *Analysis) query(ctx context.Context, method string, params map[string]any, out any) error {
	if err := a.usable(ctx); err != nil {
		return err
	}
	if a.snap.Get(ctx, method, params, out) {
		return nil
	}
	eng, err := a.lazy.Get(ctx)
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := eng.wire.call(ctx, method, params, &raw); err != nil {
		if crashed := a.lazy.Crashed(); crashed != nil && ctx.Err() == nil {
			return crashed
		}
		return fmt.Errorf("ghidra: %s: %w", method, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("ghidra: %s: %w: %v", method, errProtocol, err)
	}
	a.snap.Put(method, params, raw)
	return nil
}
