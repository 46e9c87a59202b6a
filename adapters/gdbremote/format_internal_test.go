package gdbremote

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/ports"
	"rea/ports/libc"
)

// What a printf format's conversions take, and where each arrives under
// each convention: integers and pointers in the next integer registers,
// doubles in the floating-point ones (none under cdecl, where a double or
// a long long takes two slots), the rest on the stack in order; a * width
// or precision takes an int; the scan stops at a positional or unknown
// conversion, keeping what came before.
func TestParseAndPlaceFormat(t *testing.T) {
	for _, c := range []struct {
		format             string
		ok                 bool
		specs              string
		sysv, aapcs, cdecl string // places, the format being the first argument
	}{
		{"checking %s\n", true, "%s", "rsi", "x1", "[esp+8]"},
		{"%ld\n", true, "%ld", "rsi", "x1", "[esp+8]"},
		{"no conversion %% at all %m", true, "", "", "", ""},
		{"%d: %s and %s", true, "%d %s %s", "rsi rdx rcx", "x1 x2 x3", "[esp+8] [esp+12] [esp+16]"},
		{"%*d %s", true, "* %*d %s", "rsi rdx rcx", "x1 x2 x3", "[esp+8] [esp+12] [esp+16]"},
		{"%.*s|%-10.5s", true, "* %.*s %-10.5s", "rsi rdx rcx", "x1 x2 x3", "[esp+8] [esp+12] [esp+16]"},
		{"%f %s %g %s", true, "%f %s %g %s", "xmm0 rsi xmm1 rdx", "v0 x1 v1 x2", "[esp+8],[esp+12] [esp+16] [esp+20],[esp+24] [esp+28]"},
		{"%lld %zu %hhx %p %c %s", true, "%lld %zu %hhx %p %c %s", "rsi rdx rcx r8 r9 [rsp+8]", "x1 x2 x3 x4 x5 x6", "[esp+8],[esp+12] [esp+16] [esp+20] [esp+24] [esp+28] [esp+32]"},
		{"%Lf %d %Lg", true, "%Lf %d %Lg", "[rsp+8] rsi [rsp+24]", "v0 x1 v1", "[esp+8] [esp+20] [esp+24]"},
		{"%ls %s %lc", true, "%ls %s %lc", "rsi rdx rcx", "x1 x2 x3", "[esp+8] [esp+12] [esp+16]"},
		{"%s %1$s %s", false, "%s", "rsi", "x1", "[esp+8]"},
		{"%s %y %s", false, "%s", "rsi", "x1", "[esp+8]"},
		{"%lllld", false, "", "", "", ""},
		{"%", false, "", "", "", ""},
		{"%.", false, "", "", "", ""},
	} {
		args, ok := libc.ParseFormat([]byte(c.format))
		var specs []string
		for _, a := range args {
			specs = append(specs, a.Spec)
		}
		if ok != c.ok || strings.Join(specs, " ") != c.specs {
			t.Errorf("%q: %q %v, want %q %v", c.format, strings.Join(specs, " "), ok, c.specs, c.ok)
		}
		for arch, want := range map[string]string{"x86-64": c.sysv, "arm64": c.aapcs, "x86": c.cdecl} {
			conv, err := conventionFor(arch, "")
			if err != nil {
				t.Fatal(err)
			}
			places, ok := conv.placeFormat(0, args)
			if !ok || strings.Join(places, " ") != want {
				t.Errorf("%q on %s: %q, want %q", c.format, arch, strings.Join(places, " "), want)
			}
		}
	}
	// Past the registers: x86-64's ninth double and seventh integer share
	// the stack in order; AArch64's stack begins at sp.
	args, _ := libc.ParseFormat([]byte("%f%f%f%f%f%f%f%f%f%d%d%d%d%d%d%d"))
	for arch, want := range map[string]string{
		"x86-64": "xmm0 xmm1 xmm2 xmm3 xmm4 xmm5 xmm6 xmm7 [rsp+8] rdi rsi rdx rcx r8 r9 [rsp+16]",
		"arm64":  "v0 v1 v2 v3 v4 v5 v6 v7 [sp+0] x0 x1 x2 x3 x4 x5 x6",
	} {
		conv, _ := conventionFor(arch, "")
		if places, _ := conv.placeFormat(-1, args); strings.Join(places, " ") != want {
			t.Errorf("%s: %q, want %q", arch, strings.Join(places, " "), want)
		}
	}
	if conv, _ := conventionFor("x86-64", ports.ConventionGo); conv.g != "" {
		if _, ok := conv.placeFormat(0, args); ok {
			t.Error("Go's convention placed C variadic arguments")
		}
	}
}

// What a scanf format's conversions take (a pointer each but a suppressed
// one) and store: text up to a NUL for %s and a set (']' first is a member),
// %c's width in characters, a number's size by its length modifier and the
// target's word, a long double's x87 10 bytes or AArch64's 16; %n is no
// assignment; with l, wchar_t text or characters (4 bytes each); with m,
// a pointer to what the call allocated; the scan stops at a positional
// conversion, an unterminated set, or m or a length on what takes neither.
func TestParseScan(t *testing.T) {
	for _, c := range []struct {
		format string
		ok     bool
		want   string // spec:type:stored per argument on x86-64
		want32 string // the sizes on 32-bit x86, where they differ
		want64 string // AArch64's, where they differ
	}{
		{"%31[^:]:%d %*s %lf%n %2c %Lf %llx", true,
			"%31[^:]:char *:text %d:int *:4 %lf:double *:8 %n:int *:n %2c:char *:2 %Lf:long double *:10 %llx:unsigned long long *:8", "", "%31[^:]:char *:text %d:int *:4 %lf:double *:8 %n:int *:n %2c:char *:2 %Lf:long double *:16 %llx:unsigned long long *:8"},
		{"%hhd %hu %ld %zu %p %f %c %[]x]", true, "%hhd:signed char *:1 %hu:unsigned short *:2 %ld:long *:8 %zu:size_t *:8 %p:void **:8 %f:float *:4 %c:char *:1 %[]x]:char *:text",
			"%hhd:signed char *:1 %hu:unsigned short *:2 %ld:long *:4 %zu:size_t *:4 %p:void **:4 %f:float *:4 %c:char *:1 %[]x]:char *:text", ""},
		{"%d %ms %m[a-z] %3mc %ls %l[^,] %2lc %mls", true,
			"%d:int *:4 %ms:char **:alloc-text %m[a-z]:char **:alloc-text %3mc:char **:alloc-3 %ls:wchar_t *:wide-text %l[^,]:wchar_t *:wide-text %2lc:wchar_t *:wide-8 %mls:wchar_t **:alloc-wide-text", "", ""},
		{"%d %md", false, "%d:int *:4", "", ""},
		{"%d %hs", false, "%d:int *:4", "", ""},
		{"%d %1$d", false, "%d:int *:4", "", ""},
		{"%d %[abc", false, "%d:int *:4", "", ""},
		{"%% %*d %*[^\n]", true, "", "", ""},
	} {
		for arch, want := range map[string]string{"x86-64": c.want, "x86": cmp.Or(c.want32, c.want), "arm64": cmp.Or(c.want64, c.want)} {
			conv, _ := conventionFor(arch, "")
			args, stores, ok := conv.parseScan([]byte(c.format))
			var got []string
			for k, a := range args {
				st := stores[k]
				size := strconv.Itoa(st.size)
				switch {
				case st.text:
					size = "text"
				case st.n:
					size = "n"
				}
				if st.wide {
					size = "wide-" + size
				}
				if st.alloc {
					size = "alloc-" + size
				}
				got = append(got, a.Spec+":"+a.Type+":"+size)
			}
			if ok != c.ok || strings.Join(got, " ") != want {
				t.Errorf("%q on %s: %q %v, want %q %v", c.format, arch, strings.Join(got, " "), ok, want, c.ok)
			}
		}
	}
}

// A format is the traced program's memory: any bytes give arguments whose
// places are each a register or a slot, without panicking.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"checking %s\n", "%*.*s", "%1$s", "%%%", "%lls%s", "%Lf%f%lld"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		args, _ := libc.ParseFormat(b)
		if len(args) > len(b) {
			t.Fatalf("%q: %d arguments", b, len(args))
		}
		for _, arch := range []string{"x86-64", "x86", "arm64"} {
			conv, _ := conventionFor(arch, "")
			scanned, stores, _ := conv.parseScan(b)
			if len(scanned) != len(stores) || len(scanned) > len(b) {
				t.Fatalf("%q on %s: %d pointers, %d stores", b, arch, len(scanned), len(stores))
			}
		}
		for _, arch := range []string{"x86-64", "arm64", "x86"} {
			conv, _ := conventionFor(arch, "")
			places, ok := conv.placeFormat(0, args)
			if !ok || len(places) != len(args) {
				t.Fatalf("%q on %s: %v", b, arch, places)
			}
			for _, p := range places {
				if p == "" {
					t.Fatalf("%q on %s: an empty place in %v", b, arch, places)
				}
			}
		}
	})
}

// cdecl's arguments are the stack slots above the return address, which a
// breakpoint's texts name like registers; a name that is no slot of this
// convention's stack pointer is a register.
func TestCdeclSlots(t *testing.T) {
	conv, err := conventionFor("x86", "")
	if err != nil {
		t.Fatal(err)
	}
	if conv.name != ports.ConventionCdecl || len(conv.args) != cdeclSlots || conv.args[0] != "[esp+4]" || conv.args[5] != "[esp+24]" || conv.word != 4 {
		t.Errorf("cdecl: %+v", conv)
	}
	if got := conv.needed(); slices.ContainsFunc(got, func(r string) bool { return strings.HasPrefix(r, "[") }) {
		t.Errorf("registers read from the g packet include a slot: %v", got)
	}
	for name, want := range map[string]int64{"[esp+4]": 4, "[esp+44]": 44, "[esp+0]": 0, "[rsp+8]": -1, "eax": -1, "[esp+x]": -1, "[esp+4": -1, "[esp+-4]": -1} {
		off, ok := conv.slotOffset(name)
		if ok != (want >= 0) || ok && int64(off) != want {
			t.Errorf("slotOffset(%q) = %d, %v; want %d", name, off, ok, want)
		}
	}
	if _, err := conventionFor("x86", ports.ConventionGo); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("Go's convention on x86: %v", err)
	}
}

// The auxiliary vector is pairs of the target's words: 8 bytes each on a
// 64-bit program, 4 on a 32-bit one.
func TestAuxv(t *testing.T) {
	le := func(word int, vals ...uint64) []byte {
		var b []byte
		for _, v := range vals {
			if word == 4 {
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			} else {
				b = binary.LittleEndian.AppendUint64(b, v)
			}
		}
		return b
	}
	for _, word := range []int{4, 8} {
		if e, ok := auxvValue(le(word, 6, 4096, 9, 0x56556080, 0, 0), word, atEntry); !ok || e != 0x56556080 {
			t.Errorf("%d-byte words: entry %#x, %v", word, e, ok)
		}
		if _, ok := auxvValue(le(word, 6, 4096, 0, 0, 9, 1), word, atEntry); ok {
			t.Errorf("%d-byte words: an entry after AT_NULL", word)
		}
		if _, ok := auxvValue(le(word, 6, 4096, 9)[:3*word-1], word, atEntry); ok {
			t.Errorf("%d-byte words: a cut pair", word)
		}
		for _, c := range []struct {
			auxv []byte
			end  uint64
		}{
			{le(word, 6, 4096, 31, 0x7fffffffefe0, 0, 0), 0x7ffffffff000},
			{le(word, 6, 4096, 31, 0x7fffffffe000, 0, 0), 0x7ffffffff000}, // the name's first byte on a page: that page
			{le(word, 6, 0x10000, 31, 0xfffffffeffe0, 0, 0), 0xffffffff0000},
			{le(word, 31, 0x7fffffffefe0, 0, 0), 0},          // no page size
			{le(word, 6, 4096, 0, 0), 0},                     // no file name
			{le(word, 6, 3000, 31, 0x7fffffffefe0, 0, 0), 0}, // not a power of two
		} {
			if word == 4 && c.end > 0xffffffff {
				continue
			}
			if got := stackEnd(c.auxv, word); got != c.end {
				t.Errorf("%d-byte words: stack end %#x, want %#x", word, got, c.end)
			}
		}
	}
}
