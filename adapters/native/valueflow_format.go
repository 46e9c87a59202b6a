package native

import (
	"bytes"
	"debug/elf"
	"debug/macho"

	"rea/ports/libc"
)

// A call of a printf-family import (printf, fprintf, snprintf, syslog,
// error, _FORTIFY_SOURCE's __printf_chk family: ports/libc.PrintfFormat)
// whose format is a constant address (lea rdi, [rip+fmt]; adrp x0, ...;
// add x0, x0, #...; mov edi, 0x402004) of a NUL-terminated string in a
// read-only section of the image takes exactly what the format's
// conversions take, placed as the convention places C's variadic
// arguments (ports/libc.Convention.Place): under SysV x86-64 and Linux
// AArch64 integers and pointers in the integer registers after the fixed
// ones, doubles in the vector registers (on x86-64 with al their count),
// the rest in stack words; under Microsoft x64 by position, a double in
// both its integer and its vector register. So printf("%d %s\n", i, s)
// takes rdi, rsi and rdx and no rcx written before it for another reason,
// and on AArch64 printf("%f\n", d) takes v0, which no al counts there.
// The format's register must have one constant definition reaching the
// call on every path (or several whose formats take the same places). A
// conversion the scan does not know, a positional one (%1$s), a format
// that is not constant or not in read-only memory and Apple's AArch64 (whose
// variadic arguments are all on the stack) keep the prototype's arity:
// its fixed parameters, and written registers above them. The call's
// effect says which (ArgumentsSource "format" or "libc-prototype").
// Under cdecl the format is a stack word, and the call takes the words
// the format places, a double or a long long in two (valueflow_cdecl.go).

// maxFormatBytes bounds the bytes read for one format.
const maxFormatBytes = 4096

// readOnlyText is the NUL-terminated text at addr, without its NUL, when
// its bytes lie in a mapped section of the image that the program cannot
// write; ok is false otherwise (no NUL within maxFormatBytes or the
// section's file bytes).
func (a *Analysis) readOnlyText(p *program, addr uint64) ([]byte, bool) {
	r := p.mm.find(addr)
	if r == nil || addr-r.addr >= r.fileSize || !a.readOnly(addr) {
		return nil, false
	}
	b, err := p.mm.read(a.src, addr, maxFormatBytes)
	if err != nil {
		return nil, false
	}
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return nil, false
	}
	return b[:n], true
}

// readOnly reports whether the image maps addr in a section (or, without
// sections, a segment) that is not writable.
func (a *Analysis) readOnly(addr uint64) bool {
	in := func(start, size uint64) bool { return addr >= start && addr-start < size }
	switch im := a.img.(type) {
	case *elfImage:
		for _, s := range im.f.Sections {
			if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NULL && in(s.Addr, s.Size) {
				return s.Flags&elf.SHF_WRITE == 0
			}
		}
		for _, pr := range im.f.Progs {
			if pr.Type == elf.PT_LOAD && in(pr.Vaddr, pr.Memsz) {
				return pr.Flags&elf.PF_W == 0
			}
		}
	case *peImage:
		for _, s := range im.sections {
			if in(im.base+uint64(s.VirtualAddress), uint64(max(s.VirtualSize, s.Size))) {
				return s.Characteristics&scnWrite == 0
			}
		}
	case *machoImage:
		return machoReadOnly(im, addr)
	case *fatImage:
		return machoReadOnly(im.slices[0], addr)
	}
	return false
}

// machoReadOnly reports whether addr is in a segment of m that is mapped
// without write permission.
func machoReadOnly(m *machoImage, addr uint64) bool {
	for _, l := range m.f.Loads {
		if g, ok := l.(*macho.Segment); ok && addr >= g.Addr && addr-g.Addr < g.Memsz {
			return g.Prot&2 == 0 && g.Maxprot&2 == 0
		}
	}
	return false
}

// libcConvention is cc as ports/libc places a variadic call's arguments;
// ok is false where value flow does not take them from a format (cdecl,
// Apple's AArch64, Go's).
func (cc convention) libcConvention() (libc.Convention, bool) {
	switch {
	case cc.name == sysvAMD64.name:
		return libc.Convention{Ints: len(cc.intArgs), Floats: len(cc.vecArgs), Word: 8, LongDoubleInMemory: true}, true
	case cc.name == aapcs64.name && cc.stackWord > 0:
		return libc.Convention{Ints: len(cc.intArgs), Floats: len(cc.vecArgs), Word: 8}, true
	case cc.name == msX64.name:
		return libc.Convention{Ints: len(cc.intArgs), Floats: len(cc.vecArgs), Word: 8, Positional: true}, true
	}
	return libc.Convention{}, false
}

// formatArity is the arity of call k of a printf-family function whose
// prototype gives ar, from the constant format every definition of its
// format register reaching k (state) sets; ok is false when there is none
// or the formats do not all take the same places.
func (f *flowSolver) formatArity(k int, state []defSet, ar calleeArity) (calleeArity, bool) {
	lc, ok := f.cc.libcConvention()
	at := ar.format - 1
	if !ok || at < 0 || at >= len(f.cc.intArgs) || f.known.format == nil {
		return calleeArity{}, false
	}
	id, ok := f.locID[f.cc.intArgs[at]]
	if !ok || id < 0 || id >= f.nt || len(state[id]) == 0 {
		return calleeArity{}, false
	}
	var out calleeArity
	for n, d := range state[id] {
		addr, ok := f.consts[int(d)]
		if d < 0 || !ok {
			return calleeArity{}, false
		}
		text, ok := f.known.format(addr)
		if !ok {
			return calleeArity{}, false
		}
		args, ok := libc.ParseFormat(text)
		if !ok {
			return calleeArity{}, false
		}
		places, ok := lc.Place(at+1, args)
		if !ok {
			return calleeArity{}, false
		}
		a := placedArity(lc, ar, at+1, places)
		if n > 0 && a != out {
			return calleeArity{}, false
		}
		out = a
	}
	return out, true
}

// copiedConst records instruction k, a move of register copyOf (vfSem's
// number; its definitions reaching k are state's), as setting its register
// to the address that one holds when every one of those definitions sets
// the same one: gcc -O0's "lea rax, [rip+fmt]; mov rdi, rax" passes a
// constant format.
func (f *flowSolver) copiedConst(k int, copyOf uint8, state []defSet) {
	from := x86Regs[copyOf-1]
	if f.cc.sp == cdecl.sp {
		from = x86Names32.Replace(from)
	}
	id, ok := f.locID[from]
	if !ok || id < 0 || id >= f.nt || len(state[id]) == 0 {
		return
	}
	var addr uint64
	for n, d := range state[id] {
		a, ok := f.consts[int(d)]
		if d < 0 || !ok || n > 0 && a != addr {
			return
		}
		addr = a
	}
	if f.consts == nil {
		f.consts = map[int]uint64{}
	}
	f.consts[k] = addr
}

// placedArity is the exact arity of a call whose fixed integer
// parameters, then variadic arguments at places, are all it passes; ar is
// the prototype's (its stack words past the registers count).
func placedArity(lc libc.Convention, ar calleeArity, fixed int, places []libc.Place) calleeArity {
	out := calleeArity{known: true, exact: true, format: ar.format, source: sourceFormat,
		ints: min(fixed, lc.Ints), words: ar.words}
	var floats uint32 // the vector registers holding an argument
	end := 0          // past the last stack byte
	for _, p := range places {
		if p.Int >= 0 {
			out.ints = max(out.ints, p.Int+1)
		}
		if p.Float >= 0 {
			out.vecs, floats = max(out.vecs, p.Float+1), floats|1<<p.Float
		}
		if p.Size > 0 {
			end = max(end, p.Stack+p.Size)
		}
	}
	out.words = max(out.words, (end+lc.Word-1)/lc.Word)
	if lc.Positional { // the positions of integer arguments below the highest double are the vector class's holes
		out.vecHoles = (1<<out.vecs - 1) &^ floats
	}
	return out.trimmed()
}

// addressSet is the address in's one address reference takes (lea's
// operand, an immediate that is a mapped address, ADR's or an ADRP
// pair's ADD), which an instruction defining one register sets it to.
func addressSet(in *insn) (uint64, bool) {
	var addr uint64
	n := 0
	for _, x := range in.refs {
		if x.kind == kindAddress && x.resolved() {
			addr, n = x.to, n+1
		}
	}
	return addr, n == 1
}
