package native

import (
	"debug/dwarf"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rea/adapters/native/internal/winapi"
	"rea/ports"
)

// The Windows API on 32-bit x86. Under cdecl (valueflow.go) a 32-bit PE's
// call may pop its own arguments: the Win32 API is stdcall, so without
// more a call of an import leaves the stack height unknown
// (valueflow_stack.go). The table of the Windows API's stack bytes
// (internal/winapi, generated from mingw-w64's import libraries) gives,
// for an import whose DLL (as the import table names it) and name it
// holds, what a call of it pops: a stdcall function's N bytes, which are
// also exactly N/4 argument words, so the call keeps the height and names
// its words as a cdecl call of exact arity does (valueflow_cdecl.go); a
// cdecl function's none (msvcrt's printf, user32's wsprintfA), whose
// words the C library's prototype still gives where it has one; a
// fastcall function's words past the two in ecx and edx, whose words are
// left unnamed. The table decides over the C library's prototype of the
// same name (ws2_32's connect is stdcall). An import the table does not
// hold (a program's own DLL, a name under another DLL) keeps the rule: a
// call of it loses the height, unless the C library names it (then
// cdecl). An import by ordinal is named by pe_ordinal.go: Windows
// Sockets' by their fixed ordinals (then the table holds them: connect
// pops 12), any other as dll!Ordinal_N, which the table does not hold (its
// libraries import by name), so a call of one loses the height.
//
// A call reaches an import directly ("call [__imp__CreateFileA@28]"),
// through a stub of the program ("call _CreateFileA@28", which jumps
// through the slot), or through a register loaded from the slot ("mov
// esi, [__imp__CloseHandle@4]" once, then "call esi" at each call, gcc
// -O2's way with an import called more than once). The heights are
// followed before the solver's reaching definitions, so the register's
// slot is followed by slotCalls, the forward pass over the blocks that
// the reference sweep resolves such calls with (regcall.go).

// sourceWinAPI: a call's arguments come from the Windows API table's
// stack bytes (stdcall's @N).
const sourceWinAPI = "winapi"

// importNamed is the name and DLL of the import whose slot is at addr,
// "" for none.
func (p *program) importNamed(addr uint64) (name, lib string) {
	if l := p.label(addr, "import"); l != nil {
		return l.Name, l.Library
	}
	return "", ""
}

// importLibrary is the DLL the program imports name from, "" when none
// or several do (a stub's target is named, not its slot).
func (p *program) importLibrary(name string) string {
	s := &p.vfArity
	s.importLibsOnce.Do(func() {
		s.importLibs = map[string]string{}
		for _, l := range p.labels {
			if l.Kind != "import" {
				continue
			}
			if lib, ok := s.importLibs[l.Name]; ok && lib != l.Library {
				s.importLibs[l.Name] = ""
				continue
			}
			s.importLibs[l.Name] = l.Library
		}
	})
	return s.importLibs[name]
}

// winapiArity is what the Windows API table says of import name from DLL
// lib under cc (cdecl on a 32-bit PE only): a stdcall function's exact
// words and pops, a cdecl one's C library prototype (popping nothing), or
// only that it pops nothing or, fastcall, its words past ecx and edx.
func (cc convention) winapiArity(lib, name string) (calleeArity, bool) {
	if cc.name != cdecl.name || lib == "" {
		return calleeArity{}, false
	}
	e, ok := winapi.Lookup(lib, name)
	if !ok {
		return calleeArity{}, false
	}
	switch e.Convention {
	case winapi.Stdcall:
		return calleeArity{known: true, exact: true, words: e.Bytes / 4, pops: int64(e.Bytes), source: sourceWinAPI}, true
	case winapi.Cdecl:
		if ar, ok := cc.prototypeArity(name); ok {
			return ar, true
		}
	}
	return calleeArity{pops: int64(e.Pops()), popsKnown: true}, true
}

// importCallArity is the arity of the import name from DLL lib (lib ""
// when unknown): the Windows API table's where a call may pop its
// arguments (calleePops), else the C library's prototype.
func (e *vfEnv) importCallArity(lib, name string) (calleeArity, bool) {
	if e.known.calleePops {
		if ar, ok := e.cc.winapiArity(lib, name); ok {
			return ar, true
		}
	}
	return e.cc.prototypeArity(name)
}

// popsOf is what a call of arity ar (an import's) pops on return, when
// known: a stdcall function's bytes, a cdecl one's none.
func (ar calleeArity) popsOf() (int64, bool) {
	return ar.pops, ar.known || ar.popsKnown
}

// importCalls gives the arities of the calls of imports, by index: a
// direct call's or a stub's (sites, by address), or a call's through a
// register loaded from an import's slot (slotCalls, slot).
func importCalls(cc convention, flows []flowInsn, sems []vfSem, blocks []ports.BasicBlock, entry int,
	sites map[uint64]calleeArity, slot func(uint64) (calleeArity, bool)) map[int]calleeArity {
	out := map[int]calleeArity{}
	for k, fl := range flows {
		if ar, ok := sites[fl.addr]; ok && sems[k].call {
			out[k] = ar
		}
	}
	if slot == nil {
		return out
	}
	slots := map[uint64]calleeArity{}
	isSlot := func(a uint64) bool {
		ar, ok := slots[a]
		if !ok {
			ar, ok = slot(a)
			if !ok {
				ar = calleeArity{}
			}
			slots[a] = ar
		}
		_, known := ar.popsOf()
		return known
	}
	for k, a := range slotCalls(cc, flows, sems, blocks, entry, isSlot) {
		if _, ok := out[k]; !ok {
			out[k] = slots[a]
		}
	}
	return out
}

// slotCalls finds the calls through a register ("call esi") that every
// path from the entry reaches with the register loaded from one import's
// slot ("mov esi, [__imp__CloseHandle@4]"): the slot's address by the
// call's index. It is the pass the reference sweep resolves such calls
// with (regCallSlots, regcall.go), over the value flow's own sweep and
// semantics of the procedure (its parts included).
func slotCalls(cc convention, flows []flowInsn, sems []vfSem, blocks []ports.BasicBlock, entry int, isSlot func(uint64) bool) map[int]uint64 {
	if entry < 0 || entry >= len(blocks) || len(flows) == 0 || !slices.ContainsFunc(sems, func(s vfSem) bool { return s.loads != 0 }) {
		return nil
	}
	ops := make([]regOp, len(sems))
	for k := range sems {
		ops[k] = regOpOf(&sems[k], isSlot)
	}
	return regCallSlots(flows, blocks, entry, ops, clobberMask(cc), nil)
}

// maxLostListed bounds the calls heightsLost names.
const maxLostListed = 8

// heightsLost says which calls lose the stack height where a call may pop
// its own arguments: those reached at a known height whose pops neither
// the Windows API table, the C library, DWARF nor the callee's returns
// say (an import of a DLL the table does not hold, an indirect call).
func heightsLost(cc convention, flows []flowInsn, sems []vfSem, heights []height, cdeclCalls map[int]bool, popped map[int]int64) []string {
	var at []string
	n := 0
	for k, h := range heights {
		if _, ok := popped[k]; !sems[k].call || cdeclCalls[k] || ok || !h.spOK && !h.aspOK || flows[k].noreturn || k+1 == len(flows) {
			continue
		}
		if n++; n <= maxLostListed {
			at = append(at, fmt.Sprintf("%#x", flows[k].addr))
		}
	}
	if n == 0 {
		return nil
	}
	more := ""
	if n > maxLostListed {
		more = fmt.Sprintf(" and %d more", n-maxLostListed)
	}
	return []string{fmt.Sprintf("The stack height is unknown after the calls at %s%s: each may pop its own arguments (32-bit Windows' stdcall) and neither the Windows API table nor the callee says how many bytes; stack words after them keep their operands' names and name no call's arguments.",
		strings.Join(at, ", "), more)}
}

// A callee of the program whose arguments are not all on the stack (a
// fastcall function's first two words are in ecx and edx) has no cdecl
// arity from DWARF, which Signature places on the stack: clang says so in
// the subprogram's DW_AT_calling_convention (DW_CC_BORLAND_msfastcall,
// 0xb3; gcc writes none, for stdcall nor fastcall), and mingw's gcc in
// its symbol ("@ffn@12"). Stdcall's (0xb1, "_sfn@8") places as cdecl's,
// its returns saying what it pops.
const dwCCStdcall = 0xb1 // DW_CC_BORLAND_stdcall

// registerArguments reports whether the procedure at addr, named name,
// takes arguments in registers by its DWARF calling convention (any
// vendor's but stdcall) or its fastcall symbol.
func (idx *sigIndex) registerArguments(addr uint64, name string) (yes bool) {
	if at, ok := strings.CutPrefix(name, "@"); ok {
		if k := strings.LastIndexByte(at, '@'); k > 0 {
			if _, err := strconv.Atoi(at[k+1:]); err == nil {
				return true
			}
		}
	}
	e, ok := idx.byAddr[addr]
	if !ok {
		return false
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	defer func() {
		if recover() != nil {
			yes = true // corrupt DWARF: no arity from it
		}
	}()
	r := idx.d.Reader()
	r.Seek(e.off)
	ent, err := r.Next()
	if err != nil || ent == nil {
		return false
	}
	cc, ok := ent.Val(dwarf.AttrCalling).(int64)
	return ok && cc >= 0x40 && cc != dwCCStdcall // DW_CC_lo_user and above: the vendors'
}
