package diff

import (
	"slices"
	"testing"

	"github.com/matryer/is"
)

// TestRegistersOnlyDifference: two builds of handle_stats whose linker
// swapped two adjacent globals load them with one ldp into swapped
// registers, through a base register chosen to match. The instructions
// differ and stay changed (a renaming that hid this would hide two swapped
// arguments too), but the difference says it is one of registers alone, so
// an agent need not read it as a code change. A changed constant is no
// such difference.
func TestRegistersOnlyDifference(t *testing.T) {
	is := is.New(t)
	l := &fnFacts{Insns: []string{"adrp x3, ADDR", "add x3, x3, ADDR", "mov w6, #0x40", "ldp x4, x3, [x3,#ADDR]", "bl snprintf"}, Consts: []string{"0x40"}}
	r := &fnFacts{Insns: []string{"adrp x4, ADDR", "add x4, x4, ADDR", "mov w6, #0x40", "ldp x3, x4, [x4,#ADDR]", "bl snprintf"}, Consts: []string{"0x40"}}
	d := compareFacts(l, r, compareOptions{})
	x := d.Dimensions["instructions"]
	is.Equal(x.Status, "changed")
	is.True(slices.Contains(x.Changes, registersOnly))

	r.Insns[2] = "mov w6, #0x41"
	d = compareFacts(l, r, compareOptions{})
	is.True(!slices.Contains(d.Dimensions["instructions"].Changes, registersOnly))
}
