package process

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"rea/core"
	"rea/ports"
	"rea/ports/libc"
)

// Typed values: a parameter or result the signature gives as floating
// point is read from the register it arrives in (xmm, v, or x87's st0 for
// a 32-bit x86 result) and shown as decimal text, its bits kept beside it;
// an 8-byte integer over two 32-bit words (two cdecl slots, or edx:eax) is
// one value.

// floatBits is the width of a floating-point C or Go type: 32, 64, 80 for
// x87's long double, or 0 for any other type.
func floatBits(typ string) int {
	switch strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(typ, "const "), "volatile ")) {
	case "float", "float32", "_Float32":
		return 32
	case "double", "float64", "_Float64":
		return 64
	case "long double":
		return 80
	}
	return 0
}

// aggregate reports whether a C type names a struct, union, class or
// array, whose words are not one number.
func aggregate(typ string) bool {
	for _, k := range []string{"struct ", "union ", "class "} {
		if strings.Contains(typ, k) {
			return true
		}
	}
	return strings.Contains(typ, "[")
}

// wideInt is a C integer type of 8 bytes on 32-bit x86.
func wideInt(typ string) bool {
	t := strings.TrimPrefix(typ, "const ")
	return strings.Contains(t, "long long") || t == "int64_t" || t == "uint64_t" || t == "__int64"
}

// registers is what a breakpoint reads beyond the convention's integer
// registers: every part of a placed parameter's location (the tracer skips
// those it reads anyway), so a floating-point register or a stack slot past
// the convention's is read too.
func (s *traceSig) registers() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, p := range s.params {
		if p.Location == "" || p.Location == "stack" || p.Location == "none" {
			continue
		}
		for _, r := range strings.Split(p.Location, ",") {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// returnRegisters is where the result is when not in the convention's
// integer register alone: a floating-point one's register, or eax and edx
// for an 8-byte integer under cdecl; nil otherwise.
func (s *traceSig) returnRegisters(conv ports.CallingConvention, arch string) []string {
	if s == nil {
		return nil
	}
	bits := floatBits(s.ret)
	switch {
	case conv == ports.ConventionCdecl && bits != 0, conv == ports.ConventionSysV && bits == 80:
		return []string{"st0"}
	case bits == 80 && conv == ports.ConventionAAPCS64:
		return []string{"v0"} // a binary128
	case bits == 80:
		return nil
	case bits != 0 && (conv == ports.ConventionSysV || conv == ports.ConventionGo && effectiveConvention("", arch) == ports.ConventionSysV):
		return []string{"xmm0"}
	case bits != 0 && (conv == ports.ConventionAAPCS64 || conv == ports.ConventionGo && effectiveConvention("", arch) == ports.ConventionAAPCS64):
		return []string{"v0"}
	case conv == ports.ConventionCdecl && wideInt(s.ret):
		return []string{"eax", "edx"}
	}
	return nil
}

// typedArgument is parameter p's value as one argument when its type says
// how to read it: a floating-point value in one register or stack slot, or
// a value of two cdecl slots (a double, an 8-byte integer); ok is false
// for any other, whose registers are arguments each.
func typedArgument(p ports.Parameter, regs map[string]ports.TraceRegister) (arg TraceArgument, ok bool) {
	parts := strings.Split(p.Location, ",")
	var got []ports.TraceRegister
	for _, r := range parts {
		reg, ok := regs[r]
		if !ok {
			return arg, false
		}
		got = append(got, reg)
	}
	typ := cmp.Or(p.Underlying, p.Type)
	bits := floatBits(typ)
	switch {
	case len(got) == 1 && (bits == 32 || bits == 64):
		arg.Value, arg.Bits = floatText(got[0].Value, bits)
	case len(got) == 1 && bits == 80 && len(got[0].Bytes) == 10: // x87's, from the stack
		v, b := x87Text(got[0].Bytes, 0)
		arg.Value, arg.Bits = v, &b
	case len(got) == 3 && bits == 80 && strings.HasPrefix(parts[0], "["): // x87's in three cdecl slots
		b := binary.LittleEndian.AppendUint32(nil, uint32(got[0].Value))
		b = binary.LittleEndian.AppendUint32(b, uint32(got[1].Value))
		v, bb := x87Text(binary.LittleEndian.AppendUint16(b, uint16(got[2].Value)), 0)
		arg.Value, arg.Bits = v, &bb
	case len(got) == 1 && bits == 80 && len(got[0].Bytes) == 16: // AArch64's binary128
		v, b := quadText(got[0].Bytes)
		arg.Value, arg.Bits = v, &b
	case len(got) == 2 && strings.HasPrefix(parts[0], "[") && strings.HasPrefix(parts[1], "[") && !aggregate(typ) && (bits == 0 || bits == 64):
		v := got[0].Value&0xffffffff | got[1].Value<<32
		if bits == 64 {
			arg.Value, arg.Bits = floatText(v, 64)
		} else {
			arg.Value = core.Hex(v)
		}
	default:
		return arg, false
	}
	arg.Register, arg.Parameter = p.Location, core.OptString(p.Name)
	return arg, true
}

// returnValue is a hit's result as the signature types it, with its bits
// for a floating-point one; ok is false when the signature does not say
// (the integer register is the result then).
// result is a hit's return value as the trace gives it: typed when the
// signature says how to read it, the return register in hex otherwise, nil
// when the call did not return while traced or returns nothing (a void
// function's return register holds whatever it last held).
func (s *traceSig) result(h ports.TraceHit) (value, bits *string) {
	if v, b, typed := s.returnValue(h); typed {
		return &v, b
	}
	if !h.Returned || s != nil && s.ret == "void" {
		return nil, nil
	}
	v := core.Hex(h.ReturnValue)
	return &v, nil
}

func (s *traceSig) returnValue(h ports.TraceHit) (value string, bits *string, ok bool) {
	if s == nil || !h.Returned || len(h.ReturnRegisters) == 0 {
		return "", nil, false
	}
	r := h.ReturnRegisters
	fb := floatBits(s.ret)
	switch {
	case len(r) == 2: // eax, edx
		return core.Hex(r[0].Value&0xffffffff | r[1].Value<<32), nil, true
	case r[0].Name == "st0" && len(r[0].Bytes) == 10:
		v, b := x87Text(r[0].Bytes, fb)
		return v, &b, true
	case fb == 80 && len(r[0].Bytes) == 16:
		v, b := quadText(r[0].Bytes)
		return v, &b, true
	case fb == 32 || fb == 64:
		v, b := floatText(r[0].Value, fb)
		return v, b, true
	}
	return "", nil, false
}

// floatText is the shortest decimal text of the IEEE single (the low 32
// bits of v) or double v, and its bits in hex.
func floatText(v uint64, bits int) (string, *string) {
	if bits == 32 {
		b := fmt.Sprintf("0x%08x", uint32(v))
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32), &b
	}
	b := fmt.Sprintf("0x%016x", v)
	return strconv.FormatFloat(math.Float64frombits(v), 'g', -1, 64), &b
}

// x87Text is the text of an x87 80-bit extended value (10 bytes,
// little-endian: 64-bit significand with its integer bit, then sign and
// 15-bit exponent) as the type of width want (32 or 64: the value rounded
// to it, as the caller stores it; else its own shortest text at 64 bits),
// and its bits in hex.
func x87Text(b []byte, want int) (text, bits string) {
	mant, se := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint16(b[8:10])
	bits = fmt.Sprintf("0x%04x%016x", se, mant)
	neg, exp := se&0x8000 != 0, int(se&0x7fff)
	var f *big.Float
	switch {
	case exp == 0x7fff && mant == 1<<63:
		f = new(big.Float).SetInf(neg)
	case exp == 0x7fff, exp != 0 && mant>>63 == 0:
		// A NaN, or an unnormal, which the FPU treats as one.
		return "NaN", bits
	default:
		if exp == 0 {
			exp = 1 // a denormal: no integer bit, the least exponent
		}
		f = new(big.Float).SetPrec(64).SetMantExp(new(big.Float).SetPrec(64).SetUint64(mant), exp-16383-63)
		if neg {
			f.Neg(f)
		}
	}
	switch want {
	case 32:
		v, _ := f.Float32()
		return strconv.FormatFloat(float64(v), 'g', -1, 32), bits
	case 64:
		v, _ := f.Float64()
		return strconv.FormatFloat(v, 'g', -1, 64), bits
	}
	if f.IsInf() {
		return map[bool]string{false: "+Inf", true: "-Inf"}[neg], bits
	}
	return f.Text('g', -1), bits
}

// quadText is the text of an IEEE binary128 value (AArch64's long double:
// 16 bytes, little-endian: 112-bit fraction, then 15-bit exponent and
// sign) and its bits in hex.
func quadText(b []byte) (text, bits string) {
	lo, hi := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:16])
	bits = fmt.Sprintf("0x%016x%016x", hi, lo)
	neg, exp, frac := hi>>63 != 0, int(hi>>48&0x7fff), new(big.Int).Or(new(big.Int).Lsh(new(big.Int).SetUint64(hi&(1<<48-1)), 64), new(big.Int).SetUint64(lo))
	switch {
	case exp == 0x7fff && frac.Sign() == 0:
		return map[bool]string{false: "+Inf", true: "-Inf"}[neg], bits
	case exp == 0x7fff:
		return "NaN", bits
	case exp == 0:
		exp = 1 // a denormal: no implicit bit, the least exponent
	default:
		frac.SetBit(frac, 112, 1)
	}
	f := new(big.Float).SetPrec(113).SetMantExp(new(big.Float).SetPrec(113).SetInt(frac), exp-16383-112)
	if neg {
		f.Neg(f)
	}
	return f.Text('g', -1), bits
}

// arguments is a hit's arguments. Under a signature that places every
// parameter they are its parameters' in order, a typed one as one value
// (typedArgument), any other a register each, named by the parameter or
// its part; otherwise every register the tracer read, named where known.
func (s *traceSig) arguments(h ports.TraceHit, texts, atReturn map[string]*TraceString) []TraceArgument {
	byReg := s.byRegister()
	one := func(r ports.TraceRegister) TraceArgument {
		arg := TraceArgument{Register: r.Name, Value: core.Hex(r.Value), String: texts[r.Name], StringAtReturn: atReturn[r.Name]}
		if q, known := byReg[r.Name]; known {
			arg.Parameter = core.OptString(q)
		}
		return arg
	}
	argv := []TraceArgument{}
	if s != nil && s.format != "" && h.Variadic != nil {
		// A format understood whole: the fixed parameters and its
		// conversions' arguments.
		return s.placedArguments(h, h.Variadic, one)
	}
	if s == nil || !s.placed {
		for _, r := range h.Arguments {
			argv = append(argv, one(r))
		}
		return argv
	}
	return s.placedArguments(h, nil, one)
}

// placedArguments is the arguments of a hit whose parameters are placed:
// each parameter's, a typed one as one value (typedArgument), any other a
// register each; then each of variadic's (a printf-style format's
// arguments, named by their conversion, with what a scanf-style call
// stored); no other register.
func (s *traceSig) placedArguments(h ports.TraceHit, variadic []ports.Parameter, one func(ports.TraceRegister) TraceArgument) []TraceArgument {
	regs := make(map[string]ports.TraceRegister, len(h.Arguments))
	for _, r := range h.Arguments {
		if _, dup := regs[r.Name]; !dup {
			regs[r.Name] = r
		}
	}
	argv := []TraceArgument{}
	for k, p := range append(slices.Clip(s.params), variadic...) {
		if p.Type == "long double" && len(regs[p.Location].Bytes) == 0 {
			// A long double on the stack: its bytes, not the slot's word.
			if i := slices.IndexFunc(h.Arguments, func(r ports.TraceRegister) bool { return r.Name == p.Location && len(r.Bytes) > 0 }); i >= 0 {
				regs[p.Location] = h.Arguments[i]
			}
		}
		if p.Location == "none" && p.Constant != "" && k < len(s.params) {
			argv = append(argv, constantArgument(p))
			continue
		}
		if p.Location == "" || p.Location == "stack" || p.Location == "none" {
			continue
		}
		if arg, ok := typedArgument(p, regs); ok {
			argv = append(argv, arg)
			continue
		}
		for _, name := range strings.Split(p.Location, ",") {
			if r, ok := regs[name]; ok {
				arg := one(r)
				if bits := narrowInt(cmp.Or(p.Underlying, p.Type)); k < len(s.params) && bits > 0 {
					// A parameter narrower than its register or slot: the
					// rest is whatever was there before.
					arg.Value = core.Hex(r.Value & (1<<bits - 1))
				}
				if k >= len(s.params) {
					arg.Parameter = core.OptString(p.Name)
					if promotedInt[p.Type] {
						// An int in a 64-bit register or stack word: the
						// upper half is whatever was there before.
						arg.Value = core.Hex(r.Value & 0xffffffff)
					}
					if i := slices.IndexFunc(h.Stored, func(r ports.TraceRegister) bool { return r.Name == p.Location }); i >= 0 && s.scan {
						storedValue(&arg, strings.TrimRight(p.Type, " *"), h.Stored[i].Bytes) // what it points at (%mc: through a pointer)
					}
				}
				argv = append(argv, arg)
			}
		}
	}
	return argv
}

// constantArgument is the argument of a parameter that a specialized copy
// (gcc's name.constprop.0) has as a constant and takes no argument for:
// its value as the debug information gives it, in hex as a register's
// is (a float's decimal text as it is), read from no register.
func constantArgument(p ports.Parameter) TraceArgument {
	arg := TraceArgument{Register: "none", Value: p.Constant, Parameter: core.OptString(p.Name), Constant: core.OptString(p.Constant)}
	if v, err := strconv.ParseInt(p.Constant, 0, 64); err == nil {
		u := uint64(v)
		if bits := narrowInt(cmp.Or(p.Underlying, p.Type)); bits > 0 {
			u &= 1<<bits - 1
		}
		arg.Value = core.Hex(u)
	} else if u, err := strconv.ParseUint(p.Constant, 0, 64); err == nil {
		arg.Value = core.Hex(u)
	}
	return arg
}

// narrowInt is the width in bits of a C integer type narrower than 8
// bytes as debug information and the prototypes name it (char, short int,
// int, an enum, _Bool), or 0 for any other type.
func narrowInt(typ string) uint {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(typ, "const "), "volatile "))
	switch t {
	case "char", "signed char", "unsigned char", "_Bool", "bool", "int8_t", "uint8_t":
		return 8
	case "short", "short int", "short unsigned int", "unsigned short", "unsigned short int", "int16_t", "uint16_t":
		return 16
	case "int", "unsigned int", "unsigned", "signed int", "int32_t", "uint32_t", "wint_t", "mode_t", "pid_t", "uid_t", "gid_t":
		return 32
	}
	if strings.HasPrefix(t, "enum ") {
		return 32
	}
	return 0
}

// promotedInt are the types a printf conversion reads as a promoted int
// (adapters/gdbremote's names): 4 bytes of an argument register or slot.
var promotedInt = map[string]bool{"int": true, "unsigned int": true, "short": true, "unsigned short": true,
	"signed char": true, "unsigned char": true, "wint_t": true}

// storedValue sets what a scanf-style call stored through arg's pointer,
// b, as the pointed-at type typ gives it: a number's value, %c's
// characters as text (%lc's wchar_t ones as UTF-8).
func storedValue(arg *TraceArgument, typ string, b []byte) {
	var v string
	switch bits := floatBits(typ); {
	case len(b) == 0:
		return
	case typ == "char":
		arg.StringAtReturn = &TraceString{Text: core.OptString(traceText(b))}
		return
	case typ == "wchar_t":
		text, _ := libc.WideString(b, 4)
		arg.StringAtReturn = &TraceString{Text: core.OptString(traceText(text))}
		return
	case bits == 32 && len(b) == 4:
		v, _ = floatText(uint64(binary.LittleEndian.Uint32(b)), 32)
	case bits == 64 && len(b) == 8:
		v, _ = floatText(binary.LittleEndian.Uint64(b), 64)
	case bits == 80 && len(b) == 10:
		v, _ = x87Text(b, 0)
	case bits == 80 && len(b) == 16:
		v, _ = quadText(b)
	case len(b) <= 8:
		var u uint64
		for i := len(b) - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		v = core.Hex(u)
	default:
		return
	}
	arg.ValueAtReturn = &v
}

// unsignedLimitation says which breakpoints no signature describes, under a
// convention that passes floating-point values in registers of their own:
// only their integer registers are read. "" when there are none.
func unsignedLimitation(bps []ports.TraceBreakpoint, sigs []*traceSig, conv ports.CallingConvention) string {
	_, regs := ports.ArgumentRegisters(conv, "")
	if regs == nil {
		return ""
	}
	var names []string
	for i, b := range bps {
		if i < len(sigs) && sigs[i] == nil {
			names = append(names, b.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("no debug information or libc prototype describes %s: the integer argument registers are shown; a floating-point argument (%s-%s) or result (%s) is not read",
		strings.Join(names, ", "), regs[0], regs[len(regs)-1], regs[0])
}
