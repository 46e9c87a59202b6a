package native

import (
	"context"
	"debug/elf"
	"slices"
	"strconv"
	"strings"
)

// Naming a procedure by where the named functions call it. A function the
// libraries named by its bytes calls (or tail-jumps to) the functions its
// object's relocations name; in the target each such call lands where the
// linker put that function. Many functions are too short, or hold too few
// fixed bytes, to be named by their bytes (glibc's __chk_fail and
// __stack_chk_fail: a load of a message and a call; x86-64's __memcpy_chk:
// a compare and two jumps), but the functions that call them are named.
// When every named function's call of S lands on one procedure start (at
// least minCallers of them, none landing elsewhere), that procedure is S:
// source "library", like the names given by bytes, and counted apart in
// the limitations. The short patterns are then tried again, so that a
// function whose calls land on it (__memcpy_chk on __chk_fail) is named
// in turn.
//
// What keeps it from naming wrongly: the callers' names were given by
// their bytes and their calls (libmatch.go), two of them must agree and
// none disagree (a function linked twice, as two objects' static helpers
// of one name, is not named), the procedure has no name yet and is not
// the middle of a named function or a PLT stub (a static link's IFUNC
// calls land on an IRELATIVE stub shared by every IFUNC's callers), and
// when its bytes equal functions of other names (ambiguous) S must be one
// of them.

// minCallers is the number of named functions whose calls must agree.
const minCallers = 2

// nameByCallers names the procedures the named functions' calls agree on
// and returns how many it named. pats is the pattern each name given by
// bytes came from (names given by callers have none); cands the surviving
// candidates of the procedures whose bytes equal long patterns.
func (res *libResult) nameByCallers(src source, mm *memMap, ix *libIndex, ms *matchSet, cands map[uint64][]int32, named map[uint64]candidate, pats map[uint64]int32, taken map[string]uint64) int {
	// Every call of a named function, by the name it calls (an alias
	// stands for the function the libraries name it as) and where it
	// lands; the callers in address order, so that the result does not
	// depend on map order.
	callers := slices.Sorted(func(yield func(uint64) bool) {
		for a := range pats {
			if !yield(a) {
				return
			}
		}
	})
	type vote struct {
		to   map[uint64]int // landing -> callers
		lib  int            // the first library of a caller
		name string
	}
	votes := map[string]*vote{}
	var order []string
	for _, addr := range callers {
		p := &ix.pats[pats[addr]]
		seen := map[string]bool{}
		for _, c := range p.calls {
			name := ix.canonical(c.target)
			to, ok := res.landing(src, mm, addr, c)
			if !ok {
				continue
			}
			if r, ok := ms.stubs[to]; ok {
				// A static link's call of an IFUNC lands on an IRELATIVE
				// stub: the function called is its resolver.
				to = r
			}
			v := votes[name]
			if v == nil {
				v = &vote{to: map[uint64]int{}, lib: p.lib, name: name}
				votes[name] = v
				order = append(order, name)
			}
			v.lib = min(v.lib, p.lib)
			if k := name + "@" + strconv.FormatUint(to, 16); !seen[k] {
				seen[k] = true
				v.to[to]++
			}
		}
	}
	// A procedure two names land on is neither.
	claims := map[uint64]int{}
	for _, v := range votes {
		for to := range v.to {
			claims[to]++
		}
	}
	starts := slices.Sorted(func(yield func(uint64) bool) {
		for a := range named {
			if !yield(a) {
				return
			}
		}
	})
	given := 0
	for _, name := range order {
		v := votes[name]
		if len(v.to) != 1 {
			continue // the callers disagree, or none landed
		}
		var to uint64
		for a := range v.to {
			to = a
		}
		if v.to[to] < minCallers || claims[to] > 1 || !res.mayName(mm, ix, ms, cands, named, starts, to, name) {
			continue
		}
		size, lib := uint64(0), v.lib
		if i, ok := res.equalAt(src, mm, ix, to, name); ok {
			// Its bytes are the function's: its calls count as the
			// others' do in the next round.
			size, lib = uint64(len(ix.pats[i].code)), ix.pats[i].lib
			pats[to] = i
		} else if s := ms.size[to]; s > 0 {
			size = s
		}
		if len(cands[to]) > 0 {
			res.ambiguous-- // its bytes equal functions of several names, S one of them
		}
		named[to] = candidate{addr: to, name: name, size: size, source: "library", rank: rankLibrary}
		taken[name] = to
		res.used[lib].matched++
		res.byCallers++
		given++
	}
	return given
}

// mayName reports whether the procedure at to may take name from its
// callers: code outside a PLT, no name yet (from a symbol or the
// libraries), not inside a function already named, and, when its bytes
// equal long patterns, one of them is name.
func (res *libResult) mayName(mm *memMap, ix *libIndex, ms *matchSet, cands map[uint64][]int32, named map[uint64]candidate, starts []uint64, to uint64, name string) bool {
	if !mm.isCode(to) || ms.skip[to] || len(ms.names[to]) > 0 {
		return false
	}
	if r := mm.find(to); r == nil || r.plt {
		return false
	}
	if _, ok := named[to]; ok {
		return false
	}
	if i, _ := slices.BinarySearch(starts, to); i > 0 {
		if c := named[starts[i-1]]; to-c.addr < c.size {
			return false // the middle of a named function
		}
	}
	if list, ok := cands[to]; ok && !slices.ContainsFunc(list, func(i int32) bool { return ix.isAlias(name, ix.pats[i].name) }) {
		return false
	}
	return true
}

// equalAt is the pattern of name whose bytes equal the target's at addr,
// if one does.
func (res *libResult) equalAt(src source, mm *memMap, ix *libIndex, addr uint64, name string) (int32, bool) {
	for _, i := range ix.byName[name] {
		p := &ix.pats[i]
		if p.name != name {
			continue
		}
		b, err := mm.view(src, addr, uint64(len(p.code)))
		if err == nil && len(b) == len(p.code) && equalMasked(b, p.code, p.mask) {
			return i, true
		}
	}
	return 0, false
}

// canonical is the name the libraries give the function a call of target
// reaches: the name of its patterns when they agree on one (a call of
// __read is a call of read), else target itself.
func (ix *libIndex) canonical(target string) string {
	defs := ix.byName[target]
	if len(defs) == 0 {
		return target
	}
	name := ix.pats[defs[0]].name
	for _, i := range defs[1:] {
		if ix.pats[i].name != name {
			return target
		}
	}
	return name
}

// resolveTaken names the procedures whose bytes equal functions of several
// names (ambiguous) but one of whose names only the callers have not given
// to another procedure (glibc's __fortify_fail and __libc_fatal have the
// same bytes); it returns how many it named.
func (res *libResult) resolveTaken(ix *libIndex, order []uint64, cands map[uint64][]int32, named map[uint64]candidate, taken map[string]uint64, give func(uint64, []int32) bool) int {
	return res.narrow(order, cands, named, give, func(addr uint64, i int32) bool {
		at, ok := taken[ix.pats[i].name]
		return ok && at != addr
	})
}

// narrow drops from each ambiguous procedure's candidates (in order, not
// yet named) those drop refutes and gives the procedure the rest when that
// leaves fewer but some; it returns how many give named.
func (res *libResult) narrow(order []uint64, cands map[uint64][]int32, named map[uint64]candidate, give func(uint64, []int32) bool, drop func(addr uint64, i int32) bool) int {
	given := 0
	for _, addr := range order {
		list := cands[addr]
		if _, ok := named[addr]; ok || len(list) < 2 {
			continue
		}
		keep := slices.DeleteFunc(slices.Clone(list), func(i int32) bool { return drop(addr, i) })
		if len(keep) == len(list) || len(keep) == 0 {
			continue
		}
		if give(addr, keep) {
			res.ambiguous--
			res.byCallers++
			given++
		}
	}
	return given
}

// resolveByCalls names the procedures whose bytes equal functions of
// several names (ambiguous) when the calls of only one name land where the
// libraries have named what they expect; it returns how many it named.
// AArch64 glibc's __memcpy_chk, __memmove_chk and __memset_chk have the same
// bytes (a compare, a tail jump to memcpy, memmove or memset, a call of
// __chk_fail), and a static link's jump lands on an IRELATIVE stub, which
// the first refutation (callsAgree) lets stand for any IFUNC; once the
// callers have named the resolver the stub calls (memcpy), only
// __memcpy_chk's jump agrees. A call landing on a procedure not named yet
// refutes nothing, as in callsAgree.
func (res *libResult) resolveByCalls(src source, mm *memMap, ix *libIndex, ms *matchSet, order []uint64, cands map[uint64][]int32, named map[uint64]candidate, give func(uint64, []int32) bool) int {
	agrees := func(addr uint64, p *libPattern) bool {
		for _, c := range p.calls {
			to, ok := res.landing(src, mm, addr, c)
			if !ok {
				return false
			}
			if r, ok := ms.stubs[to]; ok && len(ms.names[to]) == 0 {
				to = r
			}
			if g, ok := named[to]; ok && !ix.isAlias(c.target, g.name) {
				return false
			}
		}
		return true
	}
	return res.narrow(order, cands, named, give, func(addr uint64, i int32) bool { return !agrees(addr, &ix.pats[i]) })
}

// maxStubs bounds the IRELATIVE stubs read.
const maxStubs = 1 << 16

// irelativeStubs maps each PLT stub of e whose GOT slot an IRELATIVE
// relocation fills to the resolver it names (the addend; a REL entry's is
// the slot's initial word): a static link calls its IFUNCs (memcpy,
// strlen) through such stubs, which no symbol names. Empty when e has
// none or they cannot be read; it fails only when ctx does.
func (e *elfImage) irelativeStubs(ctx context.Context, mm *memMap) (map[uint64]uint64, error) {
	out := map[uint64]uint64{}
	if e.irelativeType() == 0 {
		return out, nil
	}
	entries, err := e.pltEntries(ctx)
	if err != nil || len(entries) == 0 {
		return out, ctx.Err()
	}
	stubOf := make(map[uint64]uint64, len(entries)) // slot -> stub
	for _, en := range entries[:min(len(entries), maxStubs)] {
		stubOf[en.slot] = en.addr
	}
	err = e.eachIRelative(ctx, mm, func(slot, to uint64) {
		if stub, ok := stubOf[slot]; ok {
			if _, dup := out[stub]; !dup {
				out[stub] = to
			}
		}
	})
	return out, err
}

// irelativeResolvers are the procedures e's IRELATIVE relocations name:
// GNU IFUNC resolvers (source "irelative"), which the relocations mark as
// such where no symbol does (a stripped program, a static one's C
// library's memcpy and strlen).
func (e *elfImage) irelativeResolvers(ctx context.Context, mm *memMap) ([]candidate, error) {
	var out []candidate
	seen := map[uint64]bool{}
	err := e.eachIRelative(ctx, mm, func(_, to uint64) {
		if !seen[to] && len(out) < maxStubs {
			seen[to] = true
			out = append(out, candidate{addr: to, source: "irelative", rank: rankUnnamed, ifunc: true})
		}
	})
	return out, err
}

// irelativeType is e's machine's IRELATIVE relocation type, 0 for none.
func (e *elfImage) irelativeType() uint32 {
	switch e.f.Machine {
	case elf.EM_X86_64:
		return uint32(elf.R_X86_64_IRELATIVE)
	case elf.EM_386:
		return uint32(elf.R_386_IRELATIVE)
	case elf.EM_AARCH64:
		return uint32(elf.R_AARCH64_IRELATIVE)
	}
	return 0
}

// eachIRelative calls fn with the GOT slot and the resolver (in code) of
// each IRELATIVE relocation of e: every one in the PLT's relocation
// sections (.rela.plt, small), and the run that ends any other (.rela.dyn,
// where the linkers put them last, after a PIE's many relative ones,
// which are not read). Relocation sections that cannot be read are
// skipped; it fails only when ctx does.
func (e *elfImage) eachIRelative(ctx context.Context, mm *memMap, fn func(slot, to uint64)) error {
	irel := e.irelativeType()
	if irel == 0 {
		return nil
	}
	is64 := e.f.Class == elf.ELFCLASS64
	bo := e.f.ByteOrder
	// visit reports whether the entry b is an IRELATIVE relocation.
	visit := func(b []byte, rela bool) bool {
		var slot, to uint64
		var typ uint32
		if is64 {
			slot, typ = bo.Uint64(b), uint32(bo.Uint64(b[8:]))
			if rela {
				to = bo.Uint64(b[16:])
			}
		} else {
			slot, typ = uint64(bo.Uint32(b)), bo.Uint32(b[4:])&0xff
			if rela {
				to = uint64(bo.Uint32(b[8:]))
			}
		}
		if typ != irel {
			return false
		}
		if !rela {
			w, err := mm.view(e.src, slot, 4)
			if err != nil || len(w) < 4 {
				return true
			}
			to = uint64(bo.Uint32(w))
		}
		if mm.isCode(to) {
			fn(slot, to)
		}
		return true
	}
	for _, s := range e.f.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		rela := s.Type == elf.SHT_RELA
		size := relEntrySize(e.f.Class, rela)
		if !e.src.contains(s.Offset, s.FileSize) {
			continue
		}
		n := min(s.FileSize/size, maxSymbolEntries)
		if !strings.HasSuffix(s.Name, "plt") && s.Flags&elf.SHF_INFO_LINK == 0 {
			for k := n; k > 0 && n-k < maxStubs; k-- {
				if err := ctx.Err(); err != nil {
					return err
				}
				b, err := e.src.read(s.Offset+(k-1)*size, size)
				if err != nil || !visit(b, rela) {
					break
				}
			}
			continue
		}
		err := eachEntry(ctx, e.src, s.Offset, n, size, func(_ uint64, b []byte) error {
			visit(b, rela)
			return nil
		})
		if err != nil {
			return ctx.Err()
		}
	}
	return nil
}
