package libc

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A scanf-style format says what pointers follow it: every conversion
// takes one, which the function stores through, but a suppressed one
// (%*d), which reads input and stores nothing, %% and a literal; %n
// takes one too (the count of characters read so far, no assignment). A
// pointer is an integer-class word wherever it arrives, so Place places
// them as it places printf's %p.

// Dialect is the C library whose rules a format's text conversions follow,
// and whether the format is a wide function's (wprintf's, wscanf's).
//
// ISO C and glibc give the same rules to narrow and wide functions: %s
// and %c are char, %ls and %lc (and XSI's %S and %C) wchar_t. Microsoft's
// C runtime (msvcrt, and mingw-w64's programs on it by default) makes a
// wide function's %s and %c wchar_t and its %S and %C char, the
// reverse of its narrow functions'; there %hs and %hc are char and %ls
// and %lc wchar_t in every function, and I64, I32 and I are length
// modifiers (I64 long long, I32 int, I a pointer's size). The
// arguments' number and places are the same under every dialect; the
// text a tracer reads through a pointer differs.
type Dialect struct {
	MS   bool // Microsoft's C runtime's rules (a PE image's)
	Wide bool // a wide function's format (wchar_t text)
}

// ScanArg is one pointer a scanf conversion takes, and what the function
// stores through it.
type ScanArg struct {
	// FormatArg: Spec the conversion as written ("%31[^:]"), Type the
	// pointer's type ("int *", "char **" for %ms), Kind ArgWord.
	FormatArg
	// Elem is the type of what is stored ("int", "double", "char",
	// "wchar_t"; for %m the allocated text's element).
	Elem  string
	Text  bool // NUL-terminated text (%s, %[...])
	Wide  bool // the text or characters are wchar_t (%ls, %l[...], %lc)
	Alloc bool // POSIX's m: the function stores the address of text it allocated
	Count bool // %n: the count of characters read so far, no assignment
	// Chars is how many characters %c stores (its width, 1 without one),
	// with no NUL; 0 for other conversions.
	Chars int
}

// ParseScanf is the pointers a scanf format takes, in order, under ISO C's
// and glibc's rules (Dialect.Scanf).
func ParseScanf(f []byte) (args []ScanArg, ok bool) {
	return Dialect{}.Scanf(f)
}

// Scanf is the pointers a scanf format takes, in order, typed by what each
// conversion stores; ok is false at a conversion the scan does not know,
// a positional one (%1$d), an unterminated set, or m or a length modifier
// on a conversion that takes neither, leaving args those before it. A
// format is untrusted bytes: any gives at most one argument per byte,
// without panicking.
func (d Dialect) Scanf(f []byte) (args []ScanArg, ok bool) {
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
		suppress := i < len(f) && f[i] == '*'
		if suppress {
			i++
		}
		width := 0
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			width = min(width*10+int(f[i]-'0'), 1<<20)
			i++
		}
		if i < len(f) && f[i] == '$' {
			return args, false
		}
		alloc := i < len(f) && f[i] == 'm' // POSIX: the function allocates the text
		if alloc {
			i++
		}
		length, n := d.length(f[i:])
		if n < 0 {
			return args, false
		}
		i += n
		if i >= len(f) {
			return args, false
		}
		c := f[i]
		i++
		if c == '[' { // a set: ']' first (after '^') is a member; it ends at the next ']'
			if i < len(f) && f[i] == '^' {
				i++
			}
			if i < len(f) && f[i] == ']' {
				i++
			}
			end := bytes.IndexByte(f[i:], ']')
			if end < 0 {
				return args, false
			}
			i += end + 1
		}
		a := ScanArg{FormatArg: FormatArg{Spec: string(f[start:i]), Kind: ArgWord}}
		text := c == 's' || c == '[' || c == 'c' || c == 'S' || c == 'C'
		switch {
		case alloc && !text:
			return args, false
		case text:
			wide, known := d.wideText(c, length)
			if !known {
				return args, false
			}
			a.Wide, a.Alloc, a.Elem = wide, alloc, "char"
			if wide {
				a.Elem = "wchar_t"
			}
			a.Text = c != 'c' && c != 'C'
			if !a.Text {
				a.Chars = max(width, 1)
			}
			a.Type = a.Elem + " *"
		case c == 'p' && length == "":
			a.Elem, a.Type = "void *", "void **"
		case bytes.IndexByte([]byte("diouxXn"), c) >= 0 && length != "L":
			a.Elem, _ = IntType(length, c != 'd' && c != 'i' && c != 'n')
			a.Type, a.Count = a.Elem+" *", c == 'n'
		case bytes.IndexByte([]byte("aAeEfFgG"), c) >= 0:
			switch length {
			case "":
				a.Elem = "float"
			case "l":
				a.Elem = "double"
			case "L":
				a.Elem = "long double"
			default:
				return args, false
			}
			a.Type = a.Elem + " *"
		default:
			return args, false
		}
		if suppress {
			continue
		}
		if a.Alloc {
			a.Type += "*"
		}
		args = append(args, a)
	}
	return args, true
}

// length is the length modifier at the start of f, normalised to C's
// (hh h l ll j z t L; q is BSD's ll; Microsoft's I64 is ll, I32 none and
// I z), and how many bytes it takes; n is -1 when it is longer than C's.
func (d Dialect) length(f []byte) (mod string, n int) {
	if d.MS && len(f) > 0 && f[0] == 'I' {
		switch {
		case bytes.HasPrefix(f, []byte("I64")):
			return "ll", 3
		case bytes.HasPrefix(f, []byte("I32")):
			return "", 3
		}
		return "z", 1
	}
	for n < len(f) && bytes.IndexByte([]byte("hlqLjzt"), f[n]) >= 0 {
		n++
	}
	if n > 2 {
		return "", -1
	}
	mod = string(f[:n])
	if mod == "q" {
		mod = "ll"
	}
	return mod, n
}

// wideText is whether a text conversion (s, [, c, S, C) with length
// modifier length is wchar_t under d; known is false for a modifier C
// does not give it.
func (d Dialect) wideText(c byte, length string) (wide, known bool) {
	upper := c == 'S' || c == 'C'
	switch {
	case length == "l":
		return true, !upper
	case length == "h" && d.MS:
		return false, !upper
	case length != "":
		return false, false
	case d.MS && d.Wide:
		return !upper, true
	}
	return upper, true
}

// ScanfFormat is the position of the scanf format among the fixed
// parameters of name (as Lookup takes it) when the format describes its
// variadic arguments: scanf, sscanf, fscanf, glibc's __isoc99_ and
// __isoc23_ forms, and the wide ones (wscanf, swscanf, fwscanf); not the
// va_list forms (vsscanf), whose arguments are no call's.
func ScanfFormat(name string) (int, bool) {
	at, ok := formatParam(name)
	if !ok || !strings.Contains(name, "scanf") {
		return 0, false
	}
	return at, true
}

// WideFormat reports whether name's format parameter is wchar_t text
// (wprintf's, wscanf's).
func WideFormat(name string) bool {
	fn, ok := Lookup(name)
	return ok && slices.ContainsFunc(fn.Params, func(p Param) bool { return p.Name == "format" && p.Type == "const wchar_t *" })
}

// formatParam is the position of the format among the fixed parameters of
// a variadic function whose last fixed parameter is its format.
func formatParam(name string) (int, bool) {
	fn, ok := Lookup(name)
	if !ok || !fn.Variadic || len(fn.Params) == 0 || fn.Params[len(fn.Params)-1].Name != "format" {
		return 0, false
	}
	return len(fn.Params) - 1, true
}

// WideString is the UTF-8 text of wchar_t units of size unit (4: Linux's
// and the other ELF systems' UTF-32; 2: Windows's UTF-16), little-endian,
// up to a zero unit, and whether one came. A unit, or UTF-16 surrogate,
// that is no Unicode scalar value reads as U+FFFD; a partial last unit is
// left out; a unit size other than 2 or 4 reads nothing.
func WideString(b []byte, unit int) (text []byte, end bool) {
	switch unit {
	case 4:
		for ; len(b) >= 4; b = b[4:] {
			u := binary.LittleEndian.Uint32(b)
			if u == 0 {
				return text, true
			}
			r := rune(u)
			if u > utf8.MaxRune || !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			text = utf8.AppendRune(text, r)
		}
	case 2:
		for ; len(b) >= 2; b = b[2:] {
			u := rune(binary.LittleEndian.Uint16(b))
			switch {
			case u == 0:
				return text, true
			case utf16.IsSurrogate(u) && len(b) >= 4:
				r := utf16.DecodeRune(u, rune(binary.LittleEndian.Uint16(b[2:])))
				if r != utf8.RuneError {
					b = b[2:]
				}
				u = r
			case utf16.IsSurrogate(u):
				u = utf8.RuneError
			}
			text = utf8.AppendRune(text, u)
		}
	}
	return text, false
}
