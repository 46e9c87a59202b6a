package libc_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/matryer/is"

	"rea/ports/libc"
)

// What a scanf format's conversions take, by C's rules (C11 7.21.6.2,
// POSIX's m): one pointer each, typed by what it stores; none for a
// suppressed one (%*d), %% or a literal; %n's count, no assignment; a set
// whose ']' first (after '^') is a member; m's char ** on s, [ and c
// only; the scan stops at a positional conversion, an unterminated set or
// an unknown conversion, keeping those before it.
func TestParseScanf(t *testing.T) {
	for _, c := range []struct {
		format string
		ok     bool
		want   string // spec:type:what per pointer
	}{
		{"%d %s %*d %n", true, "%d:int *:int %s:char *:text %n:int *:count"},
		{"%31[^:]:%d %*s %lf%n %2c %Lf %llx", true,
			"%31[^:]:char *:text %d:int *:int %lf:double *:double %n:int *:count %2c:char *:2 chars %Lf:long double *:long double %llx:unsigned long long *:unsigned long long"},
		{"%hhd %hu %ld %zu %jd %td %p %f %c %[]x] %[^]x]", true,
			"%hhd:signed char *:signed char %hu:unsigned short *:unsigned short %ld:long *:long %zu:size_t *:size_t %jd:long long *:long long %td:ptrdiff_t *:ptrdiff_t %p:void **:void * %f:float *:float %c:char *:1 chars %[]x]:char *:text %[^]x]:char *:text"},
		{"%ms %m[a-z] %3mc %ls %l[^,] %2lc %mls %S %C", true,
			"%ms:char **:alloc text %m[a-z]:char **:alloc text %3mc:char **:alloc 3 chars %ls:wchar_t *:wide text %l[^,]:wchar_t *:wide text %2lc:wchar_t *:wide 2 chars %mls:wchar_t **:alloc wide text %S:wchar_t *:wide text %C:wchar_t *:wide 1 chars"},
		{"%%%d%%", true, "%d:int *:int"},
		{"%% %*d %*[^\n] %*ms", true, ""},
		{"%d %md", false, "%d:int *:int"},
		{"%d %hs", false, "%d:int *:int"},
		{"%d %1$d", false, "%d:int *:int"},
		{"%d %[abc", false, "%d:int *:int"},
		{"%d %[]", false, "%d:int *:int"},
		{"%d %lld %lllx", false, "%d:int *:int %lld:long long *:long long"},
		{"%d %Ld", false, "%d:int *:int"},
		{"%d %y", false, "%d:int *:int"},
		{"%d %", false, "%d:int *:int"},
	} {
		args, ok := libc.ParseScanf([]byte(c.format))
		if got := showScan(args); ok != c.ok || got != c.want {
			t.Errorf("%q: %q %v, want %q %v", c.format, got, ok, c.want, c.ok)
		}
	}
}

// showScan writes what each pointer stores as TestParseScanf's table does.
func showScan(args []libc.ScanArg) string {
	var out []string
	for _, a := range args {
		what := a.Elem
		switch {
		case a.Text:
			what = "text"
		case a.Count:
			what = "count"
		case a.Chars > 0:
			what = fmt.Sprintf("%d chars", a.Chars)
		}
		if a.Wide {
			what = "wide " + what
		}
		if a.Alloc {
			what = "alloc " + what
		}
		if a.Kind != libc.ArgWord {
			what += " not a word"
		}
		out = append(out, a.Spec+":"+a.Type+":"+what)
	}
	return strings.Join(out, " ")
}

// The dialects' text conversions: ISO C and glibc give wide functions
// the narrow ones' rules (%s char, %ls and %S wchar_t); Microsoft's C
// runtime makes a wide function's %s and %c wchar_t and %S and %C char,
// %hs char everywhere, and reads I64, I32 and I as length modifiers. The
// number of arguments is the same in every dialect.
func TestDialects(t *testing.T) {
	is := is.New(t)
	printf := func(d libc.Dialect, f string) string {
		args, ok := d.Printf([]byte(f))
		is.True(ok)
		var out []string
		for _, a := range args {
			out = append(out, a.Spec+":"+a.Type)
		}
		return strings.Join(out, " ")
	}
	const f = "%d %s %ls %S %c %lc %C\n"
	c99 := "%d:int %s:const char * %ls:const wchar_t * %S:const wchar_t * %c:int %lc:wint_t %C:wint_t"
	is.Equal(printf(libc.Dialect{}, f), c99)
	is.Equal(printf(libc.Dialect{Wide: true}, f), c99)
	is.Equal(printf(libc.Dialect{MS: true}, f), c99)
	is.Equal(printf(libc.Dialect{MS: true, Wide: true}, f),
		"%d:int %s:const wchar_t * %ls:const wchar_t * %S:const char * %c:wint_t %lc:wint_t %C:int")
	is.Equal(printf(libc.Dialect{MS: true, Wide: true}, "%hs %hc %I64d %I32u %Ix"), "%hs:const char * %hc:int %I64d:long long %I32u:unsigned int %Ix:size_t")
	_, ok := libc.ParseFormat([]byte("%hs"))
	is.True(!ok) // not C's
	_, ok = libc.ParseFormat([]byte("%I64d"))
	is.True(!ok) // glibc's I is a flag the scan does not take
	scan := func(d libc.Dialect, f string) string {
		args, ok := d.Scanf([]byte(f))
		is.True(ok)
		return showScan(args)
	}
	is.Equal(scan(libc.Dialect{Wide: true}, "%s %S %c"), "%s:char *:text %S:wchar_t *:wide text %c:char *:1 chars")
	is.Equal(scan(libc.Dialect{MS: true, Wide: true}, "%s %S %c %hs %ls %I64d"),
		"%s:wchar_t *:wide text %S:char *:text %c:wchar_t *:wide 1 chars %hs:char *:text %ls:wchar_t *:wide text %I64d:long long *:long long")
}

// Which functions a scanf format describes the pointers of, narrow and
// wide, and which formats are wchar_t text.
func TestScanfFormat(t *testing.T) {
	is := is.New(t)
	for name, want := range map[string]int{"scanf": 0, "sscanf@plt": 1, "fscanf": 1, "__isoc99_sscanf@GLIBC_2.7": 1,
		"__isoc23_scanf": 0, "__isoc99_fscanf": 1, "wscanf": 0, "swscanf": 1, "fwscanf": 1, "__isoc99_swscanf": 1, "__isoc23_fwscanf": 1} {
		at, ok := libc.ScanfFormat(name)
		is.True(ok)
		is.Equal(at, want)
		_, ok = libc.PrintfFormat(name)
		is.True(!ok)
	}
	for _, name := range []string{"vsscanf", "printf", "wprintf", "open", "nosuch"} {
		_, ok := libc.ScanfFormat(name)
		is.True(!ok)
	}
	for name, want := range map[string]int{"wprintf": 0, "fwprintf": 1, "swprintf": 2, "__wprintf_chk": 1, "__fwprintf_chk": 2, "__swprintf_chk": 4} {
		at, ok := libc.PrintfFormat(name)
		is.True(ok)
		is.Equal(at, want)
		is.True(libc.WideFormat(name))
	}
	for _, name := range []string{"wscanf", "__isoc99_swscanf", "vwprintf"} {
		is.True(libc.WideFormat(name))
	}
	for _, name := range []string{"printf", "sscanf", "puts", "nosuch"} {
		is.True(!libc.WideFormat(name))
	}
}

// Wide text: Linux's UTF-32 and Windows's UTF-16 (surrogate pairs
// joined), little-endian, to the first zero unit, not to a zero byte.
func TestWideString(t *testing.T) {
	is := is.New(t)
	s := "%d %ls\n€😀"
	var u32, u16 []byte
	for _, r := range s + "\x00tail" {
		u32 = append(u32, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	for _, u := range utf16.Encode([]rune(s + "\x00tail")) {
		u16 = append(u16, byte(u), byte(u>>8))
	}
	text, end := libc.WideString(u32, 4)
	is.True(end)
	is.Equal(string(text), s)
	text, end = libc.WideString(u16, 2)
	is.True(end)
	is.Equal(string(text), s)
	text, end = libc.WideString(u16[:5], 2) // no zero unit, a partial one left out
	is.True(!end)
	is.Equal(string(text), "%d")
	text, _ = libc.WideString([]byte{0x3d, 0xd8, 'x', 0, 0, 0}, 2) // a lone surrogate
	is.Equal(string(text), "\uFFFDx")
	text, _ = libc.WideString([]byte{0, 0, 0x11, 0, 0, 0, 0, 0}, 4) // past U+10FFFF
	is.Equal(string(text), "\uFFFD")
	text, end = libc.WideString(u32, 3)
	is.True(!end && len(text) == 0)
	// UTF-32: surrogates and units past U+10FFFF read as U+FFFD; a zero
	// unit split by the end of what was read does not end the text.
	for _, c := range []struct {
		in   []uint32
		tail []byte
		want string
		end  bool
	}{
		{[]uint32{'h', 0xe9, 0x1F600, 0, 'x'}, nil, "h\u00e9\U0001F600", true},
		{[]uint32{0xD800, 0x110000, 'a'}, nil, "\uFFFD\uFFFDa", false},
		{[]uint32{'a'}, []byte{0, 0}, "a", false},
		{nil, nil, "", false},
	} {
		var b []byte
		for _, u := range c.in {
			b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
		}
		text, end := libc.WideString(append(b, c.tail...), 4)
		is.Equal(string(text), c.want)
		is.Equal(end, c.end)
	}
}

// A scanf format is untrusted bytes: any gives at most one pointer per
// byte, each a word, placed once under every convention, without
// panicking, in every dialect.
func FuzzParseScanf(f *testing.F) {
	for _, s := range []string{"%d %s %*d %n", "%31[^:]:%d %*s %lf%n %2c %Lf %llx", "%[]x] %[^]", "%ms %3mc %mls",
		"%1$d", "%%%", "%I64d %hs %S", "%*[^\n]%n", "%lllx%ll[a]"} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, fixed uint8) {
		for _, d := range []libc.Dialect{{}, {MS: true}, {MS: true, Wide: true}} {
			args, _ := d.Scanf(b)
			if len(args) > len(b) {
				t.Fatalf("%q: %d pointers", b, len(args))
			}
			fa := make([]libc.FormatArg, len(args))
			for k, a := range args {
				if a.Kind != libc.ArgWord || !strings.HasSuffix(a.Type, "*") {
					t.Fatalf("%q: %+v", b, a)
				}
				fa[k] = a.FormatArg
			}
			for _, c := range []libc.Convention{{Ints: 6, Floats: 8, Word: 8, LongDoubleInMemory: true}, {Word: 4}, {Ints: 4, Floats: 4, Word: 8, Positional: true}} {
				ps, ok := c.Place(int(fixed%8), fa)
				if !ok || len(ps) != len(fa) {
					t.Fatalf("%q under %+v: %d places for %d pointers", b, c, len(ps), len(fa))
				}
				for _, p := range ps {
					if p.Float >= 0 || p.Int < 0 && p.Size != c.Word {
						t.Fatalf("%q under %+v: place %+v", b, c, p)
					}
				}
			}
			printed, _ := d.Printf(b)
			if len(printed) > len(b) {
				t.Fatalf("%q: %d arguments", b, len(printed))
			}
		}
	})
}
