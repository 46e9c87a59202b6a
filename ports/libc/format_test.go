package libc_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports/libc"
)

// Which functions a printf format describes the variadic arguments of,
// and the format's position among their fixed parameters.
func TestPrintfFormat(t *testing.T) {
	is := is.New(t)
	for name, want := range map[string]int{"printf": 0, "fprintf@plt": 1, "snprintf": 2, "__printf_chk": 1, "__snprintf_chk": 4,
		"__syslog_chk": 2, "syslog": 1, "dprintf": 1, "error": 2, "sprintf@GLIBC_2.2.5": 1} {
		at, ok := libc.PrintfFormat(name)
		is.True(ok)
		is.Equal(at, want)
	}
	for _, name := range []string{"vprintf", "scanf", "__isoc99_sscanf", "open", "execl", "puts", "nosuch"} {
		_, ok := libc.PrintfFormat(name)
		is.True(!ok)
	}
}

// Where a format's arguments arrive under Microsoft x64 (by position, a
// double in both its registers, past the fourth on the stack) and cdecl
// (all on the stack past the fixed slots, a double or long long in two,
// a long double in twelve bytes); Microsoft x64 passes no long double as
// C's.
func TestPlacePositional(t *testing.T) {
	is := is.New(t)
	args, ok := libc.ParseFormat([]byte("%d %f %s %lld %g %Lf"))
	is.True(ok)
	show := func(ps []libc.Place) string {
		var out []string
		for _, p := range ps {
			out = append(out, fmt.Sprintf("%d/%d/%d+%d", p.Int, p.Float, p.Stack, p.Size))
		}
		return strings.Join(out, " ")
	}
	ms := libc.Convention{Ints: 4, Floats: 4, Word: 8, Positional: true}
	ps, ok := ms.Place(1, args[:5])
	is.True(ok)
	is.Equal(show(ps), "1/-1/0+0 2/2/0+0 3/-1/0+0 -1/-1/0+8 -1/-1/8+8")
	_, ok = ms.Place(1, args)
	is.True(!ok) // the long double
	cdecl := libc.Convention{Word: 4}
	ps, ok = cdecl.Place(2, args)
	is.True(ok)
	is.Equal(show(ps), "-1/-1/8+4 -1/-1/12+8 -1/-1/20+4 -1/-1/24+8 -1/-1/32+8 -1/-1/40+12")
	_, ok = libc.Convention{}.Place(0, args)
	is.True(!ok) // no word size
}

// A format is untrusted bytes: any gives at most one argument per byte,
// each placed once under every convention, without panicking.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"checking %s\n", "%*.*s", "%1$s", "%%%", "%lls%s", "%Lf%f%lld", "%f%f%f%f%f%f%f%f%f%d%d%d%d%d%d%d"} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, fixed uint8) {
		args, _ := libc.ParseFormat(b)
		if len(args) > len(b) {
			t.Fatalf("%q: %d arguments", b, len(args))
		}
		for _, c := range []libc.Convention{{Ints: 6, Floats: 8, Word: 8, LongDoubleInMemory: true}, {Ints: 8, Floats: 8, Word: 8},
			{Word: 4}, {Ints: 4, Floats: 4, Word: 8, Positional: true}} {
			ps, ok := c.Place(int(fixed%8), args)
			if ok && len(ps) != len(args) {
				t.Fatalf("%q under %+v: %d places for %d arguments", b, c, len(ps), len(args))
			}
			for _, p := range ps {
				if p.Int < 0 && p.Float < 0 && p.Size <= 0 || p.Int >= max(c.Ints, 1) || p.Float >= max(c.Floats, 1) {
					t.Fatalf("%q under %+v: place %+v", b, c, p)
				}
			}
		}
	})
}
