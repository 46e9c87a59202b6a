package native

import (
	"cmp"
	"context"
	"debug/elf"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"rea/ports"
)

// Whole-binary analysis: function discovery and disassembly, computed once
// per Analysis.
//
// Function starts come from the symbol tables and the other sources of
// symbols() (PLT stubs, entry point, DWARF, .pdata, LC_FUNCTION_STARTS,
// exports), from tables that survive stripping (ELF .eh_frame FDEs, the Go
// pclntab, init/fini arrays), and from the code itself by recursive
// descent: every function is decoded by linear sweep over its range, and
// the targets of its direct calls (and of direct jumps and address
// constants that leave it) that no known range covers become new functions.
// The rounds repeat until no new start is found.
//
// Function ends: the symbol size (or FDE, .pdata, pclntab, DWARF, stub
// size) when one is known, otherwise the next known start, never past the
// end of the section.
//
// Cost: each byte is swept once. A round decodes only the ranges that are
// new, on every core; a range a new start splits out of a range already
// swept is cut from that sweep (decodeAll, derive), and the one sweep of a
// range yields everything later rounds ask of it and of the ranges cut
// from it: its instruction starts, the targets that leave it (or may,
// once split), its function boundaries and the first code in it that
// nothing reaches. Sets of addresses are bitsets over
// the code bytes (discover_sets.go), the procedure list is kept sorted and
// new starts are merged into it, so a round costs the bytes it decodes
// plus a pass over the procedure list. Results do not depend on the number
// of cores: workers fill slots by index and every list is assembled in
// address order.
//
// Every scan is bounded: at most maxFunctionInsns instructions per
// function, maxFunctions functions, a total decoding budget of
// decodeBudget times the code bytes (malformed files can declare
// overlapping ranges), and maxRounds rounds, a safety bound real binaries
// do not reach (chromium converges in far fewer). What is cut off is
// reported as truncated (Analysis.Discovery).

const (
	maxFunctionInsns = 1 << 20
	maxFunctions     = 1 << 21
	maxRounds        = 1 << 12
	decodeBudget     = 4
)

// fnResult is what decoding one function's range yields, or what was cut
// from the decoding of a range that held it (builder.derive).
//
// One is kept per procedure until discovery ends (650k on chromium), so it
// is kept small: what a round reads once (the call targets) is returned
// beside it (decodeAll), and the references it keeps are packed (jumpRef).
type fnResult struct {
	start, end uint64
	thunkTo    uint64 // the thunk's target, or (viaSlot) the slot of its unresolved reference

	// walk: the range's end is inferred, its instruction starts are in
	// builder.starts from start up to stop (where the sweep ended: the end
	// of the range's code, or where a cap cut it), and what a split needs
	// is kept: a range cut from it is derived without decoding again.
	stop      uint64
	chainStop uint64 // where gapChain stopped short of the end (math.MaxUint64: it did not)

	// base is the address the offsets below count from: the start of the
	// range whose sweep found them (a range cut from a decoding shares
	// that decoding's lists and base).
	base uint64
	// What discovery asks of the range, found by the same sweep.
	// jumps are the refs that may start a function: resolved jumps and
	// addresses into uncovered code, out of the range or (walk) to one of
	// its boundaries, which a new start may put in another range; in
	// address order.
	jumps []jumpRef
	// The function boundaries in the range (inferred ends only), as
	// offsets from base: lead, then bounds. A range cut from a decoding
	// shares that decoding's list (bounds is a part of it) and lists in
	// lead only its own first boundaries.
	lead   []uint32
	bounds []uint32
	gaps   []uint64 // starts of the code nothing in the range reaches, on boundaries (inferred ends only; gapChain)

	nrefs     int32 // references made, or (cut from a larger range) that range's count (they are swept again when asked for: xref.go)
	insns     int32 // at most maxFunctionInsns
	cut       uint8 // the limits that cut it, a bit per limit
	truncated bool  // an instruction cap or the decoding budget cut it
	thunk     bool  // the first instruction (after a landing pad) is an unconditional jump
	viaSlot   bool  // thunkTo is the slot the thunk jumps through
	walk      bool
}

// jumpRef is a reference kept in fnResult.jumps, in 12 bytes rather than
// an xref's 24: where it is made, as an offset from the result's base
// (below 1<<24: a sweep stops after maxFunctionInsns instructions of at
// most 15 bytes), with the top bit set for an address constant (else it
// is a jump), and its target.
type jumpRef struct {
	from       uint32
	toLo, toHi uint32
}

const jumpAddress = 1 << 31

func packJump(x xref, base uint64) jumpRef {
	j := jumpRef{from: uint32(x.from - base), toLo: uint32(x.to), toHi: uint32(x.to >> 32)}
	if x.kind == kindAddress {
		j.from |= jumpAddress
	}
	return j
}

func (j jumpRef) to() uint64 { return uint64(j.toHi)<<32 | uint64(j.toLo) }

// at is the address the reference is made at.
func (j jumpRef) at(base uint64) uint64 { return base + uint64(j.from&^jumpAddress) }

func (j jumpRef) address() bool { return j.from&jumpAddress != 0 }

// inside reports whether addr is in the range.
// noteThunk records a function whose first instruction (after a landing
// pad) is a jump as a thunk: to the jump's target, or through the slot of
// its unresolved reference.
func (r *fnResult) noteThunk(in *insn) {
	if in.flow != ports.FlowJump {
		return
	}
	r.thunk = true
	if in.hasTarget {
		r.thunkTo = in.target
		return
	}
	for _, x := range in.refs {
		if !x.resolved() {
			r.thunkTo, r.viaSlot = x.to, true
		}
	}
}

func (r *fnResult) inside(addr uint64) bool { return addr >= r.start && addr < r.end }

// isBound reports whether addr is one of the range's function boundaries.
func (r *fnResult) isBound(addr uint64) bool {
	if addr < r.base || addr-r.base > math.MaxUint32 {
		return false
	}
	o := uint32(addr - r.base)
	if _, ok := slices.BinarySearch(r.lead, o); ok {
		return true
	}
	_, ok := slices.BinarySearch(r.bounds, o)
	return ok
}

// program is the whole-binary model of one document.
type program struct {
	arch      arch
	mm        *memMap
	procs     []ports.Procedure
	ranges    []ports.FunctionRange // parallel to procs
	insns     int                   // instructions decoded in the final ranges
	codeBytes uint64
	truncated bool // some function was cut by a cap or the budget, or discovery stopped early
	rounds    int
	decoded   int64    // bytes swept over all rounds
	limits    []string // the limits that were hit (limitNames)
	cached    bool     // read from the warm cache (cache.go)

	noret   map[uint64]bool
	labels  []ports.Name
	namesOf sync.Once
	nameAt  map[uint64]string
	named   addrFilter // the addresses in nameAt (names_filter.go)
	// References are not kept by discovery (on chromium they would be
	// 12 million records): the first query sweeps the final ranges again
	// (xref.go). swept lists the ranges discovery decoded whole, whose
	// sweep yields them.
	swept []int32
	refs  lazy[*refIndex]

	vfArity vfSummaries // the value flow's arities of direct callees (valueflow_callee.go)

	// parts are the pieces of procedures outside their ranges (gcc's
	// f.cold), sorted by start; partsOf indexes them by parent (parts.go).
	parts   []procPart
	partsOf map[uint64][]int
}

// DiscoveryStats describe how whole-file function discovery ended.
type DiscoveryStats struct {
	Functions    int // procedures listed
	Instructions int // instructions decoded in the final function ranges
	References   int // distinct references recorded, pointer slots in data included
	Rounds       int // discovery rounds run
	// CodeBytes are the file bytes of the executable sections, and
	// DecodedBytes the bytes swept by discovery over all rounds (a range
	// split by a new start is cut from its sweep; only a start inside an
	// instruction of it is swept again).
	CodeBytes, DecodedBytes int64
	// Complete is false when a bound (instructions per function, functions,
	// rounds, or the decoding budget) cut discovery or decoding short;
	// Limits names those that did.
	Complete bool
	Limits   []string
	// Cached is true when discovery was read from the warm cache
	// (Options.CacheDir) rather than computed.
	Cached bool
}

// Discovery runs whole-file discovery (once per Analysis, like every list)
// and reports how it ended.
func (a *Analysis) Discovery(ctx context.Context) (DiscoveryStats, error) {
	return codeOp(a, ctx, "discovery", func(p *program) (DiscoveryStats, error) {
		refs, err := p.references(ctx, a.src, a.img)
		if err != nil {
			return DiscoveryStats{}, err
		}
		return DiscoveryStats{Functions: len(p.procs), Instructions: p.insns, References: len(refs.all),
			Rounds: p.rounds, CodeBytes: int64(p.codeBytes), DecodedBytes: p.decoded,
			Complete: !p.truncated, Limits: slices.Clone(p.limits), Cached: p.cached}, nil
	})
}

// name returns the best name at addr, or "".
func (p *program) name(addr uint64) string {
	p.namesOf.Do(func() {
		p.nameAt = make(map[uint64]string, len(p.procs))
		for _, pr := range p.procs {
			if pr.Name != "" {
				p.nameAt[pr.Address] = pr.Name
			}
		}
		for _, l := range p.labels { // sorted by address, functions first
			if _, ok := p.nameAt[l.Address]; !ok && l.Kind != "section" {
				p.nameAt[l.Address] = l.Name
			}
		}
		p.named = newAddrFilter(len(p.nameAt))
		for a := range p.nameAt {
			p.named.add(a)
		}
	})
	if !p.named.mayHave(addr) {
		return ""
	}
	return p.nameAt[addr]
}

// builder holds the state of one program computation.
type builder struct {
	src     source
	mm      *memMap
	arch    arch
	code    [][]byte // file bytes of each code region, parallel to mm.regions
	budget  int64
	decoded atomic.Int64
	cut     atomic.Uint32   // limits that stopped discovery itself (limitRounds), a bit each
	noret   map[uint64]bool // starts of functions that do not return

	gate     *gate    // foreground queries the decoders give way to (background.go)
	known    *codeSet // code addresses that are procedure starts
	covered  *codeSet // code inside a range whose end is known
	starts   *codeSet // instruction starts of the sweeps of ranges with inferred ends (fnResult.walk)
	plain    *codeSet // of those, the ones neither padding, a landing pad nor a jump (x86-64 only, else nil): derive decodes none there
	exits    *codeSet // returns and register jumps the sweeps met (exitInsn), for no-return inference
	padMu    sync.Mutex
	padCalls map[uint64]uint64        // calls a function may follow, to their targets (notePadCalls)
	nrCache  map[uint64]nrCached      // what the last no-return pass learnt of the candidates it did not infer, by start (noreturn.go)
	pending  []pendingRes             // the results with references or gaps leaving is to look at
	spans    map[[2]uint64]spanBounds // boundaries of swept spans outside every inferred range
	parts    *partSeeds               // candidate parts of procedures and the references into them (parts.go); nil when none
	regs     *regCalls                // calls through registers holding an import's slot, for no-return inference (noreturn.go); nil outside discovery

	// scratches are the workers' buffers, kept from round to round
	// (parallel): a worker's grow to the longest range it sweeps once,
	// not once a round.
	scratches []*scratch
}

// spanBounds are the boundary offsets of one span, from its start.
type spanBounds []uint32

func (b *builder) bytesOf(reg *memRegion) []byte { return b.code[reg.index] }

// dropCode lets the system take back the pages of code the round read:
// they stay in the page cache, and the few a later round reads again are
// mapped again on access, so the process does not keep the whole code
// resident beside its heap (on chromium 218 MB of 272).
func (b *builder) dropCode() {
	for i, r := range b.mm.regions {
		if b.code[i] != nil {
			b.src.m.drop(r.off, uint64(len(b.code[i])))
		}
	}
}

// dropSpan is dropCode for the code of [start, end), when one region holds
// it; the pages it shares with code beyond are kept.
func (b *builder) dropSpan(start, end uint64) {
	reg := b.mm.code(start)
	if reg == nil || end <= start || end > reg.addr+uint64(len(b.bytesOf(reg))) {
		return
	}
	b.src.m.drop(reg.off+(start-reg.addr), end-start)
}

// dropRegion is the index of the code region that holds [start, end)
// whole (dropSpan lets its pages go), or -1.
func (b *builder) dropRegion(start, end uint64) int {
	reg := b.mm.code(start)
	if reg == nil || end <= start || end > reg.addr+uint64(len(b.bytesOf(reg))) {
		return -1
	}
	return reg.index
}

// dropRun is the least code dropRuns lets go of at once.
const dropRun = 4 << 20

// dropRuns lets go of the code the batches of a parallel pass read, in
// runs of at least dropRun bytes rather than a batch at a time: each
// call to the system stops the other cores to flush their TLBs, and on a
// large stripped binary (chromium: 700,000 procedures, batches of 64)
// the calls a batch at a time cost about a tenth of discovery's CPU. A
// run joins the batches in order, each once every batch before it is
// done, so pages another worker is still reading are not let go under
// it; a run ends early where the next span is in another region or
// starts before the run.
type dropRuns struct {
	mu     sync.Mutex
	spans  [][2]uint64 // by batch: the code it read
	ended  []bool      // by batch
	next   int         // the first batch not yet joined to the run
	lo, hi uint64      // the run (empty when lo == hi), in region reg
	reg    int
	drop   func(start, end uint64)
	region func(start, end uint64) int // the region [start, end) is in, or -1 (never let go)
}

func newDropRuns(batches int, drop func(start, end uint64), region func(start, end uint64) int) *dropRuns {
	return &dropRuns{spans: make([][2]uint64, batches), ended: make([]bool, batches), drop: drop, region: region}
}

// done records that a batch, which read [start, end), is done, and lets
// go of the runs that completes.
func (d *dropRuns) done(batch int, start, end uint64) {
	var out [][2]uint64
	d.mu.Lock()
	d.spans[batch], d.ended[batch] = [2]uint64{start, end}, true
	for d.next < len(d.ended) && d.ended[d.next] {
		s := d.spans[d.next]
		d.next++
		reg := -1
		if s[0] < s[1] {
			reg = d.region(s[0], s[1])
		}
		if reg < 0 {
			continue
		}
		if d.lo < d.hi && (reg != d.reg || s[0] < d.lo) {
			out = append(out, [2]uint64{d.lo, d.hi})
			d.lo, d.hi = 0, 0
		}
		if d.lo == d.hi {
			d.lo, d.hi, d.reg = s[0], s[1], reg
		} else {
			d.hi = max(d.hi, s[1])
		}
		if d.hi-d.lo >= dropRun {
			out = append(out, [2]uint64{d.lo, d.hi})
			d.lo, d.hi = 0, 0
		}
	}
	d.mu.Unlock()
	for _, r := range out {
		d.drop(r[0], r[1])
	}
}

// flush lets go of the run left, once every worker has stopped.
func (d *dropRuns) flush() {
	if d.lo < d.hi {
		d.drop(d.lo, d.hi)
	}
	d.lo, d.hi = 0, 0
}

// attach gives a program read from the cache what buildProgram computes
// from the file itself before discovery.
func (a *Analysis) attach(ctx context.Context, p *program) error {
	labels, err := a.names.get(ctx, a.sortedNames)
	if err != nil {
		return err
	}
	p.arch, p.mm, p.labels, p.cached = archOf(a.docs[0].Architecture), newMemMap(a.img), labels, true
	return nil
}

// state is the procedure list between rounds: sorted by address, one per
// address, with parallel slices.
type state struct {
	procs   []ports.Procedure
	sizeSrc []string    // EndSource of a procedure with a size, else ""
	results []*fnResult // the decoding of the procedure's current range, or nil
	ranges  []ports.FunctionRange
}

// insert merges new unnamed starts (unknown until now, so never equal to a
// listed address) into the list, in place from the end: the lists grow
// (by append's rule) rather than being copied whole every round.
func (s *state) insert(found []candidate) {
	slices.SortFunc(found, func(a, b candidate) int { return cmp.Compare(a.addr, b.addr) })
	n0 := len(s.procs)
	n := n0 + len(found)
	s.procs = slices.Grow(s.procs, len(found))[:n]
	s.sizeSrc = slices.Grow(s.sizeSrc, len(found))[:n]
	s.results = slices.Grow(s.results, len(found))[:n]
	i, j := n0-1, len(found)-1
	for k := n - 1; j >= 0; k-- {
		if i >= 0 && s.procs[i].Address > found[j].addr {
			s.procs[k], s.sizeSrc[k], s.results[k] = s.procs[i], s.sizeSrc[i], s.results[i]
			i--
			continue
		}
		s.procs[k] = ports.Procedure{Address: found[j].addr, Source: found[j].source}
		s.sizeSrc[k], s.results[k] = "", nil
		j--
	}
}

func (a *Analysis) buildProgram(ctx context.Context) (*program, error) {
	seeds, err := a.seedList(ctx)
	if err != nil {
		return nil, err
	}
	cands, mm := seeds.cands, seeds.mm
	ar := archOf(a.docs[0].Architecture)
	labels, err := a.names.get(ctx, a.sortedNames) // shared with Names, not copied: read only
	if err != nil {
		return nil, err
	}
	p := &program{arch: ar, mm: mm, labels: labels, codeBytes: seeds.codeBytes}
	b := &builder{src: a.src, mm: mm, arch: ar, gate: &a.fg, code: make([][]byte, len(mm.regions)), noret: noReturnStarts(cands),
		spans: map[[2]uint64]spanBounds{}, regs: newRegCalls(p, a.img.format())}
	b.parts = newPartSeeds(cands)
	st := &state{procs: mergeProcedures(cands)}
	st.sizeSrc = sizeSources(st.procs, cands)
	st.results = make([]*fnResult, len(st.procs))
	if newDecoder(ar, mm, a.src) == nil {
		p.procs = st.procs
		p.ranges = functionRanges(nil, st.procs, st.sizeSrc, mm)
		return p, ctx.Err()
	}
	for i, r := range mm.regions {
		if !r.exec || r.fileSize == 0 {
			continue
		}
		n := a.src.clamp(r.off, r.fileSize)
		if n == 0 {
			continue
		}
		data, err := a.src.view(r.off, n) // pinned by the caller (Analysis.enter) for the whole computation
		if err != nil {
			continue
		}
		b.code[i] = data
	}
	b.budget = int64(decodeBudget*p.codeBytes) + 1<<20
	b.known = newCodeSet(mm)
	for _, part := range cands {
		for _, c := range part {
			b.known.add(c.addr)
		}
	}
	st.ranges = functionRanges(nil, st.procs, st.sizeSrc, mm)
	b.covered = newCodeSet(mm)
	b.starts = newCodeSet(mm)
	if ar == archX8664 {
		b.plain = newCodeSet(mm)
	}
	b.exits = newCodeSet(mm)
	for _, r := range st.ranges {
		if reliable(r) {
			b.covered.addRange(r.Start, r.End)
		}
	}

	pointersDone := false
	inferPasses, settled := 0, false // settled: the inference has seen the current ranges
	for round := 0; ; round++ {
		if round > 0 {
			st.ranges = functionRanges(st.ranges, st.procs, st.sizeSrc, mm)
		}
		var todo []int
		for i, r := range st.ranges {
			if res := st.results[i]; (res == nil || res.end != r.End) && r.End > r.Start && mm.isCode(r.Start) {
				todo = append(todo, i)
			}
		}
		ports.Observe(ctx, "disassemble", fmt.Sprintf("round %d: %d functions known, %d to decode", round+1, len(st.procs), len(todo)))
		calls, err := b.decodeAll(ctx, st, todo)
		if err != nil {
			return nil, err
		}
		b.dropCode()
		p.rounds = round + 1
		// Calls first, until they add nothing: only then are the ranges
		// good enough to tell a jump that leaves its function.
		found := b.calls(calls)
		calls = nil
		// An assembly's metadata lists every method: nothing else in its
		// code section (the metadata, the native stub) is code.
		if len(found) == 0 && ar != archCIL {
			found = b.leaving(ctx, st)
			if !pointersDone {
				pointersDone = true
				found = append(found, b.dataPointers(ctx, a.img, st)...)
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(found) == 0 && inferPasses < maxInferPasses {
			// Calls of procedures inferred not to return end blocks:
			// the ranges whose boundaries that changes are decoded
			// again (noreturn.go).
			inferPasses++
			if b.reinfer(ctx, p, st) {
				continue
			}
			settled = true
		}
		if len(found) == 0 {
			break
		}
		if round+1 >= maxRounds || len(st.procs)+len(found) > maxFunctions {
			b.limit(limitRounds) // starts were found that are not followed
			break
		}
		st.insert(found)
	}
	b.scratches = nil
	p.procs, p.ranges = st.procs, st.ranges
	p.noret = b.noret
	p.decoded = b.decoded.Load()
	p.finish(st.results, b.cut.Load())
	p.foldParts(b.parts)
	defer func() { b.nrCache, b.pending = nil, nil }()
	switch {
	case !settled:
		b.inferNoReturn(ctx, p, p.ranges, p.spans)
	case len(p.parts) > 0:
		// A procedure's parts are a part of its body: those with parts
		// are judged again with them (noreturn.go).
		b.inferNoReturn(ctx, p, p.ranges, func(i int) []ports.FunctionRange {
			if len(p.partsOf[p.procs[i].Address]) == 0 {
				return nil
			}
			return p.spans(i)
		})
	}
	b.scratches = nil
	return p, ctx.Err()
}

// The limits that can cut discovery short.
const (
	limitInsns = iota
	limitBudget
	limitRounds
)

var limitNames = [...]string{"instructions per function", "decoding budget", "rounds or functions"}

func (b *builder) limit(l int) { b.cut.Or(1 << l) }

// noReturnStarts finds the procedures named after functions that do not
// return.
func noReturnStarts(cands candList) map[uint64]bool {
	out := map[uint64]bool{}
	for _, part := range cands {
		for _, c := range part {
			if c.name != "" && isNoReturn(c.name) {
				out[c.addr] = true
			}
		}
	}
	return out
}

// uniqueExtra keeps one table candidate per address, preferring the
// pclntab (named, exact), then an FDE (exact), then an init entry, then an
// IRELATIVE relocation's resolver; the one kept is an IFUNC resolver when
// any of them says so.
func uniqueExtra(extra []candidate) []candidate {
	prio := func(source string) int {
		switch source {
		case "eh-frame":
			return 1
		case "init":
			return 2
		case "irelative":
			return 3
		}
		return 0 // gopclntab, and any other
	}
	slices.SortStableFunc(extra, func(a, b candidate) int {
		if a.addr != b.addr {
			return cmp.Compare(a.addr, b.addr)
		}
		return cmp.Compare(prio(a.source), prio(b.source))
	})
	out := extra[:0]
	for _, c := range extra {
		if n := len(out); n > 0 && out[n-1].addr == c.addr {
			out[n-1].ifunc = out[n-1].ifunc || c.ifunc
			continue
		}
		out = append(out, c)
	}
	return out
}

// endSources rank the sources of a size when several candidates know one.
var endSources = map[string]string{
	"symbol": "symbol", "dynamic-symbol": "symbol", "gopclntab": "gopclntab", "dwarf": "dwarf",
	"eh-frame": "eh-frame", "pdata": "pdata", "plt": "plt", "cil-metadata": "cil-metadata",
	"library": "library",
}

// sizeSources names, for each procedure with a size, where the size came
// from (the first candidate that knows one, symbols first).
func sizeSources(procs []ports.Procedure, cands candList) []string {
	src := make(map[uint64]string)
	for _, part := range cands {
		for _, c := range part {
			if c.size == 0 {
				continue
			}
			if _, ok := src[c.addr]; !ok || c.source == "symbol" || c.source == "dynamic-symbol" {
				if s, ok := endSources[c.source]; ok {
					src[c.addr] = s
				}
			}
		}
	}
	out := make([]string, len(procs))
	for i, p := range procs {
		if p.Size > 0 {
			out[i] = src[p.Address]
		}
	}
	return out
}

// functionRanges computes the extent of every procedure: its size when one
// is known, else up to the next procedure, within its section.
//
// The list is written over dst's storage when it has room.
func functionRanges(dst []ports.FunctionRange, procs []ports.Procedure, sizeSrc []string, mm *memMap) []ports.FunctionRange {
	out := slices.Grow(dst[:0], len(procs))[:len(procs)]
	var reg *memRegion
	for i, p := range procs {
		r := ports.FunctionRange{Start: p.Address, End: p.Address, EndSource: "unknown"}
		if reg == nil || p.Address < reg.addr || p.Address >= reg.end() {
			reg = mm.find(p.Address)
		}
		limit := p.Address
		if reg != nil {
			limit = reg.end()
		}
		switch {
		case p.Size > 0:
			r.End, r.EndSource = p.Address+p.Size, sizeSrc[i]
			if r.EndSource == "" {
				r.EndSource = "symbol"
			}
			if r.End < p.Address || (reg != nil && r.End > limit) {
				r.End = limit
			}
		case i+1 < len(procs) && procs[i+1].Address <= limit:
			r.End, r.EndSource = procs[i+1].Address, "next-start"
		case reg != nil:
			r.End, r.EndSource = limit, "section-end"
		}
		out[i] = r
	}
	return out
}

// reliable reports whether a range's end is known rather than inferred
// from the next start.
func reliable(r ports.FunctionRange) bool {
	return !inferred(r) && r.EndSource != "unknown" && r.End > r.Start
}

func inferred(r ports.FunctionRange) bool {
	return r.EndSource == "next-start" || r.EndSource == "section-end"
}

// decodeAll decodes the ranges of st at the indexes todo, on every core.
// A range a new start split out of a range decoded whole (its end is
// inferred, its start is an instruction start of that sweep) is cut from
// that decoding instead (derive): each byte is swept once, however often
// later starts split the range holding it; only a start that falls inside
// an instruction of the sweep, or code a cap left undecoded, is swept
// again.
//
// It returns the targets of the resolved direct calls each range decoded
// makes, in address order, parallel to todo (nil for a range cut from a
// decoding: that decoding reported them).
func (b *builder) decodeAll(ctx context.Context, st *state, todo []int) ([][]uint64, error) {
	out := make([]*fnResult, len(todo))
	calls := make([][]uint64, len(todo))
	parents := make([]*fnResult, len(todo))
	var last *fnResult // the decoding of the latest range at or before i
	k := 0
	for i, res := range st.results {
		if k < len(todo) && todo[k] == i {
			parents[k] = cmp.Or(res, last)
			k++
		}
		if res != nil {
			last = res
		}
	}
	// The derived ranges read builder.starts; the decoded ones write it
	// (their own bytes only), so they run after.
	b.parallel(ctx, len(todo), "derived", func(w *scratch, k int) {
		out[k] = b.derive(w, parents[k], st.ranges[todo[k]])
	}, func(lo, hi int) (uint64, uint64) {
		// Each start read a few instructions; the pages around them
		// were mapped in.
		return st.ranges[todo[lo]].Start, st.ranges[todo[hi-1]].End
	})
	clear(parents)
	var fresh []int // positions in todo of the ranges to decode
	for k, res := range out {
		if res == nil {
			fresh = append(fresh, k)
		}
	}
	b.parallel(ctx, len(fresh), "decoded", func(w *scratch, k int) {
		out[fresh[k]], calls[fresh[k]] = b.decodeOne(w, st.ranges[todo[fresh[k]]])
	}, func(lo, hi int) (uint64, uint64) {
		// The code of the ranges just decoded (in address order) is
		// read again only where a later start splits them.
		return st.ranges[todo[fresh[lo]]].Start, out[fresh[hi-1]].stop
	})
	for _, w := range b.scratches {
		w.trim()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for k, i := range todo {
		st.results[i] = out[k]
		if res := out[k]; res != nil && (len(res.jumps) > 0 || len(res.gaps) > 0) {
			b.pending = append(b.pending, pendingRes{res.start, res})
		}
	}
	return calls, nil
}

// parallel runs job(w, k) for k in [0, n) on every core, each worker with
// its own scratch (b.scratches), giving way to foreground queries (gate). Jobs run in
// batches of consecutive k; read(lo, hi), when not nil, is called once
// the jobs of [lo, hi) are done and gives the code they read, [start,
// end) (empty: none), which is let go (dropSpan) in runs (dropRuns).
func (b *builder) parallel(ctx context.Context, n int, what string, job func(w *scratch, k int), read func(lo, hi int) (uint64, uint64)) {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/32))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	runs := newDropRuns((n+63)/64, b.dropSpan, b.dropRegion)
	for len(b.scratches) < workers {
		b.scratches = append(b.scratches, &scratch{dec: newDecoder(b.arch, b.mm, b.src)})
	}
	for _, w := range b.scratches[:workers] {
		wg.Go(func() {
			for {
				if b.gate != nil {
					b.gate.wait(ctx)
				}
				k := int(next.Add(64) - 64)
				if k >= n || ctx.Err() != nil {
					return
				}
				for j := k; j < min(k+64, n); j++ {
					job(w, j)
				}
				if read != nil {
					start, end := read(k, min(k+64, n))
					runs.done(k/64, start, end)
				}
				if d := done.Add(64); d%8192 == 0 {
					ports.Observe(ctx, "disassemble", fmt.Sprintf("%d of %d functions %s", d, n, what))
				}
			}
		})
	}
	wg.Wait()
	runs.flush()
}

// derive cuts the result of r from the decoding of a range that holds it
// (parent), when that decoding was a whole sweep that r's start is an
// instruction start of, and reports nil otherwise. The instructions of r
// are then the sweep's, from r.Start on: r's count is read from
// builder.starts, its references from parent's, its boundaries are
// parent's after the first instructions that are not padding, and only
// those first instructions are decoded again (a boundary of r that was not
// one of parent, and the thunk test).
func (b *builder) derive(w *scratch, parent *fnResult, r ports.FunctionRange) *fnResult {
	if parent == nil || !parent.walk || !inferred(r) || r.Start < parent.start || r.Start >= parent.end || r.End > parent.end {
		return nil
	}
	code, stop := b.codeFor(r.Start, r.End)
	if code == nil || stop > parent.stop || stop <= r.Start || !b.starts.has(r.Start) {
		return nil
	}
	if r.Start > parent.chainStop {
		// The walks for gaps stopped before r: a walk from r's start
		// may find gaps the parent's could not.
		return nil
	}
	res := &fnResult{start: r.Start, end: r.End, walk: true, stop: stop, nrefs: parent.nrefs, chainStop: parent.chainStop}
	// The first instructions, up to the first that is not padding (from
	// there on the boundaries are parent's) and the first that is not a
	// landing pad (the thunk test).
	var lead []uint32
	leadDone, first := false, true
	var pcEnd uint64
	if next, ok := b.plainEnd(r.Start, stop); ok {
		// The first instruction is neither padding, a landing pad nor a
		// jump: it is the whole lead, and the thunk test ends there, as
		// the sweep would find, without reading the code (on chromium
		// most of the 700,000 ranges derived, each on a page the round
		// let go).
		lead, pcEnd = []uint32{uint32(r.Start - parent.base)}, next
	} else {
		sweep(w.dec, code, r.Start, stop, maxFunctionInsns, func(in *insn) bool {
			pcEnd = in.addr + uint64(in.size)
			if !leadDone {
				lead = append(lead, uint32(in.addr-parent.base))
				leadDone = !b.padding(code[in.addr-r.Start:], in.size)
			}
			if first && !b.isLandingPad(code[in.addr-r.Start:]) {
				first = false
				res.noteThunk(in)
			}
			return !leadDone || first
		})
	}
	b.decoded.Add(int64(min(pcEnd, stop) - r.Start))
	res.insns = int32(b.starts.countRange(r.Start, stop))
	// Boundaries: the lead, then parent's after it.
	// (parent's lead ends before r's: r starts in it only on padding.)
	res.base, res.lead = parent.base, slices.Clip(lead)
	lo, _ := slices.BinarySearch(parent.bounds, lead[len(lead)-1]+1)
	hi, _ := slices.BinarySearch(parent.bounds, uint32(r.End-parent.base))
	res.bounds = parent.bounds[lo:max(lo, hi):max(lo, hi)]
	// References made in r: a part of parent's, shared (leaving only
	// ever shortens a range's list, in place).
	at := func(j jumpRef, t uint64) int { return cmp.Compare(j.at(parent.base), t) }
	lo, _ = slices.BinarySearchFunc(parent.jumps, r.Start, at)
	hi, _ = slices.BinarySearchFunc(parent.jumps, r.End, at)
	if hi > lo {
		res.jumps = parent.jumps[lo:hi:hi]
	}
	// parent's gaps are in address order (gapChain): those inside r.
	lo, _ = slices.BinarySearch(parent.gaps, r.Start+1)
	hi, _ = slices.BinarySearch(parent.gaps, r.End)
	if hi > lo {
		res.gaps = slices.Clone(parent.gaps[lo:hi])
	}
	return res
}

// noPlainDerive makes derive decode the first instructions of every range
// (plainEnd answers no), for the tests that compare the two.
var noPlainDerive = false

// plainEnd reports, for an instruction start of a walked sweep (starts)
// that builder.plain holds, where the instruction ends, when that is
// before stop: the next start of the sweep, the instructions of a sweep
// being contiguous.
func (b *builder) plainEnd(addr, stop uint64) (uint64, bool) {
	if b.plain == nil || !b.plain.has(addr) || noPlainDerive {
		return 0, false
	}
	return b.starts.next(addr+1, stop)
}

// isLandingPad reports an endbr64/endbr32 (x86) or bti (AArch64) at b.
func (b *builder) isLandingPad(code []byte) bool {
	if len(code) < 4 {
		return false
	}
	if b.arch == archARM64 {
		x := uint32(code[0]) | uint32(code[1])<<8 | uint32(code[2])<<16 | uint32(code[3])<<24
		return x&0xffffff3f == 0xd503241f
	}
	return code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb)
}

// scratch is one worker's reusable buffers.
type scratch struct {
	dec       decoder
	flows     []gapInsn
	tabs      []uint64
	reached   []uint32
	work      []int32
	bounds    []uint32
	refs      []xref
	at        []int32  // by word of insnBits: the instructions before it
	insnBits  []uint64 // by offset in the range: the instruction starts
	jumps     []jumpRef
	boundBits []uint64 // by offset in the range: the boundaries (decodeOne; zero between uses)
	nr        []nrInsn // a candidate's body (noreturn.go)
	nrTabs    []uint64
	nrLoads   []xref // a candidate's references (nrDecode)
	nrSeen    []bool
	nrWork    []int32
}

// trim lets go of the buffers a very long range grew, between rounds:
// the next round's longest range grows its own at once (decodeOne), and
// the smaller ones are kept for the many short ranges.
func (w *scratch) trim() {
	const most = 1 << 16 // elements
	if cap(w.flows) > most {
		w.flows = nil
	}
	if cap(w.refs) > most {
		w.refs = nil
	}
	if cap(w.tabs) > most {
		w.tabs = nil
	}
	if cap(w.reached) > most {
		w.reached = nil
	}
	if cap(w.work) > most {
		w.work = nil
	}
	if cap(w.jumps) > most {
		w.jumps = nil
	}
	if cap(w.nr) > most {
		w.nr, w.nrTabs, w.nrSeen, w.nrWork = nil, nil, nil, nil
	}
}

// gapInsn is the control flow of one instruction, for the reachability
// walk inside a range with an inferred end: 24 bytes, since a sweep over
// a long range keeps one per instruction.
type gapInsn struct {
	target  uint64
	off     uint32 // the instruction's address, from the range's start (below 1<<24: maxFunctionInsns)
	tab0    int32  // jump-table targets: scratch.tabs[tab0:tab0+ntab]
	ntab    uint16 // at most maxJumpTable
	size    uint8
	fall    bool // control continues to the next instruction
	jumps   bool // target is a jump or branch target
	skip    bool // padding or a trap: never the first code of a function
	ends    bool // a return, jump or trap, or a call that does not return
	invalid bool // bytes that do not decode
}

// next is the offset of the instruction after g.
func (g *gapInsn) next() uint32 { return g.off + uint32(g.size) }

// codeFor returns the bytes of [start, stop) plus the longest instruction
// beyond, and stop clipped to the region's bytes; nil when start has no
// code bytes.
func (b *builder) codeFor(start, end uint64) ([]byte, uint64) {
	reg := b.mm.code(start)
	if reg == nil {
		return nil, 0
	}
	data := b.bytesOf(reg)
	off := start - reg.addr
	if off >= uint64(len(data)) {
		return nil, 0
	}
	stop := min(end, reg.addr+uint64(len(data)))
	return data[off:min(uint64(len(data)), stop-reg.addr+uint64(b.arch.maxInsn()))], stop
}

func (b *builder) decodeOne(w *scratch, r ports.FunctionRange) (*fnResult, []uint64) {
	res := &fnResult{start: r.Start, end: r.End, base: r.Start}
	code, stop := b.codeFor(r.Start, r.End)
	if code == nil {
		return res, nil
	}
	if b.decoded.Add(int64(stop-r.Start)) > b.budget {
		res.truncated, res.cut = true, 1<<limitBudget
		return res, nil
	}
	reg := b.mm.code(r.Start)
	walk := inferred(r) && !reg.plt
	var starts, plain setWriter
	if walk {
		b.starts.clearRange(r.Start, stop)
		starts = b.starts.writer(b.mm, reg)
		if b.plain != nil {
			b.plain.clearRange(r.Start, stop)
			plain = b.plain.writer(b.mm, reg)
		}
		b.exits.clearRange(r.Start, stop)
	}
	exits := b.exits.writer(b.mm, reg)
	res.walk, res.stop = walk, r.Start
	w.flows, w.tabs, w.bounds = w.flows[:0], w.tabs[:0], w.bounds[:0]
	if walk {
		// Grown once to about the instructions of the range (x86 code
		// averages about 4 bytes an instruction), not step by step.
		w.flows = slices.Grow(w.flows, int(min((stop-r.Start)/4, maxFunctionInsns)))
	}
	refs := w.refs[:0]
	first, open := true, false
	var padCalls [][2]uint64 // the calls a function may follow (notePadCalls)
	var lastCall [2]uint64   // the call just before, to a procedure not known not to return, or zero
	regCalled := false       // a call through a register, in a range walked (walkRegCallEnds judges it)
	dead := false            // only plain instructions since a call that does not return (an exit here is none)
	n, capped := sweep(w.dec, code, r.Start, stop, maxFunctionInsns, func(in *insn) bool {
		noret := in.flow == ports.FlowCall && in.hasTarget && b.noret[in.target]
		if in.flow == ports.FlowCall && !in.hasTarget {
			if walk {
				regCalled = regCalled || b.regCall(w.dec, code[in.addr-r.Start:])
			}
			noret = b.slotCallEnds(w.dec, code[in.addr-r.Start:], in)
		}
		res.stop = in.addr + uint64(in.size)
		// A return straight after a call that does not return ("call
		// exit; add rsp, 8; ret" of a wrapper built without the noreturn
		// attribute) is not an exit of the range: were a jump to reach
		// it, no-return inference, which decodes a candidate's paths, would
		// find it.
		if exitInsn(in) && !dead {
			exits.add(in.addr)
		}
		dead = noret || dead && in.flow == ports.FlowNext
		if walk {
			starts.add(in.addr)
			pad := b.padding(code[in.addr-r.Start:], in.size)
			if b.plain != nil && !pad && in.flow != ports.FlowJump && !b.isLandingPad(code[in.addr-r.Start:]) {
				plain.add(in.addr)
			}
			if lastCall[0] != 0 && (pad || in.addr%16 == 0) {
				padCalls = append(padCalls, lastCall)
			}
			lastCall = [2]uint64{}
			if in.flow == ports.FlowCall && in.hasTarget && !noret {
				lastCall = [2]uint64{in.addr, in.target}
			}
			if !open {
				w.bounds = append(w.bounds, uint32(in.addr-r.Start))
			}
			switch {
			case in.flow == ports.FlowReturn || in.flow == ports.FlowJump || in.flow == ports.FlowStop || noret:
				open = false
			case pad:
			default:
				open = true
			}
			g := gapInsn{off: uint32(in.addr - r.Start), target: in.target, size: uint8(in.size),
				fall:  (in.flow == ports.FlowNext || in.flow == ports.FlowCall || in.flow == ports.FlowBranch) && !noret,
				jumps: in.hasTarget && (in.flow == ports.FlowJump || in.flow == ports.FlowBranch),
				skip:  pad || in.flow == ports.FlowStop, invalid: in.invalid,
				ends: in.flow == ports.FlowReturn || in.flow == ports.FlowJump || in.flow == ports.FlowStop || noret}
			g.tab0, g.ntab = int32(len(w.tabs)), uint16(len(in.table))
			w.tabs = append(w.tabs, in.table[:g.ntab]...)
			w.flows = append(w.flows, g)
		}
		if first {
			if b.isLandingPad(code[in.addr-r.Start:]) {
				return true
			}
			first = false
			res.noteThunk(in)
		}
		refs = append(refs, in.refs...)
		return true
	})
	starts.flush()
	plain.flush()
	exits.flush()
	b.notePadCalls(padCalls)
	w.refs = refs
	sortRefs(refs)
	if b.parts != nil {
		b.parts.notePartRefs(refs)
	}
	res.insns = int32(n)
	if capped {
		res.truncated, res.cut = true, 1<<limitInsns
	}
	res.stop = min(res.stop, stop)
	b.decoded.Add(-int64(stop - max(res.stop, r.Start))) // what a cap left unswept was counted above
	if walk && regCalled && b.walkRegCallEnds(w, code, r.Start, stop, refs) {
		w.bounds = rebound(w.flows, w.bounds[:0])
	}
	if walk {
		res.bounds = slices.Clone(w.bounds)
		res.gaps, res.chainStop = b.gapChain(w, res.bounds, r.Start)
	}
	res.nrefs = int32(min(len(refs), math.MaxInt32))
	// The boundaries as a bitset by offset, for the references that land
	// inside (when the range is short enough for one).
	isBound := func(o uint32) bool { _, ok := slices.BinarySearch(res.bounds, o); return ok }
	if span := res.stop - r.Start; walk && span <= maxDenseSpan {
		nw := int(span/64) + 1
		if len(w.boundBits) < nw {
			w.boundBits = make([]uint64, nw)
		}
		for _, o := range res.bounds {
			w.boundBits[o/64] |= 1 << (o % 64)
		}
		defer func() {
			for _, o := range res.bounds {
				w.boundBits[o/64] = 0
			}
		}()
		bits := w.boundBits[:nw]
		isBound = func(o uint32) bool { return int(o/64) < len(bits) && bits[o/64]&(1<<(o%64)) != 0 }
	}
	end := ownedEnd(b.mm, reg)
	mayStart := func(a uint64) bool {
		if a < reg.addr || a >= end {
			return b.mayStart(a)
		}
		return !reg.plt && !b.covered.hasIn(reg, end, a) && (b.arch != archARM64 || a%4 == 0)
	}
	// The references kept, gathered in scratch and then copied, so that
	// the list is allocated once at its size.
	keep := func(x xref) bool {
		switch {
		case !x.resolved() || (x.kind != kindJump && x.kind != kindAddress):
			return false
		case x.to < r.Start || x.to >= r.End:
			return mayStart(x.to)
		case walk:
			// Inside: kept when it lands on a boundary, which a new
			// start between the two may make a jump out of its range.
			return isBound(uint32(x.to-r.Start)) && mayStart(x.to)
		}
		return false
	}
	var calls []uint64
	jumps := w.jumps[:0]
	for _, x := range refs {
		if x.resolved() && x.kind == kindCall {
			calls = append(calls, x.to)
		} else if keep(x) {
			jumps = append(jumps, packJump(x, r.Start))
		}
	}
	w.jumps = jumps
	if len(jumps) > 0 {
		res.jumps = make([]jumpRef, len(jumps))
		copy(res.jumps, jumps)
	}
	return res, calls
}

// mayStart reports whether addr is code where a function could start that
// no reliable range covers.
func (b *builder) mayStart(addr uint64) bool {
	reg := b.covered.region(addr)
	if reg == nil || reg.plt || b.covered.bits[reg.index][(addr-reg.addr)/64]&(1<<((addr-reg.addr)%64)) != 0 {
		return false
	}
	return b.arch != archARM64 || addr%4 == 0
}

func refLess(a, b xref) int {
	return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.kind, b.kind), cmp.Compare(a.flags, b.flags))
}

// sortRefs sorts one function's references: they come in address order,
// so only the few of one instruction need moving.
func sortRefs(refs []xref) {
	for i := 1; i < len(refs); i++ {
		for j := i; j > 0 && refLess(refs[j-1], refs[j]) > 0; j-- {
			refs[j-1], refs[j] = refs[j], refs[j-1]
		}
	}
}

// gapChain walks the control flow of w.flows from the first instruction
// and finds the first instruction after it that nothing reaches and that
// is neither padding nor a trap: the start of the next function, when it
// is a boundary. From there it walks again, as the next round would walk
// the range that start opens, and so on to the end of the range, so that
// a run of functions nothing calls is found in one round rather than one
// per round. It returns the starts found, in address order, and the
// unreached instruction where the chain stopped because it is not a
// plausible boundary (math.MaxUint64 when the walks reached the end).
func (b *builder) gapChain(w *scratch, bounds []uint32, start uint64) ([]uint64, uint64) {
	flows := w.flows
	if len(flows) < 2 {
		return nil, math.MaxUint64
	}
	// at(o) is the index of the instruction at offset o, or -1: a bitset
	// of the instruction starts by offset, with the count of starts before
	// each word (w.at), unless the range is too long for them.
	span := uint64(flows[len(flows)-1].next())
	at := func(o uint64) int32 {
		j, ok := slices.BinarySearchFunc(flows, o, func(g gapInsn, t uint64) int { return cmp.Compare(uint64(g.off), t) })
		if !ok {
			return -1
		}
		return int32(j)
	}
	if span <= maxDenseSpan {
		nw := int(span/64) + 1
		if len(w.insnBits) < nw {
			w.insnBits = make([]uint64, nw)
			w.at = make([]int32, nw)
		}
		set, before := w.insnBits[:nw], w.at[:nw]
		clear(set)
		for i := range flows {
			o := flows[i].off
			set[o/64] |= 1 << (o % 64)
		}
		c := int32(0)
		for k, x := range set {
			before[k] = c
			c += int32(bits.OnesCount64(x))
		}
		at = func(o uint64) int32 {
			if o >= span {
				return -1
			}
			x, m := set[o/64], uint64(1)<<(o%64)
			if x&m == 0 {
				return -1
			}
			return before[o/64] + int32(bits.OnesCount64(x&(m-1)))
		}
	}
	// reached[i] == gen: reached by the current walk.
	w.reached = slices.Grow(w.reached[:0], len(flows))[:len(flows)]
	clear(w.reached)
	reached := w.reached
	var out []uint64
	from := 0
	for gen := uint32(1); ; gen++ {
		work := append(w.work[:0], int32(from))
		lo := start + uint64(flows[from].off)
		push := func(a uint64) {
			if a < lo {
				return
			}
			if j := at(a - start); j >= 0 && reached[j] != gen {
				work = append(work, j)
			}
		}
		for len(work) > 0 {
			i := work[len(work)-1]
			work = work[:len(work)-1]
			if reached[i] == gen {
				continue
			}
			reached[i] = gen
			g := &flows[i]
			if g.fall && int(i)+1 < len(flows) && reached[i+1] != gen && flows[i+1].off == g.next() {
				work = append(work, i+1)
			}
			if g.jumps {
				push(g.target)
			}
			for _, t := range w.tabs[g.tab0 : g.tab0+int32(g.ntab)] {
				push(t)
			}
		}
		w.work = work
		next := -1
		for i := from + 1; i < len(flows); i++ {
			if reached[i] != gen && !flows[i].skip {
				next = i
				break
			}
		}
		if next < 0 {
			return out, math.MaxUint64
		}
		if _, ok := slices.BinarySearch(bounds, flows[next].off); !ok || !plausible(flows[next:]) {
			return out, start + uint64(flows[next].off)
		}
		out = append(out, start+uint64(flows[next].off))
		from = next
	}
}

// maxDenseSpan bounds the ranges whose instructions gapChain (and whose
// boundaries decodeOne) index by offset, in bitsets (a bit and half a byte
// per 8 bytes of code); longer ones are searched. A sweep stops within
// maxFunctionInsns instructions of at most 15 bytes, short of it.
const maxDenseSpan = 1 << 24

// plausible reports whether the straight-line code at flows[0] reaches the
// end of its block (a return, jump or trap) without bytes that do not
// decode: data after a function with no size (tables in hand-written
// assembly) decodes as code, but rarely that far.
func plausible(flows []gapInsn) bool {
	for i := range flows {
		switch {
		case flows[i].invalid:
			return false
		case flows[i].ends:
			return true
		case i+1 < len(flows) && flows[i+1].off != flows[i].next():
			return false
		}
	}
	return false
}

// calls collects the targets of direct calls, in the functions just
// decoded, that are not known starts and lie in code no known range
// covers.
func (b *builder) calls(calls [][]uint64) []candidate {
	var out []candidate
	for _, targets := range calls {
		for _, to := range targets {
			if !b.mayStart(to) || !b.known.add(to) {
				continue
			}
			out = append(out, candidate{addr: to, source: "call-target", rank: rankUnnamed})
		}
	}
	return out
}

// leaving collects, once calls add nothing, the direct jump targets and
// address constants that leave their function and land on a function
// boundary in code no known range covers, and the first unreached code of
// every range whose end is only inferred. The references examined are the
// few that left their function (fnResult.jumps), each dropped once its
// target is known, of the results that still hold one outside their range
// (builder.pending): on chromium about 2,400 of 702,000 after the first
// rounds, where looking at every result took 60 ms a round.
func (b *builder) leaving(ctx context.Context, st *state) []candidate {
	// Only the results with references or gaps to look at are (b.pending),
	// in address order as the ranges are; one whose range has been
	// decoded again since is dropped, and so is one left with only
	// references inside its range: those stay inside while the range
	// stands, and a range cut from it lists them again (derive).
	slices.SortFunc(b.pending, func(x, y pendingRes) int { return cmp.Compare(x.start, y.start) })
	live, at := b.pending[:0], make([]int, 0, len(b.pending))
	for _, pr := range b.pending {
		i, ok := slices.BinarySearchFunc(st.ranges, pr.start, func(r ports.FunctionRange, t uint64) int { return cmp.Compare(r.Start, t) })
		if ok && st.results[i] == pr.res {
			live, at = append(live, pr), append(at, i)
		}
	}
	clear(b.pending[len(live):])
	var out []candidate
	outside := make([]bool, len(live)) // a reference kept lands outside its range
	for n, pr := range live {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil
		}
		res := pr.res
		if res.end != st.ranges[at[n]].End || len(res.jumps) == 0 {
			outside[n] = true // looked at again once its range is decoded again, or dropped then
			continue
		}
		keep := res.jumps[:0]
		for _, x := range res.jumps {
			to := x.to()
			if b.known.has(to) {
				continue
			}
			if res.inside(to) {
				keep = append(keep, x) // for when a new start splits the range
				continue
			}
			if !b.boundaryAt(st, to) {
				keep = append(keep, x)
				outside[n] = true
				continue
			}
			b.known.add(to)
			source := "jump-target"
			if x.address() {
				source = "address-taken"
			}
			out = append(out, candidate{addr: to, source: source, rank: rankUnnamed})
		}
		res.jumps = keep
	}
	// Room for every gap at once: on chromium a round adds 340,000
	// candidates of 80 bytes, which growing step by step copied about
	// four times over, into fresh memory.
	gaps := 0
	for n, pr := range live {
		if res := pr.res; res.end == st.ranges[at[n]].End {
			gaps += len(res.gaps)
		}
	}
	out = slices.Grow(out, gaps)
	for n, pr := range live {
		if res := pr.res; res.end == st.ranges[at[n]].End {
			for _, g := range res.gaps {
				if b.known.add(g) {
					out = append(out, candidate{addr: g, source: "gap", rank: rankUnnamed})
				}
			}
			res.gaps = nil
		}
	}
	b.pending = live[:0]
	for n, pr := range live {
		if outside[n] || len(pr.res.gaps) > 0 {
			b.pending = append(b.pending, pr)
		}
	}
	return out
}

// pendingRes is a result leaving is to look at, by its range's start.
type pendingRes struct {
	start uint64
	res   *fnResult
}

// boundaryAt reports whether t is a function boundary for the current
// ranges: an instruction start, in the linear sweep of the span holding it
// (the range whose start is the last at or before t, when it holds t, else
// the gap between ranges), that control cannot fall into (the span's
// start, or an instruction after a return, jump, trap or call that does
// not return, and any padding). An inferred range's boundaries come from
// its decoding; other spans are swept once and kept.
func (b *builder) boundaryAt(st *state, t uint64) bool {
	ranges := st.ranges
	i, _ := slices.BinarySearchFunc(ranges, t, func(r ports.FunctionRange, t uint64) int {
		if r.Start <= t {
			return -1
		}
		return 1
	})
	reg := b.mm.code(t)
	if reg == nil {
		return false
	}
	var start, end uint64
	if i > 0 && ranges[i-1].End > t {
		start, end = ranges[i-1].Start, ranges[i-1].End
		if res := st.results[i-1]; res != nil && res.end == end && res.walk {
			return res.isBound(t)
		}
	} else {
		// Outside every range: the gap after the previous range.
		start, end = reg.addr, reg.addr+reg.fileSize
		if i > 0 && ranges[i-1].End > start {
			start = ranges[i-1].End
		}
		if i < len(ranges) && ranges[i].Start < end {
			end = ranges[i].Start
		}
	}
	if start == t {
		return true
	}
	key := [2]uint64{start, end}
	set, ok := b.spans[key]
	if !ok {
		set = b.sweepBounds(start, end)
		b.spans[key] = set
	}
	_, ok = slices.BinarySearch(set, uint32(t-start))
	return ok
}

// sweepBounds lists the boundary offsets of [start, end).
func (b *builder) sweepBounds(start, end uint64) spanBounds {
	set := spanBounds{}
	code, stop := b.codeFor(start, end)
	if code == nil || stop <= start {
		return set
	}
	open := false // control can fall into the next instruction
	d := newDecoder(b.arch, b.mm, b.src)
	sweep(d, code, start, stop, maxFunctionInsns, func(in *insn) bool {
		if !open {
			set = append(set, uint32(in.addr-start))
		}
		switch {
		case in.flow == ports.FlowReturn || in.flow == ports.FlowJump || in.flow == ports.FlowStop,
			in.flow == ports.FlowCall && in.hasTarget && b.noret[in.target],
			b.slotCallEnds(d, code[in.addr-start:], in):
			open = false
		case b.padding(code[in.addr-start:], in.size):
		default:
			open = true
		}
		return true
	})
	return set
}

// padding reports the alignment fillers compilers put between functions.
func (b *builder) padding(code []byte, size int) bool {
	if size > len(code) || size == 0 {
		return false
	}
	if b.arch == archARM64 {
		return size == 4 && code[0] == 0x1f && code[1] == 0x20 && code[2] == 0x03 && code[3] == 0xd5 // nop
	}
	if b.arch == archX86 && code[0] == 0x8d {
		// i386 gas pads with lea esi, [esi+0] and lea esi, [esi+eiz*1+0]
		// (not mov edi, edi, a Windows function's hot-patch first
		// instruction).
		x, ok := parse32(code[:size])
		return ok && nop32(&x)
	}
	i := 0
	for i < size && (code[i] == 0x66 || code[i] == 0x2e || code[i] == 0x3e) {
		i++
	}
	switch {
	case i < size && code[i] == 0x90:
		return true
	case i+1 < size && code[i] == 0x0f && code[i+1] == 0x1f:
		return true
	}
	return false
}

// dataPointers collects pointers stored in writable data and relocated
// read-only data (.data, .data.rel.ro, ...) of an ELF file, or given by the
// addends of RELATIVE relocations where the file does not hold them, that
// land on a function boundary in code no known range covers: functions
// reached only through tables of function pointers.
func (b *builder) dataPointers(ctx context.Context, img image, st *state) []candidate {
	e, ok := img.(*elfImage)
	if !ok {
		return nil
	}
	ptr := uint64(8)
	if e.f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	var out []candidate
	for _, s := range e.f.Sections {
		if ctx.Err() != nil {
			return nil
		}
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 ||
			(s.Flags&elf.SHF_WRITE == 0 && !strings.HasPrefix(s.Name, ".data.rel.ro")) || s.FileSize > 64<<20 {
			continue
		}
		data, err := b.src.view(s.Offset, s.FileSize)
		if err != nil {
			continue
		}
		for i := (ptr - s.Addr%ptr) % ptr; i+ptr <= uint64(len(data)); i += ptr {
			var v uint64
			if ptr == 8 {
				v = e.f.ByteOrder.Uint64(data[i:])
			} else {
				v = uint64(e.f.ByteOrder.Uint32(data[i:]))
			}
			if v == 0 || b.known.has(v) || !b.mayStart(v) || !b.boundaryAt(st, v) {
				continue
			}
			b.known.add(v)
			out = append(out, candidate{addr: v, source: "data-pointer", rank: rankUnnamed})
		}
		b.src.m.drop(s.Offset, s.FileSize) // read once
	}
	// Slots the loader fills from RELATIVE addends the file does not hold
	// (discover_relocs.go).
	relativeAddends(ctx, b.src, e, b.mm, func(_, v uint64) {
		if v != 0 && !b.known.has(v) && b.mayStart(v) && b.boundaryAt(st, v) {
			b.known.add(v)
			out = append(out, candidate{addr: v, source: "data-pointer", rank: rankUnnamed})
		}
	})
	if ctx.Err() != nil {
		return nil
	}
	return out
}

// finish counts, records which ranges yield references and classifies
// thunks.
func (p *program) finish(results []*fnResult, cut uint32) {
	valid := func(i int) *fnResult {
		if res := results[i]; res != nil && res.end == p.ranges[i].End {
			return res
		}
		return nil
	}
	for i := range p.ranges {
		res := valid(i)
		if res == nil {
			continue
		}
		if res.nrefs > 0 {
			p.swept = append(p.swept, int32(i))
		}
		p.insns += int(res.insns)
		p.truncated = p.truncated || res.truncated
		cut |= uint32(res.cut)
		if res.thunk && !p.procs[i].Thunk {
			p.procs[i].Thunk = true
			switch {
			case res.thunkTo != 0 && !res.viaSlot:
				if n := p.nameNoLock(res.thunkTo); n != "" {
					p.procs[i].ThunkTarget = n
				} else {
					p.procs[i].ThunkTarget = fmt.Sprintf("sub_%x", res.thunkTo)
				}
			case res.thunkTo != 0:
				if n := p.labelAt(res.thunkTo, "import"); n != "" {
					p.procs[i].ThunkTarget, p.procs[i].External = n, true
					if p.procs[i].Name == "" && importStubSource[p.procs[i].Source] {
						p.procs[i].Name = n
					}
				}
			}
		}
	}
	p.swept = slices.Clip(p.swept)
	for i, name := range limitNames {
		if cut&(1<<i) != 0 {
			p.limits = append(p.limits, name)
		}
	}
	p.truncated = p.truncated || len(p.limits) > 0
}

// importStubSource are the sources of a start that no table describes. An
// unnamed thunk through an import slot found so is the import library's stub
// (a stripped mingw image's jmp through the IAT, which has no .pdata entry),
// and takes the import's name as objdump's symbol for it does; a compiled
// function that only tail-calls an import has an unwind entry or a symbol
// and keeps its own identity.
var importStubSource = map[string]bool{"call-target": true, "jump-target": true, "gap": true}

// nameNoLock finds a procedure name at addr by binary search (names are not
// built yet while finishing).
func (p *program) nameNoLock(addr uint64) string {
	i, ok := slices.BinarySearchFunc(p.procs, addr, func(pr ports.Procedure, t uint64) int { return cmp.Compare(pr.Address, t) })
	if ok && p.procs[i].Name != "" {
		return p.procs[i].Name
	}
	return p.labelAt(addr, "")
}

// labelAt returns the first label at addr (of kind, when kind is not "").
func (p *program) labelAt(addr uint64, kind string) string {
	if l := p.label(addr, kind); l != nil {
		return l.Name
	}
	return ""
}

// label is the first label at addr of kind (any kind when kind is ""), or
// nil.
func (p *program) label(addr uint64, kind string) *ports.Name {
	i, _ := slices.BinarySearchFunc(p.labels, addr, func(n ports.Name, t uint64) int { return cmp.Compare(n.Address, t) })
	for ; i < len(p.labels) && p.labels[i].Address == addr; i++ {
		if kind == "" || p.labels[i].Kind == kind {
			return &p.labels[i]
		}
	}
	return nil
}

// rangeIndex returns the index of the procedure starting at addr.
func (p *program) rangeIndex(addr uint64) (int, bool) {
	return slices.BinarySearchFunc(p.ranges, addr, func(r ports.FunctionRange, t uint64) int { return cmp.Compare(r.Start, t) })
}
