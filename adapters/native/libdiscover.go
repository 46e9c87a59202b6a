package native

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"rea/ports"
)

// Library names for the procedures only whole-file discovery finds (a call
// target, a gap, an address taken, a data pointer: no symbol, FDE or table
// entry). The match at open (libraries.go) cannot see them; this one runs
// on the discovery job when discovery completes, before the program is
// cached, so the complete procedure list, and a warm open's, carry their
// names. It reads the program discovery built, one pass in address
// order, so its names do not depend on the number of cores. The Names list
// is what was known at open and does not change: a name given here is the
// procedure's (Source "library"), not a label.
//
// Such a procedure's length is not known: its range runs to the next
// procedure. A pattern of at least minFixedBits may run past it: a start
// discovery found inside a function (a gap after glibc's puts's last
// jump, a call target inside __vfprintf_internal) is no end, and equal
// bytes over the pattern's whole length say more than that start. A
// short pattern (libmatch.go) must fit in the range and leave only
// padding after it.

// discoveredSources are the sources of procedures discovery found.
var discoveredSources = map[string]bool{"call-target": true, "jump-target": true, "gap": true, "address-taken": true, "data-pointer": true}

// nameDiscovered names p's unnamed discovered procedures from the
// signature libraries, with the index kept from the open or, when the open
// read the match from the library cache, the libraries read again (and
// used only when they are the files the profile's digests name). It fails
// only when ctx does.
func (a *Analysis) nameDiscovered(ctx context.Context, p *program) error {
	got, err := a.nameFound(ctx, p)
	if err != nil || a.lib == nil || p == nil {
		return err
	}
	p.foldStrays(append(slices.Clip(a.lib.cands), got...))
	return nil
}

// nameFound names p's unnamed discovered procedures and returns the names
// it gave, with the lengths of their functions.
func (a *Analysis) nameFound(ctx context.Context, p *program) ([]candidate, error) {
	res := a.lib
	if res == nil || len(res.used) == 0 || p == nil || p.mm == nil {
		return nil, nil
	}
	defer res.dropIndex()
	ms := &matchSet{names: map[uint64][]string{}, room: map[uint64]uint64{}}
	for i, pr := range p.procs {
		if pr.Name != "" {
			ms.names[pr.Address] = append(ms.names[pr.Address], pr.Name)
			continue
		}
		if discoveredSources[pr.Source] && !pr.External {
			ms.addrs = append(ms.addrs, pr.Address)
			ms.room[pr.Address] = p.ranges[i].End - p.ranges[i].Start
		}
	}
	if len(ms.addrs) == 0 {
		return nil, nil
	}
	res.mu.Lock()
	ix := res.ix
	res.mu.Unlock()
	if ix == nil {
		again := &libResult{paths: res.paths, machine: res.machine, class: res.class, addr32: res.addr32}
		ports.Observe(ctx, "discover", "reading the signature libraries for the procedures discovery found")
		var release func()
		var err error
		ix, release, err = again.index(ctx)
		if err != nil || ix == nil {
			return nil, ctx.Err()
		}
		defer release()
		if !slices.EqualFunc(again.used, res.used, func(x, y libUse) bool { return x.path == y.path && x.sha256 == y.sha256 }) {
			return nil, nil // the libraries changed since the open
		}
	}
	if e, ok := a.img.(*elfImage); ok {
		var err error
		if ms.stubs, err = e.irelativeStubs(ctx, p.mm); err != nil {
			return nil, err
		}
	}
	ports.Observe(ctx, "discover", fmt.Sprintf("matching %d discovered procedures against the signature libraries", len(ms.addrs)))
	pass := &libResult{used: make([]libUse, len(res.used)), machine: res.machine, addr32: res.addr32}
	got := pass.match(ctx, a.src, p.mm, ix, ms)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	given := map[string]string{}
	for _, c := range got {
		i, ok := slices.BinarySearchFunc(p.procs, c.addr, func(pr ports.Procedure, t uint64) int { return cmp.Compare(pr.Address, t) })
		if !ok {
			continue
		}
		p.procs[i].Name, p.procs[i].Source = c.name, "library"
		given[fmt.Sprintf("sub_%x", c.addr)] = c.name
	}
	// A thunk to one of them was named after its address.
	for i := range p.procs {
		if n, ok := given[p.procs[i].ThunkTarget]; ok {
			p.procs[i].ThunkTarget = n
		}
	}
	return got, nil
}

// foldStrays takes out of p's procedure list the starts discovery found
// strictly inside a function the libraries named: a pattern of N bytes
// equal to the target's from the function's start says that [start,
// start+N) is that function's code, so a call target, jump target, gap,
// address taken or data pointer inside it is no function start (a gap
// after a call that does not return, a jump into a shared tail). A start
// that a symbol, an FDE, a table or an export names, or that a library
// pattern names itself, stays. Each one taken out becomes a part of the
// function that holds it (parts.go), with its range and its references,
// so that the function's code and the references are what they were. It
// returns how many were taken out.
func (p *program) foldStrays(named []candidate) int {
	slices.SortFunc(named, func(x, y candidate) int { return cmp.Compare(x.addr, y.addr) })
	fold := map[int]uint64{} // procedure index of the stray -> start of the function holding it
	for _, c := range named {
		j, ok := slices.BinarySearchFunc(p.procs, c.addr, func(pr ports.Procedure, t uint64) int { return cmp.Compare(pr.Address, t) })
		if !ok || p.procs[j].Name != c.name || c.size == 0 {
			continue
		}
		for i := j + 1; i < len(p.procs) && p.procs[i].Address-c.addr < c.size; i++ {
			pr := p.procs[i]
			if _, done := fold[i]; done || pr.Name != "" || pr.External || !discoveredSources[pr.Source] {
				continue
			}
			fold[i] = c.addr
		}
	}
	if len(fold) == 0 {
		return 0
	}
	p.foldInto(fold)
	return len(fold)
}
