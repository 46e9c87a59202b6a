package ports_test

import (
	"testing"

	"rea/ports"
)

// Holding picks the smallest segment that maps an address (a section over
// its load segment), and a segment at 0 that grants no access (Mach-O's
// __PAGEZERO) maps nothing.
func TestHolding(t *testing.T) {
	segs := []ports.Segment{
		{Name: "__PAGEZERO", Start: 0, Size: 1 << 32},
		{Name: "LOAD#0", Start: 0x1000, Size: 0x3000, Perms: ports.Permissions{Read: true}},
		{Name: ".text", Start: 0x2000, Size: 0x100, Perms: ports.Permissions{Read: true, Execute: true}},
	}
	for _, c := range []struct {
		addr uint64
		want string
	}{{0x10, ""}, {0x1000, "LOAD#0"}, {0x2080, ".text"}, {0x2100, "LOAD#0"}, {0x4000, ""}} {
		got := ""
		if s := ports.Holding(segs, c.addr); s != nil {
			got = s.Name
		}
		if got != c.want {
			t.Errorf("Holding(%#x) = %q, want %q", c.addr, got, c.want)
		}
	}
}
