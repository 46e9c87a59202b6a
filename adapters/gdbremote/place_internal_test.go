package gdbremote

import (
	"fmt"
	"os"
	"testing"
)

// covering finds the sized symbol or section around an address: of nested
// ones the innermost that starts last, however many ranges start inside
// the outer one first; none past an end or below the first.
func TestCovering(t *testing.T) {
	list := []libSym{{0x300, 0x310, "next"}, {0x100, 0x200, "outer"}, {0x120, 0x140, "inner"}}
	for k := uint64(0); k < 12; k++ { // twelve small ranges inside outer, after inner
		list = append(list, libSym{0x150 + 4*k, 0x152 + 4*k, fmt.Sprintf("small%d", k)})
	}
	for at, want := range map[uint64]string{0xff: "", 0x100: "outer", 0x130: "inner", 0x141: "outer", 0x150: "small0", 0x152: "outer",
		0x1f0: "outer", 0x200: "", 0x30f: "next", 0x310: ""} {
		got := ""
		if s := newRanges(list).covering(at); s != nil {
			got = s.name
		}
		if got != want {
			t.Errorf("covering(%#x) = %q, want %q", at, got, want)
		}
	}
}

// The heap is the [heap] line of a process's memory map; a malformed or
// missing one gives none.
func TestHeapOf(t *testing.T) {
	maps := "555555554000-555555555000 r--p 00000000 08:01 42 /tmp/hp\n" +
		"555555559000-55555557a000 rw-p 00000000 00:00 0                          [heap]\n" +
		"7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0                          [stack]\n"
	if lo, hi, ok := heapOf([]byte(maps)); !ok || lo != 0x555555559000 || hi != 0x55555557a000 {
		t.Errorf("heap %#x-%#x %v", lo, hi, ok)
	}
	for _, bad := range []string{"", "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]\n",
		"55555557a000-555555559000 rw-p 00000000 00:00 0 [heap]\n", "zz-55555557a000 rw-p 00000000 00:00 0 [heap]\n",
		"555555559000 rw-p 00000000 00:00 0 [heap]\n"} {
		if _, _, ok := heapOf([]byte(bad)); ok {
			t.Errorf("heap in %q", bad)
		}
	}
}

// The map is read again only for a value past the heap's known end by less
// than maxHeapGrowth (the heap grew), never for one below its start or far
// above it, at most maxMapsReads times, and never again once unreadable.
func TestInHeap(t *testing.T) {
	reads, end := 0, uint64(0x55555557a000)
	s := &session{procMaps: func(int) ([]byte, error) {
		reads++
		return []byte(fmt.Sprintf("555555559000-%x rw-p 00000000 00:00 0 [heap]\n", end)), nil
	}}
	check := func(v uint64, want bool, wantReads int) {
		t.Helper()
		if got := s.inHeap(v); got != want || reads != wantReads {
			t.Errorf("inHeap(%#x) = %v after %d reads, want %v after %d", v, got, reads, want, wantReads)
		}
	}
	check(0x555555559010, true, 1)  // the first read
	check(0x555555559020, true, 1)  // known
	check(0x555555558000, false, 1) // below the heap
	check(0x7ffff7cd0010, false, 1) // far above: a mapping
	check(0x55555557b000, false, 2) // just past the end: read again, not grown
	end = 0x55555559b000
	check(0x55555557b000, true, 3) // grown
	s.mapsReads = maxMapsReads
	check(0x55555559c000, false, 3)
	s.mapsReads = 0
	s.procMaps = func(int) ([]byte, error) { reads++; return nil, os.ErrNotExist }
	check(0x55555559c000, false, 4)
	check(0x55555559c000, false, 4) // unreadable: no more tries
	if (&session{}).inHeap(0x555555559010) {
		t.Error("a heap without a map to read")
	}
}
