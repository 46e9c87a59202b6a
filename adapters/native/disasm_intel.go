package native

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// appendIntel appends x86asm.IntelSyntax(inst, pc, nil), with lea's
// "ptr" dropped as format drops it.
func appendIntel(dst []byte, inst x86asm.Inst, pc uint64) []byte {
	text := x86asm.IntelSyntax(inst, pc, nil)
	if inst.Op == x86asm.LEA {
		if i := strings.Index(text, ", ptr ["); i >= 0 {
			return append(append(append(dst, text[:i]...), ", ["...), text[i+len(", ptr ["):]...)
		}
	}
	return append(dst, text...)
}
