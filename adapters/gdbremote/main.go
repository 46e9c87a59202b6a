package gdbremote

import (
	"context"
	"fmt"

	"rea/ports"
)

// A launched C program runs its C library's start-up (and its
// constructors) before main, and those call the same functions the
// program does: a static glibc program calls strcmp five times before main.
// With main's address known (TraceRequest.Main), the trace watches main's
// entry with a breakpoint of its own: the hits before it are counted
// (BeforeMain) and a note says so, or, with FromMain, the requested
// breakpoints are placed only there, so start-up's calls are neither
// recorded nor counted against max_hits. An attached process entered main
// long ago: neither applies.

// fromMain reports whether the request breakpoints wait for main's entry.
func (s *session) fromMain() bool {
	return s.req.FromMain && s.req.Main != 0 && s.req.Launch != nil && !s.mainSeen
}

// watchMain places the breakpoint at main's entry, or marks the request
// breakpoint already there.
func (s *session) watchMain(ctx context.Context) error {
	if s.req.Main == 0 || s.req.Launch == nil {
		return nil
	}
	s.mainAt = s.req.Main + s.res.Modules[0].LoadBias
	if bp := s.bps[s.mainAt]; bp != nil {
		bp.main = true
		return nil
	}
	if err := s.cl.insertBreakpoint(ctx, s.mainAt, s.conv.bpKind); err != nil {
		if isReply(err) {
			return fmt.Errorf("main at %#x (runtime %#x): %w", s.req.Main, s.mainAt, ports.ErrAddressNotMapped)
		}
		return err
	}
	s.bps[s.mainAt] = &breakpoint{main: true}
	return nil
}

// enteredMain counts the hits recorded before main, places the breakpoints
// that waited for it, and removes main's breakpoint when no request or
// return needs it (the program then runs on from main's entry).
func (s *session) enteredMain(ctx context.Context, pc uint64, bp *breakpoint) error {
	bp.main = false
	s.mainSeen = true
	s.res.Coverage.BeforeMain = len(s.res.Hits)
	for _, i := range s.later {
		if err := s.placeBreakpoint(ctx, i); err != nil {
			return err
		}
	}
	s.later = nil
	if len(bp.requests) > 0 || bp.returns > 0 {
		return nil
	}
	delete(s.bps, pc)
	return s.cl.removeBreakpoint(ctx, pc, s.conv.bpKind)
}

// mainNotes says what came before main.
func (s *session) mainNotes() {
	cov := &s.res.Coverage
	switch {
	case s.mainAt == 0:
	case s.req.FromMain && !s.mainSeen:
		cov.Notes = append(cov.Notes, fmt.Sprintf("from_main: main was not entered before the trace ended (%s), so no breakpoint was placed", cov.StopReason))
	case s.req.FromMain:
		cov.Notes = append(cov.Notes, "from_main: the breakpoints were placed when main was entered; calls before it (the C library's start-up, constructors) were not observed")
	case !s.mainSeen && len(s.res.Hits) > 0:
		cov.BeforeMain = len(s.res.Hits)
		cov.Notes = append(cov.Notes, fmt.Sprintf("main was not entered before the trace ended (%s): the %d recorded hit(s) came from the C library's start-up or constructors; from_main records from main's entry on", cov.StopReason, len(s.res.Hits)))
	case cov.BeforeMain > 0:
		cov.Notes = append(cov.Notes, fmt.Sprintf("%d recorded hit(s) (sequence 0 to %d) came before main was entered, from the C library's start-up or constructors; from_main records from main's entry on", cov.BeforeMain, cov.BeforeMain-1))
	}
}
