package gdbremote

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// Which integer arguments after a printf format its %s conversions read:
// every other conversion but a floating one takes one, as does a * width
// or precision; %ls takes one and is not text; the scan stops at a
// positional or unknown conversion.
func TestFormatStringSlots(t *testing.T) {
	for _, c := range []struct {
		format string
		want   []int
	}{
		{"checking %s\n", []int{0}},
		{"%ld\n", nil},
		{"%d: %s and %s", []int{1, 2}},
		{"%*d %s", []int{2}},
		{"%.*s|%-10.5s", []int{1, 2}},
		{"%f %s %g %s", []int{0, 1}},
		{"%ls %s", []int{1}},
		{"100%% %s", []int{0}},
		{"%lld %zu %hhx %p %c %s", []int{5}},
		{"%s %1$s %s", []int{0}},
		{"%s %y %s", []int{0}},
		{"%", nil},
		{"%.", nil},
	} {
		if got := formatStringSlots([]byte(c.format)); !slices.Equal(got, c.want) {
			t.Errorf("%q: slots %v, want %v", c.format, got, c.want)
		}
	}
}

// A format is the traced program's memory: any bytes give slots in order,
// each below the number of bytes.
func FuzzFormatStringSlots(f *testing.F) {
	for _, s := range []string{"checking %s\n", "%*.*s", "%1$s", "%%%", "%lls%s"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		slots := formatStringSlots(b)
		for i, s := range slots {
			if s < 0 || s >= len(b) || i > 0 && s <= slots[i-1] {
				t.Fatalf("%q: slots %v", b, slots)
			}
		}
	})
}

// The integer arguments past the registers at a function's entry: x86-64's
// start above the return address, AArch64's at sp (the return address is
// in x30).
func TestStackArg(t *testing.T) {
	for _, c := range []struct {
		arch string
		k    int
		name string
		off  uint64
	}{
		{"x86-64", 0, "[rsp+8]", 8},
		{"x86-64", 2, "[rsp+24]", 24},
		{"arm64", 0, "[sp+0]", 0},
		{"arm64", 1, "[sp+8]", 8},
		{"x86", 0, "[esp+28]", 28}, // past the six slots a cdecl hit reports
		{"x86", 2, "[esp+36]", 36},
	} {
		conv, err := conventionFor(c.arch, "")
		if err != nil {
			t.Fatal(err)
		}
		if name, off := conv.stackArg(c.k); name != c.name || off != c.off {
			t.Errorf("%s argument %d past the registers: %s (+%d), want %s (+%d)", c.arch, c.k, name, off, c.name, c.off)
		}
	}
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
func TestAuxvEntry(t *testing.T) {
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
		if e, ok := auxvEntry(le(word, 6, 4096, 9, 0x56556080, 0, 0), word); !ok || e != 0x56556080 {
			t.Errorf("%d-byte words: entry %#x, %v", word, e, ok)
		}
		if _, ok := auxvEntry(le(word, 6, 4096, 0, 0, 9, 1), word); ok {
			t.Errorf("%d-byte words: an entry after AT_NULL", word)
		}
		if _, ok := auxvEntry(le(word, 6, 4096, 9)[:3*word-1], word); ok {
			t.Errorf("%d-byte words: a cut pair", word)
		}
	}
}
