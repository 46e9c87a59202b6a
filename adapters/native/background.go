package native

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"rea/ports"
)

// Background discovery and the early procedure list.
//
// Whole-file discovery (discover.go) takes seconds on a large binary, so it
// runs once per Analysis as a job of its own: started by Provider.Open
// (Options.DiscoverOnOpen) or by the first query that needs it, and shared
// by every later query. EarlyProcedures does not start it: a server has
// started it at the open, and a one-shot command that asked only for the
// overview would spend cores on a job it never reads. A query that needs the program
// waits for the job, relaying the job's progress to its own context, and
// returns its context's error when its caller gives up; the job goes on
// (it is bounded like discovery itself) and stops only when the Analysis is
// closed. The job, not the query, stores a completed discovery in the warm
// cache (cache.go).
//
// EarlyProcedures answers without waiting: on a target with at most
// earlyCodeBytes of code it waits for the complete list (discovery takes a
// fraction of a second there), above it it lists the procedures known from
// the tables (symbols, dynamic symbols, exports, PLT stubs, DWARF, .pdata,
// function starts, the entry point, .eh_frame, the Go pclntab, init
// arrays), the seeds discovery starts from. Which of the two it answers
// depends on the file alone, so results built on it are reproducible.

// earlyCodeBytes is the most code (executable file bytes) a target may have
// for EarlyProcedures to wait for whole-file discovery.
const earlyCodeBytes = 4 << 20

// seeds are the procedure candidates known before discovery, the first
// step of buildProgram.
type seeds struct {
	cands     candList // symbols (shared, read only), then table starts (one per address) and library names
	mm        *memMap
	codeBytes uint64 // file bytes of the executable sections
}

// seedList computes the seeds. It is not cached: discovery holds what it
// needs of them, and EarlyProcedures keeps only the merged list.
func (a *Analysis) seedList(ctx context.Context) (*seeds, error) {
	set, err := a.symbolSet(ctx)
	if err != nil {
		return nil, err
	}
	mm := newMemMap(a.img)
	ports.Observe(ctx, "discover", "reading unwind, pclntab and init tables")
	extra, err := tableStarts(ctx, a.src, a.img, mm, set.labels)
	if err != nil {
		return nil, err
	}
	extra = uniqueExtra(extra)
	if a.lib != nil && len(a.lib.cands) > 0 {
		// The library names (libraries.go) join the table starts, beside
		// the FDE candidates at their addresses, which keep their sizes.
		extra = append(extra, a.lib.cands...)
	}
	s := &seeds{cands: candList{set.procs, extra}, mm: mm}
	for _, r := range mm.regions {
		if r.exec && r.fileSize > 0 {
			s.codeBytes += r.fileSize
		}
	}
	return s, nil
}

// early is what EarlyProcedures answers with.
type early struct {
	procs    []ports.Procedure // the seeds' merged list, when not complete
	complete bool              // answer with the complete list instead
}

var _ ports.EarlyProcedureLister = (*Analysis)(nil)

// EarlyProcedures reports the procedure list without waiting for whole-file
// discovery on a large target (see the comment at the top of this file).
func (a *Analysis) EarlyProcedures(ctx context.Context) (ports.EarlyProcedures, error) {
	release := a.fg.enter()
	leave, err := a.enter(ctx, "early procedures")
	if err != nil {
		release()
		return ports.EarlyProcedures{}, err
	}
	defer leave()
	e, err := a.early.get(ctx, func(ctx context.Context) (e early, err error) {
		defer recoverInto(a.img.format(), "early procedures", &err)
		s, err := a.seedList(ctx)
		if err != nil {
			return early{}, err
		}
		if s.codeBytes <= earlyCodeBytes || newDecoder(archOf(a.docs[0].Architecture), s.mm, a.src) == nil {
			return early{complete: true}, nil // discovery is quick, or does not decode: its list is the seeds'
		}
		return early{procs: withoutParts(mergeProcedures(s.cands), newPartSeeds(s.cands))}, nil
	})
	release() // the complete list below waits for the job
	if err != nil {
		if a.closed.Load() && !errors.Is(err, ctx.Err()) {
			return ports.EarlyProcedures{}, fmt.Errorf("native: early procedures: analysis closed: %w", fs.ErrClosed)
		}
		return ports.EarlyProcedures{}, fmt.Errorf("native: early procedures: %w", classify(a.img.format(), err))
	}
	if e.complete {
		procs, err := a.Procedures(ctx)
		if err != nil {
			return ports.EarlyProcedures{}, err
		}
		return ports.EarlyProcedures{Procedures: procs, Complete: true}, nil
	}
	return ports.EarlyProcedures{Procedures: slices.Clip(e.procs)}, nil // shared (ports.EarlyProcedures)
}

// discoveryJob is the one whole-file discovery of an Analysis.
type discoveryJob struct {
	done chan struct{} // closed when p and err are set
	p    *program
	err  error

	mu   sync.Mutex
	last [2]string // the latest progress: phase, message
	subs map[*int]func(phase, message string)
}

// Observe records the job's progress and relays it to the queries waiting.
func (j *discoveryJob) Observe(phase, message string) {
	j.mu.Lock()
	j.last = [2]string{phase, message}
	subs := make([]func(string, string), 0, len(j.subs))
	for _, f := range j.subs {
		subs = append(subs, f)
	}
	j.mu.Unlock()
	for _, f := range subs {
		f(phase, message)
	}
}

// subscribe relays the job's progress to ctx until the returned function
// is called, starting with the latest.
func (j *discoveryJob) subscribe(ctx context.Context) func() {
	key := new(int)
	j.mu.Lock()
	if j.subs == nil {
		j.subs = map[*int]func(string, string){}
	}
	j.subs[key] = func(phase, message string) { ports.Observe(ctx, phase, message) }
	last := j.last
	j.mu.Unlock()
	if last[0] != "" {
		ports.Observe(ctx, last[0], "whole-file discovery running: "+last[1])
	} else {
		ports.Observe(ctx, "discover", "whole-file discovery running")
	}
	return func() {
		j.mu.Lock()
		delete(j.subs, key)
		j.mu.Unlock()
	}
}

// startDiscovery starts the job unless it runs or ran, and returns it; nil
// when the analysis is closed. The job keeps the values of from (the memory
// account its cached lists are charged to, held until Close) but not its
// cancellation: it outlives the call that started it.
func (a *Analysis) startDiscovery(from context.Context) *discoveryJob {
	a.bg.Lock()
	defer a.bg.Unlock()
	if a.job != nil || a.closed.Load() {
		return a.job
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(from))
	a.stop = cancel
	j := &discoveryJob{done: make(chan struct{})}
	a.job = j
	go func() {
		defer cancel()
		defer close(j.done)
		ctx := ports.WithProgress(ctx, j)
		leave, err := a.enter(ctx, "analysis")
		if err != nil {
			j.err = err
			return
		}
		defer leave()
		if a.opts.hold != nil {
			select {
			case <-a.opts.hold:
			case <-ctx.Done():
				j.err = ctx.Err()
				return
			}
		}
		j.p, j.err = a.computeProgram(ctx)
	}()
	return j
}

// program is the whole-file model, waiting for the discovery job (started
// here when it is not yet) as long as ctx allows.
func (a *Analysis) program(ctx context.Context) (*program, error) {
	if err := a.check(ctx, "analysis"); err != nil {
		return nil, err
	}
	j := a.startDiscovery(ctx)
	if j == nil {
		return nil, fmt.Errorf("native: analysis: analysis closed: %w", fs.ErrClosed)
	}
	select {
	case <-j.done:
	default:
		unsubscribe := j.subscribe(ctx)
		select {
		case <-j.done:
		case <-ctx.Done():
		}
		unsubscribe()
	}
	select {
	case <-j.done:
		if j.err != nil && a.closed.Load() {
			return nil, fmt.Errorf("native: analysis: analysis closed: %w", fs.ErrClosed)
		}
		return j.p, j.err
	default:
		return nil, ctx.Err()
	}
}

// stopDiscovery cancels the job, if one runs; Close calls it.
func (a *Analysis) stopDiscovery() {
	a.bg.Lock()
	defer a.bg.Unlock()
	if a.stop != nil {
		a.stop()
	}
}

// computeProgram reads the program from the warm cache or discovers it, and
// stores a discovery it completed.
//
// With the cache on, the names (the symbol tables, which both a warm and a
// cold open need) are read on another goroutine meanwhile: a warm open is
// otherwise the digest of the executable, then the entry, then the names,
// one after the other on one core.
func (a *Analysis) computeProgram(ctx context.Context) (p *program, err error) {
	defer recoverInto(a.img.format(), "analysis", &err)
	if a.opts.CacheDir != "" && a.file != nil {
		names := make(chan struct{})
		go func() {
			defer close(names)
			// A failure (or a panic, on a corrupt file) is not kept: the
			// names are asked for again below, where it is reported.
			defer func() { _ = recover() }()
			_, _ = a.names.get(ctx, a.sortedNames)
		}()
		defer func() { <-names }() // it reads the file: done before the pin is released
	}
	key, cache := a.cacheKey(ctx)
	if cache {
		if p := a.cached(key); p != nil {
			return p, a.attach(ctx, p)
		}
	}
	p, err = a.buildProgram(ctx)
	if err == nil {
		releaseDiscovery(p.codeBytes)
		err = a.nameDiscovered(ctx, p) // libdiscover.go
	}
	if err == nil && cache {
		a.store(key, p)
	}
	return p, err
}

// tuning is whether this package may force a collection: the host that
// owns the process turns it on (cmd/rea does); a program that embeds the
// adapter keeps its own collector's pace unless it asks for this too.
var tuning atomic.Bool

// TuneCollector lets whole-file discovery of a large target give the heap
// it leaves behind back to the system when it ends (releaseDiscovery), and
// the first open of a target of hugeheap.MinInput or more ask for the
// heap's fresh memory in huge pages. Off by default.
func TuneCollector(on bool) { tuning.Store(on) }

// releaseMinCode is the least code (executable file bytes) a target needs
// for releaseDiscovery to force a collection: below it the builder's heap
// is small and the collection would cost more than it gives back.
var releaseMinCode uint64 = 32 << 20

// freeOSMemory is debug.FreeOSMemory (a test counts the calls).
var freeOSMemory = debug.FreeOSMemory

// releaseDiscovery gives the heap whole-file discovery no longer holds back
// to the system, when the tuning is on and the target has at least
// releaseMinCode of code. Left to the collector's background pace, the
// builder's heap (about 500 MB on chromium, of 620 MB at its peak) stays
// resident for a minute, so that what runs next (rea disassemble's text,
// whose reads map the code again) adds its memory on top of it: chromium's
// whole-file disassembly peaked at about 0.92 GB, and about 0.69 GB with
// the release. The collection marks what is live then (the program: about
// 120 MB on chromium), once. It runs on a goroutine of its own: the answer
// does not wait for it (rea call list_procedures on chromium waited 0.16 to
// 0.39 s, for 0.1 s of CPU, in a process that exits on the answer).
func releaseDiscovery(codeBytes uint64) {
	if tuning.Load() && codeBytes >= releaseMinCode {
		go freeOSMemory()
	}
}

// gate lets the queries that answer without discovery (the overview's:
// segments, names, strings, the early list) run ahead of the background
// job: while one runs, the job's decoders wait (each for gateSlice at
// most, then one batch, and so on), so that the first answer does not share
// the cores with discovery. Results do not depend on it: workers fill
// slots by index.
type gate struct {
	mu   sync.Mutex
	n    int           // foreground queries running
	free chan struct{} // closed when n falls to 0
}

// enter marks a foreground query until the returned function is called.
func (g *gate) enter() func() {
	g.mu.Lock()
	if g.n == 0 {
		g.free = make(chan struct{})
	}
	g.n++
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.n--
		if g.n == 0 {
			close(g.free)
		}
		g.mu.Unlock()
	}
}

// wait blocks a decoder while a foreground query runs, until ctx is done,
// or for gateSlice at most: a foreground query that came to wait for the
// job itself must not stop it.
func (g *gate) wait(ctx context.Context) {
	g.mu.Lock()
	if g.n == 0 {
		g.mu.Unlock()
		return
	}
	free := g.free
	g.mu.Unlock()
	t := time.NewTimer(gateSlice)
	defer t.Stop()
	select {
	case <-free:
	case <-ctx.Done():
	case <-t.C:
	}
}

// gateSlice is the longest a decoder gives way at once.
var gateSlice = 50 * time.Millisecond // a variable for the tests

var _ ports.ArchitectureReporter = (*Analysis)(nil)

// ArchitectureSupport says whether the engine decodes the first
// document's instruction set and models its value flow: x86, x86-64 and
// AArch64 decode and have value flow.
func (a *Analysis) ArchitectureSupport(ctx context.Context) (ports.ArchitectureSupport, error) {
	if err := a.check(ctx, "architecture support"); err != nil {
		return ports.ArchitectureSupport{}, err
	}
	ar := archOf(a.docs[0].Architecture)
	decodes := ar == archX86 || ar == archX8664 || ar == archARM64 || ar == archCIL // newDecoder's
	return ports.ArchitectureSupport{Decodes: decodes, ValueFlow: decodes && ar != archCIL}, nil
}
