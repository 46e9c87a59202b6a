package native

import (
	"fmt"
	"strconv"
	"strings"

	"rea/ports"
)

// A method's signature comes from its metadata: the MethodDefSig blob
// (ECMA-335 II.23.2.1) gives the return and parameter types, the Param
// table their names. Types are written as ILAsm writes them without the
// class and valuetype keywords: int32, string, [mscorlib]System.Object,
// [mscorlib]System.Collections.Generic.List`1<int32>, uint8[], !0 (a
// type's generic parameter), !!0 (a method's). A parameter's location is
// its argument slot: arg.0 is an instance method's this.

// Signature calling-convention flags.
const (
	sigHasThis = 0x20
	sigGeneric = 0x10
	sigVararg  = 0x05
)

// maxSigDepth bounds nested types in a signature.
const maxSigDepth = 32

var sigElementTypes = map[byte]string{
	0x01: "void", 0x02: "bool", 0x03: "char", 0x04: "int8", 0x05: "uint8", 0x06: "int16", 0x07: "uint16",
	0x08: "int32", 0x09: "uint32", 0x0a: "int64", 0x0b: "uint64", 0x0c: "float32", 0x0d: "float64", 0x0e: "string",
	0x16: "typedref", 0x18: "native int", 0x19: "native uint", 0x1c: "object",
}

// sigType reads one type from b, returning its text and the rest of b; ok
// false when b does not hold one.
func (m *clrMeta) sigType(b []byte, depth int) (string, []byte, bool) {
	if len(b) == 0 || depth > maxSigDepth {
		return "", nil, false
	}
	et, b := b[0], b[1:]
	if s, ok := sigElementTypes[et]; ok {
		return s, b, true
	}
	switch et {
	case 0x0f, 0x10, 0x1d, 0x45: // PTR, BYREF, SZARRAY, PINNED
		inner, rest, ok := m.sigType(b, depth+1)
		suffix := map[byte]string{0x0f: "*", 0x10: "&", 0x1d: "[]", 0x45: " pinned"}[et]
		return inner + suffix, rest, ok
	case 0x11, 0x12: // VALUETYPE, CLASS
		v, k := compressed(b)
		if k == 0 {
			return "", nil, false
		}
		name, _ := m.typeDefOrRef(v)
		return name, b[k:], true
	case 0x13, 0x1e: // VAR, MVAR: a type's or a method's generic parameter
		v, k := compressed(b)
		if k == 0 {
			return "", nil, false
		}
		bang := "!"
		if et == 0x1e {
			bang = "!!"
		}
		return bang + strconv.Itoa(int(v)), b[k:], true
	case 0x15: // GENERICINST (CLASS|VALUETYPE) type count args
		if len(b) < 1 {
			return "", nil, false
		}
		base, rest, ok := m.sigType(b, depth+1)
		if !ok {
			return "", nil, false
		}
		n, k := compressed(rest)
		if k == 0 || n > 64 {
			return "", nil, false
		}
		rest = rest[k:]
		args := make([]string, 0, n)
		for range n {
			var a string
			if a, rest, ok = m.sigType(rest, depth+1); !ok {
				return "", nil, false
			}
			args = append(args, a)
		}
		return base + "<" + strings.Join(args, ",") + ">", rest, true
	case 0x14: // ARRAY: type, rank, sizes (counted), lower bounds (counted)
		inner, rest, ok := m.sigType(b, depth+1)
		if !ok {
			return "", nil, false
		}
		rank, k := compressed(rest)
		if k == 0 {
			return "", nil, false
		}
		rest = rest[k:]
		for range 2 {
			n, k := compressed(rest)
			if k == 0 || n > 64 {
				return "", nil, false
			}
			rest = rest[k:]
			for range n {
				if _, k := compressed(rest); k == 0 {
					return "", nil, false
				} else {
					rest = rest[k:]
				}
			}
		}
		return inner + "[" + strings.Repeat(",", int(min(max(rank, 1), 32))-1) + "]", rest, true
	case 0x1f, 0x20: // CMOD_REQD, CMOD_OPT: a modifier before the type
		_, k := compressed(b)
		if k == 0 {
			return "", nil, false
		}
		return m.sigType(b[k:], depth+1)
	case 0x1b: // FNPTR
		return "method*", nil, false // its signature is not followed: the rest is unknown
	}
	return "", nil, false
}

// methodParamNames gives MethodDef row r's parameter names by sequence
// (0 is the return value).
func (m *clrMeta) methodParamNames(r uint32) map[uint32]string {
	lo, hi := m.col(tMethodDef, r, 5), m.tables[tParam].rows+1
	if r < m.tables[tMethodDef].rows {
		hi = m.col(tMethodDef, r+1, 5)
	}
	out := map[uint32]string{}
	for p := max(lo, 1); p < hi && p <= m.tables[tParam].rows && len(out) < 256; p++ {
		out[m.col(tParam, p, 1)] = m.str(m.col(tParam, p, 2))
	}
	return out
}

// clrMethodSig is a decoded MethodDefSig or MethodRefSig.
type clrMethodSig struct {
	conv   byte
	ret    string
	params []string // "" for a type past one that did not decode
}

// methodSig decodes a method signature blob.
func (m *clrMeta) methodSig(b []byte) (clrMethodSig, bool) {
	var ms clrMethodSig
	if len(b) == 0 {
		return ms, false
	}
	ms.conv, b = b[0], b[1:]
	if ms.conv&sigGeneric != 0 {
		_, k := compressed(b)
		if k == 0 {
			return ms, false
		}
		b = b[k:]
	}
	n, k := compressed(b)
	if k == 0 || n > 1024 {
		return ms, false
	}
	ret, rest, ok := m.sigType(b[k:], 0)
	if !ok {
		return ms, false
	}
	ms.ret = ret
	for range n {
		var t string
		if len(rest) > 0 && rest[0] == 0x41 { // SENTINEL: a vararg call's extra arguments follow
			rest = rest[1:]
		}
		if t, rest, ok = m.sigType(rest, 0); !ok {
			t = "" // the rest of the signature is unknown
		}
		ms.params = append(ms.params, t)
	}
	return ms, true
}

// paramList is a method signature's parameter types as an operand shows
// them: "(string, int32)", or "" when the blob does not decode.
func (m *clrMeta) paramList(blob uint32) string {
	ms, ok := m.methodSig(m.blobAt(blob))
	if !ok {
		return ""
	}
	return "(" + strings.Join(ms.params, ", ") + ")"
}

// cilSignature is the signature of the method whose code starts at addr.
func (p *peImage) cilSignature(addr uint64) (ports.Signature, error) {
	sig := ports.Signature{Source: "cil-metadata", CallingConvention: "cil"}
	for _, meth := range p.clrMethods {
		if meth.code == 0 || p.base+uint64(meth.code) != addr {
			continue
		}
		m := p.clr
		ms, ok := m.methodSig(m.blobAt(m.col(tMethodDef, meth.row, 4)))
		if !ok {
			break
		}
		conv, ret := ms.conv, ms.ret
		sig.ReturnType, sig.Variadic = ret, conv&0x0f == sigVararg
		names := m.methodParamNames(meth.row)
		slot := 0
		if conv&sigHasThis != 0 {
			owner, _, _ := strings.Cut(meth.name, "::")
			sig.Parameters = append(sig.Parameters, ports.Parameter{Name: "this", Type: owner, Location: "arg.0"})
			slot = 1
		}
		for i, t := range ms.params {
			sig.Parameters = append(sig.Parameters, ports.Parameter{Name: names[uint32(i)+1], Type: t, Location: "arg." + strconv.Itoa(slot+i)})
		}
		return sig, nil
	}
	return ports.Signature{}, fmt.Errorf("native: signature: no method's metadata describes 0x%x: %w", addr, ports.ErrNotFound)
}
