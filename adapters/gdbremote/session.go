package gdbremote

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/xml"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"rea/ports"
)

// session is one trace over one connection.
type session struct {
	req    ports.TraceRequest
	target *elfInfo // the launched executable; nil until known for an attach
	cl     *client
	ep     endpoint
	res    *ports.TraceResult
	stopOp string

	td   *tdesc
	conv convention
	pid  int64
	main threadID // the thread of the first stop

	bps     map[uint64]*breakpoint // inserted, by runtime address
	pending map[uint64][]pendingReturn
	stops   int
	threads map[int]bool
	exited  bool
	// over is a thread stopped at a breakpoint that must step past it
	// before the program runs on; sig is the signal the next resume gives
	// sigThread.
	over      *stepOver
	sig       int
	sigThread threadID
	alive     bool // the program is running or stopped under the server
	traps     int  // SIGTRAP stops no breakpoint explains
	// hitLimit is set at the first hit past MaxHits: the trace ends at that
	// stop (run), so no more breakpoints are paid for.
	hitLimit bool
	// reentries counts stops at an entry by an activation already recorded.
	reentries int
	// ownStops counts the stops at main's entry made only to see it
	// entered (main.go): ports.TraceHit.ReturnSequence leaves them out.
	ownStops int
	// jumpWatch says longjmp is watched (jumps.go); jumped holds each
	// thread's last stop at a longjmp function.
	jumpWatch bool
	jumped    map[threadID]int
	// firstCall caches whether an entry's first instruction is a call
	// (callsFirst).
	firstCall map[uint64]bool
	// tails are the tail calls seen (unwind.go's tailCallers): each
	// recorded caller's hit and its callee's ("4 to 5"); tailAtLimit the
	// callers whose tail call was the stop past max_hits.
	tails, tailAtLimit []string
	// sysroot is the directory an emulator takes the program's libraries
	// from ("" when they are the host's own).
	sysroot  string
	asyncOff bool // a Go program under an emulator, run with asyncpreemptoff=1 (noAsyncPreemption)
	// callerLibs are the loaded libraries callerOf places return
	// addresses in, read libReads times.
	callerLibs []callerLib
	libReads   int
	// libSyms are the libraries' symbols and sections that place reads
	// arguments' places from, by file.
	libSyms map[string]*libSymbols
	// procMaps reads a process's memory map (/proc/PID/maps) for a
	// program running on this host or under an emulator rea started
	// (emulated); nil for a dialed server. maps is its last read (in the
	// program's addresses), at stop mapsStop; place_where.go has the rest.
	procMaps  func(pid int) ([]byte, error)
	emulated  bool
	maps      []mapping
	mapsRead  bool
	mapsStop  int
	mapsReads int
	// pages are the guest pages the emulator's stub read (or refused),
	// since map read pagesRead; probes counts the probes.
	pages     map[uint64]bool
	pagesRead int
	probes    int
	// arenas are the arena-shaped mappings, by start, whose first words
	// were read as glibc's heap_info (true) or not, since map read
	// arenasRead (arenaHeap).
	arenas     map[uint64]bool
	arenasRead int
	// sps are the other threads' stack pointers at stop spsStop.
	sps      []threadSP
	spsStop  int
	spsRead  bool
	spsKnown bool // the server listed the threads at spsStop
	// tls is what TLS places keep: the static TLS layout and the thread
	// pointers read at this stop (place_tls.go).
	tls tlsState
	// brk is the guest's program break as last read, brkReads the reads.
	brk      uint64
	brkReads int
	// slots are the stack slots each request breakpoint's texts name
	// (slotsOf), by breakpoint index.
	slots [][]string
	// wide and rets are the registers of each request breakpoint's
	// Registers (but slots and the convention's) and Return that the
	// target description has, by breakpoint index; absent names those it
	// lacks.
	wide, rets [][]string
	absent     []string
	// fmtRegs are, for a breakpoint with a printf-style format, the
	// convention's floating-point argument registers the target describes:
	// read at each hit, reported as arguments where a conversion takes them.
	fmtRegs [][]string
	// mainAt is main's runtime address in a launched program whose main is
	// known (0 otherwise), mainSeen whether it was entered; later are the
	// request breakpoints placed only then (FromMain). main.go has the rest.
	mainAt   uint64
	mainSeen bool
	later    []int
}

// breakpoint is an inserted Z0 breakpoint: the request breakpoints placed
// there and the returns it waits for.
type breakpoint struct {
	requests []int
	returns  int
	main     bool // main's entry, until it is entered (watchMain)
	jump     bool // a longjmp function (watchJumps)
}

type stepOver struct {
	thread threadID
	addr   uint64
	entry  int // the stop at the breakpoint
}

// pendingReturn is a recorded hit waiting for its return.
type pendingReturn struct {
	hit    int
	thread threadID
	sp     uint64 // expected at the return address
	g      uint64
	entry  int    // the stop at the entry: breakpoints at one address share it
	at     uint64 // the entry's runtime address
	// stepped says the call ran past its entry's first instruction
	// (markStepped), so a stop at the entry is no longer this activation.
	stepped bool
	// tailed says the call continued in a tail call (tailCallers).
	tailed bool
}

func (s *session) trace(ctx context.Context) error {
	s.pending = map[uint64][]pendingReturn{}
	s.threads = map[int]bool{}
	ports.Observe(ctx, "launch", "connecting to the debugger server")
	if err := s.cl.handshake(ctx); err != nil {
		return err
	}
	first, err := s.queryStop(ctx)
	if err != nil {
		return err
	}
	s.alive = true
	s.main = first.thread
	s.pid = first.thread.PID
	if s.pid <= 0 {
		s.pid = first.thread.TID
	}
	s.res.ProcessID = int(s.pid)
	if s.td, err = loadTdesc(ctx, s.cl); err != nil {
		return err
	}
	arch, err := s.td.archName()
	if err != nil {
		return fmt.Errorf("%w: %w", ports.ErrTargetNotExecutable, err)
	}
	s.res.Architecture = arch
	if s.conv, err = conventionFor(arch, s.req.Convention); err != nil {
		return err
	}
	s.res.Convention = s.conv.name
	for _, r := range s.conv.needed() {
		if _, ok := s.td.reg(r); !ok {
			return protoErr("target description has no register %q", r)
		}
	}
	// Not every server passes signals quietly; then they are passed on at
	// each stop instead.
	_ = s.cl.requestOK(ctx, passSignals)

	s.stopOp = "breakpoint"
	if err := s.relocate(ctx); err != nil {
		return err
	}
	if err := s.insertAll(ctx); err != nil {
		return err
	}
	if err := s.watchMain(ctx); err != nil {
		return err
	}
	if err := s.watchJumps(ctx); err != nil {
		return err
	}
	s.res.Lineage = s.ep.lineage(ctx)
	s.stopOp = "trace"
	return s.run(ctx)
}

// queryStop asks why the program is stopped (the launch or attach stop).
func (s *session) queryStop(ctx context.Context) (stopReply, error) {
	if err := s.cl.sendExpecting(ctx, "?"); err != nil {
		return stopReply{}, err
	}
	st, err := s.cl.wait(ctx)
	if err != nil {
		return stopReply{}, err
	}
	if st.kind != stopSignal {
		return stopReply{}, fmt.Errorf("%w: the program ended before the trace began", ports.ErrTargetNotExecutable)
	}
	return st, nil
}

// relocate finds the load bias of the main executable (from the auxiliary
// vector's entry point) and, when a breakpoint names a library, runs the
// program to its entry point and reads the loader's library list.
func (s *session) relocate(ctx context.Context) error {
	if s.target == nil {
		// Attached: the server names the executable.
		name, err := s.cl.xfer(ctx, "exec-file", strconv.FormatInt(s.pid, 16))
		if err != nil {
			return fmt.Errorf("executable of pid %d: %w", s.pid, err)
		}
		if s.target, err = readELF(string(name)); err != nil {
			return err
		}
	}
	if s.target.arch != s.res.Architecture {
		return fmt.Errorf("%s is %s but the server debugs %s: %w", s.target.path, s.target.arch, s.res.Architecture, ports.ErrTargetNotExecutable)
	}
	auxv, err := s.cl.xfer(ctx, "auxv", "")
	if err != nil {
		return fmt.Errorf("auxiliary vector: %w", err)
	}
	entry, ok := auxvValue(auxv, int(s.conv.word), atEntry)
	if !ok {
		return protoErr("auxiliary vector has no AT_ENTRY")
	}
	s.res.StackEnd = stackEnd(auxv, int(s.conv.word))
	mainBias := entry - s.target.entry
	s.res.Modules = append(s.res.Modules, ports.TraceModule{Name: "", Path: s.target.path, LoadBias: mainBias})
	if err := s.refuseResolvers(); err != nil {
		return err
	}

	needLibs := s.watchesJumps() && s.target.importsJump
	for _, b := range s.req.Breakpoints {
		needLibs = needLibs || b.Module != "" || b.Symbol != ""
	}
	if !needLibs {
		return nil
	}
	if s.req.Launch != nil {
		if err := s.runTo(ctx, entry); err != nil {
			return err
		}
	}
	mods, err := s.libraries(ctx)
	if err != nil {
		return err
	}
	s.res.Modules = append(s.res.Modules, mods...)
	return s.resolveSymbols()
}

// libraries reads the loaded libraries: the server's list, else (QEMU's
// stub) the loader's own in the program's memory. An error reply means no
// loader list (a static executable), so no libraries; a breakpoint that
// needs one then names what is missing.
func (s *session) libraries(ctx context.Context) ([]ports.TraceModule, error) {
	var mods []ports.TraceModule
	libs, err := s.cl.xfer(ctx, "libraries-svr4", "")
	switch {
	case errors.Is(err, errNotSupported):
		if mods, err = s.loaderLibraries(ctx, s.res.Modules[0].LoadBias); err != nil {
			return nil, fmt.Errorf("library list: %w", err)
		}
	case err != nil && !isReply(err):
		return nil, fmt.Errorf("library list: %w", err)
	case err == nil:
		if mods, err = parseLibraries(libs); err != nil {
			return nil, err
		}
	}
	return slices.DeleteFunc(mods, func(m ports.TraceModule) bool { return m.Name == "" }), nil
}

// resolveSymbols fills the address and module of every symbol breakpoint
// from the dynamic symbol tables of the loaded libraries, in load order.
func (s *session) resolveSymbols() error {
	var bps []ports.TraceBreakpoint
	tables := map[string]map[string]elf.Symbol{}
	for i, b := range s.req.Breakpoints {
		if b.Symbol == "" {
			continue
		}
		if bps == nil {
			bps = append([]ports.TraceBreakpoint(nil), s.req.Breakpoints...) // the caller's slice stays as it was
		}
		found := false
		for _, m := range s.res.Modules[1:] {
			tab, ok := tables[m.Path]
			if !ok {
				tab = exportedFunctions(m.Path)
				tables[m.Path] = tab
			}
			sym, ok := tab[b.Symbol]
			if !ok {
				continue
			}
			if elf.ST_TYPE(sym.Info) == elf.STT_GNU_IFUNC {
				return fmt.Errorf("breakpoint %d: %s in %s is an indirect function, resolved to an implementation the loader picks; trace %s@plt in the program instead: %w",
					i, b.Symbol, path.Base(m.Path), b.Symbol, ports.ErrAddressNotMapped)
			}
			bps[i].Address, bps[i].Module, bps[i].Symbol = sym.Value, m.Name, ""
			found = true
			break
		}
		if !found {
			// A static function the compiler inlined is named nowhere
			// else the caller looks: say so when the program tells.
			if note := inlinedNote(s.res.Modules[0].Path, b.Symbol); note != "" {
				return fmt.Errorf("breakpoint %d: %s is neither a procedure of the program nor a function exported by the libraries loaded at its entry point: %s: %w",
					i, b.Symbol, note, ports.ErrAddressNotMapped)
			}
			return fmt.Errorf("breakpoint %d: %s is neither a procedure of the program nor a function exported by the libraries loaded at its entry point: %w", i, b.Symbol, ports.ErrAddressNotMapped)
		}
	}
	if bps != nil {
		s.req.Breakpoints = bps
	}
	return nil
}

// refuseResolvers refuses an address breakpoint on one of the program's own
// indirect functions (a static program's strlen, memcpy, strcmp): the
// symbol's address is the resolver's, which runs once while relocations are
// applied and returns the implementation, so the trace would record that
// call and none of the function's. The refusal names the implementations
// the program holds (__strlen_avx2 ...), which can be traced.
func (s *session) refuseResolvers() error {
	var prog []elf.Symbol
	read := false
	for i, b := range s.req.Breakpoints {
		if b.Symbol != "" || b.Module != "" || len(s.res.Modules) == 0 {
			continue
		}
		if !read {
			read = true
			f, err := elf.Open(s.res.Modules[0].Path)
			if err != nil {
				return nil // unreadable: nothing to check against
			}
			prog, _ = f.Symbols()
			dyn, _ := f.DynamicSymbols()
			prog = append(prog, dyn...)
			f.Close()
		}
		for _, sym := range prog {
			if elf.ST_TYPE(sym.Info) != elf.STT_GNU_IFUNC || sym.Value != b.Address || sym.Section == elf.SHN_UNDEF {
				continue
			}
			var impls []string
			for _, o := range prog {
				if t := elf.ST_TYPE(o.Info); t == elf.STT_FUNC && strings.HasPrefix(o.Name, "__"+sym.Name+"_") && !slices.Contains(impls, o.Name) {
					impls = append(impls, o.Name)
				}
			}
			slices.Sort(impls)
			advice := "trace the implementation it picks instead"
			if len(impls) > 0 {
				if len(impls) > 6 {
					impls = append(impls[:6], "...")
				}
				advice = "trace the implementation it picks instead (" + strings.Join(impls, ", ") + ")"
			}
			return fmt.Errorf("breakpoint %d: %s at %#x is an indirect function: the address is its resolver's, which runs once while relocations are applied; %s: %w",
				i, sym.Name, b.Address, advice, ports.ErrAddressNotMapped)
		}
	}
	return nil
}

// exportedFunctions reads a library's defined function symbols from its
// dynamic symbol table (the default version wins over hidden ones). An
// unreadable library has none.
func exportedFunctions(p string) map[string]elf.Symbol {
	out := map[string]elf.Symbol{}
	f, err := elf.Open(p)
	if err != nil {
		return out
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return out
	}
	for _, sym := range syms {
		t := elf.ST_TYPE(sym.Info)
		if sym.Section == elf.SHN_UNDEF || (t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC) || sym.Value == 0 {
			continue
		}
		if prev, dup := out[sym.Name]; dup && (!prev.VersionIndex.IsHidden() || sym.VersionIndex.IsHidden()) {
			continue // keep the default (non-hidden) version
		}
		out[sym.Name] = sym
	}
	return out
}

// runTo runs a just-launched program to addr (its entry point), where the
// loader has mapped every library it needs.
func (s *session) runTo(ctx context.Context, addr uint64) error {
	if err := s.cl.insertBreakpoint(ctx, addr, s.conv.bpKind); err != nil {
		if !isReply(err) {
			return err
		}
		return fmt.Errorf("entry point %#x: %w", addr, ports.ErrAddressNotMapped)
	}
	for {
		if err := s.cl.resume(ctx, s.main, 0); err != nil {
			return err
		}
		st, err := s.cl.wait(ctx)
		if err != nil {
			return err
		}
		if st.kind != stopSignal {
			s.exit(st)
			return fmt.Errorf("%w: the program ended before its entry point", ports.ErrTargetNotExecutable)
		}
		if st.signal == 5 {
			pc, err := s.readPC(ctx, st)
			if err != nil {
				return err
			}
			if pc == addr {
				return s.cl.removeBreakpoint(ctx, addr, s.conv.bpKind)
			}
		}
	}
}

func (s *session) readPC(ctx context.Context, st stopReply) (uint64, error) {
	r, _ := s.td.reg(s.conv.pc)
	if b, ok := st.registers[r.number]; ok && len(b) == int(s.conv.word) {
		return leWord(b), nil
	}
	b, err := s.cl.readRegister(ctx, st.thread, r.number)
	if err != nil {
		return 0, err
	}
	if len(b) != int(s.conv.word) {
		return 0, protoErr("pc is %d bytes", len(b))
	}
	return leWord(b), nil
}

// readAddr reads a pointer of the traced program at addr.
func (s *session) readAddr(ctx context.Context, addr uint64) (uint64, error) {
	return s.cl.readWord(ctx, addr, s.conv.word)
}

// Auxiliary vector keys.
const (
	atPageSize = 6
	atEntry    = 9
	atExecFn   = 31
)

// auxvValue finds key in an auxiliary vector of word-sized pairs.
func auxvValue(b []byte, word int, key uint64) (uint64, bool) {
	for i := 0; i+2*word <= len(b); i += 2 * word {
		k := leWord(b[i : i+word])
		v := leWord(b[i+word : i+2*word])
		switch k {
		case 0:
			return 0, false
		case key:
			return v, true
		}
	}
	return 0, false
}

// stackEnd is the end of the main thread's stack: the kernel copies the
// executable's file name (AT_EXECFN) to the top of the new stack, so the
// page after it ends the stack. 0 when the vector lacks either key. A
// file name that crosses a page gives the page below the end, which
// leaves the last strings unplaced rather than placing anything wrongly.
func stackEnd(b []byte, word int) uint64 {
	fn, ok := auxvValue(b, word, atExecFn)
	page, ok2 := auxvValue(b, word, atPageSize)
	if !ok || !ok2 || page == 0 || page&(page-1) != 0 || fn+page < fn {
		return 0
	}
	return (fn + page) &^ (page - 1)
}

// parseLibraries reads qXfer:libraries-svr4: each library's name and l_addr,
// which is its load bias.
func parseLibraries(b []byte) ([]ports.TraceModule, error) {
	var doc struct {
		Libraries []struct {
			Name  string `xml:"name,attr"`
			LAddr string `xml:"l_addr,attr"`
		} `xml:"library"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, protoErr("library list: %v", err)
	}
	var out []ports.TraceModule
	for _, l := range doc.Libraries {
		if len(out) >= 4096 {
			break
		}
		bias, err := strconv.ParseUint(strings.TrimPrefix(l.LAddr, "0x"), 16, 64)
		if err != nil {
			return nil, protoErr("library %q: bad l_addr", short(l.Name))
		}
		out = append(out, ports.TraceModule{Name: l.Name, Path: l.Name, LoadBias: bias})
	}
	return out, nil
}

// module finds the module a breakpoint names: "" is the main executable; a
// library matches by path or by file name.
func (s *session) module(name string) (ports.TraceModule, bool) {
	for _, m := range s.res.Modules {
		if m.Name == name {
			return m, true
		}
	}
	if name == "" {
		return ports.TraceModule{}, false
	}
	for _, m := range s.res.Modules {
		if m.Name != "" && path.Base(m.Name) == path.Base(name) {
			return m, true
		}
	}
	return ports.TraceModule{}, false
}

// insertAll places every requested breakpoint, checking first that its
// address is mapped.
func (s *session) insertAll(ctx context.Context) error {
	s.slots = make([][]string, len(s.req.Breakpoints))
	s.wide = make([][]string, len(s.req.Breakpoints))
	s.rets = make([][]string, len(s.req.Breakpoints))
	s.fmtRegs = make([][]string, len(s.req.Breakpoints))
	for i, b := range s.req.Breakpoints {
		s.slots[i] = s.slotsOf(b)
		s.wide[i], s.rets[i] = s.described(b.Registers, true), s.described(b.Return, false)
		if b.Format != "" {
			for _, name := range s.conv.floats {
				if s.hasRegister(name) {
					s.fmtRegs[i] = append(s.fmtRegs[i], name)
				}
			}
		}
		m, ok := s.module(b.Module)
		if !ok {
			return fmt.Errorf("module %q is not loaded: %w", b.Module, ports.ErrAddressNotMapped)
		}
		rt := b.Address + m.LoadBias
		s.res.Breakpoints = append(s.res.Breakpoints, ports.TraceResolved{Address: b.Address, RuntimeAddress: rt, Module: m.Name, Name: b.Name})
		if s.fromMain() {
			s.later = append(s.later, i)
			continue
		}
		if err := s.placeBreakpoint(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// placeBreakpoint inserts request breakpoint i at its runtime address, checking
// first that the address is mapped.
func (s *session) placeBreakpoint(ctx context.Context, i int) error {
	b, rt := s.req.Breakpoints[i], s.res.Breakpoints[i].RuntimeAddress
	if bp := s.bps[rt]; bp != nil {
		bp.requests = append(bp.requests, i)
		return nil
	}
	if _, err := s.cl.readMemory(ctx, rt, 1); err != nil {
		if !isReply(err) {
			return err
		}
		return fmt.Errorf("breakpoint %d at %#x (runtime %#x): %w", i, b.Address, rt, ports.ErrAddressNotMapped)
	}
	if err := s.cl.insertBreakpoint(ctx, rt, s.conv.bpKind); err != nil {
		var er *errorReply
		if errors.As(err, &er) {
			return fmt.Errorf("breakpoint %d at %#x (runtime %#x): %w: %v", i, b.Address, rt, ports.ErrAddressNotMapped, err)
		}
		return err
	}
	s.bps[rt] = &breakpoint{requests: []int{i}}
	return nil
}

// run resumes and handles stops until the program exits or a limit ends the
// trace.
func (s *session) run(ctx context.Context) error {
	tctx, cancel := context.WithTimeout(ctx, s.req.MaxDuration)
	defer cancel()
	for s.stops < maxStops {
		var st stopReply
		var err error
		if s.over != nil {
			st, err = s.stepOver(tctx)
		} else {
			err = s.cl.resume(tctx, s.sigThread, s.sig)
			if err == nil {
				st, err = s.cl.wait(tctx)
			}
		}
		if err != nil {
			return s.limit(ctx, tctx, err)
		}
		s.stops++
		if s.stops%64 == 0 {
			ports.Observe(ctx, "trace", fmt.Sprintf("%d stops, %d hits recorded", s.stops, len(s.res.Hits)))
		}
		done, err := s.handle(tctx, st)
		if err != nil {
			return s.limit(ctx, tctx, err)
		}
		if done {
			return nil
		}
		if s.hitLimit {
			// MaxHits are recorded and another call came: the program is
			// stopped here, and release kills it (launched) or detaches
			// from it (attached) rather than paying for breakpoints whose
			// hits would only be counted.
			s.res.Coverage.StopReason = ports.TraceStopHitLimit
			return nil
		}
	}
	s.res.Coverage.Notes = append(s.res.Coverage.Notes, fmt.Sprintf("stopped after %d stops", maxStops))
	return nil
}

// handle acts on one stop; done means the program exited.
func (s *session) handle(ctx context.Context, st stopReply) (done bool, err error) {
	s.sigThread, s.sig = st.thread, 0
	switch {
	case st.kind == stopExited || st.kind == stopKilled:
		if st.pid != 0 && st.pid != s.pid {
			return false, nil // a child we detached from
		}
		s.exit(st)
		return true, nil
	case st.fork != nil:
		s.res.Coverage.ForksNotFollowed = append(s.res.Coverage.ForksNotFollowed, int(st.fork.PID))
		return false, s.detachChild(ctx, *st.fork)
	case st.signal == 5:
		return false, s.onTrap(ctx, st)
	case st.signal == 0:
	default:
		s.sig = st.signal
	}
	return false, nil
}

// detachChild lets a forked child run untraced. Its memory is a copy of the
// parent's, breakpoints included, so they are removed from the child first
// (the server applies z0 to the process of the selected thread).
func (s *session) detachChild(ctx context.Context, child threadID) error {
	if err := s.cl.selectThread(ctx, child); err != nil {
		return err
	}
	for _, addr := range s.inserted() {
		if err := s.cl.removeBreakpoint(ctx, addr, s.conv.bpKind); err != nil && !isReply(err) {
			return err
		}
	}
	s.cl.selected = ""
	return s.cl.requestOK(ctx, "D;"+strconv.FormatInt(child.PID, 16))
}

// inserted lists the inserted breakpoint addresses in order, so the packets
// a trace sends do not depend on map order.
func (s *session) inserted() []uint64 {
	out := make([]uint64, 0, len(s.bps))
	for a := range s.bps {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// stepOver moves the thread stopped at a breakpoint past it: the server
// leaves a client's breakpoints to the client, so it is removed, the thread
// alone steps one instruction, and it is inserted again.
func (s *session) stepOver(ctx context.Context) (stopReply, error) {
	over := *s.over
	s.over = nil
	if err := s.cl.removeBreakpoint(ctx, over.addr, s.conv.bpKind); err != nil {
		return stopReply{}, err
	}
	if err := s.cl.step(ctx, over.thread); err != nil {
		return stopReply{}, err
	}
	st, err := s.cl.wait(ctx)
	if err != nil {
		return stopReply{}, err
	}
	if s.bps[over.addr] != nil && s.alive {
		if err := s.cl.insertBreakpoint(ctx, over.addr, s.conv.bpKind); err != nil {
			return stopReply{}, err
		}
	}
	if st.kind == stopSignal && st.signal == 5 {
		// The step's own stop: not a breakpoint unless it landed on one.
		pc, err := s.readPC(ctx, st)
		if err != nil {
			return stopReply{}, err
		}
		if st.thread == over.thread {
			if pc, err = s.ranFirst(ctx, st, over, pc); err != nil {
				return stopReply{}, err
			}
			s.markStepped(over, pc)
		}
		if s.bps[pc] == nil {
			st.signal = 0
		}
	}
	return st, nil
}

// limit turns a wait ended by the time limit or by ctx into a stopped
// program and a stop reason; any other error is returned.
func (s *session) limit(ctx, tctx context.Context, err error) error {
	if tctx.Err() == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return err
	}
	// Stop the running program so it can be killed or released cleanly.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if !s.cl.running {
		return s.stopped(ctx)
	}
	if ierr := s.cl.c.interrupt(ictx); ierr != nil {
		return ierr
	}
	for {
		st, werr := s.cl.wait(ictx)
		if werr != nil {
			return werr
		}
		if st.kind == stopExited || st.kind == stopKilled {
			if st.pid == 0 || st.pid == s.pid {
				s.exit(st)
				break
			}
			continue
		}
		break // the interrupt stop (or a stop that raced with it)
	}
	return s.stopped(ctx)
}

// stopped sets the stop reason once a limit or ctx ended the trace.
func (s *session) stopped(ctx context.Context) error {
	if ctx.Err() != nil {
		s.res.Coverage.StopReason = ports.TraceStopCancelled
		return ctx.Err()
	}
	if s.res.Exit == nil {
		s.res.Coverage.StopReason = ports.TraceStopTimeLimit
	}
	return nil
}

// exit records how the program ended.
func (s *session) exit(st stopReply) {
	s.alive = false
	s.exited = true
	s.res.Coverage.StopReason = ports.TraceStopExited
	switch st.kind {
	case stopExited:
		code := st.signal
		s.res.Exit = &ports.TraceExit{Code: &code}
	case stopKilled:
		s.res.Exit = &ports.TraceExit{Signal: signalName(st.signal)}
	}
}

// onTrap handles a SIGTRAP stop: a return, a hit, or neither.
func (s *session) onTrap(ctx context.Context, st stopReply) error {
	pc, err := s.readPC(ctx, st)
	if err != nil {
		return err
	}
	bp := s.bps[pc]
	if bp == nil {
		if !st.swbreak {
			s.traps++
		}
		return nil
	}
	if bp.main {
		if err := s.enteredMain(ctx, pc, bp); err != nil {
			return err
		}
		if bp = s.bps[pc]; bp == nil {
			// main's own breakpoint, removed: the program runs on, and
			// the stop is left out of return_sequence.
			s.ownStops++
			return nil
		}
	}
	if bp.jump {
		s.jumped[st.thread] = s.stops
	}
	s.over = &stepOver{thread: st.thread, addr: pc, entry: s.stops}
	// The registers wider than a word, or outside the convention, that
	// the entries and returns at pc read.
	var want []string
	for _, p := range s.pending[pc] {
		want = appendNew(want, s.rets[s.res.Hits[p.hit].Breakpoint]...)
	}
	for _, i := range bp.requests {
		want = appendNew(want, s.wide[i]...)
		want = appendNew(want, s.fmtRegs[i]...)
	}
	var regs map[string]uint64
	var wide map[string][]byte
	read := func() error {
		if regs != nil {
			return nil
		}
		regs, wide, err = s.readRegs(ctx, st.thread, want)
		return err
	}
	if bp.returns > 0 {
		if err := read(); err != nil {
			return err
		}
		if err := s.onReturn(ctx, pc, bp, st.thread, regs, wide); err != nil {
			return err
		}
		if err := s.leaveUnwound(ctx, st.thread, regs[s.conv.sp], pc, false, nil); err != nil {
			return err
		}
	}
	if len(bp.requests) == 0 {
		return nil
	}
	if len(s.res.Hits) >= s.req.MaxHits {
		s.res.Coverage.HitsDropped += len(bp.requests)
		s.hitLimit = true
		if !s.hasPending(st.thread) {
			return nil
		}
		// The call that ends the trace may show the stack left a pending
		// call (longjmp), or continue one by a tail call.
		if err := read(); err != nil {
			return err
		}
		if err := s.leaveUnwound(ctx, st.thread, regs[s.conv.sp]+s.conv.spAfterReturn, pc, true, func() (uint64, error) { return s.readFrame(ctx, regs) }); err != nil {
			return err
		}
		if s.conv.g != "" || !s.hasPending(st.thread) {
			return nil
		}
		ra, err := s.readFrame(ctx, regs)
		if err != nil {
			return err
		}
		for _, hit := range s.tailCallers(ra, st.thread, regs[s.conv.sp], pc) {
			s.tailAtLimit = append(s.tailAtLimit, strconv.Itoa(hit))
		}
		return nil
	}
	if err := read(); err != nil {
		return err
	}
	s.threads[int(st.thread.TID)] = true
	sp := regs[s.conv.sp]
	ra, err := s.readFrame(ctx, regs)
	if err != nil {
		return err
	}
	args := make([]ports.TraceRegister, len(s.conv.args))
	for i, name := range s.conv.args {
		args[i] = ports.TraceRegister{Name: name, Value: regs[name]}
	}
	if err := s.leaveUnwound(ctx, st.thread, sp+s.conv.spAfterReturn, pc, true, func() (uint64, error) { return ra, nil }); err != nil {
		return err
	}
	if s.reentered(ra, st.thread, sp, pc, regs) {
		// The same activation stopped at its entry again: a signal handler
		// (Go's preemption) ran during the step over the breakpoint and
		// returned to the entry. Not a new call.
		s.reentries++
		return nil
	}
	caller, callerMod, err := s.callerOf(ctx, ra)
	if err != nil {
		return err
	}
	var tailFrom []int // the recorded calls that tail-called this one
	if s.conv.g == "" {
		tailFrom = s.tailCallers(ra, st.thread, sp, pc)
	}
	tailCall := tailFrom // every hit of this stop is the one call
	for _, i := range bp.requests {
		if len(s.res.Hits) >= s.req.MaxHits {
			s.res.Coverage.HitsDropped++
			s.hitLimit = true
			continue
		}
		b := s.res.Breakpoints[i]
		extra, err := s.readSlots(ctx, i, regs)
		if err != nil {
			return err
		}
		strs, err := s.readStrings(ctx, s.req.Breakpoints[i].Strings, regs)
		if err != nil {
			return err
		}
		spans, err := s.readSpans(ctx, s.req.Breakpoints[i].Spans, regs)
		if err != nil {
			return err
		}
		strs = append(strs, spans...)
		for _, name := range s.wide[i] {
			extra = append(extra, wideRegister(name, wide[name]))
		}
		hitArgs := args
		if len(extra) > 0 {
			hitArgs = append(slices.Clip(args), extra...)
		}
		if err := s.place(ctx, hitArgs, st.thread, sp); err != nil {
			return err
		}
		var variadic []ports.Parameter
		if s.req.Breakpoints[i].Format != "" {
			more, slots, params, err := s.formatArgs(ctx, s.req.Breakpoints[i], strs, regs, wide, hitArgs)
			if err != nil {
				return err
			}
			if err := s.placeVariadic(ctx, slots, params, st.thread, sp); err != nil {
				return err
			}
			strs = append(strs, more...)
			hitArgs = append(slices.Clip(hitArgs), slots...)
			variadic = params
		}
		h := ports.TraceHit{
			Sequence:       len(s.res.Hits),
			Breakpoint:     i,
			Name:           b.Name,
			Address:        b.Address,
			RuntimeAddress: b.RuntimeAddress,
			ProcessID:      int(s.pid),
			ThreadID:       int(st.thread.TID),
			MainThread:     st.thread.TID == s.main.TID,
			Arguments:      hitArgs,
			StackPointer:   sp,
			ReturnAddress:  ra,
			Caller:         caller,
			CallerModule:   callerMod,
			ReturnSequence: -1,
			Strings:        strs,
			Variadic:       variadic,
		}
		if len(tailCall) > 0 {
			h.TailCall, h.TailCallFrom = true, tailCall[0]
		}
		s.res.Hits = append(s.res.Hits, h)
		for _, from := range tailFrom {
			s.tails = append(s.tails, strconv.Itoa(from)+" to "+strconv.Itoa(h.Sequence))
		}
		tailFrom = nil
		if err := s.expectReturn(ctx, ra, pendingReturn{hit: h.Sequence, thread: st.thread, sp: sp + s.conv.spAfterReturn, g: regs[s.conv.g], entry: s.stops, at: pc}); err != nil {
			return err
		}
	}
	return nil
}

// readStrings reads the text each named register points at, up to its
// first NUL and at most ports.MaxTraceString bytes.
func (s *session) readStrings(ctx context.Context, names []string, regs map[string]uint64) ([]ports.TraceString, error) {
	var out []ports.TraceString
	for _, name := range names {
		ts, err := s.readText(ctx, name, regs[name], ports.MaxTraceString, true)
		if err != nil {
			return nil, err
		}
		out = append(out, ts)
	}
	return out, nil
}

// readSpans reads the texts of a known length (Go's string and []byte):
// the length register's count of bytes at the pointer register, at most
// ports.MaxTraceString. No NUL ends them. An empty one is text whatever its
// pointer (Go's empty string may have none).
func (s *session) readSpans(ctx context.Context, spans []ports.TraceSpan, regs map[string]uint64) ([]ports.TraceString, error) {
	var out []ports.TraceString
	for _, sp := range spans {
		length := regs[sp.Length]
		ts, err := s.readText(ctx, sp.Pointer, regs[sp.Pointer], int(min(length, ports.MaxTraceString)), false)
		if err != nil {
			return nil, err
		}
		ts.Truncated = ts.Truncated || !ts.Unreadable && length > ports.MaxTraceString
		out = append(out, ts)
	}
	return out, nil
}

// readText reads up to want bytes at addr (register reg's value), a page
// at a time, so that text ending just before an unmapped page still reads,
// and up to the first NUL when nul says so. Memory the server cannot read
// ends the text: unreadable when nothing was read (so is a null pointer
// with bytes wanted), else truncated. A broken connection fails the trace.
// Without nul, the text is truncated when want bytes came and the caller
// says more were there; with it, when want bytes came and no NUL.
func (s *session) readText(ctx context.Context, reg string, addr uint64, want int, nul bool) (ports.TraceString, error) {
	ts := ports.TraceString{Register: reg, Unreadable: addr == 0 && want > 0}
	for addr != 0 && len(ts.Text) < want {
		n := min(want-len(ts.Text), int(4096-addr%4096))
		b, err := s.cl.readMemory(ctx, addr, n) // a short read keeps what it read
		var er *errorReply
		if err != nil && !errors.As(err, &er) {
			return ts, err
		}
		if i := bytes.IndexByte(b, 0); nul && i >= 0 {
			ts.Text = append(ts.Text, b[:i]...)
			return ts, nil
		}
		ts.Text = append(ts.Text, b...)
		if err != nil {
			ts.Unreadable, ts.Truncated = len(ts.Text) == 0, len(ts.Text) > 0
			return ts, nil
		}
		addr += uint64(len(b))
	}
	ts.Truncated = nul && len(ts.Text) >= want
	return ts, nil
}

// callerOf places a return address: in the main executable or a loaded
// library, as the module's path and the link-time address there; else
// (the vDSO, generated code) the runtime address and "". The libraries are
// read when a return address first lies outside the main executable, and
// again (a few times) when one lies in none of them, for a library loaded
// since.
func (s *session) callerOf(ctx context.Context, ra uint64) (uint64, string, error) {
	if s.inMain(ra) {
		return ra - s.res.Modules[0].LoadBias, s.res.Modules[0].Path, nil
	}
	for try := 0; ; try++ {
		for _, l := range s.callerLibs {
			if l.holds(ra) {
				return ra - l.bias, l.path, nil
			}
		}
		if try > 0 || s.libReads >= maxLibraryReads {
			return ra, "", nil
		}
		if err := s.readLibs(ctx); err != nil {
			return 0, "", err
		}
	}
}

// readLibs reads the libraries that place callers and arguments: the
// first time those the breakpoints were relocated in, if the list was
// read for them, else the loader's list as it is now.
func (s *session) readLibs(ctx context.Context) error {
	mods := s.res.Modules[1:]
	if s.libReads > 0 || len(mods) == 0 {
		var err error
		if mods, err = s.libraries(ctx); err != nil {
			return err
		}
	}
	s.libReads++
	s.callerLibs = s.callerLibs[:0]
	for _, m := range mods {
		// A library's file gives its segments; one that cannot be
		// read places no caller.
		if info, err := readELF(m.Path); err == nil {
			s.callerLibs = append(s.callerLibs, callerLib{path: m.Path, bias: m.LoadBias, segments: info.segments})
		}
	}
	return nil
}

// maxLibraryReads bounds how often a trace reads the library list to place
// callers.
const maxLibraryReads = 4

// callerLib is a loaded library as callerOf places return addresses in it.
type callerLib struct {
	path     string
	bias     uint64
	segments [][2]uint64
}

// holds reports whether a runtime address lies in one of l's segments.
func (l callerLib) holds(addr uint64) bool {
	return slices.ContainsFunc(l.segments, func(seg [2]uint64) bool { return addr-l.bias >= seg[0] && addr-l.bias < seg[1] })
}

// inMain reports whether a runtime address lies in the main executable's
// image, judged by the loaded segments of its file.
func (s *session) inMain(addr uint64) bool {
	bias := s.res.Modules[0].LoadBias
	for _, seg := range s.target.segments {
		if addr-bias >= seg[0] && addr-bias < seg[1] {
			return true
		}
	}
	return false
}

// reentered reports whether a call still waiting for its return has the same
// return address, stack pointer and thread (goroutine for Go): only the same
// activation can, since a nested call has a lower stack pointer. (In C, a
// new call that leaveUnwound judged to have left the old one is no longer
// waiting.) In C it must also have stopped at the entry pc: a signal
// handler returns to the entry it interrupted, and a stop at another entry
// with that frame is a tail call (tailCallers).
func (s *session) reentered(ra uint64, t threadID, sp, pc uint64, regs map[string]uint64) bool {
	for _, p := range s.pending[ra] {
		if p.sp != sp+s.conv.spAfterReturn || s.conv.g == "" && (p.at != pc || p.stepped) {
			continue
		}
		if s.conv.g != "" && p.g == regs[s.conv.g] || s.conv.g == "" && p.thread == t {
			return true
		}
	}
	return false
}

// expectReturn waits for a hit's return with a breakpoint at its return
// address (shared by every pending return there).
func (s *session) expectReturn(ctx context.Context, ra uint64, p pendingReturn) error {
	bp := s.bps[ra]
	if bp == nil {
		if err := s.cl.insertBreakpoint(ctx, ra, s.conv.bpKind); err != nil {
			var er *errorReply
			if errors.As(err, &er) {
				return nil // the return stays unobserved and is counted missing
			}
			return err
		}
		bp = &breakpoint{}
		s.bps[ra] = bp
	}
	bp.returns++
	s.pending[ra] = append(s.pending[ra], p)
	return nil
}

// onReturn matches a stop at a return address with the innermost pending
// call it ends: the same thread with the stack pointer the return leaves (C),
// or the same goroutine (Go). That call's hits are all those recorded at its
// entry stop: one per breakpoint at the entry's address (a procedure named
// twice, by name and by address); in C also the calls that tail-called it,
// waiting at the same return address and level.
func (s *session) onReturn(ctx context.Context, pc uint64, bp *breakpoint, t threadID, regs map[string]uint64, wide map[string][]byte) error {
	list := s.pending[pc]
	for i := len(list) - 1; i >= 0; i-- {
		p := list[i]
		if s.conv.g != "" {
			if p.g != regs[s.conv.g] {
				continue
			}
		} else if p.thread != t || p.sp != regs[s.conv.sp] {
			continue
		}
		var ended, kept []pendingReturn
		for _, q := range list {
			// In C, the calls at this level that tail-called it return
			// with it (tailCallers).
			if q.entry == p.entry && q.thread == p.thread || s.conv.g == "" && q.thread == p.thread && q.sp == p.sp {
				ended = append(ended, q)
			} else {
				kept = append(kept, q)
			}
		}
		for _, q := range ended {
			if err := s.returned(ctx, q, regs, wide); err != nil {
				return err
			}
		}
		s.pending[pc] = kept
		bp.returns -= len(ended)
		if bp.returns == 0 && len(bp.requests) == 0 {
			delete(s.bps, pc)
			delete(s.pending, pc)
			if s.over != nil && s.over.addr == pc {
				s.over = nil
			}
			return s.cl.removeBreakpoint(ctx, pc, s.conv.bpKind)
		}
		return nil
	}
	return nil
}

// returned completes the hit of p at its return: the return value and
// registers, and the texts and stores read after the call.
func (s *session) returned(ctx context.Context, p pendingReturn, regs map[string]uint64, wide map[string][]byte) error {
	h := &s.res.Hits[p.hit]
	h.Returned = true
	h.ReturnValue = regs[s.conv.ret]
	h.ReturnSequence = s.stops - s.ownStops
	for _, name := range s.rets[h.Breakpoint] {
		h.ReturnRegisters = append(h.ReturnRegisters, wideRegister(name, wide[name]))
	}
	for _, reg := range s.req.Breakpoints[h.Breakpoint].ReturnStrings {
		// The buffer's address is the register's value at the entry.
		var ptr uint64 // a register that is no argument reads as unreadable
		if at := slices.IndexFunc(h.Arguments, func(a ports.TraceRegister) bool { return a.Name == reg }); at >= 0 {
			ptr = h.Arguments[at].Value
		}
		ts, err := s.readText(ctx, reg, ptr, ports.MaxTraceString, true)
		if err != nil {
			return err
		}
		h.ReturnStrings = append(h.ReturnStrings, ts)
	}
	if b := s.req.Breakpoints[h.Breakpoint]; b.Scan && b.Format != "" {
		if err := s.readStored(ctx, h, b.Format); err != nil {
			return err
		}
	}
	return nil
}

// readRegs reads the registers the convention needs, and the contents of
// the registers named in wide (any size: xmm0, st0, edx), from the g
// packet, falling back to p for any the g packet does not carry.
func (s *session) readRegs(ctx context.Context, t threadID, wide []string) (map[string]uint64, map[string][]byte, error) {
	data, avail, err := s.cl.readRegisters(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	get := func(name string) ([]byte, error) {
		r, _ := s.td.reg(name)
		n := r.bits / 8
		if r.offset >= 0 && r.offset+n <= len(data) && !slices.Contains(avail[r.offset:r.offset+n], false) {
			return data[r.offset : r.offset+n], nil
		}
		b, err := s.cl.readRegister(ctx, t, r.number)
		if err == nil && len(b) != n {
			err = protoErr("register %s: %d bytes", name, len(b))
		}
		return b, err
	}
	out := make(map[string]uint64, 16)
	w := int(s.conv.word)
	for _, name := range s.conv.needed() {
		if r, _ := s.td.reg(name); r.bits != 8*w {
			return nil, nil, protoErr("register %s is %d bits", name, r.bits)
		}
		b, err := get(name)
		if err != nil {
			return nil, nil, err
		}
		out[name] = leWord(b)
	}
	var contents map[string][]byte
	for _, name := range wide {
		src, keep := name, 0
		if _, ok := s.td.reg(name); !ok && strings.HasPrefix(name, "v") {
			// An SVE target describes z0-z31, whose low 16 bytes are v0-v31.
			src, keep = "z"+name[1:], 16
		}
		if name == "st0" && s.x87Physical() {
			// QEMU's stub gives the x87 registers by their physical
			// number: ST(0) is the one the status word's TOP names.
			fs, err := get("fstat")
			if err != nil {
				return nil, nil, err
			}
			src = fmt.Sprintf("st%d", leWord(fs)>>11&7)
		}
		b, err := get(src)
		if err != nil {
			return nil, nil, err
		}
		if keep > 0 && len(b) > keep {
			b = b[:keep]
		}
		if contents == nil {
			contents = map[string][]byte{}
		}
		contents[name] = b
	}
	return out, contents, nil
}

// described keeps the names of a breakpoint's Registers (entry) or Return
// that are registers the target description has, apart from the
// convention's arguments (and, at the entry, stack slots, which slotsOf
// reads); the others are noted as absent.
func (s *session) described(names []string, entry bool) []string {
	var out []string
	for _, name := range names {
		if _, slot := s.conv.slotOffset(name); entry && (slot || slices.Contains(s.conv.args, name)) {
			continue
		}
		if !s.hasRegister(name) {
			s.absent = appendNew(s.absent, name)
			continue
		}
		out = appendNew(out, name)
	}
	return out
}

// hasRegister reports whether the target description has register name
// (vN through SVE's zN, whose low 16 bytes it is).
func (s *session) hasRegister(name string) bool {
	_, ok := s.td.reg(name)
	if z, vector := strings.CutPrefix(name, "v"); !ok && vector {
		_, ok = s.td.reg("z" + z)
	}
	return ok
}

// x87Physical reports whether the stub numbers the x87 registers
// physically (R0-R7) rather than as the stack (ST(0)-ST(7)), as QEMU's
// user-mode stub does before 8.0 (its --version says which: emulatorVersion;
// one that prints none is taken for the older), where gdbserver and QEMU
// from 8.0 give the stack.
func (s *session) x87Physical() bool {
	e, emulated := s.ep.(*emulated)
	_, fstat := s.td.reg("fstat")
	return emulated && !e.x87Stack && fstat
}

// wideRegister is a register's contents as a hit reports them: Value its
// first word (up to 8 bytes), Bytes all of them when they are not one
// word.
func wideRegister(name string, b []byte) ports.TraceRegister {
	r := ports.TraceRegister{Name: name}
	for i := min(len(b), 8) - 1; i >= 0; i-- {
		r.Value = r.Value<<8 | uint64(b[i])
	}
	if len(b) != 4 && len(b) != 8 {
		r.Bytes = slices.Clone(b)
	}
	return r
}

// appendNew appends the names not in list yet.
func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}

// readFrame reads the return address at a call's entry and, under a
// convention that passes arguments on the stack, the argument slots above
// it into regs, in one request: they are contiguous, and the stack at an
// entry is mapped. A return stop needs none of them.
func (s *session) readFrame(ctx context.Context, regs map[string]uint64) (uint64, error) {
	sp := regs[s.conv.sp]
	if s.conv.lr != "" {
		return regs[s.conv.lr], nil
	}
	if !s.conv.onStack {
		return s.readAddr(ctx, sp)
	}
	w := int(s.conv.word)
	b, err := s.cl.readMemory(ctx, sp, w*(1+len(s.conv.args)))
	if err != nil {
		return 0, s.memoryErr("the return address and arguments on the stack", err)
	}
	for i, name := range s.conv.args {
		regs[name] = leWord(b[(i+1)*w : (i+2)*w])
	}
	return leWord(b[:w]), nil
}

// slotsOf lists the stack slots a breakpoint's texts name ("[esp+32]": a
// parameter debug information places past the slots the convention
// reports, or past the argument registers), once per breakpoint.
func (s *session) slotsOf(bp ports.TraceBreakpoint) []string {
	var out []string
	add := func(name string) {
		if _, ok := s.conv.slotOffset(name); ok && !slices.Contains(s.conv.args, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	add(bp.Format)
	for _, n := range bp.Strings {
		add(n)
	}
	for _, n := range bp.ReturnStrings {
		add(n)
	}
	for _, sp := range bp.Spans {
		add(sp.Pointer)
		add(sp.Length)
	}
	for _, n := range bp.Registers {
		add(n)
	}
	return out
}

// readSlots reads breakpoint i's slots (slotsOf) into regs, as they are at
// the entry, and returns them as extra arguments, so that a buffer read at
// the return finds its address too.
func (s *session) readSlots(ctx context.Context, i int, regs map[string]uint64) ([]ports.TraceRegister, error) {
	var out []ports.TraceRegister
	for _, name := range s.slots[i] {
		v, seen := regs[name] // read for another breakpoint at this address
		if !seen {
			off, _ := s.conv.slotOffset(name)
			var err error
			v, err = s.readAddr(ctx, regs[s.conv.sp]+off)
			var er *errorReply
			if err != nil && !errors.As(err, &er) {
				return nil, err
			}
			regs[name] = v // an unreadable slot reads as a null pointer, whose text is unreadable
		}
		out = append(out, ports.TraceRegister{Name: name, Value: v})
	}
	return out, nil
}

// release ends the program's life under the server: a launched program is
// killed, an attached one has its breakpoints removed and is detached.
func (s *session) release(ctx context.Context) {
	if !s.alive {
		return
	}
	pid := strconv.FormatInt(s.pid, 16)
	if s.req.Attach != nil {
		for _, addr := range s.inserted() {
			if err := s.cl.removeBreakpoint(ctx, addr, s.conv.bpKind); err != nil && !isReply(err) {
				return
			}
		}
		if err := s.cl.requestOK(ctx, "D;"+pid); err != nil && !isReply(err) {
			return
		}
		s.alive = false
		return
	}
	err := s.cl.requestOK(ctx, "vKill;"+pid)
	if errors.Is(err, errNotSupported) {
		// The old kill request; servers need not answer it.
		err = s.cl.c.send(ctx, "k")
	}
	if err != nil && !isReply(err) {
		return
	}
	s.alive = false
}

func isReply(err error) bool {
	var er *errorReply
	return errors.As(err, &er) || errors.Is(err, errNotSupported)
}

// finishCoverage fills in the coverage counts and notes.
func (s *session) finishCoverage() {
	cov := &s.res.Coverage
	cov.Threads = cov.Threads[:0]
	for t := range s.threads {
		cov.Threads = append(cov.Threads, t)
	}
	sort.Ints(cov.Threads)
	// A hit still waiting for its return when a limit or cancellation
	// stopped the program is pending: the trace ended before the call
	// could return, so its return is not missing. Only an exited program
	// (or a stack that never came back to the return address) loses one.
	waiting := map[int]bool{}
	if cov.StopReason != ports.TraceStopExited {
		for _, list := range s.pending {
			for _, p := range list {
				waiting[p.hit] = true
			}
		}
	}
	pending := 0
	var unwound []string
	for i, h := range s.res.Hits {
		switch {
		case h.Returned:
		case h.Unwound:
			unwound = append(unwound, strconv.Itoa(i))
		case waiting[i]:
			pending++
		default:
			cov.ReturnsMissing++
		}
	}
	if e := s.res.Exit; e != nil && e.Signal != "" {
		// A crash's triage starts at the calls it interrupted.
		var open []string
		for i, h := range s.res.Hits {
			if !h.Returned && !h.Unwound {
				open = append(open, fmt.Sprintf("%s (hit sequence %d)", h.Name, i))
			}
		}
		if len(open) > 0 {
			n, more := len(open), ""
			if n > 8 {
				more, open = fmt.Sprintf(", after %d earlier", n-8), open[n-8:]
			}
			cov.Notes = append(cov.Notes, fmt.Sprintf("the program was killed by %s while %d recorded call(s) had not returned, the last entered last: %s%s",
				e.Signal, n, strings.Join(open, ", "), more))
		}
	}
	if pending > 0 {
		cov.Notes = append(cov.Notes, fmt.Sprintf("%d recorded call(s) were still waiting for their return when the trace ended (%s): pending, not counted in returns_missing", pending, cov.StopReason))
	}
	s.mainNotes()
	if len(unwound) > 0 {
		cov.Notes = append(cov.Notes, fmt.Sprintf("%d recorded call(s) never returned: the stack was unwound past them (longjmp), seen at a later stop of their thread in a frame above theirs; not pending, not counted in returns_missing (hit sequence %s)", len(unwound), strings.Join(unwound, ", ")))
	}
	if cov.StopReason == ports.TraceStopHitLimit {
		ended := "the program rea launched was killed (exit null)"
		if s.req.Attach != nil {
			ended = "the attached process was released to run on (breakpoints removed, detached)"
		}
		cov.Notes = append(cov.Notes, fmt.Sprintf("max_hits (%d) was reached: the trace ended at the next call, counted in hits_dropped, and %s; later calls were not observed", s.req.MaxHits, ended))
	}
	if len(cov.ForksNotFollowed) > 0 {
		cov.Notes = append(cov.Notes, fmt.Sprintf("%d forked child process(es) were detached and ran without breakpoints", len(cov.ForksNotFollowed)))
	}
	if s.traps > 0 {
		cov.Notes = append(cov.Notes, fmt.Sprintf("%d SIGTRAP stop(s) at no breakpoint were not passed to the program", s.traps))
	}
	if len(s.tails) > 0 {
		cov.Notes = append(cov.Notes, fmt.Sprintf("%d recorded call(s) ended in a tail call to a recorded call: its entry stopped with their return address and stack pointer, no return address pushed, and they returned with it, its return value theirs (hit sequence %s)%s", len(s.tails), strings.Join(s.tails, ", "), s.tailCaveat()))
	}
	if len(s.tailAtLimit) > 0 {
		cov.Notes = append(cov.Notes, fmt.Sprintf("the stop past max_hits entered a call by a tail call from hit sequence %s: pending in that call", strings.Join(s.tailAtLimit, ", ")))
	}
	if s.reentries > 0 {
		cov.Notes = append(cov.Notes, fmt.Sprintf("%d stop(s) at an entry by a call already recorded (a signal handler returned to the entry) were not counted as calls", s.reentries))
	}
	if s.conv.g != "" {
		cov.Notes = append(cov.Notes, "Go: a call whose prologue grows the goroutine stack stops twice at its entry")
	}
	if s.asyncOff {
		cov.Notes = append(cov.Notes, "Go under an emulator: the program ran with asyncpreemptoff=1 first in GODEBUG (goroutines preempted at calls only), as QEMU's stub mishandles the SIGURG stops of asynchronous preemption")
	}
	if s.req.Launch != nil && needsShell(s.req.Launch.Args) {
		cov.Notes = append(cov.Notes, "an argument was empty or had whitespace, so the program was started through the shell ($SHELL or /bin/sh), which may add to its environment")
	}
	if len(s.absent) > 0 {
		cov.Notes = append(cov.Notes, "the target description has no register "+strings.Join(s.absent, ", ")+": not read")
	}
	cov.Notes = append(cov.Notes, "vfork and clone children other than threads are not traced; exec replaces the traced image without breakpoints")
}
