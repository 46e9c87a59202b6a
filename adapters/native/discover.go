package native

import (
	"cmp"
	"context"
	"debug/elf"
	"fmt"
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
// Every scan is bounded: at most maxFunctionInsns instructions per
// function, maxRounds discovery rounds, maxFunctions functions, and a
// total decoding budget of decodeBudget times the code bytes (malformed
// files can declare overlapping ranges). What is cut off is reported as
// truncated.

const (
	maxFunctionInsns = 1 << 20
	maxFunctions     = 1 << 21
	maxRounds        = 16
	decodeBudget     = 4
)

// fnResult is what decoding one function's range yields.
type fnResult struct {
	start, end uint64
	refs       []xref
	insns      int
	truncated  bool // an instruction cap or the decoding budget cut it
	thunk      bool // the first instruction (after a landing pad) is an unconditional jump
	thunkTo    uint64
	thunkSlot  uint64
}

// program is the whole-binary model of one document.
type program struct {
	arch      arch
	mm        *memMap
	procs     []ports.Procedure
	ranges    []ports.FunctionRange // parallel to procs
	refs      []xref                // sorted by from, to, kind, flags; unique
	insns     int                   // instructions decoded in the final ranges
	codeBytes uint64
	truncated bool // some function was cut by a cap or the budget

	noret   map[uint64]bool
	labels  []ports.Name
	namesOf sync.Once
	nameAt  map[uint64]string
	toOnce  sync.Once
	byTo    []int32 // indexes of resolved refs, sorted by to then from
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
	})
	return p.nameAt[addr]
}

// builder holds the state of one program computation.
type builder struct {
	src     source
	mm      *memMap
	arch    arch
	code    map[uint64][]byte // file bytes of each code region, by region address
	budget  int64
	decoded atomic.Int64
	cut     atomic.Bool
	noret   map[uint64]bool // starts of functions that do not return
}

func (a *Analysis) program(ctx context.Context) (*program, error) {
	if err := a.check(ctx, "analysis"); err != nil {
		return nil, err
	}
	return a.code.get(ctx, func(ctx context.Context) (p *program, err error) {
		defer recoverInto(a.img.format(), "analysis", &err)
		return a.buildProgram(ctx)
	})
}

func (a *Analysis) buildProgram(ctx context.Context) (*program, error) {
	set, err := a.symbolSet(ctx)
	if err != nil {
		return nil, err
	}
	mm := newMemMap(a.img)
	ar := archOf(a.docs[0].Architecture)
	ports.Observe(ctx, "discover", "reading unwind, pclntab and init tables")
	extra, err := tableStarts(ctx, a.src, a.img, mm, set.labels)
	if err != nil {
		return nil, err
	}
	cands := append(slices.Clone(set.procs), uniqueExtra(extra)...)
	p := &program{arch: ar, mm: mm, labels: sortNames(set.labels)}
	b := &builder{src: a.src, mm: mm, arch: ar, code: map[uint64][]byte{}, noret: noReturnStarts(cands)}
	for _, r := range mm.regions {
		if r.exec && r.fileSize > 0 {
			p.codeBytes += r.fileSize
		}
	}
	if newDecoder(ar, mm, a.src) == nil {
		p.procs = mergeProcedures(cands)
		p.ranges = functionRanges(p.procs, cands, mm)
		return p, ctx.Err()
	}
	for _, r := range mm.regions {
		if !r.exec || r.fileSize == 0 {
			continue
		}
		n := a.src.clamp(r.off, r.fileSize)
		if n == 0 {
			continue
		}
		data, err := a.src.read(r.off, n)
		if err != nil {
			continue
		}
		b.code[r.addr] = data
	}
	b.budget = int64(decodeBudget*p.codeBytes) + 1<<20

	results := map[uint64]*fnResult{}
	pointersDone := false
	known := map[uint64]bool{}
	for _, c := range cands {
		known[c.addr] = true
	}
	for round := 0; ; round++ {
		procs := mergeProcedures(cands)
		ranges := functionRanges(procs, cands, mm)
		var todo []ports.FunctionRange
		for _, r := range ranges {
			if res := results[r.Start]; (res == nil || res.end != r.End) && r.End > r.Start && mm.isCode(r.Start) {
				todo = append(todo, r)
			}
		}
		ports.Observe(ctx, "disassemble", fmt.Sprintf("round %d: %d functions known, %d to decode", round+1, len(procs), len(todo)))
		done, err := b.decodeAll(ctx, todo)
		if err != nil {
			return nil, err
		}
		for _, res := range done {
			results[res.start] = res
		}
		if round+1 >= maxRounds || len(cands) >= maxFunctions {
			if len(todo) > 0 {
				b.cut.Store(true)
			}
			p.procs, p.ranges = procs, ranges
			break
		}
		// Calls first, until they add nothing: only then are the ranges
		// good enough to tell a jump that leaves its function.
		found := b.discover(done, ranges, known, false)
		if len(found) == 0 {
			var all []*fnResult
			for _, r := range ranges {
				if res := results[r.Start]; res != nil && res.end == r.End {
					all = append(all, res)
				}
			}
			found = b.discover(all, ranges, known, true)
			found = append(found, b.gaps(ctx, ranges, known)...)
			if !pointersDone {
				pointersDone = true
				found = append(found, b.dataPointers(ctx, a.img, ranges, known)...)
			}
		}
		if len(found) == 0 {
			p.procs, p.ranges = procs, ranges
			break
		}
		cands = append(cands, found...)
	}
	p.noret = b.noret
	p.finish(results)
	p.truncated = p.truncated || b.cut.Load()
	return p, ctx.Err()
}

// noReturnStarts finds the procedures named after functions that do not
// return.
func noReturnStarts(cands []candidate) map[uint64]bool {
	out := map[uint64]bool{}
	for _, c := range cands {
		if c.name != "" && isNoReturn(c.name) {
			out[c.addr] = true
		}
	}
	return out
}

// uniqueExtra keeps one table candidate per address, preferring the
// pclntab (named, exact), then an FDE (exact), then an init entry.
func uniqueExtra(extra []candidate) []candidate {
	prio := map[string]int{"gopclntab": 0, "eh-frame": 1, "init": 2}
	slices.SortStableFunc(extra, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.addr, b.addr), cmp.Compare(prio[a.source], prio[b.source]))
	})
	return slices.CompactFunc(extra, func(a, b candidate) bool { return a.addr == b.addr })
}

// endSources rank the sources of a size when several candidates know one.
var endSources = map[string]string{
	"symbol": "symbol", "dynamic-symbol": "symbol", "gopclntab": "gopclntab", "dwarf": "dwarf",
	"eh-frame": "eh-frame", "pdata": "pdata", "plt": "plt",
}

// functionRanges computes the extent of every procedure: its size when one
// is known, else up to the next procedure, within its section.
func functionRanges(procs []ports.Procedure, cands []candidate, mm *memMap) []ports.FunctionRange {
	sizeSource := make(map[uint64]string, len(procs))
	for _, c := range cands {
		if c.size == 0 {
			continue
		}
		if _, ok := sizeSource[c.addr]; !ok || c.source == "symbol" || c.source == "dynamic-symbol" {
			if s, ok := endSources[c.source]; ok {
				sizeSource[c.addr] = s
			}
		}
	}
	out := make([]ports.FunctionRange, len(procs))
	for i, p := range procs {
		r := ports.FunctionRange{Start: p.Address, End: p.Address, EndSource: "unknown"}
		reg := mm.find(p.Address)
		limit := p.Address
		if reg != nil {
			limit = reg.end()
		}
		switch {
		case p.Size > 0:
			r.End, r.EndSource = p.Address+p.Size, sizeSource[p.Address]
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

// decodeAll decodes the given ranges in parallel.
func (b *builder) decodeAll(ctx context.Context, todo []ports.FunctionRange) ([]*fnResult, error) {
	out := make([]*fnResult, len(todo))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(todo)/32))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			dec := newDecoder(b.arch, b.mm, b.src)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(todo) {
					return
				}
				if i%256 == 0 && ctx.Err() != nil {
					return
				}
				out[i] = b.decodeOne(dec, todo[i])
				if n := done.Add(1); n%8192 == 0 {
					ports.Observe(ctx, "disassemble", fmt.Sprintf("%d of %d functions decoded", n, len(todo)))
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
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

func (b *builder) decodeOne(dec decoder, r ports.FunctionRange) *fnResult {
	res := &fnResult{start: r.Start, end: r.End}
	reg := b.mm.code(r.Start)
	if reg == nil {
		return res
	}
	data := b.code[reg.addr]
	off := r.Start - reg.addr
	if off >= uint64(len(data)) {
		return res
	}
	stop := min(r.End, reg.addr+uint64(len(data)))
	if b.decoded.Add(int64(stop-r.Start)) > b.budget {
		res.truncated = true
		b.cut.Store(true)
		return res
	}
	code := data[off:min(uint64(len(data)), stop-reg.addr+uint64(b.arch.maxInsn()))]
	res.refs = make([]xref, 0, min((stop-r.Start)/8+2, 1<<16))
	first := true
	n, capped := sweep(dec, code, r.Start, stop, maxFunctionInsns, func(in *insn) bool {
		if first {
			if b.isLandingPad(code[in.addr-r.Start:]) {
				return true
			}
			first = false
			if in.flow == ports.FlowJump {
				res.thunk = true
				if in.hasTarget {
					res.thunkTo = in.target
				} else {
					for _, x := range in.refs {
						if !x.resolved() {
							res.thunkSlot = x.to
						}
					}
				}
			}
		}
		res.refs = append(res.refs, in.refs...)
		return true
	})
	res.insns = n
	if capped {
		res.truncated = true
		b.cut.Store(true)
	}
	return res
}

// discover collects new function starts from decoded functions. Without
// leaving: direct call targets. With leaving: direct jump targets and
// address constants that leave their function and land on a function
// boundary. Either must lie in code that no known range covers.
func (b *builder) discover(done []*fnResult, ranges []ports.FunctionRange, known map[uint64]bool, leaving bool) []candidate {
	covered := coverage(ranges)
	bounds := b.boundaries(ranges)
	var out []candidate
	for _, res := range done {
		for _, x := range res.refs {
			if !x.resolved() || known[x.to] {
				continue
			}
			source := ""
			switch {
			case x.kind == kindCall && !leaving:
				source = "call-target"
			case x.kind == kindJump && leaving:
				source = "jump-target"
			case x.kind == kindAddress && leaving:
				source = "address-taken"
			default:
				continue
			}
			if leaving && x.to >= res.start && x.to < res.end {
				continue
			}
			reg := b.mm.code(x.to)
			if reg == nil || reg.plt || covered(x.to) {
				continue
			}
			if b.arch == archARM64 && x.to%4 != 0 {
				continue
			}
			if leaving && !bounds.at(x.to) {
				continue
			}
			known[x.to] = true
			out = append(out, candidate{addr: x.to, source: source, rank: rankUnnamed})
		}
	}
	return out
}

// gaps finds, in each range whose end is only inferred, the first code
// that nothing inside the range reaches and that starts on a function
// boundary (after a return, jump or trap and padding): the next function,
// when nothing calls it directly.
func (b *builder) gaps(ctx context.Context, ranges []ports.FunctionRange, known map[uint64]bool) []candidate {
	var out []candidate
	dec := newDecoder(b.arch, b.mm, b.src)
	bounds := b.boundaries(ranges)
	for k, r := range ranges {
		if k%1024 == 0 && ctx.Err() != nil {
			return nil
		}
		if (r.EndSource != "next-start" && r.EndSource != "section-end") || r.End <= r.Start {
			continue
		}
		reg := b.mm.code(r.Start)
		if reg == nil || reg.plt {
			continue
		}
		data := b.code[reg.addr]
		off := r.Start - reg.addr
		if off >= uint64(len(data)) {
			continue
		}
		stop := min(r.End, reg.addr+uint64(len(data)))
		code := data[off:min(uint64(len(data)), stop-reg.addr+uint64(b.arch.maxInsn()))]
		var flows []flowInsn
		index := map[uint64]int{}
		sweep(dec, code, r.Start, stop, maxFunctionInsns, func(in *insn) bool {
			index[in.addr] = len(flows)
			flows = append(flows, flowInsn{addr: in.addr, size: in.size, flow: in.flow, target: in.target,
				hasTarget: in.hasTarget, table: slices.Clone(in.table),
				noreturn: in.flow == ports.FlowCall && in.hasTarget && b.noret[in.target]})
			return true
		})
		if len(flows) < 2 {
			continue
		}
		reached := make([]bool, len(flows))
		work := []int{0}
		for len(work) > 0 {
			i := work[len(work)-1]
			work = work[:len(work)-1]
			if reached[i] {
				continue
			}
			reached[i] = true
			in := &flows[i]
			next := func(a uint64) {
				if j, ok := index[a]; ok && !reached[j] {
					work = append(work, j)
				}
			}
			if (in.flow == ports.FlowNext || in.flow == ports.FlowCall || in.flow == ports.FlowBranch) && !in.noreturn {
				next(in.next())
			}
			if in.hasTarget && (in.flow == ports.FlowJump || in.flow == ports.FlowBranch) {
				next(in.target)
			}
			for _, t := range in.table {
				next(t)
			}
		}
		for i := 1; i < len(flows); i++ {
			in := &flows[i]
			if reached[i] || b.padding(code[in.addr-r.Start:], in.size) || in.flow == ports.FlowStop {
				continue
			}
			if !known[in.addr] && bounds.at(in.addr) {
				known[in.addr] = true
				out = append(out, candidate{addr: in.addr, source: "gap", rank: rankUnnamed})
			}
			break
		}
	}
	return out
}

// coverage returns a test of whether an address lies strictly inside a
// range whose end is known (not inferred from the next start).
func coverage(ranges []ports.FunctionRange) func(uint64) bool {
	type span struct{ start, end uint64 }
	var reliable []span
	for _, r := range ranges {
		if r.EndSource != "next-start" && r.EndSource != "section-end" && r.EndSource != "unknown" && r.End > r.Start {
			reliable = append(reliable, span{r.Start, r.End})
		}
	}
	// reach[i] is the furthest end of reliable[0..i], so nested and
	// overlapping ranges are covered too.
	reach := make([]uint64, len(reliable))
	for i, s := range reliable {
		reach[i] = s.end
		if i > 0 {
			reach[i] = max(reach[i], reach[i-1])
		}
	}
	return func(t uint64) bool {
		i, _ := slices.BinarySearchFunc(reliable, t, func(s span, t uint64) int {
			if s.start <= t {
				return -1
			}
			return 1
		})
		return i > 0 && reach[i-1] > t
	}
}

// boundaries answers whether addresses are function boundaries for one set
// of ranges: an instruction start, in the linear sweep of the span holding
// it, that control cannot fall into (the span's start, or an instruction
// after a return, jump, trap or call that does not return, and any
// padding). Each span is swept once.
type boundaries struct {
	b      *builder
	ranges []ports.FunctionRange
	spans  map[uint64]map[uint64]bool // span start -> boundary addresses
}

func (b *builder) boundaries(ranges []ports.FunctionRange) *boundaries {
	return &boundaries{b: b, ranges: ranges, spans: map[uint64]map[uint64]bool{}}
}

func (bd *boundaries) at(t uint64) bool {
	b, ranges := bd.b, bd.ranges
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
	set, ok := bd.spans[start]
	if !ok {
		set = bd.sweep(start, end)
		bd.spans[start] = set
	}
	return set[t]
}

func (bd *boundaries) sweep(start, end uint64) map[uint64]bool {
	b := bd.b
	set := map[uint64]bool{}
	reg := b.mm.code(start)
	if reg == nil {
		return set
	}
	data := b.code[reg.addr]
	off := start - reg.addr
	if off >= uint64(len(data)) || end <= start {
		return set
	}
	end = min(end, reg.addr+uint64(len(data)))
	code := data[off:min(uint64(len(data)), end-reg.addr+uint64(b.arch.maxInsn()))]
	open := false // control can fall into the next instruction
	sweep(newDecoder(b.arch, b.mm, b.src), code, start, end, maxFunctionInsns, func(in *insn) bool {
		if !open {
			set[in.addr] = true
		}
		switch {
		case in.flow == ports.FlowReturn || in.flow == ports.FlowJump || in.flow == ports.FlowStop,
			in.flow == ports.FlowCall && in.hasTarget && b.noret[in.target]:
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
// read-only data (.data, .data.rel.ro, ...) of an ELF file that land on a
// function boundary in code no known range covers: functions reached only
// through tables of function pointers.
func (b *builder) dataPointers(ctx context.Context, img image, ranges []ports.FunctionRange, known map[uint64]bool) []candidate {
	e, ok := img.(*elfImage)
	if !ok {
		return nil
	}
	ptr := uint64(8)
	if e.f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	covered := coverage(ranges)
	bounds := b.boundaries(ranges)
	var out []candidate
	for _, s := range e.f.Sections {
		if ctx.Err() != nil {
			return nil
		}
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 ||
			(s.Flags&elf.SHF_WRITE == 0 && !strings.HasPrefix(s.Name, ".data.rel.ro")) || s.FileSize > 64<<20 {
			continue
		}
		data, err := b.src.read(s.Offset, s.FileSize)
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
			if v == 0 || known[v] {
				continue
			}
			reg := b.mm.code(v)
			if reg == nil || reg.plt || covered(v) || !bounds.at(v) {
				continue
			}
			known[v] = true
			out = append(out, candidate{addr: v, source: "data-pointer", rank: rankUnnamed})
		}
	}
	return out
}

// finish assembles the reference list and classifies thunks.
func (p *program) finish(results map[uint64]*fnResult) {
	var total int
	for i, r := range p.ranges {
		res := results[r.Start]
		if res == nil || res.end != r.End {
			continue
		}
		total += len(res.refs)
		p.insns += res.insns
		p.truncated = p.truncated || res.truncated
		if res.thunk && !p.procs[i].Thunk {
			p.procs[i].Thunk = true
			switch {
			case res.thunkTo != 0:
				if n := p.nameNoLock(res.thunkTo); n != "" {
					p.procs[i].ThunkTarget = n
				} else {
					p.procs[i].ThunkTarget = fmt.Sprintf("sub_%x", res.thunkTo)
				}
			case res.thunkSlot != 0:
				if n := p.labelAt(res.thunkSlot, "import"); n != "" {
					p.procs[i].ThunkTarget, p.procs[i].External = n, true
				}
			}
		}
	}
	refs := make([]xref, 0, total)
	for _, r := range p.ranges {
		if res := results[r.Start]; res != nil && res.end == r.End {
			refs = append(refs, res.refs...)
		}
	}
	less := func(a, b xref) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.kind, b.kind), cmp.Compare(a.flags, b.flags))
	}
	if !slices.IsSortedFunc(refs, less) {
		slices.SortFunc(refs, less)
	}
	p.refs = slices.Compact(refs)
}

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
	i, _ := slices.BinarySearchFunc(p.labels, addr, func(n ports.Name, t uint64) int { return cmp.Compare(n.Address, t) })
	for ; i < len(p.labels) && p.labels[i].Address == addr; i++ {
		if kind == "" || p.labels[i].Kind == kind {
			return p.labels[i].Name
		}
	}
	return ""
}

// rangeIndex returns the index of the procedure starting at addr.
func (p *program) rangeIndex(addr uint64) (int, bool) {
	return slices.BinarySearchFunc(p.ranges, addr, func(r ports.FunctionRange, t uint64) int { return cmp.Compare(r.Start, t) })
}
