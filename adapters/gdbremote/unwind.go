package gdbremote

import (
	"context"
	"slices"
)

// A recorded call can end without returning: longjmp (or a C++ exception,
// or a thread's stack switched by swapcontext) moves the stack pointer
// above its frame and its return address never runs. Such a call is
// unwound: the trace saw the stack leave it, so it is neither pending (a
// limit stopped the program before it could return) nor missing (its
// return went unobserved). Goroutine stacks move when they grow, so a Go
// program's calls are not judged this way.

// maxInstruction is the longest instruction of the architectures traced
// (x86's 15 bytes; AArch64's are 4): a step from a procedure's entry that
// ran its first instruction lands within it past the entry.
const maxInstruction = 15

// markStepped notes that the calls recorded at the entry stop over names
// ran their first instruction: the step over the entry breakpoint landed
// just past it. A step that lands elsewhere may have entered a signal
// handler, which returns to the entry, and the stop there is the same
// activation again (reentered); after a normal step, a stop at the entry
// from the same site and stack pointer is a new call of the same function,
// the old one having been unwound (a setjmp loop calling it again).
func (s *session) markStepped(over stepOver, landed uint64) {
	if landed <= over.addr || landed > over.addr+maxInstruction {
		return
	}
	for _, list := range s.pending {
		for i := range list {
			if list[i].entry == over.entry && list[i].thread == over.thread {
				list[i].stepped = true
			}
		}
	}
}

// ranFirst is where the step over an entry breakpoint shows the call went,
// for markStepped: landed, or, when the entry's first instruction was a
// call (32-bit x86's position-independent code starts with one, to a
// __x86.get_pc_thunk), the return address it left, just past the entry.
// A signal handler entered during the step leaves the sigreturn
// trampoline's address there instead.
func (s *session) ranFirst(ctx context.Context, st stopReply, over stepOver, landed uint64) (uint64, error) {
	if landed > over.addr && landed <= over.addr+maxInstruction || s.conv.g != "" {
		return landed, nil
	}
	call, err := s.callsFirst(ctx, over.addr)
	if err != nil || !call {
		return landed, err
	}
	regs, _, err := s.readRegs(ctx, st.thread, nil)
	if err != nil {
		return 0, err
	}
	ra, err := s.readFrame(ctx, regs)
	if err != nil {
		return 0, err
	}
	return ra, nil
}

// callsFirst reports whether the instruction at entry is a direct call
// (x86's e8 rel32; AArch64's bl), read once per entry.
func (s *session) callsFirst(ctx context.Context, entry uint64) (bool, error) {
	if call, ok := s.firstCall[entry]; ok {
		return call, nil
	}
	b, err := s.cl.readMemory(ctx, entry, 4)
	if err != nil {
		if isReply(err) {
			err = nil
		}
		return false, err
	}
	call := len(b) == 4 && (s.conv.lr == "" && b[0] == 0xe8 || s.conv.lr != "" && b[3]&0xfc == 0x94)
	if s.firstCall == nil {
		s.firstCall = map[uint64]bool{}
	}
	s.firstCall[entry] = call
	return call, nil
}

// hasPending reports whether thread t has a call waiting for its return.
func (s *session) hasPending(t threadID) bool {
	for _, list := range s.pending {
		if slices.ContainsFunc(list, func(p pendingReturn) bool { return p.thread == t }) {
			return true
		}
	}
	return false
}

// leaveUnwound retires thread t's pending calls the stack was unwound past,
// judged at a stop at pc whose frame has stack pointer level as pendingReturn.sp
// counts it (at a return, sp; at an entry, the caller's sp once the new call
// returns). A live call's frame lies above every frame the thread runs
// nested in it, so a pending call at or below level was left:
//   - below: always;
//   - at level, at an entry where a call pushes its return address (x86;
//     an AArch64 procedure may call without moving sp): a new call from
//     another site (ra gives the new call's return address, asked only
//     then); one from the same site may be the same activation
//     tail-calling another function;
//   - at level, at an entry from the same site, when longjmp is watched
//     (jumps.go): a call after the thread called longjmp since the pending
//     call's entry, whichever function it enters;
//   - else at level, at an entry anywhere: a new call of the same function
//     from the same site once the pending call ran past its entry
//     (markStepped).
//
// A frame above the call in another mapping than its stack's is not the
// stack unwound: a signal handler on an alternate stack (sigaltstack) runs
// there while the call it interrupted waits (sameStack). An alternate
// stack inside the thread's own stack mapping (a buffer in an outer
// frame's locals) cannot be told from an unwind, and is taken for one.
func (s *session) leaveUnwound(ctx context.Context, t threadID, level, pc uint64, entry bool, ra func() (uint64, error)) error {
	if s.conv.g != "" {
		return nil
	}
	keys := make([]uint64, 0, len(s.pending))
	for k := range s.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys) // breakpoints are removed in a fixed order
	for _, key := range keys {
		var kept, gone []pendingReturn
		for _, p := range s.pending[key] {
			left, err := s.unwoundPast(p, key, t, level, pc, entry, ra)
			if err != nil {
				return err
			}
			if left {
				gone = append(gone, p)
			} else {
				kept = append(kept, p)
			}
		}
		if len(gone) == 0 {
			continue
		}
		for _, p := range gone {
			s.res.Hits[p.hit].Unwound = true
		}
		if err := s.dropReturns(ctx, key, kept, len(gone)); err != nil {
			return err
		}
	}
	return nil
}

// unwoundPast reports whether pending call p, waiting at return address
// key, was unwound past (leaveUnwound).
func (s *session) unwoundPast(p pendingReturn, key uint64, t threadID, level, pc uint64, entry bool, ra func() (uint64, error)) (bool, error) {
	if p.thread != t || p.sp > level {
		return false, nil
	}
	if p.sp < level {
		return s.sameStack(p.sp, level), nil
	}
	if !entry {
		return false, nil // at level: the entry of the call returning here judged it
	}
	r, err := ra()
	if err != nil {
		return false, err
	}
	if r != key {
		return s.conv.lr == "", nil
	}
	if s.jumpWatch {
		return s.jumpedSince(t, p.entry), nil // else a tail call (jumps.go)
	}
	return p.at == pc && p.stepped, nil
}

// sameStack reports whether a frame above a pending call's, at level, lies
// in the mapping of the call's stack (at sp), so that the thread's stack
// left that call; true when the memory map is unknown (a dialed server)
// or holds either address in no mapping.
func (s *session) sameStack(sp, level uint64) bool {
	list := s.mapsFor(sp)
	if mappingAt(list, level) < 0 {
		list = s.mapsFor(level)
	}
	i, j := mappingAt(list, sp), mappingAt(list, level)
	return i < 0 || j < 0 || i == j
}

// dropReturns keeps only kept waiting at return address ra, n calls fewer,
// and removes its breakpoint when nothing else needs it.
func (s *session) dropReturns(ctx context.Context, ra uint64, kept []pendingReturn, n int) error {
	bp := s.bps[ra]
	if len(kept) > 0 {
		s.pending[ra] = kept
	} else {
		delete(s.pending, ra)
	}
	if bp == nil {
		return nil
	}
	bp.returns -= n
	if bp.returns > 0 || len(bp.requests) > 0 {
		return nil
	}
	delete(s.bps, ra)
	if s.over != nil && s.over.addr == ra {
		s.over = nil
	}
	return s.cl.removeBreakpoint(ctx, ra, s.conv.bpKind)
}

// tailCallers reports the recorded calls of thread t that a stop at entry
// pc continues by a tail call: waiting at the same return address ra with
// the stack pointer level this entry has, their entry elsewhere. A call
// pushes its return address (x86) or sets the link register to its own
// (AArch64); a tail call jumps with the caller's frame already popped, so
// the callee starts with the caller's return address and stack pointer. A
// signal handler returns to the entry it interrupted, so a stop at another
// entry is none of those (reentered). A longjmp past the waiting call
// followed by a call from the same site to another function (through a
// pointer) gives the same stop: leaveUnwound retires that call first when
// longjmp is watched (jumps.go); when it is not, it is taken for a tail
// call. C conventions only.
//
// Each call is reported once, when it tail-calls (tailed): a chain a, b, c
// gives "a to b" and "b to c", and no "a to c" as well, though a and b
// both wait at c's level.
func (s *session) tailCallers(ra uint64, t threadID, sp, pc uint64) []int {
	var hits []int
	list := s.pending[ra]
	for i, p := range list {
		if p.thread == t && p.sp == sp+s.conv.spAfterReturn && (p.at != pc || p.stepped) && !p.tailed {
			hits = append(hits, p.hit)
			list[i].tailed = true
		}
	}
	return hits
}
