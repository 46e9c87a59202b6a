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
// parseGCRoom of garbage build up between collections, or as much as is
// live up to parseGCMaxRoom (and at most parseGCMaxFactor times its
// target). A syntax tree dies as soon as its
// file's facts are taken, so the phase makes garbage at the parser's speed
// while little of it stays live; at rea's process-wide target (cmd/rea) a
// small app is collected every few MB. The room bounds what this costs in
// memory, and an app whose live heap is large already has that room, so it
// is collected no less often than before. The build that follows holds
// the heap the parse left (hold) rather than going back to the process's
// target, and the seal takes the parse's room again after the collection
// that result() starts (build.go). The room therefore sets the analysis's
// peak memory. A collection costs about what is live. Over a heap in 4 KiB
// pages a room of 20 MB rather than 32 cost npm-10 no CPU time and about 6
// MB of peak RSS; with the heap's fresh memory in huge pages
// (internal/hugeheap) a fresh page costs little, and 40 MB (64 at most)
// rather than 20 (32) took npm-10 4% less wall time for 9 MB more peak RSS
// and npm-50 13% less (interleaved runs, 2 cores).
const (
	parseGCRoom      = 40 << 20
	parseGCMaxRoom   = 64 << 20
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
// the seal: less collector work for more memory. It also lets the first
// analysis ask for the heap's fresh memory in huge pages (hugeheap.Prepare).
// Off by default.
func TuneCollector(on bool) { tuning.Store(on) }

// collectGarbage starts a collection in the background (the analysis
// need not wait for it) where the build has let go of much of its heap:
// the tuning must be on (a test replaces it to see when it is called).
var collectGarbage = func() { go runtime.GC() }

// gcPhase is the process's calls in their parse phase (or holding the heap
// it left): the first raises the target, the last puts back what it found.
// After every collection in between, the target is set again from the heap
// that collection found live.
var gcPhase struct {
	sync.Mutex
	calls   int
	holding int    // of the calls, those past their parse (hold)
	held    uint64 // the heap they hold, in bytes
	gen     int    // which run of phases the after-collection hook serves
	was     int    // the target found, as a percentage
	set     int    // the target now
}

// gcRelax is one call's parse phase.
type gcRelax struct {
	once sync.Once
	held bool // hold was called (gcPhase is locked to read or write it)
}

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
		if g.held {
			gcPhase.holding--
		}
		if gcPhase.calls--; gcPhase.calls == 0 {
			debug.SetGCPercent(gcPhase.was)
			gcPhase.set, gcPhase.held = gcPhase.was, 0
		} else {
			retuneGC()
		}
	})
}

// hold ends the parse phase's room but not the phase: until end, while
// no call parses, the collector's goal is the heap the parse left (or the
// process's target over the live heap, when that is more). The build then
// makes its garbage in memory the parse already made resident: going back
// to the process's target over the small live heap the parse leaves, the
// build of npm-10 was collected four times (once at once), with the
// heap no larger than the parse's.
func (g *gcRelax) hold() {
	if g == nil {
		return
	}
	gcPhase.Lock()
	defer gcPhase.Unlock()
	if g.held || gcPhase.calls == 0 {
		return
	}
	g.held = true
	gcPhase.holding++
	gcPhase.held = max(gcPhase.held, readUint64("/memory/classes/heap/objects:bytes"))
	retuneGC()
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

// readUint64 reads one runtime metric (0 when the runtime has none).
func readUint64(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// retuneGC sets the target that gives the parse's room over the live heap
// (the live heap, within [parseGCRoom, parseGCMaxRoom]) while a call
// parses, or up to the held goal once every call holds (hold), within
// [was, was*parseGCMaxFactor]. gcPhase is locked.
func retuneGC() {
	pct := gcPhase.was * parseGCMaxFactor
	if live := readUint64("/gc/heap/live:bytes"); live > 0 {
		room := min(max(live, parseGCRoom), parseGCMaxRoom)
		if gcPhase.holding == gcPhase.calls {
			room = gcPhase.held - min(live, gcPhase.held)
		}
		pct = int(min(uint64(pct), max(uint64(gcPhase.was), (100*room+live-1)/live)))
	}
	if pct != gcPhase.set {
		debug.SetGCPercent(pct)
		gcPhase.set = pct
	}
}
