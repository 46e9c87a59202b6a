package jsapp

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// While files are hashed and parsed, the collector lets at least
// parseGCRoom of garbage build up between collections (and at most
// parseGCMaxFactor times its target). A syntax tree dies as soon as its
// file's facts are taken, so the phase makes garbage at the parser's speed
// while little of it stays live; at rea's process-wide target (cmd/rea) a
// small app is collected every few MB. The room bounds what this costs in
// memory, and an app whose live heap is large already has that room, so it
// is collected no less often than before. The seal takes the same room
// after the collection that result() starts (build.go).
const (
	parseGCRoom      = 32 << 20
	parseGCMaxFactor = 4
)

// tuning is whether this package may change the process's collector: the
// host that owns the process turns it on (cmd/rea does); a program that
// embeds rea/core keeps its own collector settings, and no collection is
// forced in it, unless it asks for the tuning too.
var tuning atomic.Bool

// TuneCollector lets a JavaScript application analysis relax the
// collector's target while it parses and seals (the target the process had
// is put back when the last analysis ends) and start a collection before
// the seal: less collector work for more memory. Off by default.
func TuneCollector(on bool) { tuning.Store(on) }

// gcPhase is the process's calls in their parse phase: the first raises the
// target, the last puts back what it found. After every collection in
// between, the target is set again from the heap that collection found live.
var gcPhase struct {
	sync.Mutex
	calls int
	gen   int // which run of phases the after-collection hook serves
	was   int // the target found, as a percentage
	set   int // the target now
}

// gcRelax is one call's parse phase.
type gcRelax struct{ once sync.Once }

// relaxGC starts a parse phase, or returns nil (a phase that changes
// nothing) when the tuning is off, the user set the target with GOGC or
// turned the collector off.
func relaxGC() *gcRelax {
	if _, set := os.LookupEnv("GOGC"); set || !tuning.Load() {
		return nil
	}
	gcPhase.Lock()
	defer gcPhase.Unlock()
	if gcPhase.calls == 0 {
		was := gcPercent()
		if was <= 0 {
			return nil
		}
		gcPhase.was, gcPhase.set = was, was
		gcPhase.gen++
		afterGC(gcPhase.gen)
	}
	gcPhase.calls++
	retuneGC()
	return &gcRelax{}
}

// end ends the phase (once, however often it is called).
func (g *gcRelax) end() {
	if g == nil {
		return
	}
	g.once.Do(func() {
		gcPhase.Lock()
		defer gcPhase.Unlock()
		if gcPhase.calls--; gcPhase.calls == 0 {
			debug.SetGCPercent(gcPhase.was)
			gcPhase.set = gcPhase.was
		}
	})
}

// gcMark is allocated to be collected: its cleanup runs after the
// collection that found it unreachable. (It holds a pointer so that it is
// never packed with other small objects.)
type gcMark struct{ _ *int }

// afterGC retunes the target after the next collection, and again after
// each one, while the phases of run gen go on.
func afterGC(gen int) {
	runtime.AddCleanup(&gcMark{}, func(gen int) {
		gcPhase.Lock()
		defer gcPhase.Unlock()
		if gcPhase.calls > 0 && gcPhase.gen == gen {
			retuneGC()
			afterGC(gen)
		}
	}, gen)
}

// gcPercent is the collector's target, as GOGC or debug.SetGCPercent set
// it (-1 when it is off).
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return -1
	}
	return int(int64(s[0].Value.Uint64()))
}

// retuneGC sets the target that gives parseGCRoom over the live heap,
// within [was, was*parseGCMaxFactor]. gcPhase is locked.
func retuneGC() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	pct := gcPhase.was * parseGCMaxFactor
	if s[0].Value.Kind() == metrics.KindUint64 {
		if live := s[0].Value.Uint64(); live > 0 {
			pct = int(min(uint64(pct), max(uint64(gcPhase.was), (100*parseGCRoom+live-1)/live)))
		}
	}
	if pct != gcPhase.set {
		debug.SetGCPercent(pct)
		gcPhase.set = pct
	}
}
