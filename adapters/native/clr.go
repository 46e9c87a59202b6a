package native

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf16"

	"rea/ports"
)

// A .NET assembly is a PE image whose code is CIL (ECMA-335), described by
// metadata that the CLR header (data directory 14) locates: a root with
// named streams, the tables stream (#~, or #- uncompressed) and the heaps
// it indexes (#Strings, #US, #Blob, #GUID). clrMeta reads them from the
// file's bytes, every offset bounds-checked: a malformed assembly is a
// FormatError, never a panic.

// clrDir is the CLR header's data directory.
const clrDir = 14

// maxCLRMetadata bounds the metadata read (the largest framework
// assemblies have a few MB).
const maxCLRMetadata = 256 << 20

// CLR header flags (ECMA-335 II.25.3.3.1).
const (
	corILOnly          = 0x1
	corNativeEntry     = 0x10
	clrTokenUserString = 0x70
)

// The metadata tables (ECMA-335 II.22), by number.
const (
	tModule = iota
	tTypeRef
	tTypeDef
	tFieldPtr
	tField
	tMethodPtr
	tMethodDef
	tParamPtr
	tParam
	tInterfaceImpl
	tMemberRef
	tConstant
	tCustomAttribute
	tFieldMarshal
	tDeclSecurity
	tClassLayout
	tFieldLayout
	tStandAloneSig
	tEventMap
	tEventPtr
	tEvent
	tPropertyMap
	tPropertyPtr
	tProperty
	tMethodSemantics
	tMethodImpl
	tModuleRef
	tTypeSpec
	tImplMap
	tFieldRVA
	tEncLog
	tEncMap
	tAssembly
	tAssemblyProcessor
	tAssemblyOS
	tAssemblyRef
	tAssemblyRefProcessor
	tAssemblyRefOS
	tFile
	tExportedType
	tManifestResource
	tNestedClass
	tGenericParam
	tMethodSpec
	tGenericParamConstraint
	tCount
)

// Column kinds: fixed widths are 1, 2 and 4; the others are indexes whose
// width (2 or 4) depends on the heap sizes and row counts.
const (
	cU8 = iota + 1
	cU16
	cU32
	cStr
	cGUID
	cBlob
	cTable // a simple index into one table (col.ref)
	cCoded // a coded index over several tables (col.ref indexes codedSets)
)

type clrCol struct{ kind, ref uint8 }

// Coded index sets (II.24.2.6), in tag order; -1 marks an unused tag.
const (
	ciTypeDefOrRef = iota
	ciHasConstant
	ciHasCustomAttribute
	ciHasFieldMarshal
	ciHasDeclSecurity
	ciMemberRefParent
	ciHasSemantics
	ciMethodDefOrRef
	ciMemberForwarded
	ciImplementation
	ciCustomAttributeType
	ciResolutionScope
	ciTypeOrMethodDef
)

var codedSets = [...][]int{
	ciTypeDefOrRef:        {tTypeDef, tTypeRef, tTypeSpec},
	ciHasConstant:         {tField, tParam, tProperty},
	ciHasCustomAttribute:  {tMethodDef, tField, tTypeRef, tTypeDef, tParam, tInterfaceImpl, tMemberRef, tModule, tDeclSecurity, tProperty, tEvent, tStandAloneSig, tModuleRef, tTypeSpec, tAssembly, tAssemblyRef, tFile, tExportedType, tManifestResource, tGenericParam, tGenericParamConstraint, tMethodSpec},
	ciHasFieldMarshal:     {tField, tParam},
	ciHasDeclSecurity:     {tTypeDef, tMethodDef, tAssembly},
	ciMemberRefParent:     {tTypeDef, tTypeRef, tModuleRef, tMethodDef, tTypeSpec},
	ciHasSemantics:        {tEvent, tProperty},
	ciMethodDefOrRef:      {tMethodDef, tMemberRef},
	ciMemberForwarded:     {tField, tMethodDef},
	ciImplementation:      {tFile, tAssemblyRef, tExportedType},
	ciCustomAttributeType: {-1, -1, tMethodDef, tMemberRef, -1},
	ciResolutionScope:     {tModule, tModuleRef, tAssemblyRef, tTypeRef},
	ciTypeOrMethodDef:     {tTypeDef, tMethodDef},
}

func k8() clrCol            { return clrCol{kind: cU8} }
func k16() clrCol           { return clrCol{kind: cU16} }
func k32() clrCol           { return clrCol{kind: cU32} }
func kStr() clrCol          { return clrCol{kind: cStr} }
func kGUID() clrCol         { return clrCol{kind: cGUID} }
func kBlob() clrCol         { return clrCol{kind: cBlob} }
func kIdx(t int) clrCol     { return clrCol{kind: cTable, ref: uint8(t)} }
func kCoded(set int) clrCol { return clrCol{kind: cCoded, ref: uint8(set)} }

// clrSchema is each table's columns (II.22).
var clrSchema = [tCount][]clrCol{
	tModule:                 {k16(), kStr(), kGUID(), kGUID(), kGUID()},
	tTypeRef:                {kCoded(ciResolutionScope), kStr(), kStr()},
	tTypeDef:                {k32(), kStr(), kStr(), kCoded(ciTypeDefOrRef), kIdx(tField), kIdx(tMethodDef)},
	tFieldPtr:               {kIdx(tField)},
	tField:                  {k16(), kStr(), kBlob()},
	tMethodPtr:              {kIdx(tMethodDef)},
	tMethodDef:              {k32(), k16(), k16(), kStr(), kBlob(), kIdx(tParam)},
	tParamPtr:               {kIdx(tParam)},
	tParam:                  {k16(), k16(), kStr()},
	tInterfaceImpl:          {kIdx(tTypeDef), kCoded(ciTypeDefOrRef)},
	tMemberRef:              {kCoded(ciMemberRefParent), kStr(), kBlob()},
	tConstant:               {k8(), k8(), kCoded(ciHasConstant), kBlob()},
	tCustomAttribute:        {kCoded(ciHasCustomAttribute), kCoded(ciCustomAttributeType), kBlob()},
	tFieldMarshal:           {kCoded(ciHasFieldMarshal), kBlob()},
	tDeclSecurity:           {k16(), kCoded(ciHasDeclSecurity), kBlob()},
	tClassLayout:            {k16(), k32(), kIdx(tTypeDef)},
	tFieldLayout:            {k32(), kIdx(tField)},
	tStandAloneSig:          {kBlob()},
	tEventMap:               {kIdx(tTypeDef), kIdx(tEvent)},
	tEventPtr:               {kIdx(tEvent)},
	tEvent:                  {k16(), kStr(), kCoded(ciTypeDefOrRef)},
	tPropertyMap:            {kIdx(tTypeDef), kIdx(tProperty)},
	tPropertyPtr:            {kIdx(tProperty)},
	tProperty:               {k16(), kStr(), kBlob()},
	tMethodSemantics:        {k16(), kIdx(tMethodDef), kCoded(ciHasSemantics)},
	tMethodImpl:             {kIdx(tTypeDef), kCoded(ciMethodDefOrRef), kCoded(ciMethodDefOrRef)},
	tModuleRef:              {kStr()},
	tTypeSpec:               {kBlob()},
	tImplMap:                {k16(), kCoded(ciMemberForwarded), kStr(), kIdx(tModuleRef)},
	tFieldRVA:               {k32(), kIdx(tField)},
	tEncLog:                 {k32(), k32()},
	tEncMap:                 {k32()},
	tAssembly:               {k32(), k16(), k16(), k16(), k16(), k32(), kBlob(), kStr(), kStr()},
	tAssemblyProcessor:      {k32()},
	tAssemblyOS:             {k32(), k32(), k32()},
	tAssemblyRef:            {k16(), k16(), k16(), k16(), k32(), kBlob(), kStr(), kStr(), kBlob()},
	tAssemblyRefProcessor:   {k32(), kIdx(tAssemblyRef)},
	tAssemblyRefOS:          {k32(), k32(), k32(), kIdx(tAssemblyRef)},
	tFile:                   {k32(), kStr(), kBlob()},
	tExportedType:           {k32(), k32(), kStr(), kStr(), kCoded(ciImplementation)},
	tManifestResource:       {k32(), k32(), kStr(), kCoded(ciImplementation)},
	tNestedClass:            {kIdx(tTypeDef), kIdx(tTypeDef)},
	tGenericParam:           {k16(), k16(), kCoded(ciTypeOrMethodDef), kStr()},
	tMethodSpec:             {kCoded(ciMethodDefOrRef), kBlob()},
	tGenericParamConstraint: {kIdx(tGenericParam), kCoded(ciTypeDefOrRef)},
}

// clrTable is one table's rows and its columns' offsets within a row.
type clrTable struct {
	rows    uint32
	rowSize int
	off     []int  // each column's offset in a row
	width   []int  // each column's width
	data    []byte // rows*rowSize bytes
	at      uint32 // offset of the first row from the metadata root
}

// clrMeta is an assembly's metadata.
type clrMeta struct {
	version        string // the runtime the metadata targets ("v4.0.30319")
	flags          uint32 // the CLR header's flags
	entryToken     uint32 // the managed entry point's MethodDef token, or 0
	root           uint32 // the metadata root's RVA
	strs, blob, us []byte
	usAt           uint32 // the #US heap's offset from the root
	tables         [tCount]clrTable
	nested         map[uint32]uint32 // a nested TypeDef row's enclosing row
}

func clrErr(msg string, args ...any) error {
	return &ports.FormatError{Format: "pe", Offset: -1, Msg: "CLR metadata: " + fmt.Sprintf(msg, args...)}
}

// readCLR reads the metadata the CLR header at dir locates; nil, nil when
// the image has no CLR header.
func (p *peImage) readCLR() (*clrMeta, error) {
	d := p.dir(clrDir)
	if d.VirtualAddress == 0 || d.Size < 72 {
		return nil, nil
	}
	h, err := p.readRVA(d.VirtualAddress, 72)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	mdRVA, mdSize := le.Uint32(h[8:]), le.Uint32(h[12:])
	m := &clrMeta{flags: le.Uint32(h[16:]), root: mdRVA}
	if m.flags&corNativeEntry == 0 {
		m.entryToken = le.Uint32(h[20:])
	}
	if mdSize < 20 || mdSize > maxCLRMetadata {
		return nil, clrErr("metadata size %d", mdSize)
	}
	md, err := p.readRVA(mdRVA, uint64(mdSize))
	if err != nil {
		return nil, err
	}
	if err := m.parse(md); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *clrMeta) parse(md []byte) error {
	le := binary.LittleEndian
	if le.Uint32(md) != 0x424a5342 { // "BSJB"
		return clrErr("no metadata signature")
	}
	vlen := le.Uint32(md[12:])
	if vlen > 255 || 16+int(vlen)+4 > len(md) {
		return clrErr("version length %d", vlen)
	}
	m.version = strings.TrimRight(string(md[16:16+vlen]), "\x00")
	pos := 16 + int(vlen)
	nstreams := int(le.Uint16(md[pos+2:]))
	pos += 4
	var tables []byte
	var tablesAt uint32
	for i := 0; i < nstreams; i++ {
		if pos+8 > len(md) {
			return clrErr("stream header %d beyond the metadata", i)
		}
		off, size := le.Uint32(md[pos:]), le.Uint32(md[pos+4:])
		pos += 8
		end := pos
		for end < len(md) && end < pos+32 && md[end] != 0 {
			end++
		}
		if end >= len(md) || md[end] != 0 {
			return clrErr("stream %d's name is not terminated", i)
		}
		name := string(md[pos:end])
		pos = (end + 4) &^ 3
		if uint64(off)+uint64(size) > uint64(len(md)) {
			return clrErr("stream %s beyond the metadata", name)
		}
		b := md[off : off+size : off+size]
		switch name {
		case "#~", "#-":
			tables, tablesAt = b, off
		case "#Strings":
			m.strs = b
		case "#US":
			m.us, m.usAt = b, off
		case "#Blob":
			m.blob = b
		}
	}
	if tables == nil {
		return clrErr("no tables stream")
	}
	return m.parseTables(tables, tablesAt)
}

// parseTables reads the tables stream's header (II.24.2.6) and lays out
// every table present.
func (m *clrMeta) parseTables(b []byte, at uint32) error {
	le := binary.LittleEndian
	if len(b) < 24 {
		return clrErr("tables stream of %d bytes", len(b))
	}
	heaps := b[6]
	valid := le.Uint64(b[8:])
	pos := 24
	for t := 0; t < 64; t++ {
		if valid&(1<<t) == 0 {
			continue
		}
		if t >= tCount {
			return clrErr("table 0x%x, which assemblies do not have", t)
		}
		if pos+4 > len(b) {
			return clrErr("row counts beyond the tables stream")
		}
		m.tables[t].rows = le.Uint32(b[pos:])
		if m.tables[t].rows > 0xffffff { // a token has 24 bits for the row
			return clrErr("table 0x%x has %d rows", t, m.tables[t].rows)
		}
		pos += 4
	}
	if heaps&0x40 != 0 { // an extra word after the counts (#- streams)
		pos += 4
	}
	width := func(c clrCol) int {
		switch c.kind {
		case cU8:
			return 1
		case cU16:
			return 2
		case cU32:
			return 4
		case cStr:
			return 2 + 2*int(heaps&1)
		case cGUID:
			return 2 + int(heaps&2)
		case cBlob:
			return 2 + int(heaps&4)/2
		case cTable:
			if m.tables[c.ref].rows > 0xffff {
				return 4
			}
			return 2
		}
		set := codedSets[c.ref]
		tag := bits.Len(uint(len(set) - 1))
		for _, t := range set {
			if t >= 0 && m.tables[t].rows >= 1<<(16-tag) {
				return 4
			}
		}
		return 2
	}
	for t := range tCount {
		tb := &m.tables[t]
		if tb.rows == 0 {
			continue
		}
		for _, c := range clrSchema[t] {
			w := width(c)
			tb.off = append(tb.off, tb.rowSize)
			tb.width = append(tb.width, w)
			tb.rowSize += w
		}
		n := uint64(tb.rows) * uint64(tb.rowSize)
		if n > uint64(len(b)-pos) {
			return clrErr("table 0x%x's %d rows beyond the tables stream", t, tb.rows)
		}
		tb.data, tb.at = b[pos:pos+int(n):pos+int(n)], at+uint32(pos)
		pos += int(n)
	}
	m.nested = m.nestedClasses()
	return nil
}

// col reads column c of row r (1-based) of table t; 0 when out of range.
func (m *clrMeta) col(t int, r uint32, c int) uint32 {
	tb := &m.tables[t]
	if r == 0 || r > tb.rows || c >= len(tb.off) {
		return 0
	}
	b := tb.data[int(r-1)*tb.rowSize+tb.off[c]:]
	switch tb.width[c] {
	case 1:
		return uint32(b[0])
	case 2:
		return uint32(binary.LittleEndian.Uint16(b))
	}
	return binary.LittleEndian.Uint32(b)
}

// rowRVA is the RVA of row r of table t, where a token's reference points.
func (m *clrMeta) rowRVA(t int, r uint32) uint32 {
	tb := &m.tables[t]
	return m.root + tb.at + (r-1)*uint32(tb.rowSize)
}

// str reads the #Strings heap at i.
func (m *clrMeta) str(i uint32) string {
	if uint64(i) >= uint64(len(m.strs)) {
		return ""
	}
	b := m.strs[i:]
	for n, c := range b {
		if c == 0 {
			return string(b[:n])
		}
		if n == 1024 {
			return string(b[:n])
		}
	}
	return string(b)
}

// compressed reads an ECMA-335 compressed unsigned integer (II.23.2) from
// b, returning it and its length, or 0, 0 when b is too short.
func compressed(b []byte) (uint32, int) {
	switch {
	case len(b) >= 1 && b[0]&0x80 == 0:
		return uint32(b[0]), 1
	case len(b) >= 2 && b[0]&0xc0 == 0x80:
		return uint32(b[0]&0x3f)<<8 | uint32(b[1]), 2
	case len(b) >= 4 && b[0]&0xe0 == 0xc0:
		return uint32(b[0]&0x1f)<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), 4
	}
	return 0, 0
}

// usEntry locates the #US heap entry at i: the offset of its characters
// from the heap's start and their length in bytes (without the trailing
// byte that says whether any character needs more than a byte, II.24.2.4),
// and the offset of the next entry.
func (m *clrMeta) usEntry(i uint32) (chars, n, next uint32, ok bool) {
	if uint64(i) >= uint64(len(m.us)) {
		return 0, 0, 0, false
	}
	size, k := compressed(m.us[i:])
	if k == 0 || uint64(i)+uint64(k)+uint64(size) > uint64(len(m.us)) {
		return 0, 0, 0, false
	}
	return i + uint32(k), size &^ 1, i + uint32(k) + size, true
}

// userString reads the #US heap entry at i: its text and the offset of its
// characters from the heap's start.
func (m *clrMeta) userString(i uint32) (string, uint32, bool) {
	chars, n, _, ok := m.usEntry(i)
	if !ok {
		return "", 0, false
	}
	u := make([]uint16, n/2)
	for j := range u {
		u[j] = binary.LittleEndian.Uint16(m.us[int(chars)+2*j:])
	}
	return string(utf16.Decode(u)), chars, true
}

// userStrings visits the #US heap's non-empty entries: where each one's
// characters start and their length in bytes.
func (m *clrMeta) userStrings(visit func(chars, n uint32) bool) {
	for i := uint32(1); i < uint32(len(m.us)); {
		chars, n, next, ok := m.usEntry(i)
		if !ok { // a byte that starts no entry: the next one may
			i++
			continue
		}
		if n > 0 && !visit(chars, n) {
			return
		}
		i = next
	}
}
