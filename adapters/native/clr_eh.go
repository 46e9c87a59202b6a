package native

import (
	"encoding/binary"
	"slices"
)

// A method's exception handlers: the EH tables in the data sections that
// follow a fat header's code when its MoreSects flag is set (ECMA-335
// II.25.4.5-6). Each clause protects [tryStart, tryEnd) with a handler at
// [handlerStart, handlerEnd); a filter clause runs its filter (at filter)
// first, a catch clause names the type it catches by token.

// Clause kinds (the clause's Flags).
const (
	clauseCatch   = 0
	clauseFilter  = 1
	clauseFinally = 2
	clauseFault   = 4
)

// Method header and data section flags.
const (
	corMoreSects   = 0x08 // the fat header's: data sections follow the code
	sectEHTable    = 0x01
	sectFatFormat  = 0x40
	sectMoreSects  = 0x80
	maxCLRSections = 64      // sections read per method
	maxCLRClauses  = 1 << 10 // clauses kept per method (mscorlib's most is 9)
)

// clrClause is one exception-handling clause, its offsets relative to the
// method's first instruction.
type clrClause struct {
	kind                     uint32
	tryStart, tryEnd         uint32
	handlerStart, handlerEnd uint32
	filter                   uint32 // a filter clause's filter
	token                    uint32 // a catch clause's type
}

// clauseKind names a clause kind as ILAsm does.
func clauseKind(k uint32) string {
	switch k {
	case clauseCatch:
		return "catch"
	case clauseFilter:
		return "filter"
	case clauseFinally:
		return "finally"
	case clauseFault:
		return "fault"
	}
	return ""
}

// readClauses reads the EH clauses of a method whose code (size bytes)
// starts at RVA code. Sections start 4-byte aligned after the code; a
// clause of an unknown kind or whose ranges leave the code is dropped,
// and reading stops at the first section that does not parse.
func readClauses(read func(rva uint32, n uint64) ([]byte, error), code, size uint32) []clrClause {
	var out []clrClause
	at := uint64(code) + uint64(size)
	for range maxCLRSections {
		at = (at + 3) &^ 3
		if at > 0xffffffff {
			return out
		}
		h, err := read(uint32(at), 4)
		if err != nil {
			return out
		}
		kind := h[0]
		fat := kind&sectFatFormat != 0
		n := uint64(h[1])
		if fat {
			n = uint64(h[1]) | uint64(h[2])<<8 | uint64(h[3])<<16
		}
		if n < 4 {
			return out
		}
		if kind&sectEHTable != 0 {
			body, err := read(uint32(at), n)
			if err != nil {
				return out
			}
			out = appendClauses(out, body[4:], fat, size)
		}
		if kind&sectMoreSects == 0 {
			return out
		}
		at += n
	}
	return out
}

// appendClauses decodes a section's small (12-byte) or fat (24-byte)
// clauses.
func appendClauses(out []clrClause, b []byte, fat bool, size uint32) []clrClause {
	le := binary.LittleEndian
	step := 12
	if fat {
		step = 24
	}
	for ; len(b) >= step && len(out) < maxCLRClauses; b = b[step:] {
		var c clrClause
		var tryLen, handlerLen uint32
		if fat {
			c.kind, c.tryStart, tryLen = le.Uint32(b), le.Uint32(b[4:]), le.Uint32(b[8:])
			c.handlerStart, handlerLen, c.token = le.Uint32(b[12:]), le.Uint32(b[16:]), le.Uint32(b[20:])
		} else {
			c.kind, c.tryStart, tryLen = uint32(le.Uint16(b)), uint32(le.Uint16(b[2:])), uint32(b[4])
			c.handlerStart, handlerLen, c.token = uint32(le.Uint16(b[5:])), uint32(b[7]), le.Uint32(b[8:])
		}
		if clauseKind(c.kind) == "" || uint64(c.tryStart)+uint64(tryLen) > uint64(size) ||
			uint64(c.handlerStart)+uint64(handlerLen) > uint64(size) || tryLen == 0 || handlerLen == 0 {
			continue
		}
		c.tryEnd, c.handlerEnd = c.tryStart+tryLen, c.handlerStart+handlerLen
		if c.kind == clauseFilter {
			if c.filter, c.token = c.token, 0; c.filter >= size {
				continue
			}
		}
		if c.kind != clauseCatch {
			c.token = 0
		}
		out = append(out, c)
	}
	return slices.Clip(out)
}

// handlers gives the CFG the exception handlers of the method whose first
// instruction is at addr (none outside CIL or without handlers).
func (t *clrTokens) handlers(addr uint64) []ehHandler {
	if t == nil {
		return nil
	}
	cs := t.eh[addr]
	if len(cs) == 0 {
		return nil
	}
	out := make([]ehHandler, 0, len(cs)+1)
	for i, c := range cs {
		if slices.ContainsFunc(cs[:i], func(d clrClause) bool { return d == c }) {
			continue // the same clause twice would make each edge twice
		}
		h := ehHandler{tryStart: addr + uint64(c.tryStart), tryEnd: addr + uint64(c.tryEnd), start: addr + uint64(c.handlerStart),
			kind: clauseKind(c.kind)}
		if c.kind == clauseCatch {
			h.catches = t.text(c.token)
		}
		if c.kind == clauseFilter {
			// The filter decides, then its handler runs: both are entered
			// from the protected blocks.
			out = append(out, ehHandler{tryStart: h.tryStart, tryEnd: h.tryEnd, start: addr + uint64(c.filter), kind: "filter"})
			h.kind = "catch"
		}
		out = append(out, h)
	}
	return out
}
