package native

import (
	"context"
	"debug/pe"
	"encoding/binary"
	"maps"
	"slices"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports"
)

// A stripped Windows C program's main is the procedure whose return value
// its C runtime's start code hands to exit(). Both runtimes that build
// such programs end their start routine so: mingw-w64's __tmainCRTStartup
// stores main's result and calls exit(mainret) unless the program is
// managed, and MSVC's __scrt_common_main_seh (invoke_main inlined) keeps it
// in a callee-saved register across __scrt_is_managed_app and calls
// exit(main_result). Their instruction sequences differ between versions
// and optimisation levels, so rather than a shape this follows the value:
// from the entry point (mainCRTStartup, WinMainCRTStartup), the functions it
// calls or jumps to, at most maxPEMainDepth deep, are decoded into blocks,
// and a forward pass over them tracks which registers, absolute memory
// words and (32-bit x86) the outgoing first argument hold "the return value
// of the direct call to X". At a call of the imported exit (through its
// import slot or a jmp thunk to it), the first argument (rcx, the word at
// [esp], or AArch64's x0: entry_pe_aarch64.go) holding X's return value
// names X main, when every such call
// agrees on one X in code that is not the entry. WinMain is told from main
// by its first argument, the image base (hInstance): mingw-w64's own main
// (crtexewin.c) passes it on to WinMain, so there the procedure named is
// that main. A DLL, a .NET image and an image whose symbols already name
// main, wmain or WinMain are left alone.

// maxPEMainDepth bounds the call depth followed from the entry point:
// mainCRTStartup calls __tmainCRTStartup (mingw-w64) or jumps to
// __scrt_common_main_seh (MSVC) after a call or two of its own.
const maxPEMainDepth = 2

// maxPEMainInsns bounds the instructions decoded per function,
// maxPEMainTotal those of the whole walk, maxPEMainFuncs the functions
// examined, and maxPEMainRounds the passes over a function's blocks (the
// start code has few loops: a pass that has not settled by then names
// nothing).
const (
	maxPEMainInsns  = 4096
	maxPEMainTotal  = 16384
	maxPEMainFuncs  = 24
	maxPEMainRounds = 8
)

// nameMain names main (or WinMain) from the C runtime's call of exit.
func (p *peImage) nameMain(ctx context.Context, set *symbolSet) {
	if p.entry == 0 || p.cil() || p.f.Characteristics&pe.IMAGE_FILE_DLL != 0 {
		return
	}
	mode, arm64 := 32, false
	switch p.f.Machine {
	case pe.IMAGE_FILE_MACHINE_AMD64:
		mode = 64
	case pe.IMAGE_FILE_MACHINE_ARM64:
		mode, arm64 = 64, true
	case pe.IMAGE_FILE_MACHINE_I386:
	default:
		return
	}
	for _, c := range set.procs {
		switch c.name {
		case "main", "wmain", "WinMain", "wWinMain", "_main", "_wmain", "_WinMain@16", "_wWinMain@16":
			return
		}
	}
	exits := map[uint64]bool{}   // the import slots of exit
	cmdLine := map[uint64]bool{} // GetCommandLineW's (true) and GetCommandLineA's slots
	for _, l := range set.labels {
		if l.Kind != "import" {
			continue
		}
		switch l.Name {
		case "exit":
			exits[l.Address] = true
		case "GetCommandLineW", "GetCommandLineA":
			cmdLine[l.Address] = l.Name == "GetCommandLineW"
		}
	}
	entry := p.base + uint64(p.entry)
	w := &peMainWalk{ctx: ctx, p: p, mm: newMemMap(p), mode: mode, arm64: arm64, exits: exits, cmdLine: cmdLine, local: map[uint64]bool{}, total: maxPEMainTotal}
	main, win, ok := w.find(entry)
	if !ok || main == entry || !w.mm.isCode(main) {
		return
	}
	wide, narrow := wideArgs(set)
	if !wide && !narrow {
		// No argument import tells (MSVC's static runtime has its own):
		// the start routine's own call of GetCommandLineW or
		// GetCommandLineA does (crtStartupCmdLine).
		wide = w.cmdWide && !w.cmdNarrow
	} else {
		wide = wide && !narrow
	}
	name := peMainName(win, wide, mode)
	set.procs = append(set.procs, candidate{addr: main, name: name, source: "crt-exit", rank: rankSynthetic})
	set.labels = append(set.labels, ports.Name{Address: main, Name: name, Kind: "function"})
	if win {
		return
	}
	if p.subsystem() == pe.IMAGE_SUBSYSTEM_WINDOWS_GUI && !arm64 {
		if wm, ok := w.winMainOf(main); ok && wm != main && wm != entry && w.mm.isCode(wm) {
			name := peMainName(true, wide, mode)
			set.procs = append(set.procs, candidate{addr: wm, name: name, source: "crt-exit", rank: rankSynthetic})
			set.labels = append(set.labels, ports.Name{Address: wm, Name: name, Kind: "function"})
		}
	}
}

// subsystem is the optional header's Subsystem.
func (p *peImage) subsystem() uint16 {
	switch oh := p.f.OptionalHeader.(type) {
	case *pe.OptionalHeader32:
		return oh.Subsystem
	case *pe.OptionalHeader64:
		return oh.Subsystem
	}
	return 0
}

// A GUI program built with mingw-w64 has WinMain called by the runtime's
// own main (crtexewin.c, precompiled in libmingw32.a, so the same at every
// optimisation level): straight-line code that calls __main, then calls or
// tail-jumps to WinMain with hPrevInstance NULL and the other three
// arguments loaded from the runtime's globals (x86-64: rcx, r8 and r9 each
// loaded from memory, edx zeroed; i386: the words at [esp], [esp+8] and
// [esp+12] stored, [esp+4] set to 0). winMainOf recognises that main and
// returns WinMain's address: exactly two direct transfers, no branch, no
// indirect call, and the four arguments so at the second.
func (w *peMainWalk) winMainOf(main uint64) (uint64, bool) {
	pc := main
	var targets []uint64
	var args uint8 // bit i: argument i is set as the runtime's main sets it
	for range 32 {
		b := w.code(pc)
		if len(b) == 0 {
			return 0, false
		}
		in, err := x86asm.Decode(b, w.mode)
		if err != nil {
			return 0, false
		}
		next := pc + uint64(in.Len)
		switch {
		case in.Op == x86asm.CALL || in.Op == x86asm.JMP:
			t, ok := relTarget(in, next, w.mode)
			if !ok {
				return 0, false
			}
			targets = append(targets, t)
			if len(targets) == 2 {
				return t, args == 0xf
			}
			if in.Op == x86asm.JMP {
				return 0, false
			}
			args = 0 // the call may change the argument registers
		case in.Op == x86asm.RET || x86Branches[in.Op]:
			return 0, false
		case w.mode == 64:
			bit := uint8(0)
			switch gpr(regArg(in.Args[0])) {
			case gpr(x86asm.RCX):
				bit = 1
			case gpr(x86asm.RDX):
				bit = 2
			case gpr(x86asm.R8):
				bit = 4
			case gpr(x86asm.R9):
				bit = 8
			}
			if bit == 0 {
				break
			}
			r1, _ := in.Args[1].(x86asm.Reg)
			_, fromMem := in.Args[1].(x86asm.Mem)
			args &^= bit
			if bit == 2 && in.Op == x86asm.XOR && gpr(r1) == gpr(x86asm.RDX) || bit != 2 && in.Op == x86asm.MOV && fromMem {
				args |= bit
			}
		default: // 32-bit x86
			m, ok := in.Args[0].(x86asm.Mem)
			if !ok || gpr(m.Base) != gpr(x86asm.ESP) || m.Index != 0 {
				break
			}
			if m.Disp < 0 || m.Disp > 12 || m.Disp%4 != 0 {
				break
			}
			bit := uint8(1) << (m.Disp / 4)
			args &^= bit
			imm, isImm := in.Args[1].(x86asm.Imm)
			_, isReg := in.Args[1].(x86asm.Reg)
			if in.Op == x86asm.MOV && (bit == 2 && isImm && imm == 0 || bit != 2 && isReg) {
				args |= bit
			}
		}
		pc = next
	}
	return 0, false
}

// regArg is the register an operand names, or 0.
func regArg(a x86asm.Arg) x86asm.Reg {
	r, _ := a.(x86asm.Reg)
	return r
}

// peMainName spells main as the program's symbol would be: WinMain when
// its first argument is the image base (hInstance), the wide variant when
// the runtime's argument imports are wide only, with 32-bit x86's
// decoration (a leading underscore, and @16 for WinMain's stdcall).
func peMainName(win, wide bool, mode int) string {
	name := "main"
	switch {
	case win && wide:
		name = "wWinMain"
	case win:
		name = "WinMain"
	case wide:
		name = "wmain"
	}
	if mode == 32 {
		name = "_" + name
		if win {
			name += "@16"
		}
	}
	return name
}

// wideArgs reports whether the program imports the C runtime's wide
// argument routines, and its narrow ones: msvcrt's __wgetmainargs
// (mingw-w64's -municode), the UCRT's __p___wargv,
// _get_initial_wide_environment or _get_wide_winmain_command_line (MSVC's
// wmain and wWinMain), and their narrow counterparts. Wide only names the
// wide main.
//
// mingw-w64 linked against the UCRT imports both families: libucrt.a's
// __getmainargs and __wgetmainargs wrappers come in together. There the
// start code's own read of the command line (crtexe.c's _tcmdln, in every
// build) tells: the UCRT's __p__wcmdln alone is the -municode build's,
// __p__acmdln alone the narrow one's.
func wideArgs(set *symbolSet) (wide, narrow bool) {
	var wcmd, acmd bool
	for _, l := range set.labels {
		if l.Kind != "import" {
			continue
		}
		switch l.Name {
		case "__wgetmainargs", "__p___wargv", "_get_initial_wide_environment", "_get_wide_winmain_command_line":
			wide = true
		case "__getmainargs", "__p___argv", "_get_initial_narrow_environment", "_get_narrow_winmain_command_line":
			narrow = true
		case "__p__wcmdln":
			wcmd = true
		case "__p__acmdln":
			acmd = true
		}
	}
	if wide && narrow && wcmd != acmd {
		return wcmd, acmd
	}
	return wide, narrow
}

// peMainWalk follows a PE entry point into its C runtime's start code.
type peMainWalk struct {
	ctx   context.Context
	p     *peImage
	mm    *memMap
	mode  int
	arm64 bool          // AArch64 (entry_pe_aarch64.go); else x86 in mode
	a64   *arm64Decoder // AArch64: the disassembler's decoder, reading transfers
	exits map[uint64]bool
	local map[uint64]bool // localExit's answers, by address
	// cmdLine holds GetCommandLineW's (true) and GetCommandLineA's (false)
	// import slots; cmdWide and cmdNarrow say whether the function that
	// calls exit calls them through those slots (crtStartupCmdLine).
	cmdLine            map[uint64]bool
	cmdWide, cmdNarrow bool
	total              int // instructions left to decode in the whole walk
}

// pmVal is what a location holds: the return value of the direct call of
// a procedure, or a constant.
type pmVal struct {
	ret   bool
	value uint64 // the callee (ret) or the constant
}

// pmState maps a location to its value: a general register by number
// (0..15), an absolute memory word by ^address, the outgoing first
// argument on 32-bit x86 by pmArg0.
type pmState map[uint64]pmVal

const pmArg0 = 1 << 62

// pmMem is the key of the absolute memory word at addr.
func pmMem(addr uint64) uint64 { return ^addr }

// find examines the entry and the functions it reaches, breadth first,
// and returns main's address, whether it is WinMain, and whether one was
// found.
func (w *peMainWalk) find(entry uint64) (uint64, bool, bool) {
	seen := map[uint64]bool{entry: true}
	level := []uint64{entry}
	examined := 0
	for depth := 0; depth <= maxPEMainDepth && len(level) > 0; depth++ {
		var next []uint64
		for _, fn := range level {
			if examined == maxPEMainFuncs || w.ctx.Err() != nil {
				return 0, false, false
			}
			examined++
			main, win, found, callees := w.function(fn)
			if found {
				return main, win, main != 0
			}
			for _, c := range callees {
				if !seen[c] {
					seen[c] = true
					next = append(next, c)
				}
			}
		}
		level = next
	}
	return 0, false, false
}

// pmBlock is a decoded block: its instructions and successors.
type pmBlock struct {
	insns []pmInsn
	succ  []uint64
}

type pmInsn struct {
	in   x86asm.Inst // x86
	x    uint32      // AArch64
	pc   uint64
	next uint64
}

// function decodes the function at fn into blocks and runs the pass. found
// is true when exit is called there: main is then the one procedure whose
// value it receives, or 0 when they disagree or none is known. callees
// are the code addresses the function calls or jumps to, in order.
func (w *peMainWalk) function(fn uint64) (main uint64, win, found bool, callees []uint64) {
	// First the instructions reachable from fn and the block leaders
	// (fn, branch targets, the instruction after a conditional branch),
	// then the blocks between leaders, so that a branch into the middle of
	// a run of instructions splits it.
	insns := map[uint64]pmInsn{}
	leaders := map[uint64]bool{fn: true}
	succs := map[uint64][]uint64{} // a terminator's successors, by its address
	work := []uint64{fn}
	budget := min(maxPEMainInsns, w.total)
	defer func() { w.total -= min(maxPEMainInsns, w.total) - budget }()
	addCallee := func(t uint64) {
		if w.mm.isCode(t) && !slices.Contains(callees, t) {
			callees = append(callees, t)
		}
	}
	for len(work) > 0 && budget > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		for budget > 0 {
			if _, done := insns[pc]; done {
				break
			}
			budget--
			ins, targets, end, ok := w.decode(pc, addCallee)
			if !ok {
				break
			}
			insns[pc] = ins
			if end {
				succs[pc] = nil
				for _, t := range targets {
					if w.mm.isCode(t) {
						succs[pc] = append(succs[pc], t)
						leaders[t] = true
						work = append(work, t)
					}
				}
				break
			}
			pc = ins.next
		}
	}
	blocks := map[uint64]*pmBlock{}
	order := make([]uint64, 0, len(leaders))
	for l := range leaders {
		if _, ok := insns[l]; ok {
			order = append(order, l)
		}
	}
	slices.Sort(order)
	for _, l := range order {
		b := &pmBlock{}
		for pc := l; ; {
			ins, ok := insns[pc]
			if !ok {
				break // undecoded or past the budget: no successor known
			}
			b.insns = append(b.insns, ins)
			if s, term := succs[pc]; term {
				b.succ = s
				break
			}
			if leaders[ins.next] {
				b.succ = []uint64{ins.next}
				break
			}
			pc = ins.next
		}
		blocks[l] = b
	}
	// The states at the blocks' starts, to a fixed point: a join keeps
	// only what every path agrees on.
	in := map[uint64]pmState{fn: {}}
	settled := false
	for round := 0; round < maxPEMainRounds && !settled; round++ {
		settled = true
		for _, at := range order {
			st, ok := in[at]
			if !ok {
				continue
			}
			st = maps.Clone(st)
			for _, ins := range blocks[at].insns {
				w.step(st, ins)
			}
			for _, s := range blocks[at].succ {
				if blocks[s] == nil {
					continue
				}
				st := st
				if w.arm64 {
					st = zeroEdgeA64(st, blocks[at], s)
				}
				old, had := in[s]
				if !had {
					in[s], settled = maps.Clone(st), false
					continue
				}
				for k, v := range old {
					if nv, ok := st[k]; !ok || nv != v {
						delete(old, k)
						settled = false
					}
				}
			}
		}
	}
	if !settled {
		return 0, false, false, callees
	}
	// Then what each call of exit receives, and the calls given the image
	// base first.
	var mains []uint64 // 0: an exit whose value is not known
	winMain := map[uint64]bool{}
	for _, at := range order {
		st, ok := in[at]
		if !ok {
			continue
		}
		st = maps.Clone(st)
		for _, ins := range blocks[at].insns {
			if call, exit, t, direct := w.call(ins); call {
				exit = exit || w.arm64 && w.exitThroughA64(st, ins)
				first := w.firstArg(st)
				if exit {
					found = true
					mains = append(mains, first.value)
					if !first.ret {
						mains[len(mains)-1] = 0
					}
				} else if direct && !first.ret && first.value == w.p.base && w.p.base != 0 {
					winMain[t] = true
				}
			}
			w.step(st, ins)
		}
	}
	if found {
		w.crtStartupCmdLine(insns)
	}
	slices.Sort(mains)
	if mains = slices.Compact(mains); len(mains) != 1 || mains[0] == 0 {
		return 0, false, found, callees
	}
	return mains[0], winMain[mains[0]], true, callees
}

// MSVC's static runtime before the UCRT (crt0.c, Visual Studio 2005 to
// 2013) has its start routine, __tmainCRTStartup, which calls main and
// then exit, read the command line itself, and its build for wmain and
// wWinMain reads the wide one: _wcmdln = GetCommandLineW() where the
// narrow build has _acmdln = GetCommandLineA(), then _wsetargv and
// _wsetenvp. The program's own code may call either (pip's distlib
// launchers, whose main is narrow, call GetCommandLineW), so only the
// start routine's calls tell. crtStartupCmdLine records whether the
// function that calls exit calls GetCommandLineW or GetCommandLineA
// through its import slot. (The UCRT's static runtime reads both in its
// own initialisation, not there: its programs keep the name main.)
func (w *peMainWalk) crtStartupCmdLine(insns map[uint64]pmInsn) {
	if w.arm64 || len(w.cmdLine) == 0 {
		return
	}
	for _, ins := range insns {
		if ins.in.Op != x86asm.CALL {
			continue
		}
		m, ok := ins.in.Args[0].(x86asm.Mem)
		if !ok {
			continue
		}
		if slot, ok := w.absolute(m, ins.next); ok {
			if wide, isCmd := w.cmdLine[slot]; isCmd {
				w.cmdWide = w.cmdWide || wide
				w.cmdNarrow = w.cmdNarrow || !wide
			}
		}
	}
}

// firstArg is what the state says a call's first argument is: rcx under
// the Microsoft x64 convention, the outgoing word at [esp] on 32-bit x86,
// x0 on AArch64.
func (w *peMainWalk) firstArg(st pmState) pmVal {
	if w.arm64 {
		return st[0]
	}
	if w.mode == 32 {
		return st[pmArg0]
	}
	return st[uint64(gpr(x86asm.RCX))]
}

// decode decodes the instruction at pc: the instruction, the targets of
// its transfer that stay in the function (a jump's, a branch's and the
// next instruction), whether it ends its block, and false when it does not
// decode. A call's or jump's code target is given to callee.
func (w *peMainWalk) decode(pc uint64, callee func(uint64)) (ins pmInsn, targets []uint64, end, ok bool) {
	if w.arm64 {
		return w.decodeA64(pc, callee)
	}
	code := w.code(pc)
	if len(code) == 0 {
		return pmInsn{}, nil, false, false
	}
	if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && (code[3] == 0xfa || code[3] == 0xfb) {
		// endbr64/endbr32, which x86asm does not decode: a no-op
		return pmInsn{in: x86asm.Inst{Op: x86asm.NOP, Len: 4}, pc: pc, next: pc + 4}, nil, false, true
	}
	in, err := x86asm.Decode(code, w.mode)
	if err != nil {
		return pmInsn{}, nil, false, false
	}
	next := pc + uint64(in.Len)
	ins = pmInsn{in: in, pc: pc, next: next}
	switch in.Op {
	case x86asm.RET, x86asm.HLT, x86asm.INT, x86asm.UD1, x86asm.UD2:
		end = true
	case x86asm.JMP:
		end = true
		if t, ok := relTarget(in, next, w.mode); ok {
			// A jump is followed as part of the function (a tail call
			// continues with the same state) and examined as a function
			// of its own too.
			targets = append(targets, t)
			callee(t)
		}
	case x86asm.CALL:
		if w.callsExit(in, next) {
			end = true // exit does not return
		} else if t, ok := relTarget(in, next, w.mode); ok {
			callee(t)
		}
	default:
		if x86Branches[in.Op] {
			if t, ok := relTarget(in, next, w.mode); ok {
				targets = append(targets, t)
			}
			targets = append(targets, next)
			end = true
		}
	}
	return ins, targets, end, true
}

// call reports whether ins is a call, whether it calls exit, and a direct
// call's target.
func (w *peMainWalk) call(ins pmInsn) (call, exit bool, target uint64, direct bool) {
	if w.arm64 {
		return w.callA64(ins)
	}
	if ins.in.Op != x86asm.CALL {
		return false, false, 0, false
	}
	target, direct = relTarget(ins.in, ins.next, w.mode)
	return true, w.callsExit(ins.in, ins.next), target, direct
}

// code is up to 16 bytes of code at pc.
func (w *peMainWalk) code(pc uint64) []byte { return codeAt(w.mm, w.p.src, pc, 16) }

// callsExit reports whether the call at hand calls the imported exit:
// through its import slot, or directly to a jmp thunk through the slot.
func (w *peMainWalk) callsExit(in x86asm.Inst, next uint64) bool {
	if m, ok := in.Args[0].(x86asm.Mem); ok {
		slot, ok := w.absolute(m, next)
		return ok && w.exits[slot]
	}
	t, ok := relTarget(in, next, w.mode)
	if !ok {
		return false
	}
	code := w.code(t)
	if len(code) < 6 || code[0] != 0xff || code[1] != 0x25 {
		return w.localExit(t)
	}
	disp := uint64(int64(int32(binary.LittleEndian.Uint32(code[2:]))))
	slot := disp & 0xffffffff // 32-bit: an absolute address
	if w.mode == 64 {
		slot = t + 6 + disp // rip-relative
	}
	return w.exits[slot]
}

// A program linked with MSVC's static C runtime (/MT) does not import
// exit: it has the runtime's own. exit, _exit, _cexit and _c_exit are
// there adjacent stubs that pass their argument on to one common routine
// (doexit before Visual Studio 2015, common_exit since) with two
// constants: exit's are both 0. On x86-64 a stub sets edx and r8d and
// jumps (xor r8d, r8d; xor edx, edx; jmp common), on 32-bit x86 it pushes
// the constants and its own argument and calls (push 0; push 0; push
// [ebp+8]; call common; add esp, 12; pop ebp; ret). localExit takes a
// call's target for exit when it is such a stub with both constants 0, its
// argument passed through, and the next stub after it (past int3 or nop
// padding, less than maxStubGap bytes of it) goes to the same routine.

// maxStubGap bounds the padding between two exit stubs.
const maxStubGap = 16

// localExit reports whether the function at t is the static runtime's exit.
func (w *peMainWalk) localExit(t uint64) bool {
	if v, ok := w.local[t]; ok {
		return v
	}
	common, end, exit := w.exitStub(t)
	ok := false
	if exit {
		at := end
		for at-end < maxStubGap { // past int3 and nop padding
			b := w.code(at)
			if len(b) > 0 && b[0] == 0xcc {
				at++
				continue
			}
			if in, err := x86asm.Decode(b, w.mode); err == nil && in.Op == x86asm.NOP {
				at += uint64(in.Len)
				continue
			}
			break
		}
		next, _, _ := w.exitStub(at)
		ok = next == common && common != 0
	}
	w.local[t] = ok
	return ok
}

// exitStub parses an exit-family stub at t: the routine it goes to (0:
// not a stub), where it ends, and whether it is exit (both constants 0,
// the argument passed through).
func (w *peMainWalk) exitStub(t uint64) (common, end uint64, exit bool) {
	consts := map[int]int64{} // x86-64: edx's and r8d's, by register number
	rdx, r8 := gpr(x86asm.RDX), gpr(x86asm.R8)
	var imms [2]int64 // 32-bit x86: the constants pushed
	pushes := 0
	argPushed := false
	pc := t
	for range 10 {
		b := w.code(pc)
		if len(b) == 0 {
			return 0, 0, false
		}
		in, err := x86asm.Decode(b, w.mode)
		if err != nil {
			return 0, 0, false
		}
		next := pc + uint64(in.Len)
		reg, _ := in.Args[0].(x86asm.Reg)
		switch {
		case w.mode == 64 && in.Op == x86asm.JMP:
			d, ok := relTarget(in, next, w.mode)
			edx, e := consts[rdx]
			r8d, r := consts[r8]
			if !ok || !e || !r {
				return 0, 0, false
			}
			return d, next, edx == 0 && r8d == 0
		case w.mode == 64 && (reg == x86asm.EDX || reg == x86asm.R8L):
			name := gpr(reg)
			switch in.Op {
			case x86asm.XOR:
				if r2, _ := in.Args[1].(x86asm.Reg); r2 != reg {
					return 0, 0, false
				}
				consts[name] = 0
			case x86asm.MOV:
				switch a := in.Args[1].(type) {
				case x86asm.Imm:
					consts[name] = int64(a)
				case x86asm.Reg:
					v, ok := consts[gpr(a)]
					if !ok {
						return 0, 0, false
					}
					consts[name] = v
				default:
					return 0, 0, false
				}
			case x86asm.LEA:
				m, _ := in.Args[1].(x86asm.Mem)
				v, ok := consts[gpr(m.Base)]
				if !ok || m.Index != 0 {
					return 0, 0, false
				}
				consts[name] = v + m.Disp
			default:
				return 0, 0, false
			}
		case w.mode == 32 && in.Op == x86asm.MOV && (reg == x86asm.EDI || reg == x86asm.EBP):
			// mov edi, edi (the hot-patch point); mov ebp, esp
		case w.mode == 32 && in.Op == x86asm.PUSH:
			switch a := in.Args[0].(type) {
			case x86asm.Reg:
				if a != x86asm.EBP || pushes > 0 { // push ebp, the frame
					return 0, 0, false
				}
			case x86asm.Imm:
				if argPushed || pushes > 1 {
					return 0, 0, false
				}
				imms[pushes] = int64(a)
				pushes++
			case x86asm.Mem:
				// the stub's own argument: [ebp+8], or [esp+4] past the two constants
				if argPushed || pushes != 2 || !(a.Base == x86asm.EBP && a.Disp == 8 || a.Base == x86asm.ESP && a.Disp == 12) || a.Index != 0 {
					return 0, 0, false
				}
				argPushed = true
			default:
				return 0, 0, false
			}
		case w.mode == 32 && in.Op == x86asm.CALL:
			d, ok := relTarget(in, next, w.mode)
			if !ok || pushes != 2 {
				return 0, 0, false
			}
			// add esp, 12; [pop ebp;] ret
			for range 3 {
				b := w.code(next)
				in, err := x86asm.Decode(b, 32)
				if err != nil {
					return 0, 0, false
				}
				next += uint64(in.Len)
				if in.Op == x86asm.RET {
					return d, next, argPushed && imms == [2]int64{}
				}
				if in.Op != x86asm.ADD && in.Op != x86asm.POP {
					return 0, 0, false
				}
			}
			return 0, 0, false
		default:
			return 0, 0, false
		}
		pc = next
	}
	return 0, 0, false
}

// absolute is the address of a memory operand that names one: rip-relative
// or a bare displacement.
func (w *peMainWalk) absolute(m x86asm.Mem, next uint64) (uint64, bool) {
	if m.Index != 0 || m.Segment != 0 && m.Segment != x86asm.DS {
		return 0, false
	}
	switch m.Base {
	case x86asm.RIP:
		return next + uint64(m.Disp), true
	case 0:
		if w.mode == 32 {
			return uint64(m.Disp) & 0xffffffff, true
		}
		return uint64(m.Disp), true
	}
	return 0, false
}

// step applies one instruction to the state.
func (w *peMainWalk) step(st pmState, ins pmInsn) {
	if w.arm64 {
		w.stepA64(st, ins)
		return
	}
	w.stepX86(st, ins)
}

// stepX86 applies one x86 instruction to the state.
func (w *peMainWalk) stepX86(st pmState, ins pmInsn) {
	in := ins.in
	reg := func(a x86asm.Arg) (int, bool) {
		r, ok := a.(x86asm.Reg)
		if !ok || gpr(r) < 0 {
			return 0, false
		}
		return gpr(r), true
	}
	wide := func(a x86asm.Arg) bool { // a 32- or 64-bit register write keeps a whole value
		r, _ := a.(x86asm.Reg)
		return r >= x86asm.EAX && r <= x86asm.R15L || r >= x86asm.RAX && r <= x86asm.R15
	}
	value := func(a x86asm.Arg) (pmVal, bool) {
		switch a := a.(type) {
		case x86asm.Reg:
			if g, ok := reg(a); ok {
				v, ok := st[uint64(g)]
				return v, ok
			}
		case x86asm.Imm:
			return pmVal{value: uint64(a) & w.mask()}, true
		case x86asm.Mem:
			if at, ok := w.absolute(a, ins.next); ok {
				v, ok := st[pmMem(at)]
				return v, ok
			}
		}
		return pmVal{}, false
	}
	set := func(a x86asm.Arg, v pmVal, ok bool) {
		switch a := a.(type) {
		case x86asm.Reg:
			if g, isGPR := reg(a); isGPR {
				if ok && wide(a) {
					st[uint64(g)] = v
				} else {
					delete(st, uint64(g))
				}
				if g == gpr(x86asm.RSP) {
					delete(st, pmArg0)
				}
			}
		case x86asm.Mem:
			if at, abs := w.absolute(a, ins.next); abs {
				if ok {
					st[pmMem(at)] = v
				} else {
					delete(st, pmMem(at))
				}
				return
			}
			if w.mode == 32 && gpr(a.Base) == gpr(x86asm.ESP) && a.Index == 0 && a.Disp == 0 {
				if ok {
					st[pmArg0] = v
				} else {
					delete(st, pmArg0)
				}
				return
			}
			if gpr(a.Base) == gpr(x86asm.RSP) || gpr(a.Base) == gpr(x86asm.RBP) {
				return // the frame does not alias a global word
			}
			for k := range st { // a store through a pointer may alias any word
				if k >= pmArg0 {
					delete(st, k)
				}
			}
		}
	}
	switch in.Op {
	case x86asm.MOV:
		v, ok := value(in.Args[1])
		set(in.Args[0], v, ok)
	case x86asm.LEA:
		m, _ := in.Args[1].(x86asm.Mem)
		at, ok := w.absolute(m, ins.next)
		set(in.Args[0], pmVal{value: at}, ok)
	case x86asm.XOR, x86asm.SUB:
		if r0, ok := in.Args[0].(x86asm.Reg); ok {
			if r1, ok := in.Args[1].(x86asm.Reg); ok && r0 == r1 {
				set(r0, pmVal{}, true)
				break
			}
		}
		set(in.Args[0], pmVal{}, false)
	case x86asm.TEST, x86asm.CMP, x86asm.NOP, x86asm.BT, x86asm.JMP:
	case x86asm.PUSH:
		v, ok := value(in.Args[0])
		if w.mode == 32 && ok {
			st[pmArg0] = v
		} else {
			delete(st, pmArg0)
		}
	case x86asm.POP:
		delete(st, pmArg0)
		set(in.Args[0], pmVal{}, false)
	case x86asm.CALL:
		// The callee may change the volatile registers; the callee-saved
		// ones and memory words it is not given keep their values, as the
		// conventions promise (a call may store to a global the walk
		// tracks: only mingw's mainret and MSVC's registers matter here,
		// and both are written after the call).
		for _, r := range []x86asm.Reg{x86asm.RAX, x86asm.RCX, x86asm.RDX, x86asm.R8, x86asm.R9, x86asm.R10, x86asm.R11} {
			delete(st, uint64(gpr(r)))
		}
		delete(st, pmArg0)
		if t, ok := relTarget(in, ins.next, w.mode); ok && w.mm.isCode(t) && !w.callsExit(in, ins.next) {
			st[uint64(gpr(x86asm.RAX))] = pmVal{ret: true, value: t}
		}
	default:
		if x86Branches[in.Op] {
			if in.Op == x86asm.LOOP || in.Op == x86asm.LOOPE || in.Op == x86asm.LOOPNE {
				delete(st, uint64(gpr(x86asm.RCX)))
			}
			break
		}
		if in.Op >= x86asm.SETA && in.Op <= x86asm.SETS {
			set(in.Args[0], pmVal{}, false)
			break
		}
		switch in.Op {
		case x86asm.ADD, x86asm.AND, x86asm.OR, x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT,
			x86asm.SHL, x86asm.SHR, x86asm.SAR, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD,
			x86asm.MOVD, x86asm.MOVQ:
			set(in.Args[0], pmVal{}, false)
		default:
			if in.Op >= x86asm.CMOVA && in.Op <= x86asm.CMOVS {
				set(in.Args[0], pmVal{}, false)
				break
			}
			// An instruction this pass does not model may write any
			// register (mul, div, cpuid, string moves, xchg): every
			// register is forgotten, and memory it writes too.
			for k := range st {
				if k < 16 || k == pmArg0 {
					delete(st, k)
				}
			}
			if len(in.Args) > 0 && in.Args[0] != nil {
				set(in.Args[0], pmVal{}, false)
			}
		}
	}
}

func (w *peMainWalk) mask() uint64 {
	if w.mode == 32 {
		return 0xffffffff
	}
	return ^uint64(0)
}

// relTarget is a direct branch's or call's target.
func relTarget(in x86asm.Inst, next uint64, mode int) (uint64, bool) {
	r, ok := in.Args[0].(x86asm.Rel)
	if !ok {
		return 0, false
	}
	t := next + uint64(int64(r))
	if mode == 32 {
		t &= 0xffffffff
	}
	return t, true
}
