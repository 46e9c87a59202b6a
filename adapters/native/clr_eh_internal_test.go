package native

import (
	"encoding/binary"
	"fmt"
	"testing"

	"rea/ports"
)

// ehMemory lays out a method body's code (size bytes at RVA 0x100) and the
// data sections after it, as readClauses reads them.
func ehMemory(size uint32, sections []byte) func(uint32, uint64) ([]byte, error) {
	mem := make([]byte, 0x100+int((size+3)&^3))
	mem = append(mem, sections...)
	return func(rva uint32, n uint64) ([]byte, error) {
		if uint64(rva)+n > uint64(len(mem)) {
			return nil, fmt.Errorf("rva 0x%x: beyond the image", rva)
		}
		return mem[rva : uint64(rva)+n], nil
	}
}

// smallSection is an EH table of small clauses (12 bytes each).
func smallSection(more bool, clauses ...[6]uint32) []byte {
	kind := byte(sectEHTable)
	if more {
		kind |= sectMoreSects
	}
	b := []byte{kind, byte(4 + 12*len(clauses)), 0, 0}
	for _, c := range clauses {
		b = binary.LittleEndian.AppendUint16(b, uint16(c[0]))
		b = binary.LittleEndian.AppendUint16(b, uint16(c[1]))
		b = append(b, byte(c[2]))
		b = binary.LittleEndian.AppendUint16(b, uint16(c[3]))
		b = append(b, byte(c[4]))
		b = binary.LittleEndian.AppendUint32(b, c[5])
	}
	return b
}

// fatSection is an EH table of fat clauses (24 bytes each).
func fatSection(clauses ...[6]uint32) []byte {
	n := 4 + 24*len(clauses)
	b := []byte{sectEHTable | sectFatFormat, byte(n), byte(n >> 8), byte(n >> 16)}
	for _, c := range clauses {
		for _, v := range c {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
	}
	return b
}

// TestReadClauses reads small and fat sections, several in a row, and
// drops what leaves the code: an unknown kind, a range past the code, a
// filter past it.
func TestReadClauses(t *testing.T) {
	secs := append(smallSection(true,
		[6]uint32{clauseCatch, 0, 8, 8, 4, 0x01000005},
		[6]uint32{clauseFinally, 0, 12, 12, 4, 0},
		[6]uint32{clauseCatch, 0, 8, 30, 4, 0}, // handler past the code
		[6]uint32{3, 0, 8, 8, 4, 0},            // no such kind
	), fatSection(
		[6]uint32{clauseFilter, 0, 8, 20, 4, 16},
		[6]uint32{clauseFilter, 0, 8, 20, 4, 32}, // filter past the code
		[6]uint32{clauseFault, 2, 4, 16, 4, 7},
	)...)
	got := readClauses(ehMemory(30, secs), 0x100, 30)
	want := []clrClause{
		{kind: clauseCatch, tryStart: 0, tryEnd: 8, handlerStart: 8, handlerEnd: 12, token: 0x01000005},
		{kind: clauseFinally, tryStart: 0, tryEnd: 12, handlerStart: 12, handlerEnd: 16},
		{kind: clauseFilter, tryStart: 0, tryEnd: 8, handlerStart: 20, handlerEnd: 24, filter: 16},
		{kind: clauseFault, tryStart: 2, tryEnd: 6, handlerStart: 16, handlerEnd: 20},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("clauses\n%v\nwant\n%v", got, want)
	}
	// a section that claims more than the image holds ends the reading
	if got := readClauses(ehMemory(30, append(smallSection(true, [6]uint32{clauseFinally, 0, 12, 12, 4, 0}), 0x41, 0xff)), 0x100, 30); len(got) != 1 {
		t.Errorf("%d clauses before a truncated section, want 1", len(got))
	}
}

// FuzzReadClauses reads arbitrary data sections: no panic, every clause
// inside the code.
func FuzzReadClauses(f *testing.F) {
	f.Add(uint32(30), smallSection(false, [6]uint32{clauseCatch, 0, 8, 8, 4, 0x01000005}))
	f.Add(uint32(30), fatSection([6]uint32{clauseFilter, 0, 8, 20, 4, 16}))
	f.Add(uint32(3), append(smallSection(true), 0x80, 4, 0, 0, 0xc1, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, size uint32, secs []byte) {
		size %= 1 << 16
		for _, c := range readClauses(ehMemory(size, secs), 0x100, size) {
			if c.tryStart >= c.tryEnd || c.tryEnd > size || c.handlerStart >= c.handlerEnd || c.handlerEnd > size || c.filter >= max(size, 1) {
				t.Fatalf("clause %+v outside %d bytes of code", c, size)
			}
		}
	})
}

// TestHandledBlocks: a handler and its try range's bounds start blocks,
// the blocks inside the range have exception edges, and a table asking for
// more edges than the budget is cut and says so.
func TestHandledBlocks(t *testing.T) {
	nop := func(a uint64) flowInsn { return flowInsn{addr: a, size: 1, flow: ports.FlowNext} }
	insns := []flowInsn{nop(0), nop(1), nop(2), {addr: 3, size: 1, flow: ports.FlowReturn}, nop(4), {addr: 5, size: 1, flow: ports.FlowReturn}}
	eh := []ehHandler{{tryStart: 1, tryEnd: 3, start: 4, kind: "catch", catches: "T"}}
	blocks, cut := handledBlocks(insns, 0, 6, eh)
	got := fmt.Sprint(blocks)
	if want := "[{0 1 1 [{fallthrough 1}]  } {1 3 2 [{fallthrough 3} {exception 4}]  } {3 4 1 []  } {4 6 2 [] catch T}]"; got != want || cut {
		t.Errorf("blocks %s (cut %v), want %s", got, cut, want)
	}
	many := make([]ehHandler, maxBlocks+1)
	for i := range many {
		many[i] = ehHandler{tryStart: 0, tryEnd: 6, start: 4, kind: "finally"}
	}
	blocks, cut = handledBlocks(insns, 0, 6, many)
	n := 0
	for _, b := range blocks {
		n += len(b.Successors)
	}
	if !cut || n > maxBlocks+3 {
		t.Errorf("%d edges, cut %v: want the budget's", n, cut)
	}
}
