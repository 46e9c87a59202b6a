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
	// valist is the register of the va_list the format's arguments come
	// from (vprintf's ap), or "": they follow the format otherwise.
	valist string
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

// libcPrototypes are the C library functions whose arguments a trace can
// name: most of those that take text (paths, commands, formats, names,
// compared strings). "..." ends a variadic one. An import of the same name
// is the C library's function.
var libcPrototypes = map[string]string{
	"strcmp": "const char *s1, const char *s2", "strncmp": "const char *s1, const char *s2, size_t n",
	"strcasecmp": "const char *s1, const char *s2", "strncasecmp": "const char *s1, const char *s2, size_t n",
	"strcoll": "const char *s1, const char *s2", "strlen": "const char *s", "strnlen": "const char *s, size_t maxlen",
	"strstr": "const char *haystack, const char *needle", "strcasestr": "const char *haystack, const char *needle",
	"strchr": "const char *s, int c", "strrchr": "const char *s, int c", "strdup": "const char *s",
	"strndup": "const char *s, size_t n", "strcpy": "char *dest, const char *src", "strncpy": "char *dest, const char *src, size_t n",
	"strcat": "char *dest, const char *src", "strncat": "char *dest, const char *src, size_t n", "strtok": "char *str, const char *delim",
	"strspn": "const char *s, const char *accept", "strcspn": "const char *s, const char *reject", "strpbrk": "const char *s, const char *accept",
	"atoi": "const char *nptr", "atol": "const char *nptr", "atof": "const char *nptr",
	"strtol": "const char *nptr, char **endptr, int base", "strtoul": "const char *nptr, char **endptr, int base",
	"strtoll": "const char *nptr, char **endptr, int base", "strtoull": "const char *nptr, char **endptr, int base", "strtod": "const char *nptr, char **endptr",
	"puts": "const char *s", "fputs": "const char *s, FILE *stream", "perror": "const char *s",
	"printf": "const char *format, ...", "fprintf": "FILE *stream, const char *format, ...", "dprintf": "int fd, const char *format, ...",
	"sprintf": "char *str, const char *format, ...", "snprintf": "char *str, size_t size, const char *format, ...",
	"syslog": "int priority, const char *format, ...", "sscanf": "const char *str, const char *format, ...", "scanf": "const char *format, ...",
	"fscanf": "FILE *stream, const char *format, ...", "__isoc99_sscanf": "const char *str, const char *format, ...",
	"__isoc99_scanf": "const char *format, ...", "__isoc99_fscanf": "FILE *stream, const char *format, ...",
	"__isoc23_sscanf": "const char *str, const char *format, ...", "__isoc23_scanf": "const char *format, ...",
	"__isoc23_fscanf": "FILE *stream, const char *format, ...",
	// _FORTIFY_SOURCE's checked forms (Ubuntu builds with it by default).
	"__printf_chk": "int flag, const char *format, ...", "__fprintf_chk": "FILE *stream, int flag, const char *format, ...",
	"__dprintf_chk": "int fd, int flag, const char *format, ...", "__syslog_chk": "int priority, int flag, const char *format, ...",
	"__sprintf_chk":  "char *str, int flag, size_t strlen, const char *format, ...",
	"__snprintf_chk": "char *str, size_t maxlen, int flag, size_t strlen, const char *format, ...",
	"__strcpy_chk":   "char *dest, const char *src, size_t destlen", "__stpcpy_chk": "char *dest, const char *src, size_t destlen",
	"__strcat_chk": "char *dest, const char *src, size_t destlen",
	// The va_list forms, which logging wrappers call.
	"vprintf": "const char *format, va_list ap", "vfprintf": "FILE *stream, const char *format, va_list ap",
	"vdprintf": "int fd, const char *format, va_list ap", "vsyslog": "int priority, const char *format, va_list ap",
	"vsprintf": "char *str, const char *format, va_list ap", "vsnprintf": "char *str, size_t size, const char *format, va_list ap",
	"vasprintf": "char **strp, const char *format, va_list ap", "__vprintf_chk": "int flag, const char *format, va_list ap",
	"__vfprintf_chk": "FILE *stream, int flag, const char *format, va_list ap", "__vdprintf_chk": "int fd, int flag, const char *format, va_list ap",
	"__vsyslog_chk":   "int priority, int flag, const char *format, va_list ap",
	"__vsprintf_chk":  "char *str, int flag, size_t slen, const char *format, va_list ap",
	"__vsnprintf_chk": "char *str, size_t maxlen, int flag, size_t slen, const char *format, va_list ap",
	"vsscanf":         "const char *str, const char *format, va_list ap", "__isoc99_vsscanf": "const char *str, const char *format, va_list ap",
	"__isoc23_vsscanf": "const char *str, const char *format, va_list ap", "__strncpy_chk": "char *dest, const char *src, size_t n, size_t destlen",
	"open": "const char *pathname, int flags, ...", "open64": "const char *pathname, int flags, ...", "creat": "const char *pathname, unsigned int mode",
	"openat": "int dirfd, const char *pathname, int flags, ...", "fopen": "const char *pathname, const char *mode",
	"fopen64": "const char *pathname, const char *mode", "freopen": "const char *pathname, const char *mode, FILE *stream",
	"access": "const char *pathname, int mode", "unlink": "const char *pathname", "remove": "const char *pathname",
	"rmdir": "const char *pathname", "mkdir": "const char *pathname, unsigned int mode", "chdir": "const char *path",
	"chmod": "const char *pathname, unsigned int mode", "chown": "const char *pathname, unsigned int owner, unsigned int group",
	"rename": "const char *oldpath, const char *newpath", "link": "const char *oldpath, const char *newpath",
	"symlink": "const char *target, const char *linkpath", "readlink": "const char *pathname, char *buf, size_t bufsiz",
	"realpath": "const char *path, char *resolved_path", "opendir": "const char *name", "truncate": "const char *path, long length",
	"stat": "const char *pathname, void *statbuf", "lstat": "const char *pathname, void *statbuf",
	"getenv": "const char *name", "secure_getenv": "const char *name", "setenv": "const char *name, const char *value, int overwrite",
	"unsetenv": "const char *name", "putenv": "char *string", "system": "const char *command", "popen": "const char *command, const char *type",
	"execve": "const char *pathname, char **argv, char **envp", "execv": "const char *pathname, char **argv",
	"execvp": "const char *file, char **argv", "execl": "const char *pathname, const char *arg, ...", "execlp": "const char *file, const char *arg, ...",
	"dlopen": "const char *filename, int flags", "dlsym": "void *handle, const char *symbol",
	"inet_addr": "const char *cp", "inet_aton": "const char *cp, void *inp", "inet_pton": "int af, const char *src, void *dst",
	"gethostbyname": "const char *name", "getaddrinfo": "const char *node, const char *service, const void *hints, void **res",
	"getpwnam": "const char *name", "getgrnam": "const char *name", "setlocale": "int category, const char *locale",
	"bindtextdomain": "const char *domainname, const char *dirname", "textdomain": "const char *domainname",
	"gettext": "const char *msgid", "dcgettext": "const char *domainname, const char *msgid, int category",
	"stpcpy": "char *dest, const char *src", "fgets": "char *s, int size, FILE *stream", "getcwd": "char *buf, size_t size",
	"gethostname": "char *name, size_t len", "mkstemp": "char *template", "mkdtemp": "char *template", "mktemp": "char *template",
	"atoll": "const char *nptr", "strtof": "const char *nptr, char **endptr", "strtold": "const char *nptr, char **endptr",
	"pow": "double x, double y", "powf": "float x, float y", "sqrt": "double x", "sqrtf": "float x", "exp": "double x", "log": "double x",
	"log10": "double x", "sin": "double x", "cos": "double x", "tan": "double x", "atan2": "double y, double x", "fmod": "double x, double y",
	"fabs": "double x", "floor": "double x", "ceil": "double x", "round": "double x", "ldexp": "double x, int exp",
}

// libcResults are the results of the prototypes that are not an integer
// or pointer of a register (a floating-point one, or 8 bytes on 32-bit
// x86), by their function.
var libcResults = map[string]string{
	"atof": "double", "strtod": "double", "strtof": "float", "strtold": "long double", "atoll": "long long", "strtoll": "long long",
	"strtoull": "unsigned long long", "pow": "double", "powf": "float", "sqrt": "double", "sqrtf": "float", "exp": "double",
	"log": "double", "log10": "double", "sin": "double", "cos": "double", "tan": "double", "atan2": "double", "fmod": "double",
	"fabs": "double", "floor": "double", "ceil": "double", "round": "double", "ldexp": "double",
}

// prototypeSig is the C library's prototype of name (an import, name@plt,
// or a versioned name@GLIBC_2.2.5) under conv, or nil.
func prototypeSig(name string, conv ports.CallingConvention) *traceSig {
	regs, floats := ports.ArgumentRegisters(conv, "")
	base, _, _ := strings.Cut(name, "@")
	proto, ok := libcPrototypes[base]
	if !ok || regs == nil && conv != ports.ConventionCdecl { // Go's has no C prototypes
		return nil
	}
	s := &traceSig{source: "libc-prototype", placed: true, ret: libcResults[base]}
	ni, nf, slot := 0, 0, 4 // the next integer and floating-point registers, cdecl's next slot
	for _, decl := range strings.Split(proto, ", ") {
		if decl == "..." {
			s.placed = false
			// printf's %s arguments are text it reads; scanf's are
			// pointers it stores through, read at the return.
			if n := len(s.params); n > 0 && s.params[n-1].Name == "format" {
				s.format, s.scan = s.params[n-1].Location, strings.HasSuffix(base, "scanf")
			}
			break
		}
		cut := strings.LastIndexAny(decl, " *") + 1
		p := ports.Parameter{Name: decl[cut:], Type: strings.TrimSpace(decl[:cut])}
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
			s.scan = strings.HasSuffix(base, "scanf")
		}
		s.params = append(s.params, p)
	}
	return s
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
