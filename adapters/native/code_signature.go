package native

import (
	"cmp"
	"context"
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rea/ports"
)

// Signatures come from DWARF subprograms (formal parameters, return type,
// variadic marker). The calling convention follows from the format and
// architecture (or from a Go producer); parameter locations are derived for
// scalar parameters only, and left empty where the ABI's classification of
// aggregates would be needed.

// sigIndex maps subprogram entry addresses to their DWARF entries.
type sigIndex struct {
	d      *dwarf.Data
	byAddr map[uint64]sigEntry
	// mu serializes reads of d: debug/dwarf caches types in a map without
	// a lock, so concurrent Signature calls crashed the process
	// ("concurrent map writes") or saw half-built types.
	mu sync.Mutex
}

type sigEntry struct {
	off dwarf.Offset
	goc bool // compiled by the Go toolchain
}

func (a *Analysis) signatures(ctx context.Context) (*sigIndex, error) {
	return a.sigs.get(ctx, func(ctx context.Context) (idx *sigIndex, err error) {
		defer recoverInto(a.img.format(), "signatures", &err)
		idx = &sigIndex{byAddr: map[uint64]sigEntry{}}
		d, infoSize, err := a.dwarfData(ctx)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return idx, nil
		}
		idx.d = d
		r := d.Reader()
		goc := false
		var last dwarf.Offset
		for i := uint64(0); ; i++ {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			ent, err := r.Next()
			if err != nil || ent == nil || i > infoSize {
				return idx, nil // what was read is kept
			}
			if ent.Tag == 0 { // a null entry, ending a list of children
				continue
			}
			if ent.Offset <= last && i > 0 {
				return idx, nil // entries must advance
			}
			last = ent.Offset
			switch ent.Tag {
			case dwarf.TagCompileUnit:
				p, _ := ent.Val(dwarf.AttrProducer).(string)
				goc = strings.HasPrefix(p, "Go cmd/compile")
			case dwarf.TagSubprogram:
				ranges, err := d.Ranges(ent)
				if err == nil && len(ranges) > 0 && ranges[0][0] != 0 {
					if _, dup := idx.byAddr[ranges[0][0]]; !dup {
						idx.byAddr[ranges[0][0]] = sigEntry{off: ent.Offset, goc: goc}
					}
				}
			}
		}
	})
}

// Signature derives the signature of the procedure starting at addr from
// DWARF.
func (a *Analysis) Signature(ctx context.Context, addr uint64) (sig ports.Signature, err error) {
	if err := a.check(ctx, "signature"); err != nil {
		return sig, err
	}
	if pe, ok := a.img.(*peImage); ok && pe.cil() {
		return pe.cilSignature(addr) // the metadata describes every method
	}
	idx, err := a.signatures(ctx)
	if err != nil {
		return sig, fmt.Errorf("native: signature: %w", classify(a.img.format(), err))
	}
	e, ok := idx.byAddr[addr]
	if !ok {
		return sig, fmt.Errorf("native: signature: no debug information describes 0x%x: %w", addr, ports.ErrNotFound)
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	defer recoverInto(a.img.format(), "signature", &err)
	r := idx.d.Reader()
	r.Seek(e.off)
	ent, err := r.Next()
	if err != nil || ent == nil {
		return sig, fmt.Errorf("native: signature: unreadable entry for 0x%x: %w", addr, ports.ErrNotFound)
	}
	sig.Source = "dwarf"
	sig.CallingConvention = a.convention(e.goc)
	sig.ReturnType = "void"
	if off, ok := dwarfVal(idx.d, ent, dwarf.AttrType).(dwarf.Offset); ok {
		sig.ReturnType = typeName(idx.d, off)
		if !e.goc {
			sig.ReturnUnderlying = cUnderlying(idx.d, off, sig.ReturnType)
		}
	}
	var goResults []string // a Go function's result types, which are parameters in its DWARF
	// origins are the parameters' abstract origins: a specialized copy
	// lists its parameters in the order it takes them, its constants last
	// (pre.constprop.0: x, y, k), and is reported in its source's (k, x, y).
	var origins []dwarf.Offset
	if ent.Children {
		for depth, n := 0, 0; n < 4096; n++ {
			c, err := r.Next()
			if err != nil || c == nil {
				break
			}
			if c.Tag == 0 {
				if depth == 0 {
					break
				}
				depth--
				continue
			}
			if depth == 0 {
				switch c.Tag {
				case dwarf.TagFormalParameter:
					p := ports.Parameter{}
					p.Name, _ = dwarfVal(idx.d, c, dwarf.AttrName).(string)
					if off, ok := dwarfVal(idx.d, c, dwarf.AttrType).(dwarf.Offset); ok {
						p.Type = typeName(idx.d, off)
						if e.goc {
							p.Type = goTypeName(idx.d, off, p.Type)
							p.Underlying = goUnderlying(idx.d, off, p.Type)
						} else {
							p.Underlying = cUnderlying(idx.d, off, p.Type)
						}
					}
					if v, _ := dwarfVal(idx.d, c, dwarf.AttrVarParam).(bool); v && e.goc {
						goResults = append(goResults, p.Type) // a Go result parameter
						continue
					}
					if !e.goc {
						p.Constant = constantText(idx.d, c)
					}
					origin, _ := c.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
					sig.Parameters, origins = append(sig.Parameters, p), append(origins, origin)
				case dwarf.TagUnspecifiedParameters:
					sig.Variadic = true
				}
			}
			if c.Children {
				depth++
			}
		}
	}
	if len(goResults) == 1 {
		sig.ReturnType = goResults[0]
	}
	a.locate(&sig, idx.d, e.off)
	sourceOrder(sig.Parameters, origins)
	return sig, nil
}

// sourceOrder sorts the parameters of a specialized copy, located in the
// order the copy takes them, into its source's order: that of their
// abstract origins' entries. It leaves any other list as it is.
func sourceOrder(params []ports.Parameter, origins []dwarf.Offset) {
	if len(origins) != len(params) || slices.Contains(origins, 0) {
		return
	}
	idx := make([]int, len(params))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(origins[i], origins[j]) })
	sorted := make([]ports.Parameter, len(params))
	for k, i := range idx {
		sorted[k] = params[i]
	}
	copy(params, sorted)
}

// constantText is the value of a parameter a specialized copy has as a
// constant (its entry's DW_AT_const_value) in C notation: a decimal integer
// (hexadecimal for a pointer), a float or double, the bytes of any other
// block in hexadecimal; "" when the entry has none.
func constantText(d *dwarf.Data, c *dwarf.Entry) string {
	var t dwarf.Type
	if off, ok := dwarfVal(d, c, dwarf.AttrType).(dwarf.Offset); ok {
		t, _ = baseType(d, off)
	}
	switch v := c.Val(dwarf.AttrConstValue).(type) {
	case int64:
		switch x := t.(type) {
		case *dwarf.PtrType:
			return fmt.Sprintf("0x%x", uint64(v))
		case *dwarf.UintType, *dwarf.UcharType, *dwarf.BoolType:
			if n := x.Size(); n > 0 && n < 8 {
				return strconv.FormatUint(uint64(v)&(1<<(8*n)-1), 10)
			}
			return strconv.FormatUint(uint64(v), 10)
		}
		return strconv.FormatInt(v, 10)
	case []byte:
		if f, ok := t.(*dwarf.FloatType); ok {
			switch {
			case f.ByteSize == 4 && len(v) == 4:
				return strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(v))), 'g', -1, 32)
			case f.ByteSize == 8 && len(v) == 8:
				return strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(v)), 'g', -1, 64)
			}
		}
		if len(v) == 0 || len(v) > 64 {
			return ""
		}
		return fmt.Sprintf("0x%x (bytes)", v)
	}
	return ""
}

func (a *Analysis) convention(goc bool) string {
	if goc {
		return goAMD64.name
	}
	switch a.docs[0].Architecture {
	case "x86_64":
		if a.img.format() == "pe" {
			return msX64.name
		}
		return sysvAMD64.name
	case "x86":
		return cdecl.name
	case "arm64":
		return aapcs64.name
	}
	return ""
}

func typeName(d *dwarf.Data, off dwarf.Offset) string {
	t, err := d.Type(off)
	if err != nil || t == nil {
		return ""
	}
	return cType(t, 0)
}

// cUnderlying is the type a C typedef at off (named name) stands for, its
// qualifiers and typedefs removed ("double" for a const real, real being
// typedef double real), or "" when the type is not a typedef.
func cUnderlying(d *dwarf.Data, off dwarf.Offset, name string) string {
	t, typedef := baseType(d, off)
	if !typedef || t == nil {
		return ""
	}
	if u := cType(t, 0); u != name {
		return u
	}
	return ""
}

// cType renders a DWARF type in C notation ("const char *"), where
// debug/dwarf's String uses Go-like notation ("*const char").
func cType(t dwarf.Type, depth int) string {
	if depth > 16 || t == nil {
		return "?"
	}
	switch x := t.(type) {
	case *dwarf.PtrType:
		if _, fn := x.Type.(*dwarf.FuncType); fn {
			return x.Type.String()
		}
		if _, void := x.Type.(*dwarf.VoidType); void || x.Type == nil {
			return "void *"
		}
		return strings.TrimSuffix(cType(x.Type, depth+1), " ") + " *"
	case *dwarf.QualType:
		inner := cType(x.Type, depth+1)
		if _, ptr := x.Type.(*dwarf.PtrType); ptr {
			return inner + x.Qual
		}
		return x.Qual + " " + inner
	case *dwarf.ArrayType:
		return cType(x.Type, depth+1) + fmt.Sprintf("[%d]", max(x.Count, 0))
	case *dwarf.TypedefType:
		return x.Name
	case *dwarf.StructType:
		if x.StructName != "" {
			return x.Kind + " " + x.StructName
		}
	case *dwarf.EnumType:
		if x.EnumName != "" {
			return "enum " + x.EnumName
		}
	}
	return t.String()
}

// goTypeName is the name the Go toolchain gives the type at off ("string",
// "[]uint8", "*main.T"), which debug/dwarf renders as C ("struct string"),
// or alt when the entry has none.
func goTypeName(d *dwarf.Data, off dwarf.Offset, alt string) string {
	r := d.Reader()
	r.Seek(off)
	if e, err := r.Next(); err == nil && e != nil {
		if n, _ := e.Val(dwarf.AttrName).(string); n != "" {
			return n
		}
	}
	return alt
}

// Go's debug information marks each type's kind (DW_AT_go_kind, the
// reflect.Kind value) and a slice's element type (DW_AT_go_elem).
const (
	attrGoKind   = dwarf.Attr(0x2900)
	attrGoElem   = dwarf.Attr(0x2902)
	goKindSlice  = 23
	goKindString = 24
)

// goUnderlying is "string" or "[]uint8" for the Go type at off, named name,
// when it is defined as one of those under another name; "" otherwise.
func goUnderlying(d *dwarf.Data, off dwarf.Offset, name string) string {
	if name == "string" || name == "[]uint8" {
		return ""
	}
	r := d.Reader()
	r.Seek(off)
	e, err := r.Next()
	for i := 0; err == nil && e != nil && e.Tag == dwarf.TagTypedef && i < 8; i++ {
		next, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
		if !ok {
			return ""
		}
		r.Seek(next) // a defined slice type is a typedef of its structure
		e, err = r.Next()
	}
	if err != nil || e == nil {
		return ""
	}
	kind, _ := e.Val(attrGoKind).(int64)
	switch kind {
	case goKindString:
		return "string"
	case goKindSlice:
		if elem, ok := e.Val(attrGoElem).(dwarf.Offset); ok && goTypeName(d, elem, "") == "uint8" {
			return "[]uint8"
		}
	}
	return ""
}

// class is the register class of a scalar type: 'i' integer or pointer,
// 'f' floating point, 0 anything else.
func class(d *dwarf.Data, name string, off dwarf.Offset) byte {
	t, _ := baseType(d, off)
	switch x := t.(type) {
	case *dwarf.PtrType, *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType, *dwarf.BoolType, *dwarf.EnumType:
		if t.Size() <= 8 {
			return 'i'
		}
	case *dwarf.FloatType:
		if x.ByteSize == 4 || x.ByteSize == 8 {
			return 'f'
		}
	}
	return 0
}

// quadFloat reports whether the type at off is a 16-byte floating-point
// type (AArch64's long double), through typedefs and qualifiers.
func quadFloat(d *dwarf.Data, off dwarf.Offset) bool {
	t, _ := baseType(d, off)
	f, ok := t.(*dwarf.FloatType)
	return ok && f.ByteSize == 16
}

// baseType is the type at off with its typedefs and qualifiers removed
// (nil when it cannot be read), and whether a typedef was among them.
func baseType(d *dwarf.Data, off dwarf.Offset) (t dwarf.Type, typedef bool) {
	t, err := d.Type(off)
	if err != nil {
		return nil, false
	}
	for range 16 {
		switch x := t.(type) {
		case *dwarf.TypedefType:
			t, typedef = x.Type, true
		case *dwarf.QualType:
			t = x.Type
		default:
			return t, typedef
		}
	}
	return nil, typedef
}

// locate fills parameter locations for the calling conventions whose
// scalar assignment is simple.
func (a *Analysis) locate(sig *ports.Signature, d *dwarf.Data, off dwarf.Offset) {
	var ints, floats []string
	positional := false
	// The argument registers are value flow's (valueflow.go), read only.
	switch sig.CallingConvention {
	case sysvAMD64.name:
		ints, floats = sysvAMD64.intArgs, sysvAMD64.vecArgs
	case msX64.name:
		ints, floats, positional = msX64.intArgs, msX64.vecArgs, true
	case aapcs64.name:
		ints, floats = aapcs64.intArgs, aapcs64.vecArgs
	case cdecl.name:
		for i := range sig.Parameters {
			sig.Parameters[i].Location = "stack"
		}
	case goAMD64.name:
		switch a.docs[0].Architecture {
		case "x86_64":
			ints, floats = goAMD64.intArgs, goAMD64.vecArgs
		case "arm64":
			ints, floats = goARM64.intArgs, goARM64.vecArgs
		default:
			return // 386 and 32-bit ARM pass Go arguments on the stack; others are not read
		}
	default:
		return
	}
	goABI := sig.CallingConvention == goAMD64.name
	// Re-read the parameter types' offsets in order (a Go function's
	// results are formal parameters too, marked variable: Signature skips
	// them).
	r := d.Reader()
	r.Seek(off)
	fn, err := r.Next()
	if err != nil || fn == nil {
		return
	}
	var types []dwarf.Offset
	// consts marks the parameters a specialized copy (gcc's
	// name.constprop.0) has as a constant (DW_AT_const_value): the copy
	// takes no argument for them, and the others take the places left.
	var consts []bool
	for depth, n := 0, 0; n < 4096; n++ {
		c, err := r.Next()
		if err != nil || c == nil || (c.Tag == 0 && depth == 0) {
			break
		}
		if c.Tag == 0 {
			depth--
			continue
		}
		if result, _ := dwarfVal(d, c, dwarf.AttrVarParam).(bool); depth == 0 && c.Tag == dwarf.TagFormalParameter && !(result && goABI) {
			t, _ := dwarfVal(d, c, dwarf.AttrType).(dwarf.Offset)
			types = append(types, t)
			consts = append(consts, c.Val(dwarf.AttrConstValue) != nil)
		}
		if c.Children {
			depth++
		}
	}
	if goABI {
		locateGo(sig, d, types, ints, floats)
		return
	}
	if sig.CallingConvention == "cdecl" {
		ret, _ := dwarfVal(d, fn, dwarf.AttrType).(dwarf.Offset)
		locateCdecl(sig, d, ret, types, consts, a.img.format() != "elf")
		return
	}
	shift := 0
	// A struct result returned in memory takes the first integer argument
	// register for its address: over 16 bytes under SysV, of any size but
	// 1, 2, 4 or 8 under Microsoft x64 (AAPCS64 passes it in x8).
	if ret, ok := dwarfVal(d, fn, dwarf.AttrType).(dwarf.Offset); ok && aggregate(d, ret) {
		t, err := d.Type(ret)
		if err != nil {
			return
		}
		switch size := t.Size(); {
		case sig.CallingConvention == "sysv-amd64" && size > 16:
			ints = ints[1:]
		case sig.CallingConvention == "ms-x64" && size != 1 && size != 2 && size != 4 && size != 8:
			shift = 1 // positions: every argument's slot moves up one
		}
	}
	// Arguments past the registers are stack words at the entry, 8 bytes
	// each: from [rsp+8] under SysV, at their position's home past
	// [rsp+8] under Microsoft x64, from [sp+0] under AAPCS64 on Linux
	// (Apple's packs them by size, so there they stay "stack").
	stackOff, stackName := int64(8), "[rsp+%d]"
	if sig.CallingConvention == "aapcs64" {
		stackOff, stackName = 0, "[sp+%d]"
		if a.img.format() == "macho" {
			stackName = ""
		}
	}
	onStack := func(i int) {
		if stackName == "" {
			sig.Parameters[i].Location = "stack"
			return
		}
		sig.Parameters[i].Location = fmt.Sprintf(stackName, stackOff)
		stackOff += 8
	}
	ni, nf, passed := 0, 0, 0
	for i := range sig.Parameters {
		if i >= len(types) {
			return
		}
		if consts[i] {
			sig.Parameters[i].Location = "none" // a constant in this copy, passed nowhere
			continue
		}
		pos := passed // the position among the arguments passed
		passed++
		c := class(d, sig.Parameters[i].Type, types[i])
		if c == 0 && sig.CallingConvention == "aapcs64" && quadFloat(d, types[i]) {
			c = 'f' // a long double: a binary128 in a v register
		}
		if positional {
			switch slot := pos + shift; {
			case slot >= len(ints):
				sig.Parameters[i].Location = fmt.Sprintf(stackName, 8+8*slot)
			case c == 'i':
				sig.Parameters[i].Location = ints[slot]
			case c == 'f':
				sig.Parameters[i].Location = floats[slot]
			}
			continue
		}
		switch c {
		case 'i':
			if ni < len(ints) {
				sig.Parameters[i].Location = ints[ni]
			} else {
				onStack(i)
			}
			ni++
		case 'f':
			if nf < len(floats) {
				sig.Parameters[i].Location = floats[nf]
			} else {
				onStack(i)
			}
			nf++
		default:
			return // an aggregate: the rest depends on its classification
		}
	}
}

// locateCdecl places the parameters of an i386 System V function at their
// stack slots at the entry, as a trace names them: the first at [esp+4],
// each taking its size rounded up to a 4-byte word, a value of several
// words in each of them ("[esp+8],[esp+12]" for a long long). A struct or
// union result returned in memory takes [esp+4] for its address (the
// hidden pointer the callee pops with ret 4), and the parameters follow it
// from [esp+8]: every one under the System V i386 ABI gcc and clang follow
// on Linux (pcc-struct-return); one of other than 1, 2, 4 or 8 bytes where
// smallRegs (Windows', Apple's and -freg-struct-return's rule: those come
// back in eax and edx). One of unknown size leaves it and the rest "stack",
// and a value over 16 bytes is "stack" itself.
func locateCdecl(sig *ports.Signature, d *dwarf.Data, ret dwarf.Offset, types []dwarf.Offset, consts []bool, smallRegs bool) {
	off := int64(4)
	if ret != 0 && aggregate(d, ret) {
		t, err := d.Type(ret)
		if err != nil || t == nil || t.Size() <= 0 {
			return
		}
		if size := t.Size(); !smallRegs || size != 1 && size != 2 && size != 4 && size != 8 {
			off += 4 // the hidden pointer
		}
	}
	for i := range sig.Parameters {
		if i >= len(types) {
			return
		}
		if consts[i] {
			sig.Parameters[i].Location = "none" // a constant in a specialized copy (locate)
			continue
		}
		t, err := d.Type(types[i])
		if err != nil || t == nil || t.Size() <= 0 || t.Size() > 1<<20 {
			return
		}
		words := (t.Size() + 3) / 4
		if words <= 4 {
			slots := make([]string, words)
			for k := range slots {
				slots[k] = fmt.Sprintf("[esp+%d]", off+4*int64(k))
			}
			sig.Parameters[i].Location = strings.Join(slots, ",")
		}
		off += 4 * words
	}
}

// aggregate reports whether the type at off is a struct, union or class
// (through typedefs and qualifiers).
func aggregate(d *dwarf.Data, off dwarf.Offset) bool {
	t, _ := baseType(d, off)
	_, ok := t.(*dwarf.StructType)
	return ok
}

// locateGo assigns parameters under Go's register ABI (ABIInternal, as
// cmd/compile's abi-internal.md gives it): each parameter in order takes
// the next integer or floating-point registers for its parts (a string is
// a pointer and a length, a slice a pointer, a length and a capacity, an
// interface two words, a struct its fields, a complex number two floats);
// one that does not fit in the registers left, or holds an array of more
// than one element, goes on the stack, and later ones may still take
// registers. A parameter in several registers has them all, in order of its
// parts, joined by ",". One of a type the Go toolchain does not describe
// leaves it and the rest unplaced; one of no parts (struct{}) is "none".
func locateGo(sig *ports.Signature, d *dwarf.Data, types []dwarf.Offset, ints, floats []string) {
	ni, nf := 0, 0
	for i := range sig.Parameters {
		if i >= len(types) {
			return
		}
		t, err := d.Type(types[i])
		if err != nil {
			return
		}
		budget := 1024 // types visited: a crafted struct of itself by value would not end
		parts, ok := goParts(t, 0, &budget)
		if !ok {
			return
		}
		if len(parts) == 0 {
			sig.Parameters[i].Location = "none" // struct{}: in no register and no stack slot
			continue
		}
		var regs []string
		ki, kf := ni, nf
		for _, p := range parts {
			switch {
			case p == 'i' && ki < len(ints):
				regs, ki = append(regs, ints[ki]), ki+1
			case p == 'f' && kf < len(floats):
				regs, kf = append(regs, floats[kf]), kf+1
			default: // out of registers, or an array of several elements
				regs = nil
				sig.Parameters[i].Location = "stack"
			}
			if regs == nil {
				break
			}
		}
		if regs != nil {
			sig.Parameters[i].Location, ni, nf = strings.Join(regs, ","), ki, kf
		}
	}
}

// goParts is the register classes of a Go value's parts in order: 'i'
// integer or pointer, 'f' floating point, 's' a part that keeps the value
// on the stack (an array of several elements). ok is false for a type it
// does not know, or it visits more than budget types.
func goParts(t dwarf.Type, depth int, budget *int) (parts []byte, ok bool) {
	if *budget--; depth > 16 || *budget < 0 {
		return nil, false
	}
	switch x := t.(type) {
	case *dwarf.TypedefType: // named types, and interfaces (runtime.iface, runtime.eface)
		return goParts(x.Type, depth+1, budget)
	case *dwarf.PtrType, *dwarf.FuncType: // pointers, maps, channels, funcs
		return []byte{'i'}, true
	case *dwarf.IntType, *dwarf.UintType, *dwarf.BoolType, *dwarf.UcharType, *dwarf.CharType:
		return []byte{'i'}, t.Size() <= 8
	case *dwarf.FloatType:
		return []byte{'f'}, x.ByteSize == 4 || x.ByteSize == 8
	case *dwarf.ComplexType:
		return []byte{'f', 'f'}, x.ByteSize == 8 || x.ByteSize == 16
	case *dwarf.StructType: // strings and slices are structs in Go's DWARF
		if x.Kind != "struct" || x.Incomplete {
			return nil, false
		}
		for _, f := range x.Field {
			p, ok := goParts(f.Type, depth+1, budget)
			if !ok {
				return nil, false
			}
			if parts = append(parts, p...); len(parts) > 64 {
				return []byte{'s'}, true // more parts than any ABI has registers
			}
		}
		return parts, true
	case *dwarf.ArrayType:
		switch {
		case x.Count == 0:
			return nil, true
		case x.Count == 1:
			return goParts(x.Type, depth+1, budget)
		}
		return []byte{'s'}, true
	}
	return nil, false
}
