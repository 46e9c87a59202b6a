package native

import (
	"cmp"
	"context"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"rea/ports"
)

// Source lines: SourceAt answers from the DWARF line tables (.debug_line,
// read with debug/dwarf's LineReader) and the tree of subprograms and
// inlined subroutines in .debug_info. The first lookup reads where each
// compilation unit's code lies (its unit entry's DW_AT_low_pc/high_pc or
// DW_AT_ranges: one entry per unit, not its children); a lookup decodes
// the line table and scope tree of the units covering the address, once,
// into sorted arrays kept in a cache of bounded size, and then binary
// searches them for the line row and descends through the inlined calls
// that cover the address. Units that declare no range are decoded only for
// an address no placed unit answers. A binary without DWARF costs one look
// at its section headers. Which units are in the cache never changes an
// answer: a lookup reads every unit covering the address.

var _ ports.SourceLocator = (*Analysis)(nil)

// noLineTable is why SourceAt is unsupported on a target without lines.
const noLineTable = "no DWARF line table (built without -g or stripped)"

// lineCacheBytes bounds the decoded units an analysis keeps; beyond it the
// least recently used are dropped (and decoded again when asked for).
const lineCacheBytes = 64 << 20

// maxUnitCandidates bounds the units one lookup reads (real units do not
// overlap; a hostile file's may all cover one address).
const maxUnitCandidates = 64

// lineIndex is an analysis's source lines: where the units' code lies and
// the units decoded so far. It is safe for concurrent use.
type lineIndex struct {
	none     string // why there are no lines; "" when there are
	format   string // the file format, for errors
	d        *dwarf.Data
	infoSize uint64
	sec      []byte         // .debug_line
	units    []*dwarf.Entry // unit entries with a line table, in .debug_info order
	spans    []unitSpan     // the placed units' ranges, sorted by lo
	reach    []uint64       // reach[i] is the highest hi of spans[:i+1]
	unplaced []int32        // units that declare no range

	syms lazy[[]symbolFunc] // the symbol table's functions, for Function

	mu     sync.Mutex // guards what follows
	budget int64      // lineCacheBytes; tests lower it
	cache  map[int32]*unitLines
	failed map[int32]error // units whose entries could not be decoded
	clock  uint64
	bytes  int64
	closed bool
}

// unitSpan is one address range of a unit.
type unitSpan struct {
	lo, hi uint64
	unit   int32
}

// unitLines is one unit's decoded line table and scope tree.
type unitLines struct {
	seqs  []lineSeq // sorted by start
	rows  []lineRow // each sequence's rows contiguous, sorted by address
	files []string  // file names; rows and calls index it
	tops  []scopeSpan
	nodes []scopeNode
	spans [][2]uint64 // nodes' ranges

	size    int64  // estimated bytes
	used    uint64 // the cache's clock at the last use
	release func() // the memory reservation
}

// lineSeq is one sequence of the line table: rows[first:first+n] cover
// [start, end).
type lineSeq struct {
	start, end uint64
	first, n   int32
}

type lineRow struct {
	addr      uint64
	file      int32 // in files; -1 when the row names none
	line, col int32
}

// scopeNode is a subprogram (parent -1) or an inlined subroutine.
type scopeNode struct {
	name                string
	parent              int32
	callFile            int32 // in files; -1 when unknown
	callLine, callCol   int32
	spanFirst, spanN    int32 // in spans
	firstChild, sibling int32 // -1 when none
}

// scopeSpan is one range of a subprogram.
type scopeSpan struct {
	lo, hi uint64
	node   int32
}

// Bounds on what is read: a line table row takes at least one byte of
// .debug_line, a debug entry one byte of .debug_info; deeper nesting than
// maxScopeDepth is not followed.
const maxScopeDepth = 256

// maxLineFiles bounds the directories and the files one line table header
// lists (real ones list hundreds).
const maxLineFiles = 1 << 20

// SourceAt returns the source position of addr.
func (a *Analysis) SourceAt(ctx context.Context, addr uint64) (loc ports.SourceLocation, err error) {
	if err := a.check(ctx, "source at"); err != nil {
		return loc, err
	}
	idx, err := a.lines.get(ctx, a.readLines)
	if err != nil {
		return loc, fmt.Errorf("native: source at: %w", classify(a.img.format(), err))
	}
	if idx.none != "" {
		return loc, fmt.Errorf("native: source at: %s: %w", idx.none, ports.ErrUnsupported)
	}
	loc, ok, err := idx.lookup(ctx, addr)
	if err != nil {
		return loc, fmt.Errorf("native: source at: %w", classify(a.img.format(), err))
	}
	if !ok {
		return loc, fmt.Errorf("native: source at: no line covers 0x%x: %w", addr, ports.ErrNotFound)
	}
	if loc.Function == "" {
		loc.Function = a.symbolFunction(ctx, idx, addr)
	}
	return loc, nil
}

// readLines reads where the units' code lies. A target without DWARF, or
// whose DWARF has no line table, gets an index with none set.
func (a *Analysis) readLines(ctx context.Context) (idx *lineIndex, err error) {
	defer recoverInto(a.img.format(), "source lines", &err)
	l := a.dwarf(ctx)
	if l.err != nil {
		return nil, l.err
	}
	if l.d == nil || len(l.line) == 0 {
		return &lineIndex{none: noLineTable}, nil
	}
	idx, err = newLineIndex(ctx, a.img.format(), l.d, l.infoSize, l.line, l.supAt)
	if err != nil {
		return nil, err
	}
	a.hold(idx.releaseAll)
	return idx, nil
}

// newLineIndex reads the unit entries (not their children: a unit entry
// is followed by the next unit's) and their ranges. Units from supAt on
// are a supplementary (dwz) file's (0: none), whose line tables are its own
// and not in sec: they are not read.
func newLineIndex(ctx context.Context, format string, d *dwarf.Data, infoSize uint64, sec []byte, supAt uint64) (*lineIndex, error) {
	idx := &lineIndex{format: format, d: d, infoSize: infoSize, sec: sec, budget: lineCacheBytes,
		cache: map[int32]*unitLines{}, failed: map[int32]error{}}
	r := d.Reader()
	var last dwarf.Offset
	for i := uint64(0); ; i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ent, err := r.Next()
		if err != nil || ent == nil || i > infoSize {
			break // what was read is kept
		}
		if i > 0 && ent.Offset <= last || supAt > 0 && uint64(ent.Offset) >= supAt {
			break
		}
		last = ent.Offset
		if ent.Tag != dwarf.TagCompileUnit && ent.Tag != dwarf.TagPartialUnit {
			r.SkipChildren() // a type unit, or an entry after a unit's children
			continue
		}
		r.SkipChildren()
		if _, ok := ent.Val(dwarf.AttrStmtList).(int64); !ok {
			continue
		}
		u := int32(len(idx.units))
		idx.units = append(idx.units, ent)
		placed := false
		if ranges, err := d.Ranges(ent); err == nil {
			for _, rg := range ranges {
				if rg[1] > rg[0] {
					idx.spans = append(idx.spans, unitSpan{lo: rg[0], hi: rg[1], unit: u})
					placed = true
				}
			}
		}
		if !placed {
			idx.unplaced = append(idx.unplaced, u)
		}
	}
	if len(idx.units) == 0 {
		idx.none = noLineTable
		return idx, nil
	}
	slices.SortStableFunc(idx.spans, func(x, y unitSpan) int { return cmp.Compare(x.lo, y.lo) })
	idx.reach = make([]uint64, len(idx.spans))
	var hi uint64
	for i, s := range idx.spans {
		hi = max(hi, s.hi)
		idx.reach[i] = hi
	}
	return idx, nil
}

// lookup finds addr's row in the units covering it (the last one at or
// below addr in the sequence that covers it: several rows at one address
// leave the last, as binutils keeps it) and the inlined calls around it.
func (idx *lineIndex) lookup(ctx context.Context, addr uint64) (ports.SourceLocation, bool, error) {
	loc, ok, err := idx.lookupIn(ctx, addr, idx.candidates(addr))
	if err != nil || ok || len(idx.unplaced) == 0 {
		return loc, ok, err
	}
	return idx.lookupIn(ctx, addr, idx.unplaced)
}

// candidates are the placed units whose ranges cover addr, in unit order.
func (idx *lineIndex) candidates(addr uint64) []int32 {
	var out []int32
	s := sort.Search(len(idx.spans), func(i int) bool { return idx.spans[i].lo > addr })
	for j := s - 1; j >= 0 && idx.reach[j] > addr && len(out) < maxUnitCandidates; j-- {
		if addr < idx.spans[j].hi && !slices.Contains(out, idx.spans[j].unit) {
			out = append(out, idx.spans[j].unit)
		}
	}
	slices.Sort(out)
	return out
}

func (idx *lineIndex) lookupIn(ctx context.Context, addr uint64, units []int32) (ports.SourceLocation, bool, error) {
	var loc ports.SourceLocation
	decoded := make([]*unitLines, len(units))
	// Sequences may overlap (code the linker discarded keeps its rows at
	// address 0): the nearest start that covers addr wins, the later unit
	// of two at one start.
	var (
		best      *unitLines
		bestStart uint64
		bestRow   lineRow
	)
	for i, u := range units {
		ul, err := idx.unit(ctx, u)
		if err != nil {
			return loc, false, err
		}
		decoded[i] = ul
		if start, row, ok := ul.row(addr); ok && (best == nil || start >= bestStart) {
			best, bestStart, bestRow = ul, start, row
		}
	}
	if best == nil {
		return loc, false, nil
	}
	loc.File, loc.Line, loc.Column = best.file(bestRow.file), int(bestRow.line), int(bestRow.col)
	var (
		scope   *unitLines
		scopeLo uint64
		top     int32
	)
	for _, ul := range decoded {
		if lo, n, ok := ul.top(addr); ok && (scope == nil || lo >= scopeLo) {
			scope, scopeLo, top = ul, lo, n
		}
	}
	if scope == nil {
		return loc, true, nil
	}
	node := scope.descend(top, addr)
	var chain []int32
	for n := node; n >= 0; n = scope.nodes[n].parent {
		chain = append(chain, n)
		if len(chain) > maxScopeDepth {
			break
		}
	}
	loc.Function = scope.nodes[chain[len(chain)-1]].name
	for _, n := range chain[:len(chain)-1] {
		nd := scope.nodes[n]
		loc.Inlined = append(loc.Inlined, ports.InlinedCall{Function: nd.name, CallFile: scope.file(nd.callFile),
			CallLine: int(nd.callLine), CallColumn: int(nd.callCol)})
	}
	return loc, true, nil
}

func (ul *unitLines) file(i int32) string {
	if i < 0 || int(i) >= len(ul.files) {
		return ""
	}
	return ul.files[i]
}

// row is addr's row in the unit and the start of its sequence.
func (ul *unitLines) row(addr uint64) (uint64, lineRow, bool) {
	s := sort.Search(len(ul.seqs), func(i int) bool { return ul.seqs[i].start > addr })
	for j := s - 1; j >= 0 && j >= s-64; j-- {
		q := ul.seqs[j]
		if addr >= q.end {
			continue
		}
		rows := ul.rows[q.first : q.first+q.n]
		k := sort.Search(len(rows), func(i int) bool { return rows[i].addr > addr })
		if k == 0 {
			continue
		}
		return q.start, rows[k-1], true
	}
	return 0, lineRow{}, false
}

// top is the subprogram of the unit covering addr (the nearest start) and
// that start.
func (ul *unitLines) top(addr uint64) (uint64, int32, bool) {
	s := sort.Search(len(ul.tops), func(i int) bool { return ul.tops[i].lo > addr })
	for j := s - 1; j >= 0 && j >= s-64; j-- {
		if addr < ul.tops[j].hi {
			return ul.tops[j].lo, ul.tops[j].node, true
		}
	}
	return 0, -1, false
}

// descend is the innermost node under node covering addr.
func (ul *unitLines) descend(node int32, addr uint64) int32 {
	for depth := 0; node >= 0 && depth < maxScopeDepth; depth++ {
		next := int32(-1)
		for c := ul.nodes[node].firstChild; c >= 0; c = ul.nodes[c].sibling {
			if ul.covers(c, addr) {
				next = c
				break
			}
		}
		if next < 0 {
			break
		}
		node = next
	}
	return node
}

func (ul *unitLines) covers(n int32, addr uint64) bool {
	nd := ul.nodes[n]
	for _, r := range ul.spans[nd.spanFirst : nd.spanFirst+nd.spanN] {
		if addr >= r[0] && addr < r[1] {
			return true
		}
	}
	return false
}

// estimate is the unit's memory.
func (ul *unitLines) estimate() int64 {
	n := int64(unsafe.Sizeof(*ul)) + int64(cap(ul.seqs))*int64(unsafe.Sizeof(lineSeq{})) +
		int64(cap(ul.rows))*int64(unsafe.Sizeof(lineRow{})) + int64(cap(ul.tops))*int64(unsafe.Sizeof(scopeSpan{})) +
		int64(cap(ul.nodes))*int64(unsafe.Sizeof(scopeNode{})) + int64(cap(ul.spans))*16 + int64(cap(ul.files))*16
	for _, f := range ul.files {
		n += int64(len(f))
	}
	for _, nd := range ul.nodes {
		n += int64(len(nd.name))
	}
	return n
}

// unit returns unit u decoded, from the cache or decoded now. Decoding
// holds the cache's lock: two lookups never decode one unit twice.
func (idx *lineIndex) unit(ctx context.Context, u int32) (*unitLines, error) {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	idx.clock++
	if ul, ok := idx.cache[u]; ok {
		ul.used = idx.clock
		return ul, nil
	}
	if err := idx.failed[u]; err != nil {
		return nil, err
	}
	ul, err := idx.decode(ctx, u)
	if err != nil {
		var fe *ports.FormatError
		if errors.As(err, &fe) {
			idx.failed[u] = err // a corrupt unit fails alike every time
		}
		return nil, err
	}
	ul.size, ul.used = ul.estimate(), idx.clock
	release, err := ports.Reserve(ctx, "source lines", ul.size)
	if err != nil {
		return nil, err
	}
	if idx.closed {
		release()
		return ul, nil
	}
	ul.release = release
	idx.cache[u] = ul
	idx.bytes += ul.size
	for idx.bytes > idx.budget && len(idx.cache) > 1 {
		old := int32(-1)
		for k, v := range idx.cache {
			if k != u && (old < 0 || v.used < idx.cache[old].used) {
				old = k
			}
		}
		idx.drop(old)
	}
	return ul, nil
}

func (idx *lineIndex) drop(u int32) {
	ul := idx.cache[u]
	delete(idx.cache, u)
	idx.bytes -= ul.size
	ul.release()
}

// releaseAll drops the cache when the analysis closes.
func (idx *lineIndex) releaseAll() {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	idx.closed = true
	for u := range idx.cache {
		idx.drop(u)
	}
}

// lineBuilder accumulates one unit while its debug entries are read.
type lineBuilder struct {
	ul      *unitLines
	fileIDs map[string]int32
	origins map[dwarf.Offset]string // names by abstract entry
}

func (b *lineBuilder) intern(name string) int32 {
	if id, ok := b.fileIDs[name]; ok {
		return id
	}
	id := int32(len(b.ul.files))
	b.ul.files = append(b.ul.files, name)
	b.fileIDs[name] = id
	return id
}

// decode reads unit u's line table and scope tree.
func (idx *lineIndex) decode(ctx context.Context, u int32) (ul *unitLines, err error) {
	defer recoverInto(idx.format, "source lines", &err)
	b := &lineBuilder{ul: &unitLines{}, fileIDs: map[string]int32{}, origins: map[dwarf.Offset]string{}}
	cu := idx.units[u]
	files := b.lines(idx.d, cu, idx.sec)
	r := idx.d.Reader()
	r.Seek(cu.Offset)
	var (
		last      dwarf.Offset
		stack     []int32 // per open entry with children: the nearest enclosing node, or -1
		lastChild = map[int32]int32{}
	)
entries:
	for i := uint64(0); ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ent, err := r.Next()
		if err != nil || ent == nil || i > idx.infoSize {
			break // what was read is kept
		}
		if i == 0 {
			if ent.Offset != cu.Offset {
				break
			}
			if ent.Children {
				stack = append(stack, -1)
			}
			continue
		}
		if ent.Tag == 0 {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if ent.Offset <= last || len(stack) == 0 {
			break // the unit's entries end where its children's list does
		}
		last = ent.Offset
		parent := stack[len(stack)-1]
		self := parent
		switch ent.Tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit, dwarf.TagTypeUnit, dwarf.TagSkeletonUnit:
			break entries // the next unit: this one's list of children was not closed
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			if ent.Tag == dwarf.TagSubprogram {
				parent = -1 // a nested function is a procedure of its own
			}
			if n := b.node(idx.d, ent, parent, files); n >= 0 {
				self = n
				if parent >= 0 {
					if prev, ok := lastChild[parent]; ok {
						b.ul.nodes[prev].sibling = n
					} else {
						b.ul.nodes[parent].firstChild = n
					}
					lastChild[parent] = n
				}
			} else if ent.Tag == dwarf.TagSubprogram {
				self = -1
			}
		}
		if ent.Children {
			if len(stack) >= maxScopeDepth {
				self = -1 // too deep: what is below is not attributed
			}
			stack = append(stack, self)
		}
	}
	ul = b.ul
	slices.SortStableFunc(ul.seqs, func(x, y lineSeq) int { return cmp.Compare(x.start, y.start) })
	slices.SortStableFunc(ul.tops, func(x, y scopeSpan) int { return cmp.Compare(x.lo, y.lo) })
	return ul, nil
}

// lines reads the line table of a unit and returns its file table.
func (b *lineBuilder) lines(d *dwarf.Data, cu *dwarf.Entry, sec []byte) []int32 {
	off, ok := cu.Val(dwarf.AttrStmtList).(int64)
	if !ok || off < 0 || off >= int64(len(sec)) || checkLineHeader(sec[off:]) != nil {
		return nil
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return nil
	}
	ul := b.ul
	rowLimit := len(sec) - int(off) // a row takes a byte of the program at least
	if n := int(binary.LittleEndian.Uint32(sec[off:])); n < rowLimit {
		ul.rows = make([]lineRow, 0, n/4) // a row takes two or three bytes of a real program
	}
	var e dwarf.LineEntry
	byFile := map[*dwarf.LineFile]int32{}
	first := 0 // the current sequence's first row
	for len(ul.rows) < rowLimit {
		if err := lr.Next(&e); err != nil {
			break // io.EOF, or a corrupt program: the rows read are kept
		}
		if e.EndSequence {
			if rows := ul.rows[first:]; len(rows) > 0 {
				slices.SortStableFunc(rows, func(x, y lineRow) int { return cmp.Compare(x.addr, y.addr) })
				if e.Address > rows[0].addr {
					ul.seqs = append(ul.seqs, lineSeq{start: rows[0].addr, end: e.Address, first: int32(first), n: int32(len(rows))})
				}
			}
			first = len(ul.rows)
			continue
		}
		row := lineRow{addr: e.Address, file: -1, line: clampInt32(e.Line), col: clampInt32(e.Column)}
		if e.File != nil {
			id, ok := byFile[e.File]
			if !ok {
				id = b.intern(e.File.Name)
				byFile[e.File] = id
			}
			row.file = id
		}
		ul.rows = append(ul.rows, row)
	}
	ul.rows = ul.rows[:first] // a sequence without its end is not kept
	files := lr.Files()
	out := make([]int32, len(files))
	for i, f := range files {
		out[i] = -1
		if f != nil {
			out[i] = b.intern(f.Name)
		}
	}
	return out
}

// name is a subprogram's or an inlined subroutine's linkage name, or its
// name. The names of abstract entries, which every inlined copy of a
// function refers to, are kept by their offset.
func (b *lineBuilder) name(d *dwarf.Data, ent *dwarf.Entry) string {
	if name, ok := ent.Val(dwarf.AttrLinkageName).(string); ok && name != "" {
		return name
	}
	origin, ok := ent.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
	if !ok {
		origin, ok = ent.Val(dwarf.AttrSpecification).(dwarf.Offset)
	}
	ok = ok && ent.Val(dwarf.AttrName) == nil // the name is the abstract entry's alone
	if ok {
		if name, seen := b.origins[origin]; seen {
			return name
		}
	}
	name, _ := dwarfVal(d, ent, dwarf.AttrLinkageName).(string)
	if name == "" {
		name, _ = dwarfVal(d, ent, dwarf.AttrName).(string)
	}
	if ok {
		b.origins[origin] = name
	}
	return name
}

// node adds a subprogram or inlined subroutine with code, returning its
// index, or -1 when it has no ranges.
func (b *lineBuilder) node(d *dwarf.Data, ent *dwarf.Entry, parent int32, files []int32) int32 {
	ranges, err := d.Ranges(ent)
	if err != nil {
		return -1
	}
	ul := b.ul
	first := len(ul.spans)
	for _, r := range ranges {
		if r[1] > r[0] {
			ul.spans = append(ul.spans, r)
		}
	}
	if len(ul.spans) == first {
		return -1
	}
	n := scopeNode{name: b.name(d, ent), parent: parent, callFile: -1, spanFirst: int32(first), spanN: int32(len(ul.spans) - first),
		firstChild: -1, sibling: -1}
	if ent.Tag == dwarf.TagInlinedSubroutine {
		if f, ok := ent.Val(dwarf.AttrCallFile).(int64); ok && f >= 0 && f < int64(len(files)) {
			n.callFile = files[f]
		}
		if l, ok := ent.Val(dwarf.AttrCallLine).(int64); ok {
			n.callLine = clampInt32(int(l))
		}
		if c, ok := ent.Val(dwarf.AttrCallColumn).(int64); ok {
			n.callCol = clampInt32(int(c))
		}
	}
	id := int32(len(ul.nodes))
	ul.nodes = append(ul.nodes, n)
	if parent < 0 {
		for _, r := range ul.spans[first:] {
			ul.tops = append(ul.tops, scopeSpan{lo: r[0], hi: r[1], node: id})
		}
	}
	return id
}

func clampInt32(v int) int32 {
	return int32(min(max(v, 0), 1<<31-1))
}

// checkLineHeader refuses a DWARF 5 line table header whose directory or
// file counts could not be real: debug/dwarf allocates and loops over the
// counts before it reads an entry, so a hostile count would exhaust memory
// or time. Earlier versions list their entries until an empty name, which
// the section's bytes bound.
func checkLineHeader(b []byte) error {
	bad := errors.New("malformed line table header")
	c := lineCursor{b: b}
	length := uint64(c.u32())
	dwarf64 := false
	if length == 0xffffffff {
		length, dwarf64 = c.u64(), true
	}
	if c.bad || length > uint64(len(b)-c.off) {
		return bad
	}
	c.b = b[:c.off+int(length)]
	version := c.u16()
	if version < 5 {
		return nil
	}
	if version > 5 {
		return bad
	}
	c.skip(2) // address and segment selector sizes
	if dwarf64 {
		c.skip(8)
	} else {
		c.skip(4)
	}
	c.skip(5) // minimum instruction length, maximum operations, default is_stmt, line base, line range
	opcodeBase := c.u8()
	if opcodeBase > 0 {
		c.skip(int(opcodeBase) - 1)
	}
	for range 2 { // directories, then files
		formats := make([]uint64, c.u8())
		for i := range formats {
			c.uleb() // content type
			formats[i] = c.uleb()
		}
		count := c.uleb()
		if c.bad || count > uint64(len(c.b)-c.off) || count > maxLineFiles {
			return bad
		}
		for range count { // at most one entry per byte left, whatever they take
			for _, f := range formats {
				c.form(f, dwarf64)
			}
			if c.bad {
				return bad
			}
		}
	}
	return nil
}

// lineCursor reads a line table header; bad is set by a read past the end.
type lineCursor struct {
	b   []byte
	off int
	bad bool
}

func (c *lineCursor) skip(n int) {
	if n < 0 || n > len(c.b)-c.off {
		c.bad, c.off = true, len(c.b)
		return
	}
	c.off += n
}

func (c *lineCursor) fixed(n int) uint64 {
	if n > len(c.b)-c.off {
		c.bad, c.off = true, len(c.b)
		return 0
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(c.b[c.off+i])
	}
	c.off += n
	return v
}

func (c *lineCursor) u8() uint8   { return uint8(c.fixed(1)) }
func (c *lineCursor) u16() uint16 { return uint16(c.fixed(2)) }
func (c *lineCursor) u32() uint32 { return uint32(c.fixed(4)) }
func (c *lineCursor) u64() uint64 { return c.fixed(8) }

func (c *lineCursor) uleb() uint64 {
	v, n := binary.Uvarint(c.b[c.off:])
	if n <= 0 {
		c.bad, c.off = true, len(c.b)
		return 0
	}
	c.off += n
	return v
}

// form skips one value of the forms debug/dwarf reads in a line table
// header (others take no bytes there, as in debug/dwarf).
func (c *lineCursor) form(f uint64, dwarf64 bool) {
	const (
		formBlock    = 0x09
		formData1    = 0x0b
		formData2    = 0x05
		formData4    = 0x06
		formData8    = 0x07
		formData16   = 0x1e
		formString   = 0x08
		formStrp     = 0x0e
		formLineStrp = 0x1f
		formStrpSup  = 0x1d
		formUdata    = 0x0f
		formStrx     = 0x1a
		formStrx1    = 0x25
		formStrx2    = 0x26
		formStrx3    = 0x27
		formStrx4    = 0x28
	)
	switch f {
	case formString:
		for c.off < len(c.b) && c.b[c.off] != 0 {
			c.off++
		}
		c.skip(1)
	case formStrp, formLineStrp, formStrpSup:
		if dwarf64 {
			c.skip(8)
		} else {
			c.skip(4)
		}
	case formStrx, formUdata:
		c.uleb()
	case formStrx1, formData1:
		c.skip(1)
	case formStrx2, formData2:
		c.skip(2)
	case formStrx3:
		c.skip(3)
	case formStrx4, formData4:
		c.skip(4)
	case formData8:
		c.skip(8)
	case formData16:
		c.skip(16)
	case formBlock:
		n := c.uleb()
		if n > uint64(len(c.b)) {
			c.bad, c.off = true, len(c.b)
			return
		}
		c.skip(int(n))
	}
}
