package process

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"rea/ports"
	"rea/ports/libc"
)

// traceSig is what a trace knows of one breakpoint's parameters before it
// runs: the open analysis's debug information for a procedure of the
// program, or the C library's prototype for a function it imports. A
// parameter's Location is the register it arrives in, or registers joined
// by "," for a value of several parts (Go's string: pointer, length).
type traceSig struct {
	source string // dwarf or libc-prototype
	params []ports.Parameter
	ret    string // the result's type; "" when unknown
	// placed: every parameter arrives in a known register and there are no
	// variadic ones, so a hit keeps only those registers (the rest hold
	// whatever the caller left there, which differs from run to run).
	placed bool
	// format is the register of a printf-style format whose arguments
	// are read too, or ""; scan says it is scanf-style (its arguments are
	// pointers, what they point at read at the return).
	format string
	scan   bool
	wide   bool // the format is wchar_t text (wprintf's)
	// valist is the register of the va_list the format's arguments come
	// from (vprintf's ap), or "": they follow the format otherwise.
	valist string
	// of is the public function whose prototype an IFUNC implementation
	// took (strcmp for __strcmp_avx2), or "".
	of string
}

// cString matches a pointer to char, which a call's argument register
// holds as the address of NUL-terminated text; constString one to const
// char, which the function only reads.
var (
	cString     = regexp.MustCompile(`^(const )?((un)?signed )?char( const)? ?\*$`)
	constString = regexp.MustCompile(`^const |char const ?\*$`)
)

// strings is the registers of the parameters whose text is read when the
// call begins: every char pointer, except that a C library prototype's
// char pointer without const is a buffer the function fills (sprintf's,
// strcpy's destination), which holds nothing yet.
func (s *traceSig) strings() []string {
	return s.texts(func(typ string) bool { return s.source != "libc-prototype" || constString.MatchString(typ) })
}

// returnStrings is the registers of the parameters whose text is read when
// the call returns: the char pointers without const, buffers the function
// may fill.
func (s *traceSig) returnStrings() []string {
	return s.texts(func(typ string) bool { return !constString.MatchString(typ) })
}

func (s *traceSig) texts(keep func(typ string) bool) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, p := range s.params {
		if typ := cmp.Or(p.Underlying, p.Type); p.Location != "" && p.Location != "stack" && p.Location != "none" && cString.MatchString(typ) && keep(typ) {
			out = append(out, p.Location)
		}
	}
	return out
}

// spans is the pointer and length registers of the Go parameters whose
// text has a known length: a string (pointer, length) and a []byte
// (pointer, length, capacity; []uint8 in Go's debug information).
func (s *traceSig) spans() []ports.TraceSpan {
	if s == nil {
		return nil
	}
	var out []ports.TraceSpan
	for _, p := range s.params {
		regs, typ := strings.Split(p.Location, ","), cmp.Or(p.Underlying, p.Type)
		if typ == "string" && len(regs) == 2 || typ == "[]uint8" && len(regs) == 3 {
			out = append(out, ports.TraceSpan{Pointer: regs[0], Length: regs[1]})
		}
	}
	return out
}

// byRegister is the name of the parameter, or of its part, each register
// carries. A value in several registers (Go's string, slice, interface,
// struct) names its first by the parameter and the others by their part:
// s.len for a string's length, b.len and b.cap for a slice's, v.1, v.2
// for the words of any other.
func (s *traceSig) byRegister() map[string]string {
	if s == nil {
		return nil
	}
	out := map[string]string{}
	for _, p := range s.params {
		if p.Location == "" || p.Location == "stack" || p.Location == "none" {
			continue
		}
		for k, r := range strings.Split(p.Location, ",") {
			name := p.Name
			switch {
			case k == 0 || p.Name == "":
			case p.Type == "string" || strings.HasPrefix(p.Type, "[]") || p.Underlying == "string" || strings.HasPrefix(p.Underlying, "[]"):
				name += []string{"", ".len", ".cap"}[min(k, 2)]
			default:
				name += "." + strconv.Itoa(k)
			}
			out[r] = name
		}
	}
	return out
}

// prototypeSig is the C library's prototype of name (an import, name@plt,
// or a versioned name@GLIBC_2.2.5) under conv, or nil. An IFUNC
// implementation (__strcmp_avx2) gets its public function's (strcmp's):
// the resolver picks it to be that function.
func prototypeSig(name string, conv ports.CallingConvention) *traceSig {
	regs, floats := ports.ArgumentRegisters(conv, "")
	base, _, _ := strings.Cut(name, "@")
	fn, ok := libc.Lookup(base)
	of := ""
	if !ok {
		if of = ifuncPublic(base); of != "" {
			base = of
			fn, ok = libc.Lookup(of)
		}
	}
	if !ok || regs == nil && conv != ports.ConventionCdecl { // Go's has no C prototypes
		return nil
	}
	s := &traceSig{source: "libc-prototype", placed: true, ret: fn.Result, of: of}
	ni, nf, slot := 0, 0, 4 // the next integer and floating-point registers, cdecl's next slot
	for _, prm := range fn.Params {
		p := ports.Parameter{Name: prm.Name, Type: prm.Type}
		switch fb := floatBits(p.Type); {
		case conv == ports.ConventionCdecl && (fb == 64 || wideInt(p.Type)):
			p.Location, slot = fmt.Sprintf("[esp+%d],[esp+%d]", slot, slot+4), slot+8
		case conv == ports.ConventionCdecl:
			p.Location, slot = fmt.Sprintf("[esp+%d]", slot), slot+4
		case fb != 0 && nf < len(floats):
			p.Location, nf = floats[nf], nf+1
		case fb == 0 && ni < len(regs):
			p.Location, ni = regs[ni], ni+1
		default:
			p.Location, s.placed = "stack", false
		}
		if p.Type == "va_list" && len(s.params) > 0 && s.params[len(s.params)-1].Name == "format" {
			// vprintf's arguments are the va_list's.
			s.format, s.valist = s.params[len(s.params)-1].Location, p.Location
			s.scan, s.wide = strings.HasSuffix(base, "scanf"), libc.WideFormat(base)
		}
		s.params = append(s.params, p)
	}
	if fn.Variadic {
		s.placed = false
		// printf's %s arguments are text it reads; scanf's are
		// pointers it stores through, read at the return.
		if n := len(s.params); n > 0 && s.params[n-1].Name == "format" {
			s.format, s.scan, s.wide = s.params[n-1].Location, strings.HasSuffix(base, "scanf"), libc.WideFormat(base)
		}
	}
	return s
}

// ifuncVariants are the words glibc's IFUNC implementations add to their
// function's name: the instruction set or CPU they are for and how
// (__memmove_avx_unaligned_erms, __strlen_sse2_bsf, __memcpy_thunderx2).
var ifuncVariants = map[string]bool{
	"sse2": true, "sse3": true, "ssse3": true, "sse41": true, "sse42": true, "avx": true, "avx2": true, "avx512": true,
	"evex": true, "evex512": true, "rtm": true, "movbe": true, "unaligned": true, "aligned": true, "erms": true,
	"no": true, "vzeroupper": true, "bsf": true, "rep": true, "back": true, "ia32": true, "generic": true,
	"simd": true, "nosimd": true, "asimd": true, "sve": true, "mte": true, "a64fx": true, "falkor": true,
	"thunderx": true, "thunderx2": true, "emag": true, "kunpeng": true, "oryon1": true, "zva64": true, "mops": true,
}

// ifuncPublic is the C library function an IFUNC implementation's name
// implements ("strcmp" for __strcmp_avx2), or "": the name is "__", a
// function the prototypes know, and one or more variant words. The longest
// known function wins, and every word after it must be a variant, so a
// checking or locale variant (__memcpy_chk_erms, __strcasecmp_l_avx) gets
// no prototype of a function whose parameters differ from its own.
func ifuncPublic(name string) string {
	rest, ok := strings.CutPrefix(name, "__")
	if !ok {
		return ""
	}
	rest = strings.NewReplacer("sse4_1", "sse41", "sse4_2", "sse42").Replace(rest)
	words := strings.Split(rest, "_")
	for n := len(words) - 1; n >= 1; n-- {
		if !ifuncVariants[words[n]] {
			return ""
		}
		if fn := strings.Join(words[:n], "_"); fn != "" {
			if _, ok := libc.Lookup(fn); ok {
				return fn
			}
		}
	}
	return ""
}

// dwarfSig is the debug information's signature of the procedure at addr,
// or nil when it does not place every parameter or takes variadic ones.
func dwarfSig(ctx context.Context, a ports.Analysis, addr uint64) *traceSig {
	sr, ok := a.(ports.SignatureReader)
	if !ok {
		return nil
	}
	sig, err := sr.Signature(ctx, addr)
	if err != nil || sig.Variadic || sig.Source != "dwarf" {
		return nil
	}
	for _, p := range sig.Parameters {
		if p.Location == "" {
			return nil
		}
	}
	return &traceSig{source: "dwarf", params: sig.Parameters, placed: true, ret: cmp.Or(sig.ReturnUnderlying, sig.ReturnType)}
}

// effectiveConvention is the convention arguments are read under: the
// requested one, else the platform's C convention for the architecture.
func effectiveConvention(conv ports.CallingConvention, arch string) ports.CallingConvention {
	if conv != "" {
		return conv
	}
	switch arch {
	case "x86_64", "x86-64", "amd64":
		return ports.ConventionSysV
	case "aarch64", "arm64":
		return ports.ConventionAAPCS64
	case "x86", "i386", "386":
		return ports.ConventionCdecl
	}
	return ""
}

// traceText renders bytes read from the traced program as a JSON string:
// valid UTF-8 as it is, any other byte as \xNN.
func traceText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&sb, `\x%02x`, b[0])
			b = b[1:]
			continue
		}
		sb.Write(b[:n])
		b = b[n:]
	}
	return sb.String()
}
