package native

import (
	"bytes"
	"debug/elf"
	"debug/macho"

	"rea/ports/libc"
)

// A call of a printf-family import (printf, fprintf, snprintf, syslog,
// error, _FORTIFY_SOURCE's __printf_chk family: ports/libc.PrintfFormat),
// or of a scanf-family one (scanf, sscanf, fscanf, glibc's __isoc99_ and
// __isoc23_ forms: ports/libc.ScanfFormat), whose format is a constant
// address (lea rdi, [rip+fmt]; adrp x0, ...;
// add x0, x0, #...; mov edi, 0x402004) of a NUL-terminated string in a
// read-only section of the image takes exactly what the format's
// conversions take (a scanf format's a pointer each but %*d's), placed as
// the convention places C's variadic arguments (ports/libc.Convention.Place): under SysV x86-64 and Linux
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
// A wide function's format (wprintf's, swscanf's) is wchar_t text, to a
// zero unit: UTF-16 in a PE image, UTF-32 in an ELF or Mach-O one. A PE
// image's formats follow Microsoft's C runtime (ports/libc.Dialect: a
// wide function's %s is wchar_t, I64 a length), which changes what a
// conversion reads, not the number of its arguments, but that I64 and
// %hs are known.

// maxFormatBytes bounds the bytes read for one format.
const maxFormatBytes = 4096

// readOnlyText is the NUL-terminated text at addr, without its NUL, when
// its bytes lie in a mapped section of the image that the program cannot
// write; ok is false otherwise (no NUL within maxFormatBytes or the
// section's file bytes). Wide text is wchar_t units up to a zero unit
// (2 bytes each in a PE image, UTF-16; 4 elsewhere, UTF-32), read as
// UTF-8 (ports/libc.WideString); d is the C library's dialect the image's
// formats follow (Microsoft's in a PE image).
func (a *Analysis) readOnlyText(p *program, addr uint64, wide bool) (text []byte, d libc.Dialect, ok bool) {
	_, pe := a.img.(*peImage)
	d = libc.Dialect{MS: pe, Wide: wide}
	r := p.mm.find(addr)
	if r == nil || addr-r.addr >= r.fileSize || !a.readOnly(addr) {
		return nil, d, false
	}
	unit := 1
	switch {
	case wide && pe:
		unit = 2
	case wide:
		unit = 4
	}
	b, err := p.mm.read(a.src, addr, uint64(unit*maxFormatBytes))
	if err != nil {
		return nil, d, false
	}
	if wide {
		text, end := libc.WideString(b, unit)
		return text, d, end
	}
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return nil, d, false
	}
	return b[:n], d, true
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

// formatArity is the arity of call k of a printf- or scanf-family
// function whose prototype gives ar, from the constant format every
// definition of its format register reaching k (state) sets; ok is false
// when there is none or the formats do not all take the same places.
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
		a, ok := f.formatAt(lc, ar, addr)
		if !ok || n > 0 && a != out {
			return calleeArity{}, false
		}
		out = a
	}
	return out, true
}

// formatAt is the exact arity of a call of a function whose prototype
// gives ar (ar.format > 0) when its format is the constant one at addr:
// a printf format's arguments, a scanf format's pointers (ar.scan), read
// as wchar_t text for a wide function (ar.wide), placed by lc after the
// fixed parameters; ok is false when the format is not read-only text
// the scans understand whole.
func (f *flowSolver) formatAt(lc libc.Convention, ar calleeArity, addr uint64) (calleeArity, bool) {
	text, d, ok := f.known.format(addr, ar.wide)
	if !ok {
		return calleeArity{}, false
	}
	var args []libc.FormatArg
	if ar.scan {
		scanned, whole := d.Scanf(text)
		for _, a := range scanned {
			args = append(args, a.FormatArg)
		}
		ok = whole
	} else {
		args, ok = d.Printf(text)
	}
	if !ok {
		return calleeArity{}, false
	}
	places, ok := lc.Place(ar.format, args)
	if !ok {
		return calleeArity{}, false
	}
	return placedArity(lc, ar, ar.format, places), true
}

// formatOf is what name's prototype says of its format (ports/libc):
// 1 + its position among the fixed parameters, 0 for a function without
// one describing its variadic arguments; scan for a scanf-style one,
// whose conversions take pointers; wide for wchar_t text.
func formatOf(name string) (format int, scan, wide bool) {
	if at, ok := libc.PrintfFormat(name); ok {
		return at + 1, false, libc.WideFormat(name)
	}
	if at, ok := libc.ScanfFormat(name); ok {
		return at + 1, true, libc.WideFormat(name)
	}
	return 0, false, false
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
	out := calleeArity{known: true, exact: true, format: ar.format, scan: ar.scan, wide: ar.wide, source: sourceFormat,
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
