package diff

import (
	"context"
	"slices"
	"sort"
	"strconv"
)

// Match bases, in the order the tiers run.
const (
	basisName      = "name"
	basisHash      = "instruction-hash"
	basisStructure = "structure"
	basisCallGraph = "call-graph"
)

type match struct {
	L, R       int
	Basis      string
	Similarity float64 // feature similarity for structural matches, else 1
}

// matcher pairs the functions of two binaries in tiers, each accepting
// only candidates unique on both sides.
type matcher struct {
	l, r      *binSide
	crossArch bool
	lm, rm    []int // index of the match of each function, or -1
	matches   []match
	// consts and callees count, per side, the functions that hold each
	// constant and that call each address (countContent fills them).
	consts  [2]map[string]int
	callees [2]map[uint64]int
}

func newMatcher(l, r *binSide, crossArch bool) *matcher {
	m := &matcher{l: l, r: r, crossArch: crossArch, lm: make([]int, len(l.funcs)), rm: make([]int, len(r.funcs))}
	for i := range m.lm {
		m.lm[i] = -1
	}
	for i := range m.rm {
		m.rm[i] = -1
	}
	return m
}

func (m *matcher) add(li, ri int, basis string, sim float64) {
	m.lm[li], m.rm[ri] = len(m.matches), len(m.matches)
	m.matches = append(m.matches, match{L: li, R: ri, Basis: basis, Similarity: sim})
}

// uniqueKeys pairs unmatched functions whose key is unique on both sides.
func (m *matcher) uniqueKeys(key func(*fnFacts) string, basis string) {
	index := func(s *binSide, taken []int) map[string]int {
		out := map[string]int{}
		for i, f := range s.funcs {
			if taken[i] >= 0 {
				continue
			}
			k := key(f)
			if k == "" {
				continue
			}
			if _, dup := out[k]; dup {
				out[k] = -1
			} else {
				out[k] = i
			}
		}
		return out
	}
	li, ri := index(m.l, m.lm), index(m.r, m.rm)
	keys := make([]string, 0, len(li))
	for k := range li {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a := li[k]
		if b, ok := ri[k]; ok && a >= 0 && b >= 0 {
			m.add(a, b, basis, 1)
		}
	}
}

// Structural matching scores every unmatched pair while there are at
// most exhaustivePairs of them. Past that, a function is scored only
// against the maxSizeNeighbours unmatched functions of the other binary
// closest to it in instruction count (within a factor of sizeRatio), so a
// round costs O(n·k) instead of O(n²): a recompiled function keeps
// roughly its size, and the other features then decide among the
// neighbours. Across architectures sizes are not comparable: there the
// round still scores every pair, and is skipped and reported past
// maxStructurePairs.
const (
	exhaustivePairs   = 1_000_000
	maxSizeNeighbours = 48
	sizeRatio         = 0.6
	maxStructurePairs = 4_000_000
)

// sizeNeighbours returns, for a left function, the right candidates rs
// closest to it in instruction count.
func (m *matcher) sizeNeighbours(rs []int) func(li int) []int {
	near := nearInSize(m.r.funcs, rs)
	return func(li int) []int { return near(len(m.l.funcs[li].Insns)) }
}

// nearInSize returns, for an instruction count n, the candidates cands of
// funcs closest to n (within a factor of sizeRatio), at most
// maxSizeNeighbours of them. The slice it returns is reused by the next call.
func nearInSize(funcs []*fnFacts, cands []int) func(n int) []int {
	sorted := append([]int{}, cands...)
	size := func(f *fnFacts) int { return len(f.Insns) }
	sort.SliceStable(sorted, func(i, j int) bool { return size(funcs[sorted[i]]) < size(funcs[sorted[j]]) })
	sizes := make([]int, len(sorted))
	for i, x := range sorted {
		sizes[i] = size(funcs[x])
	}
	buf := make([]int, 0, maxSizeNeighbours)
	return func(n int) []int {
		lo, hi := int(float64(n)*sizeRatio), int(float64(n)/sizeRatio)+1
		c := sort.SearchInts(sizes, n)
		i, j := c-1, c // expand outwards from n
		buf = buf[:0]
		for len(buf) < maxSizeNeighbours && (i >= 0 || j < len(sorted)) {
			takeLeft := j >= len(sorted) || (i >= 0 && n-sizes[i] <= sizes[j]-n)
			if takeLeft {
				if sizes[i] < lo {
					i = -1
					continue
				}
				buf = append(buf, sorted[i])
				i--
			} else {
				if sizes[j] > hi {
					j = len(sorted)
					continue
				}
				buf = append(buf, sorted[j])
				j++
			}
		}
		return buf
	}
}

// run matches by name, by normalized-instruction hash (same architecture
// only), then by structure in rounds, since each round's matches make the
// call-graph neighbourhoods of the next more telling, and by hash again
// (twins the rounds left); below shapeAlone a
// structure match needs shared content. Structure pairs a
// function only with an unnamed one (a stripped build's sub_...): two
// functions named differently are a rename only when their code is
// identical (the hash tier), else one was removed and the other added.
func (m *matcher) run(ctx context.Context) (skipped bool, err error) {
	m.uniqueKeys(func(f *fnFacts) string {
		if f.unnamed() {
			return ""
		}
		return f.Name
	}, basisName)
	byHash := func() {
		if !m.crossArch {
			m.uniqueKeys(func(f *fnFacts) string {
				if len(f.Insns) < 3 {
					return "" // too short to tell functions apart
				}
				return f.hash()
			}, basisHash)
		}
	}
	byHash()
	m.countContent()
	for round := 0; round < 3; round++ {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		ls, rs := m.unmatched()
		if len(ls) == 0 || len(rs) == 0 {
			break
		}
		candidates := func(int) []int { return rs }
		if len(ls)*len(rs) > exhaustivePairs {
			if m.crossArch {
				if len(ls)*len(rs) > maxStructurePairs {
					return true, nil
				}
			} else {
				candidates = m.sizeNeighbours(rs)
			}
		}
		bestL := make([]int, len(ls))
		scoreL := make([]float64, len(ls))
		bestR := map[int]int{}
		scoreR := map[int]float64{}
		for a, li := range ls {
			bestL[a] = -1
			if a%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return false, err
				}
			}
			for _, ri := range candidates(li) {
				if !m.l.funcs[li].unnamed() && !m.r.funcs[ri].unnamed() {
					continue // two differently named functions pair only on identical code
				}
				s := m.structure(li, ri)
				if s > scoreL[a] {
					bestL[a], scoreL[a] = ri, s
				}
				if s > scoreR[ri] {
					bestR[ri], scoreR[ri] = li, s
				}
			}
		}
		added := 0
		for a, li := range ls {
			ri := bestL[a]
			if ri >= 0 && bestR[ri] == li && scoreL[a] >= 0.6 && (scoreL[a] >= shapeAlone || m.sharesContent(li, ri)) {
				m.add(li, ri, basisStructure, round4(scoreL[a]))
				added++
			}
		}
		if added == 0 {
			break
		}
	}
	// Identical functions (twins) tie in every structural round, which
	// pairs one of them a round: what is left of them once the rounds
	// end may be unique now.
	byHash()
	m.callPositions()
	return false, nil
}

// countContent counts, per side, the functions that hold each constant and
// that call each address, for rare.
func (m *matcher) countContent() {
	for side, s := range []*binSide{m.l, m.r} {
		m.consts[side], m.callees[side] = map[string]int{}, map[uint64]int{}
		for _, f := range s.funcs {
			for _, c := range slices.Compact(slices.Sorted(slices.Values(f.Consts))) {
				m.consts[side][c]++
			}
			for _, c := range f.Calls { // distinct already
				m.callees[side][c.Addr]++
			}
		}
	}
}

// callPositions pairs what structure left unmatched by its place in the
// call graph: when the callees of a matched pair that are still unmatched
// are as many on both sides, the k-th of one is the k-th of the other (in
// call-site order), if the pair is plausible beyond its position. The
// same naming rule as structure applies.
func (m *matcher) callPositions() {
	rivals := m.rivals()
	for k := 0; k < len(m.matches); k++ {
		x := m.matches[k]
		free := func(s *binSide, taken []int, f *fnFacts) []int {
			var out []int
			for _, c := range f.Calls {
				if i, ok := s.byAddr[c.Addr]; ok && taken[i] < 0 && !slices.Contains(out, i) {
					out = append(out, i)
				}
			}
			return out
		}
		lc, rc := free(m.l, m.lm, m.l.funcs[x.L]), free(m.r, m.rm, m.r.funcs[x.R])
		if len(lc) == 0 || len(lc) != len(rc) {
			continue
		}
		for j := range lc {
			if !m.l.funcs[lc[j]].unnamed() && !m.r.funcs[rc[j]].unnamed() {
				continue
			}
			s := m.structure(lc[j], rc[j])
			if !m.plausible(lc[j], rc[j], s, rivals) {
				continue
			}
			m.add(lc[j], rc[j], basisCallGraph, round(s))
		}
	}
}

// plausible reports whether positional candidates li and ri, scoring s,
// are each the other's best-scoring unmatched candidate (among rivals) and
// share content (sharesContent).
//
// Position alone is no evidence that two functions are one: between
// unrelated programs (gzip and bzip2, two zlib examples) it matched every
// unmatched callee of a matched pair, and between builds of one program at
// two optimization levels it paired a callee inlined on one side with its
// neighbour on the other. Measured over 13 small C programs built at 7
// optimization settings, before and after edits, and unrelated pairs of
// them: no similarity floor separated right from wrong pairs (right ones
// scored 0.29 to 0.60, wrong ones 0.10 to 0.56), nor did size (inlining
// made a right pair's sizes differ eightfold), while these two tests
// rejected all 32 wrong pairs between builds of one program and all 37
// between unrelated programs, keeping 26 of the 57 right ones. The right
// ones lost share nothing but shape and 0 or 1 (a callee rewritten or
// inlined differently), or became uneven groups when a sibling was
// rejected. Forbidding accepted pairs to seed further pairs rejected no
// further wrong one, so they still do.
func (m *matcher) plausible(li, ri int, s float64, rivals func(side, i int) []int) bool {
	if !m.sharesContent(li, ri) {
		return false
	}
	lf, rf := m.l.funcs[li], m.r.funcs[ri]
	for _, r := range rivals(0, li) {
		if r != ri && m.rm[r] < 0 && (lf.unnamed() || m.r.funcs[r].unnamed()) && m.structure(li, r) >= s {
			return false
		}
	}
	for _, l := range rivals(1, ri) {
		if l != li && m.lm[l] < 0 && (rf.unnamed() || m.l.funcs[l].unnamed()) && m.structure(l, ri) >= s {
			return false
		}
	}
	return true
}

// unmatched returns the functions of each side not matched yet.
func (m *matcher) unmatched() (ls, rs []int) {
	for i, x := range m.lm {
		if x < 0 {
			ls = append(ls, i)
		}
	}
	for i, x := range m.rm {
		if x < 0 {
			rs = append(rs, i)
		}
	}
	return ls, rs
}

// rivals returns, for function i of one side (0 left, 1 right), the
// unmatched functions of the other side its positional partner must
// outscore: all of them, or past exhaustivePairs the maxSizeNeighbours
// nearest in size, as a structural round chooses (across architectures run
// has given up past maxStructurePairs). The caller skips those matched
// since.
func (m *matcher) rivals() func(side, i int) []int {
	ls, rs := m.unmatched()
	if m.crossArch || len(ls)*len(rs) <= exhaustivePairs {
		return func(side, _ int) []int { return [][]int{rs, ls}[side] }
	}
	nearR, nearL := nearInSize(m.r.funcs, rs), nearInSize(m.l.funcs, ls)
	return func(side, i int) []int {
		if side == 0 {
			return nearR(len(m.l.funcs[i].Insns))
		}
		return nearL(len(m.r.funcs[i].Insns))
	}
}

// sharesContent reports whether two functions have a string, a rare
// constant (same architecture only) or a rare callee in common. An unnamed
// callee that is not matched counts for nothing: every such callee is
// "sub".
func (m *matcher) sharesContent(li, ri int) bool {
	lf, rf := m.l.funcs[li], m.r.funcs[ri]
	for _, x := range lf.Strings {
		if slices.Contains(rf.Strings, x) {
			return true
		}
	}
	if !m.crossArch {
		for _, x := range lf.Consts {
			if m.rare(m.consts[0][x], m.consts[1][x]) && slices.Contains(rf.Consts, x) {
				return true
			}
		}
	}
	for _, a := range lf.Calls {
		tok := m.neighbour(0, a.Addr, a.key())
		if tok == "sub" {
			continue
		}
		for _, b := range rf.Calls {
			if m.neighbour(1, b.Addr, b.key()) == tok && m.rare(m.callees[0][a.Addr], m.callees[1][b.Addr]) {
				return true
			}
		}
	}
	return false
}

// rare reports whether something held by l functions of the left binary
// and r of the right is held by at most a fifth of each binary's
// functions (or two): a constant such as 0 or 1, or a callee such as
// __stack_chk_fail, that most functions have says nothing.
func (m *matcher) rare(l, r int) bool {
	return l <= max(2, len(m.l.funcs)/5) && r <= max(2, len(m.r.funcs)/5)
}

// shapeAlone is the structural score from which a structure match needs
// no shared content (sharesContent); below it, as for a call-graph match,
// shape is not enough.
//
// Small functions look alike in shape whatever they do (a hash loop and a
// counting loop, two error exits): between unrelated programs structure
// paired them at 0.60 to 0.90, and between builds of one program it paired
// a function with an inlined or tied neighbour. Measured over the structure
// matches of 13 small C programs at 7 optimization settings, before and
// after edits, unrelated pairs of them, and gzip/bzip2/xz: requiring shared
// content below 0.8 rejected 44 of 98 wrong matches between builds of one
// program and 72 of 129 between unrelated programs, and lost 64 of 1,818
// right ones (9 tiny functions such as twice or ratio, over many build
// pairs, that share nothing but 0 and 1). Requiring it always would lose
// 159; 0.85 would reject 24 more wrong for 20 more right, among them the
// edited limit of TestCompareBinariesBuilds (0.85, sharing nothing). The
// wrong matches left score 0.8 or more, or share inlined code, or share
// constants and imports (-1, 5, exit) that up to a fifth of a binary's
// functions hold.
const shapeAlone = 0.8

func round4(f float64) float64 { return round(f) }

// neighbour is how a call-graph neighbour is compared across the binaries:
// by its match, else by tok, its stable name (an import's identity).
func (m *matcher) neighbour(side int, addr uint64, tok string) string {
	s, taken := m.l, m.lm
	if side == 1 {
		s, taken = m.r, m.rm
	}
	if i, ok := s.byAddr[addr]; ok && taken[i] >= 0 {
		return "#" + strconv.Itoa(taken[i])
	}
	return tok
}

// structure scores how alike two unmatched functions are from features that
// survive recompilation: CFG shape, size, call-graph neighbourhood,
// referenced strings and constants.
func (m *matcher) structure(li, ri int) float64 {
	lf, rf := m.l.funcs[li], m.r.funcs[ri]
	var sum, w float64
	addf := func(weight, v float64) { sum += weight * v; w += weight }
	if !m.crossArch {
		if lf.CFG != nil && rf.CFG != nil {
			addf(0.25, *cfgDim(lf.CFG, rf.CFG).Similarity)
		}
		if lf.Insns != nil && rf.Insns != nil {
			n, k := len(lf.Insns), len(rf.Insns)
			if max(n, k) > 0 {
				addf(0.15, float64(min(n, k))/float64(max(n, k)))
			}
		}
		if len(lf.Consts)+len(rf.Consts) > 0 {
			addf(0.1, *setDim(lf.Consts, rf.Consts).Similarity)
		}
	}
	var lc, rc []string
	for _, c := range lf.Calls {
		lc = append(lc, m.neighbour(0, c.Addr, c.key()))
	}
	for _, c := range rf.Calls {
		rc = append(rc, m.neighbour(1, c.Addr, c.key()))
	}
	if len(lc)+len(rc) > 0 {
		addf(0.25, *setDim(lc, rc).Similarity)
	}
	var lk, rk []string
	for _, j := range m.l.callers[li] {
		lk = append(lk, m.neighbour(0, m.l.funcs[j].Address, stableName(m.l.funcs[j].Name)))
	}
	for _, j := range m.r.callers[ri] {
		rk = append(rk, m.neighbour(1, m.r.funcs[j].Address, stableName(m.r.funcs[j].Name)))
	}
	if len(lk)+len(rk) > 0 {
		addf(0.15, *setDim(lk, rk).Similarity)
	}
	if len(lf.Strings)+len(rf.Strings) > 0 {
		addf(0.1, *setDim(lf.Strings, rf.Strings).Similarity)
	}
	if w == 0 {
		return 0
	}
	return sum / w
}

// calleeName names a callee for the calls dimension of a matched pair: a
// matched function by its left name, else its own stable name (an import
// by its identity).
func (m *matcher) calleeName(side int, c callee) string {
	return m.symbol(side, c.Addr, c.key())
}

// symbol names address addr of one side as a matched pair compares it:
// a matched function by its left name, an unmatched unnamed one by the
// name the added or removed list gives it (sub_1200), else tok. Unmatched
// unnamed functions are not one function "sub": a call of a removed one
// replaced by a call of an added one is a change of calls. An added one
// at the address of a left function is marked (right), as matched
// functions go by their left names.
func (m *matcher) symbol(side int, addr uint64, tok string) string {
	s, taken := m.l, m.lm
	if side == 1 {
		s, taken = m.r, m.rm
	}
	if i, ok := s.byAddr[addr]; ok {
		if taken[i] >= 0 {
			return m.l.funcs[m.matches[taken[i]].L].Name
		}
		if f := s.funcs[i]; f.unnamed() {
			n := displayName(f.Name, f.Address)
			if j, ok := m.l.byAddr[addr]; ok && side == 1 && m.l.funcs[j].Name == n {
				n += " (right)"
			}
			return n
		}
	}
	return tok
}

// unnamed reports a name only this side can give: it has a symbol table,
// the other side has none and does not give it. A shared library's name
// (one this side also gives with a symbol version: the copy-relocated
// stderr) is no such name: the other side's dynamic symbols would give it
// had that build referenced it, so a read of stderr in one build and of
// stdout in the other shows both. A reference to a matched
// function (addr) is given by the other side only when that side names its
// match: the same name elsewhere on the other side (an import of the name
// of a local function, as mingw's inline fprintf beside msvcrt's) does not
// give it.
func (m *matcher) unnamed(side int, addr uint64, name string) bool {
	this, other, taken := m.l, m.r, m.lm
	if side == 1 {
		this, other, taken = m.r, m.l, m.rm
	}
	if !this.symtab || other.symtab {
		return false
	}
	if i, ok := this.byAddr[addr]; ok && taken[i] >= 0 {
		x := m.matches[taken[i]]
		j := x.R
		if side == 1 {
			j = x.L
		}
		return other.funcs[j].unnamed()
	}
	return !other.names[name] && !this.versioned[name]
}
