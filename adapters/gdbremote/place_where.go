package gdbremote

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"rea/ports"
)

// maxMapsReads bounds the reads of the process's memory map in one trace,
// and with it the reads of the guest's program break and the probes of
// guest pages under an emulator.
const maxMapsReads = 256

// placeElsewhere places a word argument in no library and not in the
// program's image in a thread's TLS (placeTLS), else by the mapping
// holding it (see place_maps.go), and under an emulator in the guest's brk
// heap (inGuestHeap). A server's error reply to one
// of the extra reads leaves the value unplaced; a broken connection is
// the trace's error.
func (s *session) placeElsewhere(ctx context.Context, a *ports.TraceRegister, t threadID, sp uint64) error {
	return s.placeIn(ctx, a, t, sp, s.mapsFor(a.Value), true)
}

// placeIn is placeElsewhere by the map list. A value it would give as a
// mapping from a reading made at an earlier stop is placed again from a
// new reading when again is set and the bound allows (maxMapsReads): the
// mapping may have been replaced at the same addresses since (a munmap
// and an mmap of another file), so a trace reads the map at most once per
// stop for such values too.
func (s *session) placeIn(ctx context.Context, a *ports.TraceRegister, t threadID, sp uint64, list []mapping, again bool) error {
	v := a.Value
	i := mappingAt(list, v)
	if i < 0 || !list[i].readable() {
		return nil
	}
	m := &list[i]
	if s.emulated {
		ok, err := s.guestPage(ctx, v)
		if !ok || err != nil {
			return quiet(err)
		}
	}
	if tls, err := s.placeTLS(ctx, a, list, i, t); tls || err != nil {
		return err
	}
	if s.emulated {
		heap, err := s.inGuestHeap(ctx, v, m)
		if heap || err != nil {
			a.Heap = heap
			return quiet(err)
		}
	}
	stack := stackShaped(list, i) && (s.target == nil || !s.target.goBuild)
	if stack && m.start <= sp && sp < m.end {
		a.Stack = &ports.TraceStack{Thread: int(t.TID), StackPointer: sp}
		return nil
	}
	if m.path == "[heap]" && !s.emulated {
		a.Heap = true
		return nil
	}
	if heap, err := s.arenaHeap(ctx, list, i); heap || err != nil {
		a.Heap = heap
		return err
	}
	guardless := !stack && (s.target == nil || !s.target.goBuild) && m.anonymous() && strings.HasPrefix(m.perms, "rw")
	if guardless && m.start <= sp && sp < m.end {
		if own, err := s.guardlessStack(ctx, v, list, i, t, sp); own || err != nil {
			if own {
				a.Stack = &ports.TraceStack{Thread: int(t.TID), StackPointer: sp}
			}
			return err
		}
	}
	if stack {
		other, osp, known, err := s.stackOf(ctx, m, t)
		if err != nil || !known {
			return err // whether it is a thread's stack is not known
		}
		if other.TID != 0 {
			a.Stack = &ports.TraceStack{Thread: int(other.TID), StackPointer: osp}
			return nil
		}
	} else if guardless {
		other, osp, _, err := s.stackOf(ctx, m, t)
		if err != nil {
			return err
		}
		if other.TID != 0 {
			own, err := s.guardlessStack(ctx, v, list, i, other, osp)
			if own {
				a.Stack = &ports.TraceStack{Thread: int(other.TID), StackPointer: osp}
			}
			if own || err != nil {
				return err
			}
		}
	}
	if again && s.mapsStop != s.stops && s.mapsReads < maxMapsReads {
		return s.placeIn(ctx, a, t, sp, s.readMaps(), false)
	}
	a.Mapping = &ports.TraceMapping{Offset: v - m.start}
	if !m.anonymous() {
		a.Mapping.Path = m.path
		if m.path != "" && m.path[0] == '/' {
			a.Mapping.Offset += m.offset
		}
	}
	return nil
}

// guardlessStack reports whether v lies in thread t's stack when the
// mapping holding its stack pointer sp is not shaped as a stack (a thread
// made with pthread_attr_setguardsize 0, or a stack the program gave it,
// has no guard page below): anonymous read-write memory, where the stack
// runs from the red zone below sp (128 bytes on x86-64) up to
// the thread's static TLS, which glibc puts at the top of a thread's stack
// (the lowest byte of tlsLayout's range from the thread's pointer). Past
// that the mapping may be another thread's stack merged with it, or other
// memory; without the thread's pointer or the TLS layout the stack's end
// is not known, and v is not placed in it.
func (s *session) guardlessStack(ctx context.Context, v uint64, list []mapping, i int, t threadID, sp uint64) (bool, error) {
	m := &list[i]
	if !m.anonymous() || !strings.HasPrefix(m.perms, "rw") {
		return false, nil
	}
	var redZone uint64
	if s.res.Architecture == "x86-64" {
		redZone = 128
	}
	if v < max(sp-redZone, m.start) {
		return false, nil
	}
	if _, ok := s.tpRegister(); !ok {
		return false, nil
	}
	l, err := s.tlsLayoutOf(ctx)
	if err != nil || !l.known {
		return false, err
	}
	tp, ok, err := s.threadPointer(ctx, t)
	if err != nil || !ok {
		return false, err
	}
	top := tp + uint64(l.lo)
	return top > sp && top <= m.end && v < top, nil
}

// arenaHeap reports whether list[i] is a heap of one of glibc's thread
// arenas: shaped as one (isArena) and beginning with glibc's heap_info
// (heapInfoShaped), read once per mapping and map reading. A mapping whose
// first words the server will not read is not one.
func (s *session) arenaHeap(ctx context.Context, list []mapping, i int) (bool, error) {
	if !isArena(list, i, s.conv.word) {
		return false, nil
	}
	m := &list[i]
	if s.arenas == nil || s.arenasRead != s.mapsReads {
		s.arenas, s.arenasRead = map[uint64]bool{}, s.mapsReads
	}
	if ok, seen := s.arenas[m.start]; seen {
		return ok, nil
	}
	w := int(s.conv.word)
	b, err := s.cl.readMemory(ctx, m.start, 4*w)
	var h [4]uint64
	ok := err == nil && len(b) == 4*w
	for k := 0; ok && k < 4; k++ {
		h[k] = leWord(b[k*w : (k+1)*w])
	}
	ok = ok && heapInfoShaped(h, m, s.conv.word)
	s.arenas[m.start] = ok
	return ok, quiet(err)
}

// quiet drops a server's error reply (the memory or thread it was asked
// about is not there), keeping any other error.
func quiet(err error) error {
	var er *errorReply
	if errors.As(err, &er) {
		return nil
	}
	return err
}

// mapsFor is the memory map, in the program's addresses, to place v by:
// the last read, or a new one when v lies in no mapping of it that may be
// read (a reservation, or the PROT_NONE part of an arena, may have become
// memory since; a 32-bit guest's whole space is one) and the program ran since (at most maxMapsReads reads a trace). Nil when the map
// cannot be read (a dialed server, a process gone) or, under an emulator,
// the guest's place in it is not known.
func (s *session) mapsFor(v uint64) []mapping {
	if s.procMaps == nil {
		return nil
	}
	if i := mappingAt(s.maps, v); s.mapsRead && (i >= 0 && s.maps[i].readable() || s.mapsStop == s.stops) || s.mapsReads >= maxMapsReads {
		return s.maps
	}
	return s.readMaps()
}

// readMaps reads the memory map now (counted against maxMapsReads); nil
// when it cannot be read, after which it is not read again.
func (s *session) readMaps() []mapping {
	if s.procMaps == nil {
		return nil
	}
	s.mapsReads++
	pid := s.pid
	if e, ok := s.ep.(*emulated); ok {
		// QEMU's stub calls the process 1. The emulated program is the
		// emulator process, which rea started: its PID is the launcher's,
		// never a number the stub reports.
		pid = int64(e.run.PID())
	}
	b, err := s.procMaps(int(pid))
	if err != nil {
		s.procMaps = nil // gone or unreadable: no more tries
		s.maps = nil
		return nil
	}
	s.mapsRead, s.mapsStop = true, s.stops
	s.maps = parseMaps(b)
	if s.emulated {
		s.maps = s.guestMaps(s.maps)
	}
	return s.maps
}

// guestMaps is the part of the emulator's map at guestBase and above, in
// the guest's addresses: the program's file is mapped at guestBase past
// where the loader put it (its lowest segment's page plus the load bias).
// Nil when the program's file is not mapped so (the base is unknown).
func (s *session) guestMaps(host []mapping) []mapping {
	if s.target == nil || len(s.target.segments) == 0 || len(s.res.Modules) == 0 {
		return nil
	}
	path, err := filepath.EvalSymlinks(s.target.path)
	if err == nil {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		return nil
	}
	lo, hi := s.target.segments[0][0], s.target.segments[0][1]
	for _, seg := range s.target.segments {
		lo, hi = min(lo, seg[0]), max(hi, seg[1])
	}
	bias := s.res.Modules[0].LoadBias
	first, last := lo&^(pageSize-1)+bias, (hi+pageSize-1)&^(pageSize-1)+bias
	var base uint64
	found := false
	for _, m := range host {
		if m.path != path {
			continue
		}
		if !found {
			if m.offset != 0 || m.start < first {
				return nil
			}
			base, found = m.start-first, true
		}
		if m.start-base < first || m.end-base > last {
			return nil // not laid out as the file's segments say
		}
	}
	if !found {
		return nil
	}
	limit := ^uint64(0)
	if s.conv.word == 4 {
		limit = 1 << 32
	}
	var out []mapping
	for _, m := range host {
		if m.start < base || m.start-base >= limit {
			continue
		}
		m.start, m.end = m.start-base, min(m.end-base, limit)
		out = append(out, m)
	}
	return out
}

// pageSize is the page size the loader aligns segments to on the hosts
// and guests rea traces.
const pageSize = 0x1000

// guestPage reports whether the guest has v's page mapped: QEMU's stub
// reads only memory the guest mapped, so a value in the emulator's own
// memory (which a 64-bit guest's map shares) is not placed. A 32-bit
// guest's space is a reservation of its own: no probe. Answers are kept
// per page and map read; at most maxMapsReads probes a trace.
func (s *session) guestPage(ctx context.Context, v uint64) (bool, error) {
	if s.conv.word == 4 {
		return true, nil
	}
	page := v &^ (pageSize - 1)
	if s.pages == nil || s.pagesRead != s.mapsReads {
		s.pages, s.pagesRead = map[uint64]bool{}, s.mapsReads
	}
	if ok, seen := s.pages[page]; seen {
		return ok, nil
	}
	if s.probes >= maxMapsReads {
		return false, nil
	}
	s.probes++
	_, err := s.cl.readMemory(ctx, page, 1)
	s.pages[page] = err == nil
	return err == nil, quiet(err)
}

// threads lists the program's threads (qfThreadInfo, then qsThreadInfo
// until the list ends); a server that does not list them (an empty reply)
// has none, and a reply that is no list is an error reply (the value it
// was asked for stays unplaced).
func (cl *client) threads(ctx context.Context) ([]threadID, error) {
	var out []threadID
	req := "qfThreadInfo"
	for len(out) < maxThreads {
		p, err := cl.request(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(p) == 0 || p[0] == 'l' {
			return out, nil
		}
		if p[0] != 'm' {
			return nil, &errorReply{req: req, code: "no thread list"}
		}
		for _, f := range strings.Split(string(p[1:]), ",") {
			t, err := parseThreadID(f)
			if err != nil || t.TID <= 0 {
				return nil, &errorReply{req: req, code: "bad thread id"}
			}
			out = append(out, t)
		}
		req = "qsThreadInfo"
	}
	return out, nil
}

// maxThreads bounds the threads listed at one stop.
const maxThreads = 4096

// threadSP is a thread and its stack pointer at the current stop.
type threadSP struct {
	t  threadID
	sp uint64
}

// stackOf is the thread other than t whose stack pointer lies in m, with
// that stack pointer, at the current stop; a zero thread when none does,
// and known false when the server would not list the threads. The server
// lists the threads and reads each one's stack pointer once per stop, and
// only for a value in anonymous memory not the calling thread's stack
// (every thread is stopped in all-stop mode).
func (s *session) stackOf(ctx context.Context, m *mapping, t threadID) (other threadID, sp uint64, known bool, err error) {
	if s.spsStop != s.stops || !s.spsRead {
		s.spsStop, s.spsRead, s.spsKnown, s.sps = s.stops, true, false, s.sps[:0]
		list, err := s.cl.threads(ctx)
		if err != nil {
			return threadID{}, 0, false, quiet(err)
		}
		for _, o := range list {
			if o.TID == t.TID {
				continue
			}
			r, _ := s.td.reg(s.conv.sp)
			sp, ok, err := s.stackPointer(ctx, o, r)
			if err != nil {
				return threadID{}, 0, false, err
			}
			if ok {
				s.sps = append(s.sps, threadSP{o, sp})
			}
		}
		s.spsKnown = true
	}
	for _, o := range s.sps {
		if m.start <= o.sp && o.sp < m.end {
			return o.t, o.sp, true, nil
		}
	}
	return threadID{}, 0, s.spsKnown, nil
}

// inGuestHeap reports whether v, in mapping m, lies in the guest's brk
// heap under QEMU's user-mode emulator, which gives the guest its own
// program break: it starts at the page after the program's last segment
// (QEMU does not randomise it: target_set_brk; the first small malloc of
// an AArch64 and an i386 program, PIE or not, lies just past it under QEMU
// 7.2) and ends at the break glibc last set (its __curbrk, read from the
// guest). The break is read only for a value past its last known end in
// the mapping that holds the heap's start (the heap grew), at most
// maxMapsReads times. Without glibc's __curbrk among the loaded libraries
// the heap is not known.
func (s *session) inGuestHeap(ctx context.Context, v uint64, m *mapping) (bool, error) {
	if s.target == nil || len(s.res.Modules) == 0 || len(s.target.segments) == 0 {
		return false, nil
	}
	var hi uint64
	for _, seg := range s.target.segments {
		hi = max(hi, seg[1])
	}
	start := (hi + s.res.Modules[0].LoadBias + pageSize - 1) &^ (pageSize - 1)
	if v < start || start < m.start || start >= m.end {
		return false, nil
	}
	if v < s.brk {
		return true, nil
	}
	if s.brkReads >= maxMapsReads {
		return false, nil
	}
	at, ok := s.curbrk()
	if !ok {
		return false, nil
	}
	s.brkReads++
	brk, err := s.readAddr(ctx, at)
	if err != nil {
		return false, err
	}
	if brk > start {
		s.brk = brk
	}
	return v < s.brk, nil
}

// curbrk is where glibc keeps the program break in the loaded libraries:
// the dynamic symbol __curbrk.
func (s *session) curbrk() (uint64, bool) {
	for _, l := range s.callerLibs {
		for _, sym := range s.symbolsOf(l.path).syms.list {
			if sym.name == "__curbrk" && sym.end-sym.start == s.conv.word {
				return sym.start + l.bias, true
			}
		}
	}
	return 0, false
}

// stackPointer reads thread t's stack pointer (register r) from its g
// packet, or with p where the g packet lacks it (gdbserver answers no p
// for x86-64); ok is false for a thread the server no longer has.
func (s *session) stackPointer(ctx context.Context, t threadID, r register) (sp uint64, ok bool, err error) {
	return s.readThreadRegister(ctx, t, r)
}
