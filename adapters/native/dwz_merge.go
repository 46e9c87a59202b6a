package native

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// mergeSupplementary joins a file's DWARF sections (main) and those of its
// supplementary file (sup) into one set that debug/dwarf reads as a single
// file: .debug_info, .debug_abbrev, .debug_str and .debug_line_str are the
// main file's followed by the supplementary file's, so every offset into
// the main file's stays what it was. In the copies (the inputs are not
// written):
//
//   - a main entry's reference into the supplementary file
//     (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4/8) becomes DW_FORM_ref_addr to
//     the joined offset (or DW_FORM_ref4/8 from its unit where ref_addr has
//     another size), and a string there (DW_FORM_GNU_strp_alt,
//     DW_FORM_strp_sup) becomes DW_FORM_strp;
//   - a supplementary entry's DW_FORM_ref_addr, DW_FORM_strp and
//     DW_FORM_line_strp move by the main section's size, and its units'
//     abbreviation offsets by the main .debug_abbrev's.
//
// A form is rewritten where it is declared (the abbreviation, or the entry
// of a DW_FORM_indirect) with a ULEB128 of the same length, so no offset
// moves. Everything is bounds-checked; a file that cannot be joined
// (malformed, a form not known here, one abbreviation that would need two
// rewrites, an offset that does not fit) is an error and the caller keeps
// the main file's DWARF alone. It returns the joined sections (the others
// are main's) and where the supplementary units start.
func mergeSupplementary(bo binary.ByteOrder, main, sup map[string][]byte) (map[string][]byte, uint64, error) {
	m := &merger{bo: bo, main: main, sup: sup, decided: map[int]uint64{}, tables: map[uint64]*abbrevTable{}}
	out := make(map[string][]byte, len(main)+2)
	for k, v := range main {
		out[k] = v
	}
	for _, name := range []string{"info", "abbrev", "str", "line_str"} {
		if len(sup[name]) == 0 && name != "info" && name != "abbrev" { // those two are written
			continue
		}
		b := make([]byte, len(main[name])+len(sup[name]))
		copy(b, main[name])
		copy(b[len(main[name]):], sup[name])
		out[name] = b
	}
	m.info, m.abbrev = out["info"], out["abbrev"]
	m.maxSteps = 16*len(m.info) + 1<<16
	m.mainInfo, m.mainStr, m.mainLineStr, m.mainAbbrev = uint64(len(main["info"])), uint64(len(main["str"])), uint64(len(main["line_str"])), uint64(len(main["abbrev"]))
	m.supInfo, m.supStr, m.supLineStr = uint64(len(sup["info"])), uint64(len(sup["str"])), uint64(len(sup["line_str"]))
	if err := m.walk(false); err != nil {
		return nil, 0, err
	}
	if err := m.walk(true); err != nil {
		return nil, 0, err
	}
	return out, uint64(len(main["info"])), nil
}

// DWARF forms the join reads (debug/dwarf keeps its own unexported).
const (
	fAddr          = 0x01
	fBlock2        = 0x03
	fBlock4        = 0x04
	fData2         = 0x05
	fData4         = 0x06
	fData8         = 0x07
	fString        = 0x08
	fBlock         = 0x09
	fBlock1        = 0x0a
	fData1         = 0x0b
	fFlag          = 0x0c
	fSdata         = 0x0d
	fStrp          = 0x0e
	fUdata         = 0x0f
	fRefAddr       = 0x10
	fRef1          = 0x11
	fRef2          = 0x12
	fRef4          = 0x13
	fRef8          = 0x14
	fRefUdata      = 0x15
	fIndirect      = 0x16
	fSecOffset     = 0x17
	fExprloc       = 0x18
	fFlagPresent   = 0x19
	fStrx          = 0x1a
	fAddrx         = 0x1b
	fRefSup4       = 0x1c
	fStrpSup       = 0x1d
	fData16        = 0x1e
	fLineStrp      = 0x1f
	fRefSig8       = 0x20
	fImplicitConst = 0x21
	fLoclistx      = 0x22
	fRnglistx      = 0x23
	fRefSup8       = 0x24
	fStrx1         = 0x25
	fStrx2         = 0x26
	fStrx3         = 0x27
	fStrx4         = 0x28
	fAddrx1        = 0x29
	fAddrx2        = 0x2a
	fAddrx3        = 0x2b
	fAddrx4        = 0x2c
	fGNUAddrIndex  = 0x1f01
	fGNUStrIndex   = 0x1f02
	fGNURefAlt     = 0x1f20
	fGNUStrpAlt    = 0x1f21
)

// maxAbbrevParse bounds the abbreviation bytes parsed over a join, as a
// multiple of the section: units may start their tables anywhere in it.
const maxAbbrevParse = 8

type merger struct {
	bo           binary.ByteOrder
	main, sup    map[string][]byte // the inputs, read only
	info, abbrev []byte            // the joined copies, written
	decided      map[int]uint64    // joined abbreviation offset of a form -> its new form
	tables       map[uint64]*abbrevTable
	parsed       int
	// steps counts the attributes walked, bounded by maxSteps: attributes
	// of no bytes (flag_present, implicit_const) make a hostile entry of
	// one byte cost as many as its abbreviation declares.
	steps, maxSteps int
	// the sections' sizes
	mainInfo, mainStr, mainLineStr, mainAbbrev uint64
	supInfo, supStr, supLineStr                uint64
}

// abbrevTable is one table's declarations by code: codes are numbered
// from 1 in practice, so below maxDenseCode they index a slice.
type abbrevTable struct {
	dense  []abbrevDecl // by code
	has    []bool
	specs  []attrSpec // every declaration's, in order
	sparse map[uint64]abbrevDecl
}

const maxDenseCode = 1 << 16

func (t *abbrevTable) get(code uint64) (abbrevDecl, bool) {
	if code < uint64(len(t.dense)) {
		return t.dense[code], t.has[code]
	}
	d, ok := t.sparse[code]
	return d, ok
}

func (t *abbrevTable) set(code uint64, d abbrevDecl) {
	if code >= maxDenseCode {
		if t.sparse == nil {
			t.sparse = map[uint64]abbrevDecl{}
		}
		t.sparse[code] = d
		return
	}
	for uint64(len(t.dense)) <= code {
		t.dense, t.has = append(t.dense, abbrevDecl{}), append(t.has, false)
	}
	t.dense[code], t.has[code] = d, true
}

type abbrevDecl struct {
	first, n int // its attributes: the table's specs[first:first+n]
}

type attrSpec struct {
	form  uint64
	at, n int // the form's ULEB128 in the joined .debug_abbrev
}

var errJoin = errors.New("malformed")

// cursor reads a byte slice; bad is set by a read past its end.
type cursor struct {
	b   []byte
	off int
	bad bool
}

func (c *cursor) need(n uint64) bool {
	if c.bad || n > uint64(len(c.b)-c.off) {
		c.bad = true
		return false
	}
	return true
}

// uleb reads a ULEB128 as debug/dwarf does: any length, bits past the
// 64th dropped (binary.Uvarint refuses a tenth byte above 1, which a
// SLEB128 of -2^63, a DW_AT_const_value, has).
func (c *cursor) uleb() (uint64, int) {
	var v uint64
	var shift uint
	for i := c.off; !c.bad && i < len(c.b); i++ {
		b := c.b[i]
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		shift += 7
		if b < 0x80 {
			n := i + 1 - c.off
			c.off = i + 1
			return v, n
		}
	}
	c.bad = true
	return 0, 0
}

// sleb skips a SLEB128 (its length is a ULEB128's).
func (c *cursor) sleb() { c.uleb() }

func (c *cursor) skip(n uint64) {
	if c.need(n) {
		c.off += int(n)
	}
}

// table parses the abbreviation table at off of the joined .debug_abbrev
// (read from the inputs: an earlier rewrite never changes what a later
// unit reads).
func (m *merger) table(off uint64) (*abbrevTable, error) {
	if t, ok := m.tables[off]; ok {
		return t, nil
	}
	src, base := m.main["abbrev"], uint64(0)
	if off >= uint64(len(src)) {
		base = uint64(len(src))
		src = m.sup["abbrev"]
	}
	if off-base >= uint64(len(src)) {
		return nil, fmt.Errorf("abbreviation offset %#x: %w", off, errJoin)
	}
	c := &cursor{b: src, off: int(off - base)}
	start := c.off
	t := &abbrevTable{}
	for !c.bad {
		code, _ := c.uleb()
		if code == 0 {
			break
		}
		c.uleb()  // tag
		c.skip(1) // children
		d := abbrevDecl{first: len(t.specs)}
		for !c.bad {
			attr, _ := c.uleb()
			at := c.off
			form, n := c.uleb()
			if attr == 0 && form == 0 {
				break
			}
			if form == fImplicitConst {
				c.sleb()
			}
			t.specs = append(t.specs, attrSpec{form: form, at: int(base) + at, n: n})
			d.n++
		}
		t.set(code, d) // the last of one code wins, as in debug/dwarf
	}
	if c.bad {
		return nil, fmt.Errorf("abbreviation table at %#x: %w", off, errJoin)
	}
	m.parsed += c.off - start
	if m.parsed > maxAbbrevParse*(len(m.abbrev)+1) {
		return nil, fmt.Errorf("abbreviation tables re-read too often: %w", errJoin)
	}
	m.tables[off] = t
	return t, nil
}

// unit is one unit header's facts.
type unitHead struct {
	start    uint64 // offset of the header in the joined .debug_info
	end      uint64
	entries  uint64 // offset of the first entry
	version  int
	offSize  int
	addrSize int
}

// walk rewrites the main file's units (sup false) or the supplementary
// file's.
func (m *merger) walk(sup bool) error {
	src, base := m.main["info"], uint64(0)
	if sup {
		src, base = m.sup["info"], m.mainInfo
	}
	c := &cursor{b: src}
	for c.off < len(src) {
		u, abOff, abAt, err := m.header(c, base)
		if err != nil {
			return err
		}
		if sup {
			abOff += m.mainAbbrev
			if err := m.put(m.info, int(abAt), u.offSize, abOff); err != nil {
				return err
			}
		} else if abOff >= m.mainAbbrev {
			return fmt.Errorf("unit at %#x: abbreviation offset %#x past the section: %w", u.start, abOff, errJoin)
		}
		t, err := m.table(abOff)
		if err != nil {
			return err
		}
		d := &cursor{b: src[:u.end-base], off: int(u.entries - base)}
		for d.off < len(d.b) && !d.bad {
			code, _ := d.uleb()
			if code == 0 {
				continue
			}
			decl, ok := t.get(code)
			if !ok {
				return fmt.Errorf("entry at %#x: abbreviation %d not declared: %w", base+uint64(d.off), code, errJoin)
			}
			if m.steps += decl.n; m.steps > m.maxSteps {
				return fmt.Errorf("more attributes than the entries' bytes can hold: %w", errJoin)
			}
			for _, s := range t.specs[decl.first : decl.first+decl.n] {
				form, at, n := s.form, s.at, s.n
				inInfo := false
				if form == fIndirect {
					at = int(base) + d.off
					form, n = d.uleb()
					inInfo = true
					if form == fIndirect || form == fImplicitConst {
						return fmt.Errorf("entry at %#x: indirect form %#x: %w", base+uint64(d.off), form, errJoin)
					}
				}
				if err := m.value(d, base, u, form, at, n, inInfo, sup); err != nil {
					return err
				}
			}
		}
		if d.bad {
			return fmt.Errorf("unit at %#x: entries past its end: %w", u.start, errJoin)
		}
		c.off = int(u.end - base)
	}
	return nil
}

// header reads a unit header at c: the unit, its abbreviation offset and
// where that offset is written in the joined .debug_info.
func (m *merger) header(c *cursor, base uint64) (u unitHead, abOff, abAt uint64, err error) {
	bad := func(why string) (unitHead, uint64, uint64, error) {
		return u, 0, 0, fmt.Errorf("unit at %#x: %s: %w", base+uint64(c.off), why, errJoin)
	}
	u.start = base + uint64(c.off)
	if !c.need(4) {
		return bad("truncated header")
	}
	length := uint64(m.bo.Uint32(c.b[c.off:]))
	c.off += 4
	u.offSize = 4
	switch {
	case length == 0xffffffff:
		if !c.need(8) {
			return bad("truncated header")
		}
		length = m.bo.Uint64(c.b[c.off:])
		c.off += 8
		u.offSize = 8
	case length >= 0xfffffff0:
		return bad("reserved length")
	}
	if length > uint64(len(c.b)-c.off) || length < 2 {
		return bad("length past the section")
	}
	u.end = base + uint64(c.off) + length
	h := &cursor{b: c.b[:c.off+int(length)], off: c.off}
	if !h.need(2) {
		return bad("truncated header")
	}
	u.version = int(m.bo.Uint16(h.b[h.off:]))
	h.off += 2
	if u.version < 2 || u.version > 5 {
		return bad(fmt.Sprintf("version %d", u.version))
	}
	unitType := byte(1)
	if u.version >= 5 {
		if !h.need(2) {
			return bad("truncated header")
		}
		unitType, u.addrSize = h.b[h.off], int(h.b[h.off+1])
		h.off += 2
		abAt = base + uint64(h.off)
		abOff = m.get(h, u.offSize)
		switch unitType {
		case 2, 6: // type, split type: signature and type offset
			h.skip(8 + uint64(u.offSize))
		case 4, 5: // skeleton, split compile: DWO id
			h.skip(8)
		}
	} else {
		abAt = base + uint64(h.off)
		abOff = m.get(h, u.offSize)
		if h.need(1) {
			u.addrSize = int(h.b[h.off])
			h.off++
		}
	}
	if h.bad {
		return bad("truncated header")
	}
	if u.addrSize < 1 || u.addrSize > 8 {
		return bad(fmt.Sprintf("address size %d", u.addrSize))
	}
	u.entries = base + uint64(h.off)
	return u, abOff, abAt, nil
}

// get reads an n-byte unsigned value (1 to 8 bytes) at c.
func (m *merger) get(c *cursor, n int) uint64 {
	if !c.need(uint64(n)) {
		return 0
	}
	v := uint64(0)
	b := c.b[c.off : c.off+n]
	for i := range n {
		if m.bo == binary.BigEndian {
			v = v<<8 | uint64(b[i])
		} else {
			v |= uint64(b[i]) << (8 * i)
		}
	}
	c.off += n
	return v
}

// put writes v as n bytes at off of dst, refusing a value that does not fit.
func (m *merger) put(dst []byte, off, n int, v uint64) error {
	if n < 8 && v>>(8*n) != 0 {
		return fmt.Errorf("offset %#x does not fit in %d bytes: %w", v, n, errJoin)
	}
	if off < 0 || n > len(dst)-off {
		return fmt.Errorf("write past the section: %w", errJoin)
	}
	for i := range n {
		shift := 8 * i
		if m.bo == binary.BigEndian {
			shift = 8 * (n - 1 - i)
		}
		dst[off+i] = byte(v >> shift)
	}
	return nil
}

// setForm declares the form at (at, n): in an entry (DW_FORM_indirect) it
// is written there, in an abbreviation once for every entry that uses it.
func (m *merger) setForm(at, n int, inInfo bool, form uint64) error {
	dst := m.abbrev
	if inInfo {
		dst = m.info
	} else if prev, ok := m.decided[at]; ok {
		if prev != form {
			return fmt.Errorf("abbreviation at %#x would need two forms: %w", at, errJoin)
		}
		return nil
	} else {
		m.decided[at] = form
	}
	if n < 1 || at < 0 || n > len(dst)-at || form >= 0x80 {
		return fmt.Errorf("form at %#x: %w", at, errJoin)
	}
	// A padded ULEB128 of the same length: debug/dwarf reads any.
	for i := range n - 1 {
		dst[at+i] = byte(form>>(7*i))&0x7f | 0x80
	}
	dst[at+n-1] = byte(form >> (7 * (n - 1)))
	return nil
}

// shift moves the size-byte value at d (pos in the joined .debug_info) by
// delta, refusing one at or past limit.
func (m *merger) shift(d *cursor, pos, size int, delta, limit uint64) error {
	v := m.get(d, size)
	if d.bad {
		return nil // reported by the walk
	}
	if v >= limit {
		return fmt.Errorf("entry value %#x at %#x points past its section: %w", v, pos, errJoin)
	}
	return m.put(m.info, pos, size, v+delta)
}

// value reads one attribute value of form at d and rewrites what refers
// across the two files.
func (m *merger) value(d *cursor, base uint64, u unitHead, form uint64, at, n int, inInfo, sup bool) error {
	refAddr := u.offSize
	if u.version == 2 {
		refAddr = u.addrSize
	}
	pos := int(base) + d.off
	switch form {
	case fAddr:
		d.skip(uint64(u.addrSize))
	case fData1, fFlag, fRef1, fStrx1, fAddrx1:
		d.skip(1)
	case fData2, fRef2, fStrx2, fAddrx2:
		d.skip(2)
	case fStrx3, fAddrx3:
		d.skip(3)
	case fData4, fRef4, fStrx4, fAddrx4:
		d.skip(4)
	case fData8, fRef8, fRefSig8:
		d.skip(8)
	case fData16:
		d.skip(16)
	case fSdata:
		d.sleb()
	case fUdata, fRefUdata, fAddrx, fLoclistx, fRnglistx, fGNUAddrIndex:
		d.uleb()
	case fStrx, fGNUStrIndex:
		if sup {
			return fmt.Errorf("the supplementary file indexes strings (form %#x): %w", form, errJoin)
		}
		d.uleb()
	case fString:
		for d.off < len(d.b) && d.b[d.off] != 0 {
			d.off++
		}
		d.skip(1)
	case fBlock1:
		d.skip(m.get(d, 1))
	case fBlock2:
		d.skip(m.get(d, 2))
	case fBlock4:
		d.skip(m.get(d, 4))
	case fBlock, fExprloc:
		l, _ := d.uleb()
		d.skip(l)
	case fFlagPresent, fImplicitConst:
	case fSecOffset:
		d.skip(uint64(u.offSize)) // line tables, ranges, location lists: not joined
	case fStrp:
		if sup {
			return m.shift(d, pos, u.offSize, m.mainStr, m.supStr)
		}
		d.skip(uint64(u.offSize))
	case fLineStrp:
		if sup {
			return m.shift(d, pos, u.offSize, m.mainLineStr, m.supLineStr)
		}
		d.skip(uint64(u.offSize))
	case fRefAddr:
		if sup {
			return m.shift(d, pos, refAddr, m.mainInfo, m.supInfo)
		}
		d.skip(uint64(refAddr))
	case fGNURefAlt, fRefSup4, fRefSup8:
		if sup {
			return fmt.Errorf("the supplementary file refers to another (form %#x): %w", form, errJoin)
		}
		size := u.offSize
		switch form {
		case fRefSup4:
			size = 4
		case fRefSup8:
			size = 8
		}
		v := m.get(d, size)
		if d.bad {
			return nil
		}
		if v >= m.supInfo {
			return fmt.Errorf("reference %#x at %#x points past the supplementary file: %w", v, pos, errJoin)
		}
		target := m.mainInfo + v
		newForm := uint64(fRefAddr)
		switch {
		case size == refAddr:
		case size == 4:
			newForm, target = fRef4, target-u.start
		case size == 8:
			newForm, target = fRef8, target-u.start
		default:
			return fmt.Errorf("reference of %d bytes: %w", size, errJoin)
		}
		if err := m.put(m.info, pos, size, target); err != nil {
			return err
		}
		return m.setForm(at, n, inInfo, newForm)
	case fGNUStrpAlt, fStrpSup:
		if sup {
			return fmt.Errorf("the supplementary file refers to another (form %#x): %w", form, errJoin)
		}
		if err := m.shift(d, pos, u.offSize, m.mainStr, m.supStr); err != nil || d.bad {
			return err
		}
		return m.setForm(at, n, inInfo, fStrp)
	default:
		return fmt.Errorf("form %#x: %w", form, errJoin)
	}
	return nil
}
