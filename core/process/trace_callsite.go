package process

import (
	"context"

	"rea/core"
	"rea/ports"
)

// callSiteBudget bounds the instructions decoded to find a trace's call
// sites, whatever the number of hits: each procedure holding a return
// address is swept once, and past the budget call sites are unknown.
const callSiteBudget = 2_000_000

// callSiteWindow is the instructions asked of the disassembler at a time.
const callSiteWindow = 100_000

// callSites names the call instruction a traced call returns past: the
// instruction of the open analysis's procedure holding the return address
// that ends at it and is a call, by the address procedure_callers and the
// cross-reference tools give a call site. A procedure is swept linearly
// from its start once, however many hits return into it; the answer for
// each return address is cached. resolve does the decoding before the
// projection, which then only reads the answers (of).
type callSites struct {
	d      ports.Disassembler
	idx    *procIndex
	budget int
	// ends maps, per swept procedure start, the end of each call
	// instruction in it to the call's address.
	ends map[uint64]map[uint64]uint64
	memo map[uint64]*string
}

// newCallSites is nil when the analysis does not disassemble: call sites
// are then unknown.
func newCallSites(a ports.Analysis, idx *procIndex) *callSites {
	d, ok := a.(ports.Disassembler)
	if !ok || idx == nil {
		return nil
	}
	return &callSites{d: d, idx: idx, budget: callSiteBudget, ends: map[uint64]map[uint64]uint64{}, memo: map[uint64]*string{}}
}

// resolve finds the call sites of the hits' return addresses.
func (s *callSites) resolve(ctx context.Context, res *ports.TraceResult) {
	if s == nil || res == nil {
		return
	}
	for _, h := range res.Hits {
		s.find(ctx, h.Caller)
	}
}

// of is the call site resolve found for a call that returns to ret, or nil.
func (s *callSites) of(ret uint64) *string {
	if s == nil {
		return nil
	}
	return s.memo[ret]
}

// find is the call site of a call that returns to ret (a link-time address
// of the main program), or nil when no call instruction of the analysis
// ends there.
func (s *callSites) find(ctx context.Context, ret uint64) *string {
	if s == nil || ret == 0 {
		return nil
	}
	if v, seen := s.memo[ret]; seen {
		return v
	}
	var out *string
	// The call is the last instruction before ret: ret-1 is inside the
	// procedure even when the call is its last instruction (a call of a
	// function that does not return).
	if p, ok := s.idx.containing(ret - 1); ok && p.Address < ret {
		if at, ok := s.sweep(ctx, p, ret)[ret]; ok {
			h := core.Hex(at)
			out = &h
		}
	}
	s.memo[ret] = out
	return out
}

// sweep is the call ends of procedure p, decoded from its start to its
// end (to ret for a procedure of unknown size, whose sweep is not kept).
func (s *callSites) sweep(ctx context.Context, p ports.Procedure, ret uint64) map[uint64]uint64 {
	if m, ok := s.ends[p.Address]; ok {
		return m
	}
	end := p.Address + p.Size
	if p.Size == 0 {
		end = ret
	}
	m := map[uint64]uint64{}
	for at := p.Address; at < end && s.budget > 0 && ctx.Err() == nil; {
		dis, err := s.d.Disassemble(ctx, ports.DisassembleRequest{Address: at, End: end, MaxInstructions: min(callSiteWindow, s.budget)})
		if err != nil || len(dis.Instructions) == 0 {
			break
		}
		s.budget -= len(dis.Instructions)
		for _, in := range dis.Instructions {
			if in.Flow == ports.FlowCall && !in.Invalid {
				m[in.Address+uint64(len(in.Bytes))] = in.Address
			}
		}
		last := dis.Instructions[len(dis.Instructions)-1]
		at = last.Address + uint64(max(len(last.Bytes), 1))
	}
	if p.Size != 0 {
		s.ends[p.Address] = m
	}
	return m
}
