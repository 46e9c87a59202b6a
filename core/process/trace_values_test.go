package process

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// x87's 80-bit registers as decimal text at the width the type asks for:
// the two are st0 as qemu-i386 gave it (adapters/gdbremote's recorded
// packets: 8, and 1/3 at 64 bits, which a float result rounds to float32's
// 0.33333334); a value below float64's range that is normal in 80 bits (a
// float64 denormal), an 80-bit denormal (0 as a double), infinities, NaNs,
// the encodings the FPU refuses (pseudo-infinity, unnormal) and -0.
func TestX87Text(t *testing.T) {
	for _, c := range []struct {
		le         string // 10 bytes, as the register's bytes
		want       int
		text, bits string
	}{
		{"00000000000000800240", 64, "8", "0x40028000000000000000"},
		{"abaaaaaaaaaaaaaafd3f", 32, "0.33333334", "0x3ffdaaaaaaaaaaaaaaab"},
		{"abaaaaaaaaaaaaaafd3f", 64, "0.3333333333333333", "0x3ffdaaaaaaaaaaaaaaab"},
		{"abaaaaaaaaaaaaaafd3f", 80, "0.33333333333333333334", "0x3ffdaaaaaaaaaaaaaaab"},
		{"0000000000000080cd3b", 64, "5e-324", "0x3bcd8000000000000000"},                      // 2^-1074: float64's least denormal
		{"0000000000000080cc3b", 64, "0", "0x3bcc8000000000000000"},                           // 2^-1075 rounds to even: 0
		{"0000000000000080ce3b", 32, "0", "0x3bce8000000000000000"},                           // far below float32's range
		{"01000000000000000000", 64, "0", "0x00000000000000000001"},                           // an 80-bit denormal
		{"01000000000000000000", 80, "3.6451995318824746025e-4951", "0x00000000000000000001"}, // 2^-16445
		{"0000000000000080ff7f", 64, "+Inf", "0x7fff8000000000000000"},
		{"0000000000000080ffff", 32, "-Inf", "0xffff8000000000000000"},
		{"0000000000000080ffff", 80, "-Inf", "0xffff8000000000000000"},
		{"00000000000000c0ff7f", 64, "NaN", "0x7fffc000000000000000"}, // quiet NaN
		{"0100000000000080ffff", 64, "NaN", "0xffff8000000000000001"}, // signalling NaN
		{"0000000000000000ff7f", 64, "NaN", "0x7fff0000000000000000"}, // pseudo-infinity
		{"00000000000000400240", 64, "NaN", "0x40024000000000000000"}, // unnormal: no integer bit
		{"00000000000000000080", 64, "-0", "0x80000000000000000000"},
		{"0000000000000080ff43", 64, "+Inf", "0x43ff8000000000000000"}, // beyond float64's range
	} {
		b, _ := hex.DecodeString(c.le)
		text, bits := x87Text(b, c.want)
		if text != c.text || bits != c.bits {
			t.Errorf("%s as %d bits: %s %s, want %s %s", c.le, c.want, text, bits, c.text, c.bits)
		}
	}
}

// A floating-point parameter in one register is read from its low lane: a
// float from the low 4 bytes of an xmm or v register, whatever the other
// lanes hold (the recorded packets' 2.5 and 0.5; the high lanes here made
// non-zero), a double from the low 8; under cdecl a float is one stack
// word and a double or an 8-byte integer two, one value each; a struct of
// two words stays two arguments.
func TestTypedArguments(t *testing.T) {
	is := is.New(t)
	regs := map[string]ports.TraceRegister{
		"xmm0":    {Name: "xmm0", Value: 0x4004000000000000, Bytes: make([]byte, 16)},
		"xmm1":    {Name: "xmm1", Value: 0xdeadbeef3f000000},
		"v0":      {Name: "v0", Value: 0x4004000000000000},
		"v1":      {Name: "v1", Value: 0x123456783f000000},
		"[esp+4]": {Name: "[esp+4]", Value: 0}, "[esp+8]": {Name: "[esp+8]", Value: 0x40040000},
		"[esp+12]": {Name: "[esp+12]", Value: 3}, "[esp+16]": {Name: "[esp+16]", Value: 0x3f000000},
		"[esp+20]": {Name: "[esp+20]", Value: 0}, "[esp+24]": {Name: "[esp+24]", Value: 0x100},
		"[esp+32]": {Name: "[esp+32]", Value: 0}, "[esp+36]": {Name: "[esp+36]", Value: 0xc0000000}, "[esp+40]": {Name: "[esp+40]", Value: 0x3fff},
		"[rsp+8]": {Name: "[rsp+8]", Value: 0xc000000000000000, Bytes: []byte{0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0x3f}},
		"v2":      {Name: "v2", Bytes: append(make([]byte, 13), 0x80, 0xff, 0x3f)},
	}
	for _, c := range []struct {
		p           ports.Parameter
		value, bits string // bits "" when none; value "" when not typed
	}{
		{ports.Parameter{Name: "x", Type: "double", Location: "xmm0"}, "2.5", "0x4004000000000000"},
		{ports.Parameter{Name: "y", Type: "float", Location: "xmm1"}, "0.5", "0x3f000000"},
		{ports.Parameter{Name: "y", Type: "const float", Location: "xmm1"}, "0.5", "0x3f000000"},
		{ports.Parameter{Name: "x", Type: "float64", Location: "v0"}, "2.5", "0x4004000000000000"},
		{ports.Parameter{Name: "y", Type: "float32", Location: "v1"}, "0.5", "0x3f000000"},
		{ports.Parameter{Name: "x", Type: "double", Location: "[esp+4],[esp+8]"}, "2.5", "0x4004000000000000"},
		{ports.Parameter{Name: "y", Type: "float", Location: "[esp+16]"}, "0.5", "0x3f000000"},
		{ports.Parameter{Name: "a", Type: "long long int", Location: "[esp+20],[esp+24]"}, "0x10000000000", ""},
		{ports.Parameter{Name: "a", Type: "uint64_t", Location: "[esp+20],[esp+24]"}, "0x10000000000", ""},
		{ports.Parameter{Name: "s", Type: "struct pair", Location: "[esp+20],[esp+24]"}, "", ""},
		{ports.Parameter{Name: "k", Type: "int", Location: "[esp+12]"}, "", ""},
		{ports.Parameter{Name: "y", Type: "float", Location: "xmm7"}, "", ""}, // not read
		// A typedef of a floating-point type, by what it stands for.
		{ports.Parameter{Name: "x", Type: "real", Underlying: "double", Location: "xmm0"}, "2.5", "0x4004000000000000"},
		{ports.Parameter{Name: "x", Type: "real", Location: "xmm0"}, "", ""},
		// long double: x87's 80 bits in three cdecl slots or 10 bytes of
		// stack, AArch64's binary128 in a v register.
		{ports.Parameter{Name: "q", Type: "long double", Location: "[esp+32],[esp+36],[esp+40]"}, "1.5", "0x3fffc000000000000000"},
		{ports.Parameter{Name: "q", Type: "long double", Location: "[rsp+8]"}, "1.5", "0x3fffc000000000000000"},
		{ports.Parameter{Name: "q", Type: "long double", Location: "v2"}, "1.5", "0x3fff8000000000000000000000000000"},
	} {
		arg, ok := typedArgument(c.p, regs)
		is.Equal(ok, c.value != "") // c.p
		if !ok {
			continue
		}
		is.Equal(arg.Value, c.value)
		is.Equal(*arg.Parameter, c.p.Name)
		is.Equal(arg.Register, c.p.Location)
		if c.bits == "" {
			is.Equal(arg.Bits, nil)
		} else {
			is.Equal(*arg.Bits, c.bits)
		}
	}
}

// A hit's arguments under a placed signature are its parameters' in order,
// a typed one as one value; without a signature (or a variadic one), every
// register read, in hex, as before.
func TestTraceArgumentsOrder(t *testing.T) {
	is := is.New(t)
	h := ports.TraceHit{Arguments: []ports.TraceRegister{
		{Name: "rdi", Value: 3}, {Name: "rsi", Value: 7}, {Name: "xmm0", Value: 0x4004000000000000}, {Name: "xmm1", Value: 0x3f000000},
	}}
	sig := &traceSig{source: "dwarf", placed: true, params: []ports.Parameter{
		{Name: "x", Type: "double", Location: "xmm0"}, {Name: "k", Type: "int", Location: "rdi"}, {Name: "y", Type: "float", Location: "xmm1"},
	}}
	show := func(args []TraceArgument) (out []string) {
		for _, a := range args {
			n := "?"
			if a.Parameter != nil {
				n = *a.Parameter
			}
			out = append(out, n+"="+a.Value)
		}
		return out
	}
	is.Equal(show(sig.arguments(h, nil, nil)), []string{"x=2.5", "k=0x3", "y=0.5"})
	// An int's register holds it in its low 32 bits; a char's in 8; a
	// long's in all 64.
	h.Arguments[0].Value = 0x7fff00000003
	is.Equal(show(sig.arguments(h, nil, nil)), []string{"x=2.5", "k=0x3", "y=0.5"})
	sig.params[1].Type = "unsigned char"
	h.Arguments[0].Value = 0x7f41
	is.Equal(show(sig.arguments(h, nil, nil))[1], "k=0x41")
	sig.params[1].Type = "long int"
	is.Equal(show(sig.arguments(h, nil, nil))[1], "k=0x7f41")
	h.Arguments[0].Value = 3
	var none *traceSig
	is.Equal(show(none.arguments(h, nil, nil)), []string{"?=0x3", "?=0x7", "?=0x4004000000000000", "?=0x3f000000"})
}

// A parameter a specialized copy has as a constant (Location "none", gcc's
// mul.constprop.0's k) is an argument of every hit, in its place among the
// parameters: the constant in hex, from register "none", with the
// constant's text; an int's at its width, a double's as its text. Before,
// a hit had no argument for it.
func TestTraceConstantArguments(t *testing.T) {
	is := is.New(t)
	h := ports.TraceHit{Arguments: []ports.TraceRegister{{Name: "rdi", Value: 3}, {Name: "rsi", Value: 5}}}
	sig := &traceSig{source: "dwarf", placed: true, params: []ports.Parameter{
		{Name: "x", Type: "long int", Location: "rdi"}, {Name: "k", Type: "int", Location: "none", Constant: "-7"},
		{Name: "y", Type: "long int", Location: "rsi"}, {Name: "d", Type: "double", Location: "none", Constant: "2.5"},
		{Name: "e", Type: "int", Location: "none"}, // no constant the debug information gives: no argument
	}}
	var got []string
	for _, a := range sig.arguments(h, nil, nil) {
		c := "-"
		if a.Constant != nil {
			c = *a.Constant
		}
		got = append(got, fmt.Sprintf("%s=%s@%s(%s)", *a.Parameter, a.Value, a.Register, c))
	}
	is.Equal(got, []string{"x=0x3@rdi(-)", "k=0xfffffff9@none(-7)", "y=0x5@rsi(-)", "d=2.5@none(2.5)"})
}

// AArch64's long double, IEEE binary128, as shortest decimal text at its
// 113 bits: normal values, the least denormal, infinities and NaN.
func TestQuadText(t *testing.T) {
	for _, c := range []struct {
		hi, lo uint64
		text   string
	}{
		{0x3fff800000000000, 0, "1.5"},
		{0xc000400000000000, 0, "-2.5"},
		{0x3ffd555555555555, 0x5555555555555555, "0.3333333333333333333333333333333333"},
		{0, 1, "6.475175119438025110924438958227647e-4966"}, // 2^-16494
		{0x7fff000000000000, 0, "+Inf"},
		{0xffff000000000000, 0, "-Inf"},
		{0x7fff800000000000, 0, "NaN"},
		{0x8000000000000000, 0, "-0"},
	} {
		b := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, c.lo), c.hi)
		text, bits := quadText(b)
		if text != c.text || bits != fmt.Sprintf("0x%016x%016x", c.hi, c.lo) {
			t.Errorf("%016x%016x: %s %s, want %s", c.hi, c.lo, text, bits, c.text)
		}
	}
}

// A printf-style hit whose format the tracer understood: the fixed
// parameters, then each conversion's argument named by it and typed by it
// (a double from its register, a long long from two cdecl slots, a long
// double from its bytes beside the slot's word), no other register; when
// the format was not understood (Variadic nil), every register read.
func TestFormatArguments(t *testing.T) {
	is := is.New(t)
	show := func(args []TraceArgument) (out []string) {
		for _, a := range args {
			n := "?"
			if a.Parameter != nil {
				n = *a.Parameter
			}
			out = append(out, n+"@"+a.Register+"="+a.Value)
		}
		return out
	}
	sysv := prototypeSig("printf", ports.ConventionSysV)
	h := ports.TraceHit{Arguments: []ports.TraceRegister{
		{Name: "rdi", Value: 0x1000}, {Name: "rsi", Value: 0x2000}, {Name: "rdx", Value: 7}, {Name: "rcx", Value: 9}, {Name: "r8"}, {Name: "r9"},
		{Name: "xmm0", Value: 0x4004000000000000, Bytes: make([]byte, 16)},
	}, Variadic: []ports.Parameter{{Name: "%s", Type: "const char *", Location: "rsi"}, {Name: "%.1f", Type: "double", Location: "xmm0"}, {Name: "%d", Type: "int", Location: "rdx"}}}
	is.Equal(show(sysv.arguments(h, nil, nil)), []string{"format@rdi=0x1000", "%s@rsi=0x2000", "%.1f@xmm0=2.5", "%d@rdx=0x7"})
	h.Variadic = []ports.Parameter{}
	is.Equal(show(sysv.arguments(h, nil, nil)), []string{"format@rdi=0x1000"}) // a format of no conversion
	h.Variadic = nil
	is.Equal(len(sysv.arguments(h, nil, nil)), len(h.Arguments))

	// vfprintf's arguments come through its va_list, named va#1...; an
	// int is the low half of its 64-bit word.
	vf := prototypeSig("vfprintf", ports.ConventionSysV)
	is.Equal([]string{vf.format, vf.valist}, []string{"rsi", "rdx"})
	h = ports.TraceHit{Arguments: []ports.TraceRegister{
		{Name: "rdi", Value: 0x10}, {Name: "rsi", Value: 0x1000}, {Name: "rdx", Value: 0x20}, {Name: "rcx"}, {Name: "r8"}, {Name: "r9"},
		{Name: "va#1", Value: 0x550000002a}, {Name: "va#2", Value: 0x4004000000000000},
	}, Variadic: []ports.Parameter{{Name: "%d", Type: "int", Location: "va#1"}, {Name: "%f", Type: "double", Location: "va#2"}}}
	is.Equal(show(vf.arguments(h, nil, nil)), []string{"stream@rdi=0x10", "format@rsi=0x1000", "ap@rdx=0x20", "%d@va#1=0x2a", "%f@va#2=2.5"})

	cdecl := prototypeSig("printf", ports.ConventionCdecl)
	h = ports.TraceHit{Arguments: []ports.TraceRegister{
		{Name: "[esp+4]", Value: 0x1000}, {Name: "[esp+8]", Value: 0}, {Name: "[esp+12]", Value: 0x100}, {Name: "[esp+16]"}, {Name: "[esp+20]", Value: 0xc0000000}, {Name: "[esp+24]", Value: 0x3fff},
		{Name: "[esp+16]", Value: 0, Bytes: []byte{0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0x3f}},
	}, Variadic: []ports.Parameter{{Name: "%lld", Type: "long long", Location: "[esp+8],[esp+12]"}, {Name: "%Lg", Type: "long double", Location: "[esp+16]"}}}
	is.Equal(show(cdecl.arguments(h, nil, nil)), []string{"format@[esp+4]=0x1000", "%lld@[esp+8],[esp+12]=0x10000000000", "%Lg@[esp+16]=1.5"})
}

// A scanf-style hit: each conversion's pointer, with what the call stored
// through it as the conversion types it (an int in hex, a double, x87's
// and binary128's long double as decimal text, %c's characters as text);
// a conversion with nothing stored (not assigned) has none.
func TestScanArguments(t *testing.T) {
	is := is.New(t)
	sig := prototypeSig("__isoc99_sscanf@plt", ports.ConventionSysV)
	is.True(sig.scan)
	is.Equal(sig.format, "rsi")
	is.True(!sig.wide)
	for name, format := range map[string]string{"wprintf": "rdi", "swscanf@plt": "rsi", "vfwprintf": "rsi"} {
		w := prototypeSig(name, ports.ConventionSysV)
		is.True(w.wide) // a wchar_t format, read as such
		is.Equal(w.format, format)
		is.Equal(w.scan, strings.Contains(name, "scanf"))
	}
	le := func(v uint64, n int) []byte { return binary.LittleEndian.AppendUint64(nil, v)[:n] }
	h := ports.TraceHit{
		Arguments: []ports.TraceRegister{{Name: "rdi", Value: 0x10}, {Name: "rsi", Value: 0x20}, {Name: "rdx", Value: 0x30}, {Name: "rcx", Value: 0x40}, {Name: "r8", Value: 0x50}, {Name: "r9", Value: 0x60}, {Name: "[rsp+8]", Value: 0x70}, {Name: "[rsp+16]", Value: 0x80}, {Name: "[rsp+24]", Value: 0x90}, {Name: "[rsp+32]", Value: 0xa0}, {Name: "[rsp+40]", Value: 0xb0}},
		Variadic: []ports.Parameter{
			{Name: "%d", Type: "int *", Location: "rdx"}, {Name: "%lf", Type: "double *", Location: "rcx"}, {Name: "%Lf", Type: "long double *", Location: "r8"},
			{Name: "%2c", Type: "char *", Location: "r9"}, {Name: "%hhd", Type: "signed char *", Location: "[rsp+8]"}, {Name: "%Lg", Type: "long double *", Location: "[rsp+16]"},
			{Name: "%x", Type: "unsigned int *", Location: "[rsp+24]"}, {Name: "%3mc", Type: "char **", Location: "[rsp+32]"}, {Name: "%2lc", Type: "wchar_t *", Location: "[rsp+40]"},
		},
		Stored: []ports.TraceRegister{
			{Name: "rdx", Bytes: le(0x1f90, 4)}, {Name: "rcx", Bytes: le(0x4004000000000000, 8)},
			{Name: "r8", Bytes: []byte{0, 0, 0, 0, 0, 0, 0, 0x80, 0xfc, 0x3f}}, {Name: "r9", Bytes: []byte("ab")},
			{Name: "[rsp+8]", Bytes: []byte{0xff}}, {Name: "[rsp+16]", Bytes: append(make([]byte, 13), 0x80, 0xff, 0x3f)},
			{Name: "[rsp+32]", Bytes: []byte("xyz")}, {Name: "[rsp+40]", Bytes: []byte{'h', 0, 0, 0, 0xe9, 0, 0, 0}},
		},
	}
	var got []string
	for _, a := range sig.arguments(h, nil, nil) {
		v := *a.Parameter + "=" + a.Value
		if a.ValueAtReturn != nil {
			v += "→" + *a.ValueAtReturn
		}
		if a.StringAtReturn != nil {
			v += "→" + strconv.Quote(*a.StringAtReturn.Text)
		}
		got = append(got, v)
	}
	is.Equal(got, []string{"str=0x10", "format=0x20", "%d=0x30→0x1f90", "%lf=0x40→2.5", "%Lf=0x50→0.125", `%2c=0x60→"ab"`, "%hhd=0x70→0xff", "%Lg=0x80→1.5", "%x=0x90", `%3mc=0xa0→"xyz"`, `%2lc=0xb0→"hé"`})
}

// The result as the signature types it: a double in xmm0 or v0, a float
// in its low lane, x87's st0 rounded to the type, an 8-byte integer in
// edx:eax; an untyped result (nil) leaves the integer register.
func TestReturnValue(t *testing.T) {
	is := is.New(t)
	st0, _ := hex.DecodeString("abaaaaaaaaaaaaaafd3f")
	for _, c := range []struct {
		ret, conv   string
		regs        []ports.TraceRegister
		value, bits string
	}{
		{"double", "sysv-amd64", []ports.TraceRegister{{Name: "xmm0", Value: 0x4020000000000000}}, "8", "0x4020000000000000"},
		{"long double", "aapcs64", []ports.TraceRegister{{Name: "v0", Bytes: append(make([]byte, 13), 0x80, 0xff, 0x3f)}}, "1.5", "0x3fff8000000000000000000000000000"},
		{"float", "aapcs64", []ports.TraceRegister{{Name: "v0", Value: 0xffffffff3eaaaaab}}, "0.33333334", "0x3eaaaaab"},
		{"float", "cdecl", []ports.TraceRegister{{Name: "st0", Bytes: st0}}, "0.33333334", "0x3ffdaaaaaaaaaaaaaaab"},
		{"long long int", "cdecl", []ports.TraceRegister{{Name: "eax", Value: 0}, {Name: "edx", Value: 0x200}}, "0x20000000000", ""},
	} {
		sig := &traceSig{ret: c.ret}
		is.Equal(sig.returnRegisters(ports.CallingConvention(c.conv), ""), []string{c.regs[0].Name, c.regs[len(c.regs)-1].Name}[:len(c.regs)])
		v, bits, ok := sig.returnValue(ports.TraceHit{Returned: true, ReturnValue: 0x55, ReturnRegisters: c.regs})
		is.True(ok)
		is.Equal(v, c.value)
		if c.bits == "" {
			is.Equal(bits, nil)
		} else {
			is.Equal(*bits, c.bits)
		}
	}
	_, _, ok := (&traceSig{ret: "int"}).returnValue(ports.TraceHit{Returned: true, ReturnValue: 0x55})
	is.True(!ok)
	is.Equal((&traceSig{ret: "int"}).returnRegisters(ports.ConventionCdecl, "x86"), nil)
	is.Equal((&traceSig{ret: "double"}).returnRegisters(ports.ConventionGo, "arm64"), []string{"v0"})
	is.Equal((&traceSig{ret: "long double"}).returnRegisters(ports.ConventionSysV, "x86-64"), []string{"st0"})
}

// The libc prototypes place floating-point parameters in the next float
// register (SysV, AAPCS64) and, under cdecl, a double in two slots.
func TestFloatPrototypes(t *testing.T) {
	is := is.New(t)
	locs := func(name string, conv ports.CallingConvention) (out []string) {
		s := prototypeSig(name, conv)
		for _, p := range s.params {
			out = append(out, p.Location)
		}
		return out
	}
	is.Equal(locs("pow", ports.ConventionSysV), []string{"xmm0", "xmm1"})
	is.Equal(locs("ldexp", ports.ConventionSysV), []string{"xmm0", "rdi"})
	is.Equal(locs("ldexp", ports.ConventionAAPCS64), []string{"v0", "x0"})
	is.Equal(locs("pow", ports.ConventionCdecl), []string{"[esp+4],[esp+8]", "[esp+12],[esp+16]"})
	is.Equal(locs("powf", ports.ConventionCdecl), []string{"[esp+4]", "[esp+8]"})
	is.Equal(locs("strtod", ports.ConventionCdecl), []string{"[esp+4]", "[esp+8]"})
	is.Equal(prototypeSig("strtod", ports.ConventionCdecl).returnRegisters(ports.ConventionCdecl, "x86"), []string{"st0"})
	is.Equal(prototypeSig("atoll", ports.ConventionCdecl).returnRegisters(ports.ConventionCdecl, "x86"), []string{"eax", "edx"})
	is.Equal(prototypeSig("atoll", ports.ConventionSysV).returnRegisters(ports.ConventionSysV, "x86-64"), nil)
	is.True(slices.Contains(prototypeSig("pow", ports.ConventionAAPCS64).registers(), "v1"))
}

// Without a signature the arguments are the integer registers, as before,
// and the limitations say that a floating-point one is not read; cdecl's
// stack words hold them all, so it says nothing there.
func TestUnsignedLimitation(t *testing.T) {
	is := is.New(t)
	bps := []ports.TraceBreakpoint{{Name: "scale"}, {Name: "sub_1149"}, {Name: "puts"}}
	sigs := []*traceSig{{source: "dwarf"}, nil, {source: "libc-prototype"}}
	is.Equal(unsignedLimitation(bps, sigs, ports.ConventionSysV),
		"no debug information or libc prototype describes sub_1149: the integer argument registers are shown; a floating-point argument (xmm0-xmm7) or result (xmm0) is not read")
	is.True(strings.Contains(unsignedLimitation(bps, sigs, ports.ConventionAAPCS64), "(v0-v7) or result (v0)"))
	is.Equal(unsignedLimitation(bps, sigs, ports.ConventionCdecl), "")
	is.Equal(unsignedLimitation(bps[:1], sigs[:1], ports.ConventionSysV), "")
}

// TestResult: a hit's return value is the register in hex for an integer
// or unknown result, nothing for a void function (DWARF's "void", a C
// library prototype's) or a call that did not return, typed for a float.
func TestResult(t *testing.T) {
	is := is.New(t)
	ret := ports.TraceHit{Returned: true, ReturnValue: 0x55}
	for _, sig := range []*traceSig{nil, {ret: "int"}, {ret: ""}} {
		v, bits := sig.result(ret)
		is.Equal(*v, "0x55")
		is.Equal(bits, nil)
	}
	v, _ := (&traceSig{ret: "void"}).result(ret)
	is.Equal(v, nil)
	v, _ = (&traceSig{ret: "int"}).result(ports.TraceHit{ReturnValue: 0x55})
	is.Equal(v, nil)
	v, bits := (&traceSig{ret: "double"}).result(ports.TraceHit{Returned: true, ReturnRegisters: []ports.TraceRegister{{Name: "xmm0", Value: 0x4020000000000000}}})
	is.Equal(*v, "8")
	is.Equal(*bits, "0x4020000000000000")
	is.Equal(prototypeSig("free", ports.ConventionSysV).ret, "void")
}
