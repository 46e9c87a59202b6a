package libc

import (
	"strings"
	"sync"
)

// Function is a C library function's prototype.
type Function struct {
	// Params are the fixed parameters, in order. They are shared: a caller
	// must not modify them.
	Params []Param
	// Variadic: "..." follows the fixed parameters (printf).
	Variadic bool
	// Result is the result's type when it is not an integer or pointer of
	// a register (a floating-point one, 8 bytes on 32-bit x86, or "void"),
	// else "".
	Result string
}

// Param is one parameter of a prototype, as written in it.
type Param struct {
	Name string // "format"
	Type string // "const char *"
}

// Lookup returns the prototype of name: a C library function, an import
// of one (an import of the same name is the C library's function), its
// PLT stub (name@plt) or a versioned name (name@GLIBC_2.2.5).
func Lookup(name string) (Function, bool) {
	base, _, _ := strings.Cut(name, "@")
	fn, ok := parsed()[base]
	return fn, ok
}

// parsed is the prototypes, parsed once.
var parsed = sync.OnceValue(func() map[string]Function {
	out := make(map[string]Function, len(prototypes))
	for name, proto := range prototypes {
		fn := Function{Result: results[name]}
		if proto == "void" { // no parameters
			out[name] = fn
			continue
		}
		for decl := range strings.SplitSeq(proto, ", ") {
			if decl == "..." {
				fn.Variadic = true
				break
			}
			cut := strings.LastIndexAny(decl, " *") + 1
			fn.Params = append(fn.Params, Param{Name: decl[cut:], Type: strings.TrimSpace(decl[:cut])})
		}
		out[name] = fn
	}
	return out
})

// prototypes are the C library functions whose arguments a trace can
// name and whose arity value flow uses: most of those that take text
// (paths, commands, formats, names, compared strings), some of the
// mathematical ones, and the common memory, stream, descriptor and process
// ones. "..." ends a variadic one, "void" is no parameter. A function
// pointer is written "void *".
var prototypes = map[string]string{
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
	// The wide forms: a wchar_t format (4-byte units on Linux, 2 on
	// Windows). swprintf is C99's, with a count (msvcrt's legacy export of
	// that name has none; mingw-w64's headers call the counted one).
	"wprintf": "const wchar_t *format, ...", "fwprintf": "FILE *stream, const wchar_t *format, ...",
	"swprintf": "wchar_t *s, size_t n, const wchar_t *format, ...", "__wprintf_chk": "int flag, const wchar_t *format, ...",
	"__fwprintf_chk": "FILE *stream, int flag, const wchar_t *format, ...",
	"__swprintf_chk": "wchar_t *s, size_t n, int flag, size_t slen, const wchar_t *format, ...",
	"wscanf":         "const wchar_t *format, ...", "fwscanf": "FILE *stream, const wchar_t *format, ...",
	"swscanf": "const wchar_t *s, const wchar_t *format, ...", "__isoc99_wscanf": "const wchar_t *format, ...",
	"__isoc99_fwscanf": "FILE *stream, const wchar_t *format, ...", "__isoc99_swscanf": "const wchar_t *s, const wchar_t *format, ...",
	"__isoc23_wscanf": "const wchar_t *format, ...", "__isoc23_fwscanf": "FILE *stream, const wchar_t *format, ...",
	"__isoc23_swscanf": "const wchar_t *s, const wchar_t *format, ...",
	"vwprintf":         "const wchar_t *format, va_list ap", "vfwprintf": "FILE *stream, const wchar_t *format, va_list ap",
	"vswprintf": "wchar_t *s, size_t n, const wchar_t *format, va_list ap",
	// UCRT's entry points, which its headers' printf and scanf families
	// call (ucrtbase.dll, api-ms-win-crt-stdio-l1-1-0.dll): options, the
	// stream or buffer, the format, a locale and the va_list.
	"__stdio_common_vfprintf":     "unsigned long long options, FILE *stream, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vfprintf_s":   "unsigned long long options, FILE *stream, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vfprintf_p":   "unsigned long long options, FILE *stream, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vsprintf":     "unsigned long long options, char *str, size_t size, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vsprintf_s":   "unsigned long long options, char *str, size_t size, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vsprintf_p":   "unsigned long long options, char *str, size_t size, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vsnprintf_s":  "unsigned long long options, char *str, size_t size, size_t maxcount, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vfscanf":      "unsigned long long options, FILE *stream, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vsscanf":      "unsigned long long options, const char *str, size_t size, const char *format, _locale_t locale, va_list ap",
	"__stdio_common_vfwprintf":    "unsigned long long options, FILE *stream, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vfwprintf_s":  "unsigned long long options, FILE *stream, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vfwprintf_p":  "unsigned long long options, FILE *stream, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vswprintf":    "unsigned long long options, wchar_t *s, size_t n, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vswprintf_s":  "unsigned long long options, wchar_t *s, size_t n, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vswprintf_p":  "unsigned long long options, wchar_t *s, size_t n, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vsnwprintf_s": "unsigned long long options, wchar_t *s, size_t n, size_t maxcount, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vfwscanf":     "unsigned long long options, FILE *stream, const wchar_t *format, _locale_t locale, va_list ap",
	"__stdio_common_vswscanf":     "unsigned long long options, const wchar_t *s, size_t n, const wchar_t *format, _locale_t locale, va_list ap",

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
	// Memory, streams, descriptors and process control: what most
	// programs call, so that a call to them passes what it takes.
	"malloc": "size_t size", "calloc": "size_t nmemb, size_t size", "realloc": "void *ptr, size_t size",
	"reallocarray": "void *ptr, size_t nmemb, size_t size", "free": "void *ptr",
	"memcpy": "void *dest, const void *src, size_t n", "memmove": "void *dest, const void *src, size_t n",
	"mempcpy": "void *dest, const void *src, size_t n", "memset": "void *s, int c, size_t n",
	"memcmp": "const void *s1, const void *s2, size_t n", "memchr": "const void *s, int c, size_t n",
	"memrchr": "const void *s, int c, size_t n", "__memcpy_chk": "void *dest, const void *src, size_t len, size_t destlen",
	"__memmove_chk": "void *dest, const void *src, size_t len, size_t destlen", "__memset_chk": "void *s, int c, size_t len, size_t destlen",
	"read": "int fd, void *buf, size_t count", "write": "int fd, const void *buf, size_t count", "close": "int fd",
	"lseek": "int fd, long offset, int whence", "dup": "int oldfd", "dup2": "int oldfd, int newfd", "pipe": "int *pipefd",
	"isatty": "int fd", "fcntl": "int fd, int cmd, ...", "ioctl": "int fd, unsigned long request, ...",
	"fclose": "FILE *stream", "fflush": "FILE *stream", "fileno": "FILE *stream", "ferror": "FILE *stream", "feof": "FILE *stream",
	"fread": "void *ptr, size_t size, size_t nmemb, FILE *stream", "fwrite": "const void *ptr, size_t size, size_t nmemb, FILE *stream",
	"fputc": "int c, FILE *stream", "putc": "int c, FILE *stream", "putchar": "int c", "fgetc": "FILE *stream", "getc": "FILE *stream",
	"ungetc": "int c, FILE *stream", "fseek": "FILE *stream, long offset, int whence", "ftell": "FILE *stream",
	"fdopen": "int fd, const char *mode", "setvbuf": "FILE *stream, char *buf, int mode, size_t size",
	"mmap": "void *addr, size_t length, int prot, int flags, int fd, long offset", "munmap": "void *addr, size_t length",
	"mprotect": "void *addr, size_t len, int prot",
	"exit":     "int status", "_exit": "int status", "abort": "void", "atexit": "void *function", "__stack_chk_fail": "void",
	"__assert_fail": "const char *assertion, const char *file, unsigned int line, const char *function",
	"error":         "int status, int errnum, const char *format, ...", "strerror": "int errnum", "__errno_location": "void",
	"getpid": "void", "getuid": "void", "geteuid": "void", "fork": "void", "kill": "int pid, int sig",
	"waitpid": "int pid, int *wstatus, int options", "sleep": "unsigned int seconds", "usleep": "unsigned int usec",
	"signal": "int signum, void *handler", "raise": "int sig", "time": "long *tloc",
	"qsort":   "void *base, size_t nmemb, size_t size, void *compar",
	"bsearch": "const void *key, const void *base, size_t nmemb, size_t size, void *compar",
	"socket":  "int domain, int type, int protocol", "connect": "int sockfd, const void *addr, unsigned int addrlen",
	"bind": "int sockfd, const void *addr, unsigned int addrlen", "listen": "int sockfd, int backlog",
	"accept": "int sockfd, void *addr, unsigned int *addrlen", "send": "int sockfd, const void *buf, size_t len, int flags",
	"recv":           "int sockfd, void *buf, size_t len, int flags",
	"pthread_create": "void *thread, const void *attr, void *start_routine, void *arg", "pthread_join": "unsigned long thread, void **retval",
	"pthread_mutex_lock": "void *mutex", "pthread_mutex_unlock": "void *mutex",
	"toupper": "int c", "tolower": "int c", "abs": "int j", "labs": "long j",
}

// results are the results of the prototypes that are not an integer or
// pointer of a register (a floating-point one, 8 bytes on 32-bit x86, or
// none: "void"), by their function.
var results = map[string]string{
	"atof": "double", "strtod": "double", "strtof": "float", "strtold": "long double", "atoll": "long long", "strtoll": "long long",
	"strtoull": "unsigned long long", "pow": "double", "powf": "float", "sqrt": "double", "sqrtf": "float", "exp": "double",
	"log": "double", "log10": "double", "sin": "double", "cos": "double", "tan": "double", "atan2": "double", "fmod": "double",
	"fabs": "double", "floor": "double", "ceil": "double", "round": "double", "ldexp": "double",
	"free": "void", "exit": "void", "_exit": "void", "abort": "void", "__stack_chk_fail": "void", "__assert_fail": "void",
	"error": "void", "perror": "void", "qsort": "void", "syslog": "void", "vsyslog": "void", "__syslog_chk": "void",
	"__vsyslog_chk": "void",
}
