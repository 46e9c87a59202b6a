package libc

import (
	"bytes"
	"cmp"
	"strings"
)

// A printf-style format says what the variadic arguments after it are:
// each conversion takes one (a * width or precision takes an int first),
// of a type its length modifier and conversion character give. Where each
// arrives follows from the types and the convention (Place): an integer
// or pointer in the next integer register, a double in the next
// floating-point one (the C conventions pass variadic doubles there on
// x86-64 and Linux AArch64), and past those on the stack in order; every
// argument on the stack under cdecl, where a double or a long long takes
// two slots. The tracer reads a format at run time (adapters/gdbremote),
// value flow reads a constant one from the image (adapters/native). A
// scanf format's conversions are pointers (scanf.go).

// FormatArg is one argument a conversion reads.
type FormatArg struct {
	Spec string // the conversion as written ("%.2f"), or "*" for a width or precision
	Type string // the C type the conversion reads
	Kind ArgKind
}

// ArgKind is how an argument is passed.
type ArgKind uint8

const (
	ArgWord       ArgKind = iota // an int, long, size_t or pointer: one register or slot
	ArgText                      // a char pointer whose text is read
	ArgWideText                  // a wchar_t pointer whose text is read (4-byte units on Linux, 2 on Windows)
	ArgLongLong                  // 8 bytes: two slots on 32-bit x86, one word elsewhere
	ArgDouble                    // a double: a floating-point register, else 8 bytes of stack
	ArgLongDouble                // x87's 80 bits in 16 bytes of stack (12 on 32-bit x86); AArch64's binary128 in a v register
)

// ParseFormat is the arguments a printf format takes, in order, under ISO
// C's and glibc's rules (Dialect.Printf).
func ParseFormat(f []byte) (args []FormatArg, ok bool) {
	return Dialect{}.Printf(f)
}

// Printf is the arguments a printf format takes, in order; ok is false
// when it holds a conversion the scan does not know or a positional one
// (%1$s), after which the arguments' places are not known: args is then
// those before it. A format is untrusted bytes: any gives at most one
// argument per byte, without panicking.
func (d Dialect) Printf(f []byte) (args []FormatArg, ok bool) {
	for i := 0; i < len(f); {
		if f[i] != '%' {
			i++
			continue
		}
		start := i
		i++
		if i < len(f) && f[i] == '%' {
			i++
			continue
		}
		for i < len(f) && bytes.IndexByte([]byte("-+ #0'"), f[i]) >= 0 {
			i++
		}
		digits := func() bool {
			n := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i, n = i+1, n+1
			}
			return n > 0
		}
		if i < len(f) && f[i] == '*' {
			args, i = append(args, FormatArg{Spec: "*", Type: "int", Kind: ArgWord}), i+1
		} else if digits() && i < len(f) && f[i] == '$' {
			return args, false
		}
		if i < len(f) && f[i] == '.' {
			i++
			if i < len(f) && f[i] == '*' {
				args, i = append(args, FormatArg{Spec: "*", Type: "int", Kind: ArgWord}), i+1
			} else {
				digits()
			}
		}
		length, n := d.length(f[i:])
		if n < 0 || i+n >= len(f) {
			return args, false
		}
		i += n
		c := f[i]
		i++
		a := FormatArg{Spec: string(f[start:i])}
		wide, known := d.wideText(c, length)
		switch {
		case c == 'm' && !d.MS: // glibc: strerror(errno), no argument
			continue
		case (c == 's' || c == 'S') && known && !wide:
			a.Type, a.Kind = "const char *", ArgText
		case (c == 's' || c == 'S') && known:
			a.Type, a.Kind = "const wchar_t *", ArgWideText
		case c == 'p':
			a.Type = "void *"
		case c == 'n':
			a.Type = "int *"
		case (c == 'c' || c == 'C') && known && wide:
			a.Type = "wint_t"
		case (c == 'c' || c == 'C') && known:
			a.Type = "int"
		case bytes.IndexByte([]byte("diouxX"), c) >= 0:
			a.Type, a.Kind = IntType(length, c != 'd' && c != 'i')
		case bytes.IndexByte([]byte("fFeEgGaA"), c) >= 0 && length == "L":
			a.Type, a.Kind = "long double", ArgLongDouble
		case bytes.IndexByte([]byte("fFeEgGaA"), c) >= 0:
			a.Type, a.Kind = "double", ArgDouble
		default:
			return args, false
		}
		args = append(args, a)
	}
	return args, true
}

// IntType is the C type an integer conversion with length modifier length
// reads, and whether it takes 8 bytes on a 32-bit target.
func IntType(length string, unsigned bool) (string, ArgKind) {
	u := ""
	if unsigned {
		u = "unsigned "
	}
	switch length {
	case "ll", "q", "L", "j":
		return u + "long long", ArgLongLong
	case "l":
		return u + "long", ArgWord
	case "z":
		return "size_t", ArgWord
	case "t":
		return "ptrdiff_t", ArgWord
	case "h":
		return u + "short", ArgWord
	case "hh":
		return cmp.Or(u, "signed ") + "char", ArgWord
	}
	return u + "int", ArgWord
}

// PrintfFormat is the position of the printf format among the fixed
// parameters of name (as Lookup takes it) when a printf format describes
// its variadic arguments (printf, fprintf, snprintf, syslog, error,
// _FORTIFY_SOURCE's __printf_chk family, and the wide wprintf, fwprintf,
// swprintf and their __*_chk forms: WideFormat); not the va_list forms
// (vprintf), whose arguments are no call's, nor scanf's, whose format
// describes pointers.
func PrintfFormat(name string) (int, bool) {
	at, ok := formatParam(name)
	if !ok || strings.Contains(name, "scanf") {
		return 0, false
	}
	return at, true
}

// Convention is what placing a C call's arguments needs of its calling
// convention.
type Convention struct {
	// Ints and Floats are how many integer and floating-point argument
	// registers it has: none under cdecl, which passes everything on the
	// stack.
	Ints, Floats int
	// Word is the size of a register and a stack slot: 8, or 4 on 32-bit
	// x86.
	Word int
	// LongDoubleInMemory: a long double is always passed in 16 bytes of
	// stack (x86-64 System V's x87 value), not in a floating-point
	// register (AArch64's binary128).
	LongDoubleInMemory bool
	// Positional: the i-th argument goes in the i-th register of its
	// class, a variadic double in both (Microsoft x64).
	Positional bool
}

// Place is where one argument arrives: in registers, by their index among
// the convention's argument registers of each class, or on the stack.
type Place struct {
	// Int and Float are the argument registers holding it, -1 for none;
	// Microsoft x64 passes a variadic double in both.
	Int, Float int
	// Stack is where its bytes begin, as an offset from where the stack
	// arguments begin (past the return address on x86, at the stack
	// pointer on AArch64, past the home area under Microsoft x64), and
	// Size how many bytes it takes there; 0 when it is in registers.
	Stack, Size int
}

// Place is where each argument a format takes arrives after fixed
// integer or pointer parameters (printf's format, fprintf's stream and
// format); ok is false when the convention cannot pass one of them as C
// does (a long double under Microsoft x64).
func (c Convention) Place(fixed int, args []FormatArg) (places []Place, ok bool) {
	if c.Word <= 0 {
		return nil, false
	}
	ni, nf := fixed, 0
	off := 0 // the next stack offset
	switch {
	case c.Positional:
		off = max(0, fixed-c.Ints) * c.Word
	case c.Ints == 0: // cdecl: the fixed slots
		off = fixed * c.Word
	default:
		off = max(0, fixed-c.Ints) * c.Word
	}
	stack := func(size, align int) Place {
		off = (off + align - 1) / align * align
		p := Place{Int: -1, Float: -1, Stack: off, Size: size}
		off += size
		return p
	}
	for _, a := range args {
		fp := a.Kind == ArgDouble || a.Kind == ArgLongDouble
		switch {
		case c.Positional && a.Kind == ArgLongDouble:
			return nil, false
		case c.Positional && ni < c.Ints && fp:
			places = append(places, Place{Int: ni, Float: ni})
			ni++
		case c.Positional && ni < c.Ints:
			places = append(places, Place{Int: ni, Float: -1})
			ni++
		case c.Positional:
			places = append(places, stack(c.Word, c.Word))
		case a.Kind == ArgLongDouble && c.Ints == 0: // cdecl: x87's 10 bytes in 12
			places = append(places, stack(12, c.Word))
		case a.Kind == ArgLongDouble && c.LongDoubleInMemory:
			places = append(places, stack(16, 16))
		case fp && nf < c.Floats:
			places = append(places, Place{Int: -1, Float: nf})
			nf++
		case a.Kind == ArgLongDouble: // AArch64 past v7
			places = append(places, stack(16, 16))
		case a.Kind == ArgDouble || a.Kind == ArgLongLong && c.Word == 4:
			places = append(places, stack(8, c.Word))
		case ni < c.Ints:
			places = append(places, Place{Int: ni, Float: -1})
			ni++
		default:
			places = append(places, stack(c.Word, c.Word))
		}
	}
	return places, true
}
