package gdbremote

import "testing"

// covering finds the sized symbol or section around an address: of nested
// ones the innermost that starts last, none past an end or below the first.
func TestCovering(t *testing.T) {
	list := []libSym{{0x100, 0x200, "outer"}, {0x120, 0x140, "inner"}, {0x300, 0x310, "next"}}
	for at, want := range map[uint64]string{0xff: "", 0x100: "outer", 0x130: "inner", 0x150: "outer", 0x200: "", 0x30f: "next", 0x310: ""} {
		got := ""
		if s := covering(list, at); s != nil {
			got = s.name
		}
		if got != want {
			t.Errorf("covering(%#x) = %q, want %q", at, got, want)
		}
	}
}
