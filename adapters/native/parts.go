package native

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"rea/ports"
)

// Parts of procedures. gcc at -O2 moves a function's unlikely paths
// (error paths, calls of cold or noreturn functions) out of its body into
// .text.unlikely, as a piece named f.cold (f.cold.N, f.part.N.cold) with
// an FDE of its own that starts mid-frame, reached from f by jumps only.
// Discovery finds that piece as a procedure like any other; foldParts then
// makes it a part of its parent: it leaves the procedure list, the parent's
// blocks and value flow take it in (Function, ValueFlow), and the
// procedure is listed with its parts (PartLister).
//
// A candidate is a range that a table describes (a symbol or an FDE, so
// its extent is known) and that either
//   - has a cold symbol (coldBase), or
//   - has no name and an FDE that starts mid-frame (candidate.midFrame): a
//     function's entry is the state its CIE describes, a piece reached
//     inside a function is not.
//
// It is folded when every resolved reference into it from outside it is a
// jump (or branch, or jump-table case) made by one procedure, at least one
// exists, and, for a cold symbol, that procedure's name is the symbol's
// base (eight static functions are named round_and_return in glibc, each
// with its round_and_return.cold: the jumps pair them; the name may be
// an alias of the procedure's, program.hasName). A call, an address
// taken, a jump from a second procedure or from no procedure keeps the
// candidate a procedure of its own: a target shared by several functions
// belongs to none of them. A stripped binary without .eh_frame has no
// signal and keeps every piece a procedure, as does a named piece whose
// name is not a cold one (a tail-called static function).

// procPart is one part of a procedure, outside its range.
type procPart struct {
	ports.FunctionRange
	parent uint64 // the start of the procedure it belongs to
	name   string // its symbol, "" when it has none
	swept  bool   // its references are swept from its range (program.swept)
}

// coldBase returns the name of the function a gcc cold part's symbol
// belongs to: f for f.cold and f.cold.N (f.part.0 for f.part.0.cold).
func coldBase(name string) (string, bool) {
	i := strings.LastIndex(name, ".cold")
	if i <= 0 {
		return "", false
	}
	rest := name[i+len(".cold"):]
	if rest != "" {
		if rest[0] != '.' || len(rest) == 1 || strings.Trim(rest[1:], "0123456789") != "" {
			return "", false
		}
	}
	return name[:i], true
}

// partSeed is a candidate part known before discovery.
type partSeed struct {
	start, end uint64
	base       string // the parent's name a cold symbol gives; "" otherwise
	midFrame   bool
}

// partSeeds are the candidates, sorted by start, and the references into
// them recorded while discovery sweeps (builder.notePartRefs).
type partSeeds struct {
	list   []partSeed
	lo, hi uint64 // every candidate lies in [lo, hi)
	// blocks has a bit for each partBlock bytes of [lo, hi) that a
	// candidate overlaps: most references (every sweep's, through
	// notePartRefs) land in none and are told so without a search.
	blocks []uint64

	mu   sync.Mutex
	refs []xref
}

// newPartSeeds collects the candidates from the table starts; nil when
// there are none (most targets not built by gcc -O2).
func newPartSeeds(cands candList) *partSeeds {
	by := map[uint64]*partSeed{}
	seed := func(c *candidate) *partSeed {
		s := by[c.addr]
		if s == nil {
			s = &partSeed{start: c.addr}
			by[c.addr] = s
		}
		if c.size > 0 && s.end == 0 {
			s.end = c.addr + c.size
		}
		return s
	}
	for k := range cands.len() {
		c := cands.at(k)
		if base, ok := coldBase(c.name); ok && (c.source == "symbol" || c.source == "dynamic-symbol") {
			seed(c).base = base
		}
		if c.midFrame {
			seed(c).midFrame = true
		}
	}
	for k := range cands.len() { // the extent: a symbol's size, else the FDE's
		if c := cands.at(k); c.size > 0 && by[c.addr] != nil {
			seed(c)
		}
	}
	if len(by) == 0 {
		return nil
	}
	s := &partSeeds{lo: ^uint64(0)}
	for _, p := range by {
		if p.end <= p.start {
			continue
		}
		s.list = append(s.list, *p)
		s.lo, s.hi = min(s.lo, p.start), max(s.hi, p.end)
	}
	if len(s.list) == 0 {
		return nil
	}
	slices.SortFunc(s.list, func(a, b partSeed) int { return cmp.Compare(a.start, b.start) })
	s.blocks = make([]uint64, (s.hi-s.lo)/partBlock/64+1)
	for _, p := range s.list {
		for k := (p.start - s.lo) / partBlock; k <= (p.end-1-s.lo)/partBlock; k++ {
			s.blocks[k/64] |= 1 << (k % 64)
		}
	}
	return s
}

// partBlock is the granularity of partSeeds.blocks.
const partBlock = 256

// at returns the index of the candidate holding addr, or -1.
func (s *partSeeds) at(addr uint64) int {
	if addr-s.lo >= s.hi-s.lo {
		return -1
	}
	if k := (addr - s.lo) / partBlock; s.blocks != nil && s.blocks[k/64]&(1<<(k%64)) == 0 {
		return -1
	}
	i, _ := slices.BinarySearchFunc(s.list, addr, func(p partSeed, t uint64) int {
		if p.start <= t {
			return -1
		}
		return 1
	})
	if i > 0 && addr < s.list[i-1].end {
		return i - 1
	}
	return -1
}

// notePartRefs keeps the resolved references of one sweep that land in a
// candidate from outside it.
func (s *partSeeds) notePartRefs(refs []xref) {
	var hit []xref
	for _, x := range refs {
		if !x.resolved() || x.to-s.lo >= s.hi-s.lo {
			continue
		}
		if k := s.at(x.to); k >= 0 && (x.from < s.list[k].start || x.from >= s.list[k].end) {
			hit = append(hit, x)
		}
	}
	if len(hit) > 0 {
		s.mu.Lock()
		s.refs = append(s.refs, hit...)
		s.mu.Unlock()
	}
}

// foldParts takes the candidates that are parts out of the procedure list
// into p.parts (see the comment at the top of the file).
func (p *program) foldParts(s *partSeeds) {
	if s == nil {
		return
	}
	const (
		none  = -1
		mixed = -2
	)
	owner := make([]int, len(s.list)) // the one procedure that jumps in, none, or mixed
	for k := range owner {
		owner[k] = none
	}
	for _, x := range s.refs {
		k := s.at(x.to)
		if k < 0 || owner[k] == mixed {
			continue
		}
		j, ok := p.holding(x.from)
		switch {
		case !ok || x.kind != kindJump:
			owner[k] = mixed
		case owner[k] == none:
			owner[k] = j
		case owner[k] != j:
			owner[k] = mixed
		}
	}
	fold := map[int]int{} // procedure index of the part -> of its parent
	for k, sd := range s.list {
		i, ok := p.rangeIndex(sd.start)
		j := owner[k]
		if !ok || j < 0 || j == i || p.ranges[i].End != sd.end {
			continue
		}
		pr := p.procs[i]
		if pr.Thunk || pr.External || i > 0 && p.ranges[i-1].End > sd.start || i+1 < len(p.ranges) && p.ranges[i+1].Start < sd.end {
			continue // a part overlaps no procedure (ranges nest only in malformed tables)
		}
		switch {
		case sd.base != "" && p.hasName(p.procs[j], sd.base):
		case sd.base == "" && pr.Name == "" && sd.midFrame:
		default:
			continue
		}
		fold[i] = j
	}
	for i, j := range fold {
		if _, nested := fold[j]; nested {
			delete(fold, i) // a part of a part: both stay procedures
		}
	}
	if len(fold) == 0 {
		return
	}
	parents := make(map[int]uint64, len(fold))
	for i, j := range fold {
		parents[i] = p.procs[j].Address
	}
	p.foldInto(parents)
}

// foldInto makes each procedure i in parents a part of the procedure
// starting at parents[i] (its range, name and sweep kept) and takes it out
// of the list. The parents are addresses, read before the list is
// compacted in place: an index could name a slot already rewritten.
func (p *program) foldInto(parents map[int]uint64) {
	procs, ranges := p.procs[:0], p.ranges[:0]
	sw, next := p.swept[:0], 0 // p.swept is increasing: read at next, rewritten behind it
	for i := range p.procs {
		swept := next < len(p.swept) && p.swept[next] == int32(i)
		if swept {
			next++
		}
		if parent, ok := parents[i]; ok {
			p.parts = append(p.parts, procPart{FunctionRange: p.ranges[i], parent: parent, name: p.procs[i].Name, swept: swept})
			continue
		}
		if swept {
			sw = append(sw, int32(len(procs)))
		}
		procs, ranges = append(procs, p.procs[i]), append(ranges, p.ranges[i])
	}
	p.procs, p.ranges, p.swept = slices.Clip(procs), slices.Clip(ranges), slices.Clip(sw)
	p.indexParts()
}

// hasName reports whether pr has the name, as its own or as one of the
// labels at its address (glibc's __GI__IO_fflush.cold belongs to the
// procedure listed as _IO_fflush, an alias of __GI__IO_fflush).
func (p *program) hasName(pr ports.Procedure, name string) bool {
	if pr.Name == name {
		return true
	}
	i, _ := slices.BinarySearchFunc(p.labels, pr.Address, func(n ports.Name, t uint64) int { return cmp.Compare(n.Address, t) })
	for ; i < len(p.labels) && p.labels[i].Address == pr.Address; i++ {
		if p.labels[i].Name == name {
			return true
		}
	}
	return false
}

// holding returns the procedure whose range holds addr; of nested ranges
// the innermost (latest start).
func (p *program) holding(addr uint64) (int, bool) {
	i, _ := slices.BinarySearchFunc(p.ranges, addr, func(r ports.FunctionRange, t uint64) int {
		if r.Start <= t {
			return -1
		}
		return 1
	})
	for j := i - 1; j >= 0 && j >= i-16; j-- {
		if addr < p.ranges[j].End {
			return j, true
		}
	}
	return -1, false
}

// indexParts sorts the parts by start and indexes them by parent.
func (p *program) indexParts() {
	slices.SortFunc(p.parts, func(a, b procPart) int { return cmp.Compare(a.Start, b.Start) })
	p.partsOf = make(map[uint64][]int, len(p.parts))
	for k, pt := range p.parts {
		p.partsOf[pt.parent] = append(p.partsOf[pt.parent], k)
	}
}

// spans returns the ranges of procedure i's body: its range, then its
// parts in address order.
func (p *program) spans(i int) []ports.FunctionRange {
	out := []ports.FunctionRange{p.ranges[i]}
	for _, k := range p.partsOf[p.procs[i].Address] {
		out = append(out, p.parts[k].FunctionRange)
	}
	return out
}

// partFlows adds the control flow of the parts in spans[1:] to flows (the
// sweep of spans[0], the procedure's range), in address order, within
// maxFunctionInsns in all.
func (p *program) partFlows(ctx context.Context, src source, d decoder, spans []ports.FunctionRange, flows []flowInsn,
	each func(in *insn, code []byte)) ([]flowInsn, error) {
	for _, r := range spans[1:] {
		if len(flows) >= maxFunctionInsns {
			break
		}
		b, end, err := p.partCode(ctx, src, r)
		if err != nil {
			return nil, err
		}
		sweep(d, b, r.Start, end, maxFunctionInsns-len(flows), func(in *insn) bool {
			flows = append(flows, p.flowOf(in))
			if each != nil {
				each(in, b[in.addr-r.Start:])
			}
			return true
		})
	}
	slices.SortStableFunc(flows, func(a, b flowInsn) int { return cmp.Compare(a.addr, b.addr) })
	return flows, ctx.Err()
}

// sortedSpans returns the ranges of the procedure whose range is r, its
// parts included, sorted by start.
func (p *program) sortedSpans(r ports.FunctionRange) []ports.FunctionRange {
	i, ok := p.rangeIndex(r.Start)
	if !ok || len(p.partsOf[r.Start]) == 0 {
		return []ports.FunctionRange{r}
	}
	out := p.spans(i)
	slices.SortFunc(out, func(a, b ports.FunctionRange) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// partCode returns the bytes of part r and where its decoding ends; none
// when it lies outside the code.
func (p *program) partCode(ctx context.Context, src source, r ports.FunctionRange) ([]byte, uint64, error) {
	reg := p.mm.code(r.Start)
	if reg == nil {
		return nil, r.Start, nil
	}
	end := min(r.End, reg.addr+reg.fileSize)
	b, err := codeBytes(ctx, src, p.mm, p.arch, r.Start, end)
	if err != nil {
		return nil, r.Start, err
	}
	return b, end, nil
}

// ProcedureParts lists the parts of procedures (ports.PartLister).
func (a *Analysis) ProcedureParts(ctx context.Context) ([]ports.ProcedurePart, error) {
	return codeOp(a, ctx, "procedure parts", func(p *program) ([]ports.ProcedurePart, error) {
		out := make([]ports.ProcedurePart, len(p.parts))
		for k, pt := range p.parts {
			out[k] = ports.ProcedurePart{FunctionRange: pt.FunctionRange, Procedure: pt.parent, Name: pt.name}
		}
		return out, nil
	})
}

// withoutParts drops the candidate parts from an early list: discovery
// decides which are parts, and the early list holds only procedures the
// complete one has.
func withoutParts(procs []ports.Procedure, s *partSeeds) []ports.Procedure {
	if s == nil {
		return procs
	}
	return slices.DeleteFunc(procs, func(pr ports.Procedure) bool {
		k := s.at(pr.Address)
		return k >= 0 && s.list[k].start == pr.Address
	})
}

// sweptRanges returns the ranges whose references are swept (xref.go): the
// procedures' in program.swept and the parts', in address order, so that
// their references joined in that order are sorted.
func (p *program) sweptRanges() []ports.FunctionRange {
	out := make([]ports.FunctionRange, 0, len(p.swept)+len(p.parts))
	k := 0
	for _, i := range p.swept {
		r := p.ranges[i]
		for ; k < len(p.parts) && p.parts[k].Start < r.Start; k++ {
			if p.parts[k].swept {
				out = append(out, p.parts[k].FunctionRange)
			}
		}
		out = append(out, r)
	}
	for ; k < len(p.parts); k++ {
		if p.parts[k].swept {
			out = append(out, p.parts[k].FunctionRange)
		}
	}
	return out
}
