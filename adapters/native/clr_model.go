package native

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// What rea reads from an assembly's metadata: its methods with their
// bodies, the names of types and members, and where each token refers to
// (clrRef). A token refers to an address in the image: a method with a
// body to its first CIL instruction, a user string to its characters, any
// other row (a member of another assembly, a field, a type) to that row
// in the metadata tables, so that references to it are cross-references
// like any other.

// Token tables (the token's high byte).
const (
	tokMethodDef = 0x06
	tokMemberRef = 0x0a
	tokUS        = 0x70
)

// clrMethod is one MethodDef.
type clrMethod struct {
	row     uint32
	name    string // Namespace.Type::Method
	code    uint32 // RVA of the first instruction
	size    uint32 // bytes of CIL
	pinvoke bool   // implemented by a native library (ImplMap)
	lib     string // the library of a P/Invoke method
	entry   string // the library's export a P/Invoke method calls
	eh      []clrClause
}

// maxCLRMethods bounds the methods (and the fields) named.
const maxCLRMethods = 1 << 20

// typeDefName is row r of TypeDef as Namespace.Outer/Inner.
func (m *clrMeta) typeDefName(r uint32) string {
	var parts []string
	for depth := 0; r != 0 && depth < 16; depth++ {
		name := m.str(m.col(tTypeDef, r, 1))
		if enc, ok := m.nested[r]; ok {
			parts = append(parts, name)
			r = enc
			continue
		}
		if ns := m.str(m.col(tTypeDef, r, 2)); ns != "" {
			name = ns + "." + name
		}
		parts = append(parts, name)
		break
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

// nestedClasses maps a nested TypeDef row to its enclosing one.
func (m *clrMeta) nestedClasses() map[uint32]uint32 {
	out := map[uint32]uint32{}
	for r := uint32(1); r <= min(m.tables[tNestedClass].rows, maxCLRMethods); r++ {
		out[m.col(tNestedClass, r, 0)] = m.col(tNestedClass, r, 1)
	}
	return out
}

// typeRefName is row r of TypeRef as [assembly]Namespace.Type, and the
// assembly (or module) it resolves to.
func (m *clrMeta) typeRefName(r uint32) (string, string) {
	var parts []string
	lib := ""
	for depth := 0; r != 0 && depth < 16; depth++ {
		name := m.str(m.col(tTypeRef, r, 1))
		if ns := m.str(m.col(tTypeRef, r, 2)); ns != "" {
			name = ns + "." + name
		}
		parts = append(parts, name)
		scope := m.col(tTypeRef, r, 0)
		tag, row := scope&3, scope>>2
		switch tag {
		case 2: // AssemblyRef
			lib = m.str(m.col(tAssemblyRef, row, 6))
		case 1: // ModuleRef
			lib = m.str(m.col(tModuleRef, row, 0))
		case 3: // TypeRef: nested
			r = row
			continue
		}
		break
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	name := strings.Join(parts, "/")
	if lib != "" {
		return "[" + lib + "]" + name, lib
	}
	return name, lib
}

// methodOwners gives each MethodDef row its TypeDef row (II.22.37: a
// type's methods run from its MethodList to the next type's).
func (m *clrMeta) methodOwners() []uint32 {
	n := min(m.tables[tMethodDef].rows, maxCLRMethods)
	owner := make([]uint32, n+1)
	types := m.tables[tTypeDef].rows
	for t := uint32(1); t <= types; t++ {
		lo, hi := m.col(tTypeDef, t, 5), n+1
		if t < types {
			hi = m.col(tTypeDef, t+1, 5)
		}
		for r := max(lo, 1); r < hi && r <= n; r++ {
			owner[r] = t
		}
	}
	return owner
}

// methods lists the MethodDefs, reading bodies through read (n bytes at an
// RVA).
func (m *clrMeta) methods(read func(rva uint32, n uint64) ([]byte, error)) []clrMethod {
	n := min(m.tables[tMethodDef].rows, maxCLRMethods)
	owners := m.methodOwners()
	pinv := map[uint32]uint32{} // MethodDef row -> ImplMap row
	for r := uint32(1); r <= min(m.tables[tImplMap].rows, maxCLRMethods); r++ {
		if fwd := m.col(tImplMap, r, 1); fwd&1 == 1 {
			pinv[fwd>>1] = r
		}
	}
	out := make([]clrMethod, 0, n)
	for r := uint32(1); r <= n; r++ {
		meth := clrMethod{row: r, name: m.str(m.col(tMethodDef, r, 3))}
		if t := owners[r]; t != 0 {
			if tn := m.typeDefName(t); tn != "" && tn != "<Module>" {
				meth.name = tn + "::" + meth.name
			}
		}
		if im, ok := pinv[r]; ok {
			meth.pinvoke = true
			meth.entry = m.str(m.col(tImplMap, im, 2))
			meth.lib = m.str(m.col(tModuleRef, m.col(tImplMap, im, 3), 0))
		}
		if rva := m.col(tMethodDef, r, 0); rva != 0 {
			if h, err := read(rva, 1); err == nil {
				switch h[0] & 3 {
				case 2: // tiny header: the size in its upper six bits
					meth.code, meth.size = rva+1, uint32(h[0]>>2)
				case 3: // fat header: its size in words in the flags' top bits
					if f, err := read(rva, 12); err == nil {
						hs := uint32(f[1]>>4) * 4
						if hs >= 12 {
							meth.code, meth.size = rva+hs, binary.LittleEndian.Uint32(f[4:])
							if f[0]&corMoreSects != 0 && meth.code > rva {
								meth.eh = readClauses(read, meth.code, meth.size)
							}
						}
					}
				}
			}
		}
		out = append(out, meth)
	}
	return out
}

// memberRefName is row r of MemberRef as Type::Member, with the library
// it comes from ("" for a member of this assembly).
func (m *clrMeta) memberRefName(r uint32) (string, string) {
	parent := m.col(tMemberRef, r, 0)
	name := m.str(m.col(tMemberRef, r, 1))
	tag, row := parent&7, parent>>3
	var owner, lib string
	switch tag {
	case 0:
		owner = m.typeDefName(row)
	case 1:
		owner, lib = m.typeRefName(row)
	case 2:
		lib = m.str(m.col(tModuleRef, row, 0))
		owner = "[" + lib + "]"
	case 3:
		return m.str(m.col(tMethodDef, row, 3)), ""
	case 4:
		owner, lib = m.typeSpecName(row)
	}
	if owner == "" {
		return name, lib
	}
	return owner + "::" + name, lib
}

// typeSpecName names a TypeSpec by the generic type it instantiates (or
// "typespec" when its signature is another kind).
func (m *clrMeta) typeSpecName(r uint32) (string, string) {
	b := m.blobAt(m.col(tTypeSpec, r, 0))
	if len(b) >= 2 && b[0] == 0x15 && (b[1] == 0x12 || b[1] == 0x11) { // GENERICINST CLASS|VALUETYPE
		if v, k := compressed(b[2:]); k > 0 {
			return m.typeDefOrRef(v)
		}
	}
	return "typespec", ""
}

// typeDefOrRef names a TypeDefOrRefOrSpec encoded index (II.23.2.8).
func (m *clrMeta) typeDefOrRef(v uint32) (string, string) {
	row := v >> 2
	switch v & 3 {
	case 0:
		return m.typeDefName(row), ""
	case 1:
		return m.typeRefName(row)
	}
	return "typespec", ""
}

// blobAt reads the #Blob heap entry at i.
func (m *clrMeta) blobAt(i uint32) []byte {
	if uint64(i) >= uint64(len(m.blob)) {
		return nil
	}
	n, k := compressed(m.blob[i:])
	if k == 0 || uint64(i)+uint64(k)+uint64(n) > uint64(len(m.blob)) {
		return nil
	}
	return m.blob[int(i)+k : int(i)+k+int(n)]
}

// clrTokens resolves an assembly's tokens: where each refers to and its
// text. It is built once per analysis (newMemMap) and read concurrently.
type clrTokens struct {
	m      *clrMeta
	base   uint64                 // the image base
	code   []uint32               // each MethodDef row's first instruction's RVA, 0 without a body
	names  []string               // each MethodDef row's name
	fields []string               // each Field row's Type::field
	eh     map[uint64][]clrClause // each method's clauses by its first instruction's address
}

func newCLRTokens(m *clrMeta, base uint64, methods []clrMethod) *clrTokens {
	t := &clrTokens{m: m, base: base, code: make([]uint32, len(methods)+1), names: make([]string, len(methods)+1)}
	for _, meth := range methods {
		t.code[meth.row], t.names[meth.row] = meth.code, meth.name
		if len(meth.eh) > 0 {
			if t.eh == nil {
				t.eh = map[uint64][]clrClause{}
			}
			t.eh[base+uint64(meth.code)] = meth.eh
		}
	}
	n := min(m.tables[tField].rows, maxCLRMethods) // fields past it are named by token
	t.fields = make([]string, n+1)
	types := m.tables[tTypeDef].rows
	for ty := uint32(1); ty <= types; ty++ {
		lo, hi := m.col(tTypeDef, ty, 4), n+1
		if ty < types {
			hi = m.col(tTypeDef, ty+1, 4)
		}
		owner := m.typeDefName(ty)
		for r := max(lo, 1); r < hi && r <= n; r++ {
			t.fields[r] = owner + "::" + m.str(m.col(tField, r, 1))
		}
	}
	return t
}

// address is where token tok refers to, and whether that is the body of a
// method (0 when the token names nothing in the image).
func (t *clrTokens) address(tok uint32) (uint64, bool) {
	table, row := int(tok>>24), tok&0xffffff
	switch {
	case table == tokUS:
		if _, chars, ok := t.m.userString(row); ok {
			return t.base + uint64(t.m.root) + uint64(t.m.usAt) + uint64(chars), false
		}
		return 0, false
	case table == tokMethodDef && row != 0 && row < uint32(len(t.code)) && t.code[row] != 0:
		return t.base + uint64(t.code[row]), true
	case table == tMethodSpec:
		if m := t.m.col(tMethodSpec, row, 0); m != 0 {
			return t.address(methodDefOrRef(m))
		}
		return 0, false
	case table < tCount && row != 0 && row <= t.m.tables[table].rows:
		return t.base + uint64(t.m.rowRVA(table, row)), false
	}
	return 0, false
}

// methodDefOrRef turns a MethodDefOrRef coded index into a token.
func methodDefOrRef(v uint32) uint32 {
	if v&1 == 0 {
		return tokMethodDef<<24 | v>>1
	}
	return tokMemberRef<<24 | v>>1
}

// text names token tok as an operand.
func (t *clrTokens) text(tok uint32) string {
	table, row := int(tok>>24), tok&0xffffff
	switch table {
	case tokUS:
		if s, _, ok := t.m.userString(row); ok {
			return strconv.Quote(s)
		}
	case tMethodDef:
		if row != 0 && row < uint32(len(t.names)) {
			return t.names[row] + t.m.paramList(t.m.col(tMethodDef, row, 4))
		}
	case tMemberRef:
		if row != 0 && row <= t.m.tables[tMemberRef].rows {
			name, _ := t.m.memberRefName(row)
			if parent := t.m.col(tMemberRef, row, 0); parent&7 == 4 {
				// A member of a generic instance: its type with the
				// arguments (the name, an import's, has the definition).
				if inst, _, ok := t.m.sigType(t.m.blobAt(t.m.col(tTypeSpec, parent>>3, 0)), 0); ok {
					name = inst + "::" + t.m.str(t.m.col(tMemberRef, row, 1))
				}
			}
			if sig := t.m.blobAt(t.m.col(tMemberRef, row, 2)); len(sig) > 0 && sig[0]&0x0f != 0x06 { // a method, not a field
				name += t.m.paramList(t.m.col(tMemberRef, row, 2))
			}
			return name
		}
	case tMethodSpec:
		if m := t.m.col(tMethodSpec, row, 0); m != 0 && row <= t.m.tables[tMethodSpec].rows {
			base := t.text(methodDefOrRef(m))
			// The instantiation (II.23.2.15): 0x0a, a count, the types.
			b := t.m.blobAt(t.m.col(tMethodSpec, row, 1))
			if len(b) < 2 || b[0] != 0x0a {
				return base
			}
			n, k := compressed(b[1:])
			if k == 0 || n > 64 {
				return base
			}
			rest, args := b[1+k:], make([]string, 0, n)
			for range n {
				var a string
				var ok bool
				if a, rest, ok = t.m.sigType(rest, 0); !ok {
					return base
				}
				args = append(args, a)
			}
			name, params, _ := strings.Cut(base, "(")
			if params != "" {
				params = "(" + params
			}
			return name + "<" + strings.Join(args, ",") + ">" + params
		}
	case tField:
		if row != 0 && row < uint32(len(t.fields)) {
			return t.fields[row]
		}
	case tTypeDef:
		if row != 0 && row <= t.m.tables[tTypeDef].rows {
			return t.m.typeDefName(row)
		}
	case tTypeRef:
		if row != 0 && row <= t.m.tables[tTypeRef].rows {
			name, _ := t.m.typeRefName(row)
			return name
		}
	case tTypeSpec:
		if row != 0 && row <= t.m.tables[tTypeSpec].rows {
			name, _ := t.m.typeSpecName(row)
			return name
		}
	}
	return fmt.Sprintf("token 0x%08x", tok)
}
