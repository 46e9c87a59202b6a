package gdbremote

import (
	"context"
	"debug/elf"
	"slices"
)

// A stop at an entry at the level of a recorded call still waiting, with
// its return address, is that call continued by a tail call (its frame
// popped, a jump to the new entry) or a new call from the same site after
// a longjmp left the old one (the call pushed the same return address
// into the same slot). The stops look alike; what tells them apart is
// whether the thread called longjmp between the two. So a C program that
// can call longjmp (one whose executable imports or defines longjmp,
// _longjmp, siglongjmp or __longjmp_chk) has breakpoints of its own at
// those functions (in the executable, or in the libraries loaded at its
// entry point), and each stop there notes its thread (jumped). With them,
// a call at that level after a jump is unwound whatever its site, and one
// without is a tail call, also one to the function's own entry (a
// self-recursive tail call, once the call ran its first instruction).
// Without them (a stripped static program, a library calling longjmp that
// the executable does not import) the rules are unwind.go's: from the same
// site, a call of the same function after its first instruction ran is a
// setjmp loop and one of another function a tail call. A longjmp within a
// call's own callees followed by that call's tail call is taken for an
// unwind.

// jumpNames are the C library's functions that longjmp (glibc's and musl's
// public names; glibc's longjmp, _longjmp and siglongjmp are one function).
var jumpNames = []string{"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk"}

// jumpSymbols reads, from an executable, whether it imports a longjmp
// function and the link-time addresses of those it defines.
func jumpSymbols(f *elf.File) (imports bool, defined []uint64) {
	if imp, err := f.ImportedSymbols(); err == nil {
		for _, s := range imp {
			imports = imports || slices.Contains(jumpNames, s.Name)
		}
	}
	syms, _ := f.Symbols()
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && s.Value != 0 && slices.Contains(jumpNames, s.Name) {
			defined = append(defined, s.Value)
		}
	}
	return imports, defined
}

// watchesJumps reports whether the trace watches longjmp: a C program
// that imports or defines it.
func (s *session) watchesJumps() bool {
	return s.conv.g == "" && s.target != nil && (s.target.importsJump || len(s.target.jumps) > 0)
}

// watchJumps places the breakpoints at the longjmp functions: the
// executable's own and those the loaded libraries export. jumpWatch says
// whether any was placed.
func (s *session) watchJumps(ctx context.Context) error {
	if !s.watchesJumps() {
		return nil
	}
	var at []uint64
	for _, a := range s.target.jumps {
		at = append(at, a+s.res.Modules[0].LoadBias)
	}
	for _, m := range s.res.Modules[1:] {
		tab := exportedFunctions(m.Path)
		for _, n := range jumpNames {
			if sym, ok := tab[n]; ok && elf.ST_TYPE(sym.Info) == elf.STT_FUNC {
				at = append(at, sym.Value+m.LoadBias)
			}
		}
	}
	slices.Sort(at)
	for _, a := range slices.Compact(at) {
		if bp := s.bps[a]; bp != nil {
			bp.jump = true
			s.jumpWatch = true
			continue
		}
		if err := s.cl.insertBreakpoint(ctx, a, s.conv.bpKind); err != nil {
			if isReply(err) {
				continue // not mapped: watched elsewhere or not at all
			}
			return err
		}
		s.bps[a] = &breakpoint{jump: true}
		s.jumpWatch = true
	}
	if s.jumpWatch {
		s.jumped = map[threadID]int{}
	}
	return nil
}

// jumpedSince reports whether thread t called longjmp after stop n.
func (s *session) jumpedSince(t threadID, n int) bool {
	j, ok := s.jumped[t]
	return ok && j > n
}

// tailCaveat ends the note of tail calls when longjmp was not watched:
// then a longjmp past a call followed by a call from the same site looks
// the same.
func (s *session) tailCaveat() string {
	if s.jumpWatch {
		return ""
	}
	return "; longjmp was not watched (the program neither imports nor defines it), and a longjmp past them followed by a call from the same site would look the same"
}
