package hopper

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"rea/adapters/internal/lazyengine"
	"rea/ports"
	"rea/snapshot"
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
	// snap answers from, and keeps, the analysis snapshot until the
	// session annotates.
	snap lazyengine.Snapshots

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
	a.snap = lazyengine.Snapshots{Store: snapshot.Store{Root: p.opts.SnapshotRoot},
		Key: snapshot.Key{TargetSHA256: t.SHA256, Engine: "hopper", Build: version, ProfileDigest: profileDigest(prof)}}
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

// SnapshotHits lists, in order, the operations this analysis answered from
// an analysis snapshot instead of the engine.
func (a *Analysis) SnapshotHits() []string { return a.snap.Hits() }

// mutating names the methods that change Hopper's document: once a session
// sends one, its answers are no longer the snapshot's.
func mutating(method string) bool { return method == "set_annotation" || method == "remove_annotation" }

// query answers method(params) from the analysis snapshot when it holds the
// result, else asks the engine (starting it when needed) and keeps the
// answer.
func (a *Analysis) query(ctx context.Context, method string, params map[string]any, out any) error {
	if err := a.lazy.Usable(ctx); err != nil { // no snapshot answers after Close
		return err
	}
	if mutating(method) {
		a.snap.Stop()
	} else if a.snap.Get(ctx, method, params, out) {
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
		return fmt.Errorf("hopper: %s: %w", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("hopper: %s: %w: %s result: %v", method, errProtocol, method, err)
		}
	}
	if !mutating(method) {
		a.snap.Put(method, params, raw)
	}
	return nil
}

// profileDigest is hex SHA-256 of the profile's JSON (encoding/json sorts
// map keys, so the encoding is canonical).
func profileDigest(p ports.Profile) string {
	b, _ := json.Marshal(map[string]any{"schema_version": p.SchemaVersion, "parameters": p.Parameters})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
