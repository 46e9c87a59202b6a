package gdbremote

import (
	"context"
	"debug/elf"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rea/ports"
)

// Thread-local storage. glibc gives each thread a static TLS area beside
// its thread pointer: the TLS blocks of the program and of the libraries
// loaded with it, and the thread's descriptor (struct pthread). A word
// argument there (errno's address, a __thread variable's) is placed as
// the owning thread's TLS with its offset from that thread's pointer,
// which is what the program itself computes as
// (char *)&v - (char *)__builtin_thread_pointer().
//
// The layout is glibc's (_dl_determine_tlsoffset; a static program's one
// block as __libc_setup_tls places it: staticTLSUsed). On x86-64 and i386 (variant II) the
// thread pointer points at struct pthread, the TCB, and the blocks lie
// below it; on AArch64 (variant I) it points at a 16-byte TCB the blocks
// follow, with struct pthread just below it. The placed range is
// [tp-used, tp+sizeof(struct pthread)) for variant II and
// [tp-sizeof(struct pthread), tp+used) for variant I, where used is the
// static TLS the initial modules take, computed from their PT_TLS segments
// (size, alignment, the first byte's offset) in load order, and
// sizeof(struct pthread) is glibc's own _thread_db_sizeof_pthread (read
// from the C library's file, or a static program's symbol table; without
// it the descriptor's side is left out). Not counted: glibc's surplus
// (1664 bytes by default, below the blocks on x86-64, after them on
// AArch64), where a library loaded later with initial-exec TLS goes,
// and a library's dynamic TLS (allocated by __tls_get_addr in the heap),
// which stay placed by the memory map. The thread pointer is a register
// of the target description: fs_base (gdbserver's
// org.gnu.gdb.i386.segments, x86-64), tpidr (org.gnu.gdb.aarch64.tls,
// gdbserver on AArch64), TPIDR_EL0 (QEMU's org.qemu.gdb.arm.sys.regs,
// qemu-aarch64 7.2) and gs_base (QEMU's org.gnu.gdb.i386.core for an i386
// guest, the base of the descriptor set_thread_area installed). A program
// that is not glibc's (Go, musl) has no TLS places, nor has any program
// traced through a dialed server, whose memory map is not known.

// tlsLayout is the static TLS range around a thread pointer: offsets
// [lo, hi) from it.
type tlsLayout struct {
	lo, hi int64
	known  bool
}

// tlsBlock is a module's PT_TLS segment as glibc lays it out.
type tlsBlock struct {
	size, align, firstByte uint64 // p_memsz, p_align (at least 1), p_vaddr mod p_align
}

// tlsUsed is the static TLS the blocks take, in load order (module ID
// order: the program first, then its libraries as the loader listed
// them), by glibc's _dl_determine_tlsoffset: on variant II (x86) the
// largest offset below the thread pointer, on variant I (AArch64) the end
// past it, the blocks starting after the TCB's tcb bytes. A block that
// fits in the padding an earlier one's alignment left goes there, as
// glibc puts it.
func tlsUsed(blocks []tlsBlock, variant1 bool, tcb uint64) uint64 {
	roundUp := func(n, a uint64) uint64 { return (n + a - 1) / a * a }
	var offset, freeTop, freeBottom uint64
	if variant1 {
		offset = tcb
	}
	for _, b := range blocks {
		if b.size == 0 {
			continue
		}
		first := -b.firstByte & (b.align - 1)
		if !variant1 {
			if freeBottom-freeTop >= b.size {
				if off := roundUp(freeTop+b.size-first, b.align) + first; off <= freeBottom {
					freeTop = off
					continue
				}
			}
			off := roundUp(offset+b.size-first, b.align) + first
			if off > offset+b.size+(freeBottom-freeTop) {
				freeTop, freeBottom = offset, off-b.size
			}
			offset = off
			continue
		}
		if b.size <= freeTop-freeBottom {
			off := roundUp(freeBottom, b.align)
			if off-freeBottom < first {
				off += b.align
			}
			if off+b.size-first <= freeTop {
				freeBottom = off + b.size - first
				continue
			}
		}
		off := roundUp(offset, b.align)
		if off-offset < first {
			off += b.align
		}
		if off-first-offset > freeTop-freeBottom {
			freeBottom, freeTop = offset, off-first
		}
		offset = off + b.size - first
	}
	return offset
}

// staticTLSUsed is tlsUsed for a static program's one block, which glibc's
// __libc_setup_tls places without regard to the first byte's offset: its
// size rounded up to its alignment below the pointer (variant II), or
// after the TCB rounded up to the alignment (variant I).
func staticTLSUsed(b tlsBlock, variant1 bool, tcb uint64) uint64 {
	roundUp := func(n, a uint64) uint64 { return (n + a - 1) / a * a }
	switch {
	case b.size == 0 && variant1:
		return tcb
	case b.size == 0:
		return 0
	case variant1:
		return roundUp(tcb, b.align) + b.size
	}
	return roundUp(b.size, b.align)
}

// maxTLSBlock bounds a PT_TLS segment's size and alignment taken from a
// file: larger ones (no real program's) leave the layout unknown.
const maxTLSBlock = 1 << 30

// tlsFile is what the TLS layout reads of one module's file, all in one
// opening: ok is false for a file that cannot be read as ELF (or whose
// PT_TLS segment is absurd); block is its PT_TLS segment (zero without
// TLS); needed and soname its DT_NEEDED and DT_SONAME entries; pthreadDyn
// and pthreadSym glibc's _thread_db_sizeof_pthread from its dynamic
// symbols and, for a file without any (a static program), its symbol
// table (0 without it); abiTag that it has the ABI
// note of a glibc static program.
type tlsFile struct {
	ok                     bool
	block                  tlsBlock
	needed, soname         []string
	pthreadDyn, pthreadSym uint64
	abiTag                 bool
}

// tlsFiles reads each module's file once per layout.
type tlsFiles map[string]*tlsFile

func (fs tlsFiles) get(path string) *tlsFile {
	if t, ok := fs[path]; ok {
		return t
	}
	t := readTLSFile(path)
	fs[path] = t
	return t
}

// readTLSFile reads path's tlsFile; a malformed file reads as not ok.
func readTLSFile(path string) (t *tlsFile) {
	t = &tlsFile{}
	defer func() {
		if recover() != nil {
			t = &tlsFile{}
		}
	}()
	f, err := elf.Open(path)
	if err != nil {
		return t
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_TLS || p.Memsz == 0 {
			continue
		}
		align := max(p.Align, 1)
		if align&(align-1) != 0 || align > maxTLSBlock || p.Memsz > maxTLSBlock {
			return t
		}
		t.block = tlsBlock{size: p.Memsz, align: align, firstByte: p.Vaddr & (align - 1)}
		break
	}
	t.ok = true
	t.needed, _ = f.DynString(elf.DT_NEEDED)
	t.soname, _ = f.DynString(elf.DT_SONAME)
	t.abiTag = f.Section(".note.ABI-tag") != nil
	dyn, _ := f.DynamicSymbols()
	if t.pthreadDyn = sizeofPthread(f, dyn); len(dyn) == 0 {
		// A static program: only its symbol table can hold it.
		syms, _ := f.Symbols()
		t.pthreadSym = sizeofPthread(f, syms)
	}
	return t
}

// sizeofPthread reads glibc's _thread_db_sizeof_pthread (a uint32
// libthread_db reads) among syms of f; 0 when it is not there.
func sizeofPthread(f *elf.File, syms []elf.Symbol) uint64 {
	for _, sym := range syms {
		if sym.Name != "_thread_db_sizeof_pthread" || sym.Size != 4 || sym.Section >= elf.SHN_LORESERVE || int(sym.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[sym.Section]
		if sec.Type == elf.SHT_NOBITS || sym.Value < sec.Addr || sym.Value-sec.Addr+4 > sec.Size {
			return 0
		}
		var b [4]byte
		if _, err := sec.ReadAt(b[:], int64(sym.Value-sec.Addr)); err != nil {
			return 0
		}
		if v := uint64(f.ByteOrder.Uint32(b[:])); v < maxTLSBlock {
			return v
		}
		return 0
	}
	return 0
}

// tlsLayoutOf is the static TLS range of the traced program, computed
// once per trace from the program's file and those of the libraries
// loaded with it: the modules the breakpoints were relocated in, else the
// loader's list read once, at the first value that needs it (a library
// dlopen'd before then counts as one loaded with the program: glibc puts
// the static TLS such a library may take in the surplus past the initial
// modules' blocks, which the range then may cover). Unknown for a Go program, a
// program whose loader is not glibc's, a static one without glibc's ABI
// note, or when a module's file cannot be read.
func (s *session) tlsLayoutOf(ctx context.Context) (tlsLayout, error) {
	if s.tls.layoutDone {
		return s.tls.layout, nil
	}
	s.tls.layoutDone = true
	if s.target == nil || s.target.goBuild || len(s.res.Modules) == 0 {
		return s.tls.layout, nil
	}
	libs := s.res.Modules[1:]
	if len(libs) == 0 && s.target.interp != "" {
		var err error
		if libs, err = s.libraries(ctx); err != nil {
			return s.tls.layout, quiet(err)
		}
	}
	files := tlsFiles{}
	libs = initialLibraries(files, s.target.path, libs)
	variant1 := s.res.Architecture == "arm64"
	prog := files.get(s.target.path)
	glibc := false
	if s.target.interp != "" {
		base := filepath.Base(s.target.interp)
		glibc = strings.HasPrefix(base, "ld-linux") || base == "ld.so.1"
	} else {
		glibc = prog.abiTag
	}
	if !glibc || !prog.ok {
		return s.tls.layout, nil
	}
	main := prog.block
	blocks := []tlsBlock{main}
	var pthread uint64
	if s.target.interp == "" {
		pthread = prog.pthreadSym
	}
	for _, m := range libs {
		lib := files.get(m.Path)
		if !lib.ok {
			if _, err := os.Stat(m.Path); errors.Is(err, fs.ErrNotExist) && isVDSO(m.Path) {
				continue // the kernel's vDSO: no file, no TLS
			}
			return s.tls.layout, nil
		}
		blocks = append(blocks, lib.block)
		if pthread == 0 {
			pthread = lib.pthreadDyn
		}
	}
	used := tlsUsed(blocks, variant1, 2*s.conv.word)
	if s.target.interp == "" {
		used = staticTLSUsed(main, variant1, 2*s.conv.word)
	}
	if variant1 {
		s.tls.layout = tlsLayout{lo: -int64(pthread), hi: int64(used), known: true}
	} else {
		s.tls.layout = tlsLayout{lo: -int64(used), hi: int64(pthread), known: true}
	}
	return s.tls.layout, nil
}

// initialLibraries is the part of libs, the loader's list in its order,
// that the program loaded at its start: up to the last library the
// program's DT_NEEDED entries reach (directly or through the libraries
// they name, matched by DT_SONAME or file name). The loader lists those
// first (with any LD_PRELOAD ones before them), then what dlopen loaded,
// whose TLS has no place among the initial modules': it takes static TLS
// only from the surplus, if it fits, and else is allocated in the heap.
func initialLibraries(files tlsFiles, program string, libs []ports.TraceModule) []ports.TraceModule {
	reached := map[string]bool{}
	for _, n := range files.get(program).needed {
		reached[n] = true
	}
	keys := make([]string, len(libs))
	for i, l := range libs {
		keys[i] = filepath.Base(l.Path)
		if so := files.get(l.Path).soname; len(so) == 1 {
			keys[i] = so[0]
		}
	}
	last, done := -1, map[int]bool{}
	for changed := true; changed; {
		changed = false
		for i, l := range libs {
			if done[i] || !reached[keys[i]] {
				continue
			}
			done[i], changed, last = true, true, max(last, i)
			for _, n := range files.get(l.Path).needed {
				reached[n] = true
			}
		}
	}
	return libs[:last+1]
}

// isVDSO reports whether a module the loader lists is the kernel's vDSO.
func isVDSO(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "linux-vdso") || strings.HasPrefix(base, "linux-gate")
}

// tpRegister is the target description's thread pointer register, if it
// has one (see the comment at the top of this file).
func (s *session) tpRegister() (register, bool) {
	if s.td == nil {
		return register{}, false
	}
	var names []string
	switch s.res.Architecture {
	case "x86-64":
		names = []string{"fs_base"}
	case "x86":
		names = []string{"gs_base"}
	case "arm64":
		names = []string{"tpidr", "TPIDR_EL0"}
	}
	for _, name := range names {
		if r, ok := s.td.reg(name); ok && r.bits == 8*int(s.conv.word) {
			return r, true
		}
	}
	return register{}, false
}

// tlsState is what the TLS places of one trace keep: the layout, and the
// thread pointers read at stop tpStop (0 for a thread whose pointer could
// not be read).
type tlsState struct {
	layout     tlsLayout
	layoutDone bool
	tps        map[int64]uint64
	tpStop     int
}

// threadPointer is thread t's thread pointer at the current stop, read at
// most once per thread and stop (from its g packet, else with p); ok is
// false when the server has none for it.
func (s *session) threadPointer(ctx context.Context, t threadID) (uint64, bool, error) {
	s.tpsNow()
	if tp, seen := s.tls.tps[t.TID]; seen {
		return tp, tp != 0, nil
	}
	r, ok := s.tpRegister()
	if !ok {
		return 0, false, nil
	}
	tp, ok, err := s.readThreadRegister(ctx, t, r)
	if err != nil {
		return 0, false, err
	}
	if !ok {
		tp = 0
	}
	s.tls.tps[t.TID] = tp
	return tp, tp != 0, nil
}

// tpsNow empties the thread pointers kept at an earlier stop.
func (s *session) tpsNow() {
	if s.tls.tps == nil || s.tls.tpStop != s.stops {
		s.tls.tps, s.tls.tpStop = map[int64]uint64{}, s.stops
	}
}

// keepTP keeps thread t's pointer at this stop, read with another register.
func (s *session) keepTP(t threadID, tp uint64) {
	s.tpsNow()
	s.tls.tps[t.TID] = tp
}

// holds reports whether v lies in the static TLS of the thread whose
// pointer is tp, and its offset from tp.
func (l tlsLayout) holds(v, tp uint64) (int64, bool) {
	if !l.known || tp == 0 {
		return 0, false
	}
	off := int64(v - tp)
	return off, off >= l.lo && off < l.hi
}

// mayHoldTLS reports whether list[i] may hold a thread's static TLS:
// glibc allocates it in read-write anonymous memory (the main thread's
// from the loader's malloc, which maps memory, or in a static program from
// the brk heap; other threads' at the top of their stacks), never in the
// kernel's [stack] or a thread arena's heap.
func mayHoldTLS(list []mapping, i int, static bool, word uint64) bool {
	m := &list[i]
	if !strings.HasPrefix(m.perms, "rw") {
		return false
	}
	if m.path == "[heap]" {
		return static
	}
	return m.anonymous() && m.path != "[stack]" && !strings.HasPrefix(m.path, "[stack:") && !isArena(list, i, word)
}

// placeTLS places v as a thread's TLS when it lies in the static TLS of
// the calling thread t, of the main thread, or of the thread whose stack
// pointer lies in the mapping (glibc keeps a thread's TLS at the top of
// its stack, guarded or not; the threads are listed once per stop, as
// stackOf does, for a value in anonymous memory): each thread's pointer is read
// once per stop at most, and only for a value in memory that may hold TLS
// (mayHoldTLS).
func (s *session) placeTLS(ctx context.Context, a *ports.TraceRegister, list []mapping, i int, t threadID) (bool, error) {
	if s.target == nil || !mayHoldTLS(list, i, s.target.interp == "", s.conv.word) {
		return false, nil
	}
	m := &list[i]
	if _, ok := s.tpRegister(); !ok {
		return false, nil
	}
	l, err := s.tlsLayoutOf(ctx)
	if err != nil || !l.known {
		return false, err
	}
	try := func(o threadID) (bool, error) {
		tp, ok, err := s.threadPointer(ctx, o)
		if err != nil || !ok {
			return false, quiet(err)
		}
		if off, in := l.holds(a.Value, tp); in {
			a.TLS = &ports.TraceTLS{Thread: int(o.TID), Offset: off}
			return true, nil
		}
		return false, nil
	}
	if ok, err := try(t); ok || err != nil {
		return ok, err
	}
	if s.main.TID != 0 && s.main.TID != t.TID {
		if ok, err := try(s.main); ok || err != nil {
			return ok, err
		}
	}
	if s.target.goBuild || m.path == "[heap]" {
		return false, nil
	}
	other, _, known, err := s.stackOf(ctx, m, t)
	if err != nil || !known || other.TID == 0 || other.TID == s.main.TID {
		return false, err
	}
	return try(other)
}

// readThreadRegister reads register r of thread t from its g packet, or
// with p where the g packet lacks it; ok is false for a thread the server
// no longer has or a register it will not give. A thread pointer the same
// g packet holds is kept for threadPointer.
func (s *session) readThreadRegister(ctx context.Context, t threadID, r register) (uint64, bool, error) {
	data, avail, err := s.cl.readRegisters(ctx, t)
	if err == nil {
		if tpr, ok := s.tpRegister(); ok && tpr.number != r.number {
			if tp, ok := fromG(data, avail, tpr); ok {
				s.keepTP(t, tp)
			}
		}
		if v, ok := fromG(data, avail, r); ok {
			return v, true, nil
		}
		var b []byte
		if b, err = s.cl.readRegister(ctx, t, r.number); err == nil && len(b) == r.bits/8 {
			return leWord(b), true, nil
		}
	}
	return 0, false, quiet(err)
}

// fromG is register r's value in a g packet's data, when the packet holds
// all of it.
func fromG(data []byte, avail []bool, r register) (uint64, bool) {
	n := r.bits / 8
	if r.offset < 0 || r.offset+n > len(data) || slices.Contains(avail[r.offset:r.offset+n], false) {
		return 0, false
	}
	return leWord(data[r.offset : r.offset+n]), true
}
