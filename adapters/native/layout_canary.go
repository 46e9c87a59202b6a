package native

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"rea/ports"
)

// The stack canary in a static binary. A dynamic binary that uses the
// canary imports __stack_chk_fail, so the symbol is the indicator. A
// static one links libc's own objects, which define it (and use the
// canary) whatever the program was compiled with, so there the indicator
// looks at the program's code instead: main, and the functions of the
// DWARF compile units built where main's was (DW_AT_comp_dir), are scanned
// for the canary load (x86-64: mov reg, fs:0x28; AArch64: a load from
// __stack_chk_guard) or a direct call to __stack_chk_fail. Without DWARF
// (or with more than maxCanaryDWARF of it) it looks in main only and says
// so. Without a symbol naming main (a stripped program) it asks the
// analysis before discovery for main and the functions main reaches that
// the signature libraries did not name (layout_program.go), and, when
// those libraries named too little to tell the program's code from libc's,
// says so rather than guess. The same scan reads the program's calls of
// glibc's checked functions, for FORTIFY_SOURCE (layout_fortify.go).

// programMitigations decides Dynamic.StackCanary and Dynamic.Fortified for a
// static executable (no PT_INTERP, no DT_NEEDED; ET_EXEC, or ET_DYN
// flagged DF_1_PIE as -static-pie makes it) after the other steps have
// run: both follow the program's own code, which one scan reads. A
// library without DT_NEEDED (the dynamic loader itself) is no program and
// keeps the symbol rules.
func (lr *layoutReader) programMitigations() error {
	if len(lr.l.Interpreters) > 0 || len(lr.l.Needed) > 0 || (lr.f.Type != elf.ET_EXEC && !lr.l.Dynamic.PIEFlag) {
		lr.importedFortify() // dynamic: the import rules (symbols) stand
		return nil
	}
	d := &lr.l.Dynamic
	d.StackCanary = false
	var fail, guards []uint64
	var mains []ports.LayoutSymbol
	var funcs []ports.LayoutSymbol // defined functions of .symtab
	checked := map[uint64]string{}
	for _, s := range lr.l.Symbols {
		if s.Table != "symtab" || s.SectionIndex == 0 || s.SectionIndex >= uint16(elf.SHN_LORESERVE) {
			continue
		}
		switch n := string(s.Name.Bytes); {
		case n == "__stack_chk_fail" || n == "__stack_chk_fail_local":
			fail = append(fail, s.Value)
		case n == "__stack_chk_guard":
			guards = append(guards, s.Value)
		case n == "main" && s.Type == "STT_FUNC" && s.Size > 0:
			mains = append(mains, s)
		case checkedName(n) && (s.Type == "STT_FUNC" || s.Type == "STT_GNU_IFUNC"):
			addChecked(checked, s.Value, n)
		}
		if s.Type == "STT_FUNC" && s.Size > 0 {
			funcs = append(funcs, s)
		}
	}
	if len(mains) > 1 {
		const why = "in a static binary whose symbols name several functions main, the program's code cannot be told from libc's, which defines and uses "
		d.StackCanaryUnknown, d.FortifyUnknown = true, true
		d.StackCanaryLimit = "stack_canary_indicator is null: " + why + "the canary whatever the program was built with."
		d.FortifyLimit = "fortify_source_indicator is null: " + why + "the checked functions whatever the program was built with."
		return nil
	}
	if len(mains) == 0 {
		return lr.strippedProgram(fail, guards, checked)
	}
	main := mains[0]
	scan := [][2]uint64{{main.Value, main.Value + main.Size}}
	units := lr.programRanges(main.Value)
	if len(units) > 0 {
		slices.SortFunc(funcs, func(a, b ports.LayoutSymbol) int { return cmp.Compare(a.Value, b.Value) })
		for _, r := range units {
			i, _ := slices.BinarySearchFunc(funcs, r[0], func(s ports.LayoutSymbol, t uint64) int { return cmp.Compare(s.Value, t) })
			for ; i < len(funcs) && funcs[i].Value < r[1]; i++ {
				scan = append(scan, [2]uint64{funcs[i].Value, funcs[i].Value + funcs[i].Size})
			}
		}
	}
	at, err := lr.scanProgram(scan, fail, guards, checked)
	if err != nil {
		return err
	}
	d.StackCanary = at != 0
	if len(units) == 0 {
		const why = " no DWARF compile unit names this static binary's other functions, which cannot be told from libc's and were not looked at."
		if !d.StackCanary {
			d.StackCanaryLimit = "stack_canary_indicator is false for main:" + why
		}
		if len(checked) > 0 {
			lr.fortifyLimit("fortify_source_indicator and fortified_functions are main's:" + why)
		}
	}
	return nil
}

// scanProgram reads the functions [start, end) of the program's code for
// the canary and for direct calls of the checked functions (setting
// Fortified); it returns the first function that uses the canary, or 0.
func (lr *layoutReader) scanProgram(funcs [][2]uint64, fail, guards []uint64, checked map[uint64]string) (uint64, error) {
	uses := lr.canaryTest(fail, guards)
	var canary uint64
	used := map[string]bool{}
	for i, f := range funcs {
		if err := lr.tick(i); err != nil {
			return 0, err
		}
		code, ok := lr.code(f[0], f[1]-f[0])
		if !ok {
			continue
		}
		if canary == 0 && uses(code, f[0]) {
			canary = f[0]
		}
		if len(checked) > 0 {
			lr.checkedCalls(code, f[0], checked, used)
		}
	}
	lr.setFortified(used)
	return canary, lr.ctx.Err()
}

// canaryTest returns the test of a function's code for the canary.
func (lr *layoutReader) canaryTest(fail, guards []uint64) func(code []byte, addr uint64) bool {
	switch lr.f.Machine {
	case elf.EM_386:
		return func(code []byte, addr uint64) bool { return usesCanary386(code, addr, fail) }
	case elf.EM_AARCH64:
		isGuard := func(a uint64) bool { return slices.Contains(guards, a) }
		return func(code []byte, addr uint64) bool {
			return usesCanaryARM64(code, addr, isGuard, lr.guardSlot(guards), fail)
		}
	}
	return func(code []byte, addr uint64) bool { return usesCanary(code, addr, fail) }
}

// strippedProgram decides both indicators of a static program without a
// symbol for main from its code as the analysis tells it
// (layout_program.go); fail, guards and checked are what the symbols
// named, if anything.
func (lr *layoutReader) strippedProgram(fail, guards []uint64, checked map[uint64]string) error {
	d := &lr.l.Dynamic
	const why = "in a static binary without a symbol for main, the program's code must be told from libc's, which defines and uses "
	const null = "stack_canary_indicator is null: " + why + "the canary whatever the program was built with, and "
	const nullFortify = "fortify_source_indicator is null: " + why + "the checked functions whatever the program was built with, and "
	pc, err := lr.seededProgram()
	if err != nil {
		return err
	}
	if pc.why != "" {
		d.StackCanaryUnknown, d.FortifyUnknown = true, true
		d.StackCanaryLimit = null + pc.why + "."
		d.FortifyLimit = nullFortify + pc.why + "."
		return nil
	}
	fail = append(slices.Clone(fail), pc.fail...)
	for a, n := range pc.checked {
		addChecked(checked, a, n)
	}
	at, err := lr.scanProgram(pc.funcs, fail, guards, checked)
	if err != nil {
		return err
	}
	const told = " from the program's code as the analysis tells it without a symbol table"
	lr.strippedFortify(pc, checked, told)
	switch {
	case lr.f.Machine == elf.EM_AARCH64 && len(fail) == 0 && len(guards) == 0:
		// AArch64's canary is a global whose address only a symbol gives;
		// without __stack_chk_fail's either, nothing would be seen.
		d.StackCanaryUnknown = true
		d.StackCanaryLimit = null + "neither a symbol nor the signature libraries (" + strings.Join(pc.libs, ", ") +
			") name __stack_chk_fail or __stack_chk_guard, which AArch64's canary check is known by."
	case at != 0:
		d.StackCanary = true
		d.StackCanaryLimit = fmt.Sprintf("stack_canary_indicator is true"+told+": the function at 0x%x uses the canary; looked at: %s.", at, pc.describe())
	default:
		d.StackCanaryLimit = "stack_canary_indicator is false" + told + ": no function looked at uses the canary; looked at: " + pc.describe() + "; functions reached only through pointers were not."
	}
	return nil
}

// maxCanaryDWARF bounds the debug information read for the canary: the
// layout reads headers, and a large program's DWARF is read by analyses.
const maxCanaryDWARF = 64 << 20

// programRanges returns the address ranges of the DWARF compile units
// built in the directory of the one holding main, or nil without DWARF
// (or with more than maxCanaryDWARF bytes of it).
func (lr *layoutReader) programRanges(main uint64) [][2]uint64 {
	var size uint64
	for _, s := range lr.f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			size += s.Size
		}
	}
	if lr.f.Section(".debug_info") == nil || size > maxCanaryDWARF {
		return nil
	}
	dw := loadELFDWARF(lr.src, lr.f).d // the sections debug/dwarf reads, not every .debug_*
	if dw == nil {
		return nil
	}
	type unit struct {
		dir    string
		ranges [][2]uint64
	}
	var units []unit
	r := dw.Reader()
	for i := 0; ; i++ {
		if i%256 == 0 && lr.ctx.Err() != nil {
			return nil
		}
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == 0x11 { // DW_TAG_compile_unit
			dir, _ := e.Val(0x1b).(string) // DW_AT_comp_dir
			rs, _ := dw.Ranges(e)
			u := unit{dir: dir}
			for _, x := range rs {
				u.ranges = append(u.ranges, [2]uint64{x[0], x[1]})
			}
			units = append(units, u)
		}
		r.SkipChildren()
	}
	dir, found := "", false
	for _, u := range units {
		for _, x := range u.ranges {
			if main >= x[0] && main < x[1] {
				dir, found = u.dir, true
			}
		}
	}
	if !found {
		return nil
	}
	var out [][2]uint64
	for _, u := range units {
		if u.dir == dir {
			out = append(out, u.ranges...)
		}
	}
	return out
}

// maxCanaryScan bounds the bytes read from one function.
const maxCanaryScan = 1 << 20

// code reads the file bytes of [start, start+size) from the executable
// section holding start.
func (lr *layoutReader) code(start, size uint64) ([]byte, bool) {
	for _, s := range lr.f.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 || start < s.Addr || start-s.Addr >= s.Size {
			continue
		}
		n := min(size, s.Size-(start-s.Addr), maxCanaryScan)
		b, err := lr.src.read(s.Offset+(start-s.Addr), n)
		return b, err == nil
	}
	return nil, false
}

// usesCanary386 reports whether 32-bit x86 code at addr loads the canary
// from gs:0x14, where glibc's i386 thread control block keeps it (65 a1
// disp32=0x14, mov eax, gs:0x14, or 65 8b modrm=00,reg,101 disp32=0x14 for
// another register, as gcc emits it), or calls one of fail directly.
func usesCanary386(code []byte, addr uint64, fail []uint64) bool {
	guard := []byte{0x14, 0, 0, 0}
	for i := 0; i+6 <= len(code); i++ {
		if code[i] != 0x65 {
			continue
		}
		if code[i+1] == 0xa1 && bytes.Equal(code[i+2:i+6], guard) ||
			i+7 <= len(code) && code[i+1] == 0x8b && code[i+2]&0xc7 == 0x05 && bytes.Equal(code[i+3:i+7], guard) {
			return true
		}
	}
	return callsAny(code, addr, fail)
}

// usesCanary reports whether x86-64 code at addr loads the canary from
// fs:0x28 (64 REX.W 8b modrm=00,reg,100 sib=0x25 disp32=0x28, as gcc and
// clang emit it) or calls one of fail directly.
func usesCanary(code []byte, addr uint64, fail []uint64) bool {
	for i := 0; i+9 <= len(code); i++ {
		if code[i] == 0x64 && code[i+1]&0xf8 == 0x48 && code[i+2] == 0x8b && code[i+3]&0xc7 == 0x04 && code[i+4] == 0x25 &&
			bytes.Equal(code[i+5:i+9], []byte{0x28, 0, 0, 0}) {
			return true
		}
	}
	return callsAny(code, addr, fail)
}

// callsAny reports whether x86 code at addr calls one of fail directly
// (e8 rel32).
func callsAny(code []byte, addr uint64, fail []uint64) bool {
	for i := 0; i+5 <= len(code); i++ {
		if code[i] != 0xe8 {
			continue
		}
		to := addr + uint64(i) + 5 + uint64(int64(int32(binary.LittleEndian.Uint32(code[i+1:]))))
		if slices.Contains(fail, to) {
			return true
		}
	}
	return false
}

// canaryWindow is how many instructions an AArch64 address formed by adrp
// (and add, or a load from the GOT) is followed: gcc and clang emit the
// canary's adrp, its load and the load through it within a few.
const canaryWindow = 8

// usesCanaryARM64 reports whether AArch64 code at addr loads the canary or
// calls one of fail directly (bl). glibc keeps the AArch64 canary in the
// global __stack_chk_guard, not in the thread control block (its
// tcbhead_t holds only the dtv and a private word), and gcc's default
// -mstack-protector-guard=global loads it through its address:
//
//	adrp x2, PAGE; ldr x2, [x2, #GOT_SLOT]; ... ldr x3, [x2]   (gcc 12, -static and -static-pie)
//	adrp x8, PAGE; ldr x8, [x8, #:lo12:__stack_chk_guard]      (clang)
//	adrp x0, PAGE; add x0, x0, #:lo12:__stack_chk_guard; ldr x1, [x0]
//
// isGuard tells the guard's address, slot a GOT slot that holds it. A load
// from the thread pointer (mrs tpidr_el0) is no indicator here: in a glibc
// program it reads a thread-local variable, not the canary.
func usesCanaryARM64(code []byte, addr uint64, isGuard, slot func(uint64) bool, fail []uint64) bool {
	type reg struct {
		v     uint64 // an address formed by adrp or add
		guard bool   // v is unknown but the register holds the guard's address
		at    int    // the instruction that set it, -1 for none
	}
	var regs [32]reg
	for i := range regs {
		regs[i].at = -canaryWindow - 1
	}
	for k := 0; 4*k+4 <= len(code); k++ {
		w := binary.LittleEndian.Uint32(code[4*k:])
		pc := addr + uint64(4*k)
		rd, rn := w&31, (w>>5)&31
		fresh := func(r uint32) bool { return k-regs[r].at <= canaryWindow }
		switch {
		case w&0xfc000000 == 0x94000000: // bl
			to := pc + uint64(int64(int32(w<<6)>>6)*4)
			if slices.Contains(fail, to) {
				return true
			}
		case w&0x9f000000 == 0x90000000 && rd != 31: // adrp
			imm := int64(int32(((w>>5)&0x7ffff)<<2|(w>>29)&3)<<11>>11) << 12
			regs[rd] = reg{v: pc&^0xfff + uint64(imm), at: k}
		case w&0xff800000 == 0x91000000: // add (immediate), 64-bit
			if fresh(rn) && !regs[rn].guard {
				v := regs[rn].v + uint64((w>>10)&0xfff)<<(12*((w>>22)&1))
				regs[rd] = reg{v: v, guard: isGuard(v), at: k}
			} else {
				regs[rd].at = -canaryWindow - 1
			}
		case w&0xffc00000 == 0xf9400000: // ldr (immediate, unsigned offset), 64-bit
			off := uint64((w>>10)&0xfff) * 8
			r := regs[rn]
			switch {
			case !fresh(rn):
				regs[rd].at = -canaryWindow - 1
			case r.guard && off == 0, !r.guard && isGuard(r.v+off):
				return true
			case !r.guard && slot(r.v+off):
				regs[rd] = reg{guard: true, at: k}
			default:
				regs[rd].at = -canaryWindow - 1
			}
		}
	}
	return false
}

// guardSlot returns whether an address is a slot (of the GOT) that holds
// the address of one of guards: in the file, as GNU ld writes it, or by a
// relocation the loader applies (its addend, or its symbol's name).
func (lr *layoutReader) guardSlot(guards []uint64) func(uint64) bool {
	return func(at uint64) bool {
		if len(guards) == 0 {
			return false
		}
		for _, s := range lr.f.Sections {
			if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 || at < s.Addr || at-s.Addr+8 > s.Size {
				continue
			}
			if b, err := lr.src.read(s.Offset+(at-s.Addr), 8); err == nil && slices.Contains(guards, lr.f.ByteOrder.Uint64(b)) {
				return true
			}
		}
		for _, r := range lr.l.Relocations {
			if r.Offset == at && (r.HasAddend && slices.Contains(guards, uint64(r.Addend)) || r.Symbol != nil && string(r.Symbol.Bytes) == "__stack_chk_guard") {
				return true
			}
		}
		return false
	}
}
