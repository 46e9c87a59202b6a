package native

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/arch/arm64/arm64asm"
)

// AArch64 instruction semantics for the value flow. Args[0] is the
// destination except for stores (STR*, STUR*, STP, STLR*: every register
// before the memory operand is stored), compares and tests, branches and
// calls. W registers are their X register (a W write zeroes the upper half,
// so it is a full definition); B, H, S, D, Q and V registers are vN; the
// zero register is neither defined nor used. Pre- and post-indexed
// addressing also writes the base register. arm64asm keeps some operand
// fields unexported, so registers and offsets are read from the operands'
// text.

type arm64Sem struct{}

var (
	arm64RegToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:([WX])(\d+)|([BHSDQV])(\d+)|(WZR|XZR|WSP|SP))\b`)
	})
	arm64MemText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[([A-Z0-9]+)(?:,#(-?(?:0x)?[0-9a-fA-F]+))?\](!?)(?:,#(-?(?:0x)?[0-9a-fA-F]+))?$`)
	})
)

// arm64Regs lists the full registers named in an operand's text.
func arm64Regs(text string) []string {
	var out []string
	for _, m := range arm64RegToken().FindAllStringSubmatch(text, -1) {
		switch {
		case m[1] != "":
			out = append(out, "x"+m[2])
		case m[3] != "":
			out = append(out, "v"+m[4])
		case m[5] == "SP" || m[5] == "WSP":
			out = append(out, "sp")
		}
	}
	return out
}

// arm64Mem is a memory operand: the location accessed, the registers that
// form its address, and the base register it writes back (pre- and
// post-index), or "".
func arm64Mem(a arm64asm.Arg) (loc string, addrRegs []string, writeback string) {
	text := a.String()
	regs := arm64Regs(text)
	if m, ok := a.(arm64asm.MemImmediate); ok {
		if p := arm64MemText().FindStringSubmatch(text); p != nil && len(regs) == 1 {
			base := regs[0]
			off := int64(0)
			if p[2] != "" && p[3] == "" { // [Rn,#imm] (an offset); [Rn,#imm]! addresses the updated base
				off, _ = strconv.ParseInt(p[2], 0, 64)
			}
			if m.Mode == arm64asm.AddrPreIndex || m.Mode == arm64asm.AddrPostIndex || p[3] == "!" || p[4] != "" {
				writeback = base
			}
			return frameLoc(base, off), regs, writeback
		}
	}
	// Register offsets and anything else: the registers, untracked.
	return "[" + strings.Join(regs, "+") + "]", regs, ""
}

func frameLoc(base string, off int64) string {
	switch {
	case off < 0:
		return fmt.Sprintf("[%s-0x%x]", base, uint64(-off))
	case off > 0:
		return fmt.Sprintf("[%s+0x%x]", base, uint64(off))
	}
	return "[" + base + "]"
}

func isArm64Mem(a arm64asm.Arg) bool {
	switch a.(type) {
	case arm64asm.MemImmediate, arm64asm.MemExtend:
		return true
	}
	return false
}

func (arm64Sem) sem(b []byte, pc uint64, in *insn) vfSem {
	inst, err := arm64asm.Decode(b)
	if err != nil {
		return vfSem{opaque: true}
	}
	var out vfSem
	use := func(names ...string) { out.uses = append(out.uses, names...) }
	def := func(names ...string) { out.defs = append(out.defs, names...) }
	var args []arm64asm.Arg
	for _, a := range inst.Args {
		if a == nil {
			break
		}
		args = append(args, a)
	}
	regsOf := func(a arm64asm.Arg) []string {
		switch a.(type) {
		case arm64asm.PCRel, arm64asm.Imm, arm64asm.Imm64, arm64asm.ImmShift, arm64asm.Cond, arm64asm.Imm_fp:
			return nil
		}
		return arm64Regs(a.String())
	}
	mem := -1
	for k, a := range args {
		if isArm64Mem(a) {
			mem = k
			break
		}
	}
	name := inst.Op.String()
	switch {
	case name == "BL":
		out.call = true
	case name == "BLR" || strings.HasPrefix(name, "BLRA"):
		out.call = true
		if len(args) > 0 {
			r := regsOf(args[0])
			use(r...)
			if len(r) > 0 {
				out.indirect = r[0]
			}
		}
	case name == "RET" || strings.HasPrefix(name, "RETA"):
		out.ret = true
		use("x30")
	case name == "B" || name == "BR" || strings.HasPrefix(name, "BRA") || name == "CBZ" || name == "CBNZ" || name == "TBZ" || name == "TBNZ" ||
		name == "CMP" || name == "CMN" || name == "TST" || name == "CCMP" || name == "CCMN" || name == "FCMP" || name == "FCMPE" ||
		name == "FCCMP" || name == "FCCMPE":
		for _, a := range args {
			use(regsOf(a)...)
		}
	case name == "NOP" || name == "HINT" || name == "BTI" || strings.HasPrefix(name, "PACI") || strings.HasPrefix(name, "AUTI") ||
		name == "DMB" || name == "DSB" || name == "ISB" || name == "PRFM" || name == "PRFUM" || name == "YIELD":
		// no data flow the value flow tracks
	case name == "SVC":
		use("x8", "x0", "x1", "x2", "x3", "x4", "x5")
		def("x0")
	case mem >= 0 && strings.HasPrefix(name, "ST") && !strings.HasPrefix(name, "STADD") && !strings.HasPrefix(name, "STSET") &&
		!strings.HasPrefix(name, "STCLR") && !strings.HasPrefix(name, "STEOR"):
		loc, addr, wb := arm64Mem(args[mem])
		use(addr...)
		vals := args[:mem]
		if strings.HasPrefix(name, "STX") || strings.HasPrefix(name, "STLX") { // exclusive: Args[0] is the status
			def(regsOf(vals[0])...)
			vals = vals[1:]
		}
		var from []string
		for _, a := range vals {
			from = append(from, regsOf(a)...)
		}
		use(from...)
		if wb != "" {
			def(wb)
		}
		def(loc)
		w := &vfWrite{loc: loc, from: from}
		if len(vals) > 0 {
			w.value = strings.ToLower(vals[0].String())
			if len(from) == 0 {
				w.value = "xzr"
			}
		}
		out.write = w
	case mem >= 0 && (strings.HasPrefix(name, "LD") && !strings.HasPrefix(name, "LDADD") && !strings.HasPrefix(name, "LDSET") &&
		!strings.HasPrefix(name, "LDCLR") && !strings.HasPrefix(name, "LDEOR") && !strings.HasPrefix(name, "LDSM") && !strings.HasPrefix(name, "LDUM")):
		loc, addr, wb := arm64Mem(args[mem])
		use(addr...)
		use(loc)
		if wb != "" {
			def(wb)
		}
		for _, a := range args[:mem] {
			def(regsOf(a)...)
		}
	case mem >= 0:
		// Atomics (ldadd, swp, cas, stadd, ...): every register is read,
		// registers before the memory operand written, memory read and written.
		loc, addr, _ := arm64Mem(args[mem])
		use(addr...)
		use(loc)
		var from []string
		for _, a := range args[:mem] {
			from = append(from, regsOf(a)...)
		}
		use(from...)
		if mem > 0 && !strings.HasPrefix(name, "ST") {
			def(regsOf(args[mem-1])...)
		}
		def(loc)
		out.write = &vfWrite{loc: loc, from: from}
	case len(args) == 0:
	default:
		// Args[0] is written; the rest are read. MOVK, BFI, BFM, BFXIL and
		// writes to one lane of a vector keep the other bits, so they read
		// Args[0] too.
		for _, a := range args[1:] {
			use(regsOf(a)...)
		}
		dst := regsOf(args[0])
		_, lane := args[0].(arm64asm.RegisterWithArrangementAndIndex)
		if name == "MOVK" || name == "BFI" || name == "BFM" || name == "BFXIL" || name == "INS" || lane {
			use(dst...)
		}
		def(dst...)
		if len(dst) == 1 && dst[0] == "x29" && len(args) >= 2 && (name == "MOV" || name == "ADD" || name == "SUB") {
			if src := regsOf(args[1]); len(src) == 1 && src[0] == "sp" {
				out.setsFrame = true
			}
		}
	}
	return out
}
