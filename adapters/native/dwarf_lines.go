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
	"unsafe"

	"rea/ports"
)

// Source lines: SourceAt answers from the DWARF line tables (.debug_line,
// read with debug/dwarf's LineReader) and the tree of subprograms and
// inlined subroutines in .debug_info. Both are read once per analysis, on
// the first lookup, into sorted arrays; a lookup is then a binary search
// for the line row and a descent through the inlined calls that cover the
// address. A binary without DWARF costs one look at its section headers.

var _ ports.SourceLocator = (*Analysis)(nil)

// noLineTable is why SourceAt is unsupported on a target without lines.
const noLineTable = "no DWARF line table (built without -g or stripped)"

// lineIndex is what SourceAt reads.
type lineIndex struct {
	none  string    // why there are no lines; "" when there are
	seqs  []lineSeq // sorted by start
	rows  []lineRow // each sequence's rows contiguous, sorted by address
	files []string  // file names, interned; rows and calls index it
	tops  []scopeSpan
	nodes []scopeNode
	spans [][2]uint64 // nodes' ranges
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
	loc, ok := idx.lookup(addr)
	if !ok {
		return loc, fmt.Errorf("native: source at: no line covers 0x%x: %w", addr, ports.ErrNotFound)
	}
	return loc, nil
}

func (idx *lineIndex) file(i int32) string {
	if i < 0 || int(i) >= len(idx.files) {
		return ""
	}
	return idx.files[i]
}

// lookup finds addr's row (the last one at or below addr in the sequence
// that covers it: several rows at one address leave the last, as binutils
// keeps it) and the inlined calls around it.
func (idx *lineIndex) lookup(addr uint64) (ports.SourceLocation, bool) {
	var loc ports.SourceLocation
	s := sort.Search(len(idx.seqs), func(i int) bool { return idx.seqs[i].start > addr })
	found := false
	// Sequences may overlap (code the linker discarded keeps its rows at
	// address 0): the nearest start that covers addr wins.
	for j := s - 1; j >= 0 && j >= s-64; j-- {
		q := idx.seqs[j]
		if addr >= q.end {
			continue
		}
		rows := idx.rows[q.first : q.first+q.n]
		k := sort.Search(len(rows), func(i int) bool { return rows[i].addr > addr })
		if k == 0 {
			continue
		}
		r := rows[k-1]
		loc.File, loc.Line, loc.Column = idx.file(r.file), int(r.line), int(r.col)
		found = true
		break
	}
	if !found {
		return loc, false
	}
	node := idx.scopeAt(addr)
	if node < 0 {
		return loc, true
	}
	var chain []int32
	for n := node; n >= 0; n = idx.nodes[n].parent {
		chain = append(chain, n)
		if len(chain) > maxScopeDepth {
			break
		}
	}
	top := chain[len(chain)-1]
	loc.Function = idx.nodes[top].name
	for _, n := range chain[:len(chain)-1] {
		nd := idx.nodes[n]
		loc.Inlined = append(loc.Inlined, ports.InlinedCall{Function: nd.name, CallFile: idx.file(nd.callFile),
			CallLine: int(nd.callLine), CallColumn: int(nd.callCol)})
	}
	return loc, true
}

// scopeAt is the innermost node covering addr, or -1.
func (idx *lineIndex) scopeAt(addr uint64) int32 {
	s := sort.Search(len(idx.tops), func(i int) bool { return idx.tops[i].lo > addr })
	node := int32(-1)
	for j := s - 1; j >= 0 && j >= s-64; j-- {
		if addr < idx.tops[j].hi {
			node = idx.tops[j].node
			break
		}
	}
	for depth := 0; node >= 0 && depth < maxScopeDepth; depth++ {
		next := int32(-1)
		for c := idx.nodes[node].firstChild; c >= 0; c = idx.nodes[c].sibling {
			if idx.covers(c, addr) {
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

func (idx *lineIndex) covers(n int32, addr uint64) bool {
	nd := idx.nodes[n]
	for _, r := range idx.spans[nd.spanFirst : nd.spanFirst+nd.spanN] {
		if addr >= r[0] && addr < r[1] {
			return true
		}
	}
	return false
}

// bytes estimates the index's memory.
func (idx *lineIndex) bytes() int64 {
	n := int64(cap(idx.seqs))*int64(unsafe.Sizeof(lineSeq{})) + int64(cap(idx.rows))*int64(unsafe.Sizeof(lineRow{})) +
		int64(cap(idx.tops))*int64(unsafe.Sizeof(scopeSpan{})) + int64(cap(idx.nodes))*int64(unsafe.Sizeof(scopeNode{})) +
		int64(cap(idx.spans))*16
	for _, f := range idx.files {
		n += int64(len(f)) + 16
	}
	for _, nd := range idx.nodes {
		n += int64(len(nd.name))
	}
	return n
}

// readLines builds the index. A target without DWARF, or whose DWARF has
// no line table, gets an index with none set.
func (a *Analysis) readLines(ctx context.Context) (idx *lineIndex, err error) {
	defer recoverInto(a.img.format(), "source lines", &err)
	d, infoSize := a.dwarfData()
	if d == nil {
		return &lineIndex{none: noLineTable}, nil
	}
	sec, err := a.lineSection()
	if err != nil {
		return &lineIndex{none: err.Error()}, nil
	}
	if len(sec) == 0 {
		return &lineIndex{none: noLineTable}, nil
	}
	idx, err = buildLines(ctx, d, infoSize, sec)
	if err != nil {
		return nil, err
	}
	if err := a.reserveHeld(ctx, "source lines", idx.bytes()); err != nil {
		return nil, err
	}
	return idx, nil
}

// lineSection is the bytes of .debug_line, decompressed: the headers are
// checked against them before debug/dwarf reads them.
func (a *Analysis) lineSection() ([]byte, error) {
	switch im := a.img.(type) {
	case *elfImage:
		if s := im.f.Section(".debug_line"); s != nil {
			return s.Data()
		}
		if im.f.Section(".zdebug_line") != nil {
			return nil, errors.New("the line table is in a .zdebug_line section, which the engine does not read")
		}
	case *peImage:
		if s := im.f.Section(".debug_line"); s != nil {
			return s.Data()
		}
	case *machoImage, *fatImage:
		if s := machoOf(a.img).f.Section("__debug_line"); s != nil {
			return s.Data()
		}
	}
	return nil, nil
}

// lineBuilder accumulates the index while the debug entries are read.
type lineBuilder struct {
	idx      *lineIndex
	fileIDs  map[string]int32
	tables   map[int64][]int32 // a line table's files (in files) by its offset, read once
	rowLimit int
}

func (b *lineBuilder) intern(name string) int32 {
	if id, ok := b.fileIDs[name]; ok {
		return id
	}
	id := int32(len(b.idx.files))
	b.idx.files = append(b.idx.files, name)
	b.fileIDs[name] = id
	return id
}

// buildLines reads every compilation unit's line table and scope tree.
func buildLines(ctx context.Context, d *dwarf.Data, infoSize uint64, sec []byte) (*lineIndex, error) {
	b := &lineBuilder{idx: &lineIndex{}, fileIDs: map[string]int32{}, tables: map[int64][]int32{}, rowLimit: len(sec)}
	r := d.Reader()
	var (
		last      dwarf.Offset
		files     []int32 // the current unit's file table
		stack     []int32 // per open entry with children: the nearest enclosing node, or -1
		lastChild = map[int32]int32{}
	)
	for i := uint64(0); ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ent, err := r.Next()
		if err != nil || ent == nil || i > infoSize {
			break // what was read is kept
		}
		if ent.Tag == 0 {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if ent.Offset <= last && i > 0 {
			break
		}
		last = ent.Offset
		parent := int32(-1)
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		self := parent
		switch ent.Tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit:
			stack, parent, self = stack[:0], -1, -1
			files = b.unit(d, ent, sec)
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			if ent.Tag == dwarf.TagSubprogram {
				parent = -1 // a nested function is a procedure of its own
			}
			if n := b.node(d, ent, parent, files); n >= 0 {
				self = n
				if parent >= 0 {
					if prev, ok := lastChild[parent]; ok {
						b.idx.nodes[prev].sibling = n
					} else {
						b.idx.nodes[parent].firstChild = n
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
	idx := b.idx
	if len(idx.seqs) == 0 {
		idx.none = noLineTable
		return idx, nil
	}
	slices.SortStableFunc(idx.seqs, func(x, y lineSeq) int { return cmp.Compare(x.start, y.start) })
	slices.SortStableFunc(idx.tops, func(x, y scopeSpan) int { return cmp.Compare(x.lo, y.lo) })
	return idx, nil
}

// unit reads the line table of a compilation unit (once per table) and
// returns its file table.
func (b *lineBuilder) unit(d *dwarf.Data, cu *dwarf.Entry, sec []byte) []int32 {
	off, ok := cu.Val(dwarf.AttrStmtList).(int64)
	if !ok {
		return nil
	}
	if files, seen := b.tables[off]; seen {
		return files
	}
	b.tables[off] = nil
	if off < 0 || off >= int64(len(sec)) || checkLineHeader(sec[off:]) != nil {
		return nil
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return nil
	}
	var e dwarf.LineEntry
	type pending struct {
		row  lineRow
		file *dwarf.LineFile
	}
	var seqRows []pending
	byFile := map[*dwarf.LineFile]int32{}
	flush := func(end uint64) {
		if len(seqRows) == 0 {
			return
		}
		first := len(b.idx.rows)
		for _, p := range seqRows {
			p.row.file = -1
			if p.file != nil {
				id, ok := byFile[p.file]
				if !ok {
					id = b.intern(p.file.Name)
					byFile[p.file] = id
				}
				p.row.file = id
			}
			b.idx.rows = append(b.idx.rows, p.row)
		}
		rows := b.idx.rows[first:]
		slices.SortStableFunc(rows, func(x, y lineRow) int { return cmp.Compare(x.addr, y.addr) })
		if end > rows[0].addr {
			b.idx.seqs = append(b.idx.seqs, lineSeq{start: rows[0].addr, end: end, first: int32(first), n: int32(len(rows))})
		}
		seqRows = seqRows[:0]
	}
	for len(b.idx.rows)+len(seqRows) < b.rowLimit {
		if err := lr.Next(&e); err != nil {
			break // io.EOF, or a corrupt program: the rows read are kept
		}
		if e.EndSequence {
			flush(e.Address)
			continue
		}
		seqRows = append(seqRows, pending{lineRow{addr: e.Address, line: clampInt32(e.Line), col: clampInt32(e.Column)}, e.File})
	}
	files := lr.Files()
	out := make([]int32, len(files))
	for i, f := range files {
		out[i] = -1
		if f != nil {
			out[i] = b.intern(f.Name)
		}
	}
	b.tables[off] = out
	return out
}

// node adds a subprogram or inlined subroutine with code, returning its
// index, or -1 when it has no ranges.
func (b *lineBuilder) node(d *dwarf.Data, ent *dwarf.Entry, parent int32, files []int32) int32 {
	ranges, err := d.Ranges(ent)
	if err != nil {
		return -1
	}
	idx := b.idx
	first := len(idx.spans)
	for _, r := range ranges {
		if r[1] > r[0] {
			idx.spans = append(idx.spans, r)
		}
	}
	if len(idx.spans) == first {
		return -1
	}
	name, _ := dwarfVal(d, ent, dwarf.AttrLinkageName).(string)
	if name == "" {
		name, _ = dwarfVal(d, ent, dwarf.AttrName).(string)
	}
	n := scopeNode{name: name, parent: parent, callFile: -1, spanFirst: int32(first), spanN: int32(len(idx.spans) - first),
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
	id := int32(len(idx.nodes))
	idx.nodes = append(idx.nodes, n)
	if parent < 0 {
		for _, r := range idx.spans[first:] {
			idx.tops = append(idx.tops, scopeSpan{lo: r[0], hi: r[1], node: id})
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
