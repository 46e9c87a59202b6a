package gdbremote

import (
	"slices"
	"testing"
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
