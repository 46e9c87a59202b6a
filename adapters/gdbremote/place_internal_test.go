package gdbremote

import (
	"context"
	"fmt"
	"os"
	"testing"

	"rea/ports"
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

// The map's lines: a deleted file, a name with spaces, the kernel's own
// names, addresses at the top of the 64-bit space, and lines that are not
// mappings (skipped: short, reversed, bad hex, an overlap).
func TestParseMaps(t *testing.T) {
	maps := "555555554000-555555555000 r--p 00000000 08:01 42                         /tmp/hp\n" +
		"555555559000-55555557a000 rw-p 00000000 00:00 0                          [heap]\n" +
		"7f0000000000-7f0000002000 rw-s 00001000 00:05 77                         /tmp/my data (deleted)\n" +
		"7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n" +
		"7f0000004000-7f0000005000 rw-p 00000000 00:00 0                          [anon:glibc: malloc]\r\n" +
		"7ffff7fc1000-7ffff7fc5000 r--p 00000000 00:00 0                          [vvar]\n" +
		"7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0                          [stack]\n" +
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n" +
		"7ffffffde000-7ffffffdf000 rw-p 00000000 00:00 0 overlaps\n" +
		"\n55557a000-555559000 rw-p 00000000 00:00 0\nzz-1000 rw-p 0 0:0 0\n1000-2000 rw-p\n1000-2000 rwxpq 0 0:0 0\n" +
		"1000-2000 rw-p 00000000 00:00 -1\n10000000000000000-10000000000001000 rw-p 0 00:00 0"
	got := parseMaps([]byte(maps))
	want := []mapping{
		{0x555555554000, 0x555555555000, 0, 42, "r--p", "/tmp/hp"},
		{0x555555559000, 0x55555557a000, 0, 0, "rw-p", "[heap]"},
		{0x7f0000000000, 0x7f0000002000, 0x1000, 77, "rw-s", "/tmp/my data (deleted)"},
		{0x7f0000002000, 0x7f0000003000, 0, 0, "rw-p", ""},
		{0x7f0000004000, 0x7f0000005000, 0, 0, "rw-p", "[anon:glibc: malloc]"},
		{0x7ffff7fc1000, 0x7ffff7fc5000, 0, 0, "r--p", "[vvar]"},
		{0x7ffffffde000, 0x7ffffffff000, 0, 0, "rw-p", "[stack]"},
		{0xffffffffff600000, 0xffffffffff601000, 0, 0, "--xp", "[vsyscall]"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d mappings, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for addr, want := range map[uint64]int{0x555555554000: 0, 0x555555554fff: 0, 0x555555555000: -1, 0x55555557a000 - 1: 1,
		0x7f0000002fff: 3, 0x7f0000003000: -1, 0xffffffffff600fff: 7, 0xffffffffffffffff: -1, 0: -1} {
		if i := mappingAt(got, addr); i != want {
			t.Errorf("mappingAt(%#x) = %d, want %d", addr, i, want)
		}
	}
	kinds := map[string]bool{"": true, "[stack]": true, "[anon:x]": true, "[stack:12]": true, "[heap]": false, "/tmp/hp": false, "[vdso]": false}
	for path, anon := range kinds {
		if (&mapping{path: path}).anonymous() != anon {
			t.Errorf("%q anonymous: %v", path, !anon)
		}
	}
}

// FuzzParseMaps: any text parses without a panic into sorted mappings that
// do not overlap, each with a start below its end.
func FuzzParseMaps(f *testing.F) {
	f.Add([]byte("555555554000-555555555000 r--p 00000000 08:01 42 /tmp/hp\n7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]\n"))
	f.Add([]byte("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]"))
	f.Add([]byte("1-0 rw-p 0 0:0 0 x\n\t1000-2000\trw-p\t0\t0:0\t0\tname with spaces (deleted)"))
	f.Fuzz(func(t *testing.T, b []byte) {
		list := parseMaps(b)
		for i, m := range list {
			if m.start >= m.end || i > 0 && list[i-1].end > m.start || len(m.perms) != 4 {
				t.Fatalf("mapping %d: %+v", i, m)
			}
			if j := mappingAt(list, m.start); j != i {
				t.Fatalf("mappingAt(%#x) = %d, want %d", m.start, j, i)
			}
		}
	})
}

// A thread arena's heap: an anonymous read-write mapping at a multiple of
// the arena size with the rest of the reservation PROT_NONE after it (or
// filling it); not one misaligned, followed by other memory, larger, or
// with a file.
func TestIsArena(t *testing.T) {
	const a = 0x7f0000000000 // 64 MiB aligned
	arena := []mapping{{a, a + 0x21000, 0, 0, "rw-p", ""}, {a + 0x21000, a + 64<<20, 0, 0, "---p", ""}}
	for name, c := range map[string]struct {
		list []mapping
		word uint64
		want bool
	}{
		"arena":             {arena, 8, true},
		"merged tail":       {[]mapping{arena[0], {a + 0x21000, a + 65<<20, 0, 0, "---p", ""}}, 8, true},
		"full":              {[]mapping{{a, a + 64<<20, 0, 0, "rw-p", ""}}, 8, true},
		"32-bit":            {[]mapping{{0x3f400000, 0x3f421000, 0, 0, "rw-p", ""}, {0x3f421000, 0x3f500000, 0, 0, "---p", ""}}, 4, true},
		"32-bit size at 64": {[]mapping{{0x3f400000, 0x3f421000, 0, 0, "rw-p", ""}, {0x3f421000, 0x3f500000, 0, 0, "---p", ""}}, 8, false},
		"misaligned":        {[]mapping{{a + 0x1000, a + 0x21000, 0, 0, "rw-p", ""}, arena[1]}, 8, false},
		"short tail":        {[]mapping{arena[0], {a + 0x21000, a + 0x22000, 0, 0, "---p", ""}}, 8, false},
		"gap":               {[]mapping{arena[0], {a + 0x22000, a + 64<<20, 0, 0, "---p", ""}}, 8, false},
		"readable tail":     {[]mapping{arena[0], {a + 0x21000, a + 64<<20, 0, 0, "r--p", ""}}, 8, false},
		"alone":             {arena[:1], 8, false},
		"file":              {[]mapping{{a, a + 0x21000, 0, 9, "rw-p", "/tmp/f"}, arena[1]}, 8, false},
		"larger":            {[]mapping{{a, a + 65<<20, 0, 0, "rw-p", ""}}, 8, false},
		"executable":        {[]mapping{{a, a + 0x21000, 0, 0, "rwxp", ""}, arena[1]}, 8, false},
	} {
		if got := isArena(c.list, 0, c.word); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

// The map is read again only for a value in no mapping of the last read
// and only once the program ran since, at most maxMapsReads times, and
// never again once unreadable.
func TestMapsFor(t *testing.T) {
	reads, end := 0, uint64(0x55555557a000)
	s := &session{procMaps: func(int) ([]byte, error) {
		reads++
		return []byte(fmt.Sprintf("555555559000-%x rw-p 00000000 00:00 0 [heap]\n", end)), nil
	}}
	check := func(v uint64, want bool, wantReads int) {
		t.Helper()
		got := mappingAt(s.mapsFor(v), v) >= 0
		if got != want || reads != wantReads {
			t.Errorf("mapping of %#x: %v after %d reads, want %v after %d", v, got, reads, want, wantReads)
		}
	}
	check(0x555555559010, true, 1)  // the first read
	check(0x555555559020, true, 1)  // known
	check(0x55555557b000, false, 1) // in none, but the program has not run since
	s.stops++
	check(0x555555559020, true, 1)  // known
	check(0x55555557b000, false, 2) // read again, not grown
	check(0x55555557b000, false, 2) // not again at the same stop
	end = 0x55555559b000
	s.stops++
	check(0x55555557b000, true, 3) // grown
	s.stops++
	s.mapsReads = maxMapsReads
	check(0x55555559c000, false, 3)
	s.mapsReads = 0
	s.procMaps = func(int) ([]byte, error) { reads++; return nil, os.ErrNotExist }
	check(0x55555559c000, false, 4)
	s.stops++
	check(0x55555559c000, false, 4) // unreadable: no more tries
	if (&session{}).mapsFor(0x555555559010) != nil {
		t.Error("a map without a reader")
	}
}

// The guest's part of an emulator's map: the program's file, mapped at the
// guest base past where its segments were loaded, gives the base (0x1000
// for an i386 guest under QEMU 7.2, 0 for an AArch64 one); mappings are
// moved to the guest's addresses, a 32-bit guest's cut at 4 GiB, and
// nothing is known when the file is missing, mapped from another offset
// first, or outside its segments.
func TestGuestMaps(t *testing.T) {
	dir := t.TempDir()
	prog := dir + "/qin"
	if err := os.WriteFile(prog, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	i386 := "00001000-08049000 ---p 00000000 00:00 0\n" +
		"08049000-0804c000 r--p 00000000 fe:00 7 " + prog + "\n" +
		"0804c000-0804d000 r--p 00002000 fe:00 7 " + prog + "\n" +
		"0804d000-0804e000 rw-p 00003000 fe:00 7 " + prog + "\n" +
		"0804e000-08088000 rw-p 00000000 00:00 0\n" +
		"08088000-3fc9c000 ---p 00000000 00:00 0\n" +
		"3fc9c000-3fd9f000 rw-p 00000000 00:00 0\n" +
		"40802000-100000000 ---p 00000000 00:00 0\n" +
		"556e83df9000-556e83f48000 rw-p 00000000 00:00 0 [heap]\n"
	s := &session{emulated: true, target: &elfInfo{path: prog, segments: [][2]uint64{{0x8048000, 0x804a000}, {0x804b000, 0x804c1f0}}},
		res: &ports.TraceResult{Modules: []ports.TraceModule{{}}}, conv: convention{word: 4}}
	got := s.guestMaps(parseMaps([]byte(i386)))
	if len(got) != 8 || got[0].start != 0 || got[1].start != 0x8048000 || got[1].path != prog || got[4].start != 0x804d000 ||
		got[6].start != 0x3fc9b000 || got[7].end != 0xfffff000 {
		t.Errorf("i386 guest map: %+v", got)
	}
	a64 := "5500000000-5500001000 r--p 00000000 fe:00 7 " + prog + "\n" +
		"5500020000-5500021000 rw-p 00010000 fe:00 7 " + prog + "\n" +
		"5500021000-550005a000 rw-p 00000000 00:00 0\n" +
		"55c9c2358000-55c9c24ab000 rw-p 00000000 00:00 0 [heap]\n"
	s.target.segments, s.res.Modules[0].LoadBias, s.conv.word = [][2]uint64{{0, 0x9f0}, {0x1fdc8, 0x20088}}, 0x5500000000, 8
	got = s.guestMaps(parseMaps([]byte(a64)))
	if len(got) != 4 || got[0].start != 0x5500000000 || got[3].path != "[heap]" {
		t.Errorf("aarch64 guest map: %+v", got)
	}
	for name, maps := range map[string]string{
		"no program":     "5500021000-550005a000 rw-p 00000000 00:00 0\n",
		"offset first":   "5500020000-5500021000 rw-p 00010000 fe:00 7 " + prog + "\n",
		"below the load": "54ff000000-54ff001000 r--p 00000000 fe:00 7 " + prog + "\n",
		"past the segments": "5500000000-5500001000 r--p 00000000 fe:00 7 " + prog + "\n" +
			"5500030000-5500031000 rw-p 00010000 fe:00 7 " + prog + "\n",
	} {
		if got := s.guestMaps(parseMaps([]byte(maps))); got != nil {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

// A thread's stack: the kernel's [stack], or anonymous read-write memory
// right above a PROT_NONE guard page; not without the guard (a Go heap
// arena), above a gap, a file's or [heap].
func TestStackShaped(t *testing.T) {
	guard := mapping{0x7000, 0x8000, 0, 0, "---p", ""}
	for name, c := range map[string]struct {
		list []mapping
		want bool
	}{
		"glibc thread":   {[]mapping{guard, {0x8000, 0x10000, 0, 0, "rw-p", ""}}, true},
		"named":          {[]mapping{guard, {0x8000, 0x10000, 0, 0, "rw-p", "[anon:stack]"}}, true},
		"main":           {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", "[stack]"}}, true},
		"old kernel":     {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", "[stack:1234]"}}, true},
		"no guard":       {[]mapping{{0x8000, 0x10000, 0, 0, "rw-p", ""}}, false},
		"gap":            {[]mapping{guard, {0x9000, 0x10000, 0, 0, "rw-p", ""}}, false},
		"readable below": {[]mapping{{0x7000, 0x8000, 0, 0, "r--p", ""}, {0x8000, 0x10000, 0, 0, "rw-p", ""}}, false},
		"file":           {[]mapping{guard, {0x8000, 0x10000, 0, 3, "rw-p", "/tmp/f"}}, false},
		"heap":           {[]mapping{guard, {0x8000, 0x10000, 0, 0, "rw-p", "[heap]"}}, false},
		"read-only":      {[]mapping{guard, {0x8000, 0x10000, 0, 0, "r--p", ""}}, false},
	} {
		if got := stackShaped(c.list, len(c.list)-1); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

// glibc's heap_info at the start of an arena's heap: the first heap of an
// arena (no previous one, its malloc_state right after the header: glibc
// 2.36's first words as recorded on x86-64, AArch64 and i386), a later heap
// (the previous one arena-size-aligned, the arena elsewhere); not memory
// of other content, a size past the mprotected part, or a part that is not
// the mapping.
func TestHeapInfoShaped(t *testing.T) {
	const a = 0x7fc7d8000000
	m := &mapping{a, a + 0x21000, 0, 0, "rw-p", ""}
	for name, c := range map[string]struct {
		h    [4]uint64
		m    *mapping
		word uint64
		want bool
	}{
		"first heap":         {[4]uint64{a + 0x30, 0, 0x21000, 0x21000}, m, 8, true},
		"first heap, i386":   {[4]uint64{0x3ec00018, 0, 0x21000, 0x21000}, &mapping{0x3ec00000, 0x3ec21000, 0, 0, "rw-p", ""}, 4, true},
		"shrunk":             {[4]uint64{a + 0x30, 0, 0x11000, 0x21000}, m, 8, true},
		"later heap":         {[4]uint64{0x7fc7d0000030, 0x7fc7d4000000, 0x21000, 0x21000}, m, 8, true},
		"the program's data": {[4]uint64{0x4141414141414141, 0x4141414141414141, 0x4141414141414141, 0x4141414141414141}, m, 8, false},
		"zeros":              {[4]uint64{}, m, 8, false},
		"size past mprotect": {[4]uint64{a + 0x30, 0, 0x22000, 0x21000}, m, 8, false},
		"other mapping size": {[4]uint64{a + 0x30, 0, 0x21000, 0x22000}, m, 8, false},
		"arena far":          {[4]uint64{a + 0x2000, 0, 0x21000, 0x21000}, m, 8, false},
		"arena below":        {[4]uint64{a - 0x10, 0, 0x21000, 0x21000}, m, 8, false},
		"prev misaligned":    {[4]uint64{0x7fc7d0000030, 0x7fc7d4001000, 0x21000, 0x21000}, m, 8, false},
		"prev itself":        {[4]uint64{0x7fc7d0000030, a, 0x21000, 0x21000}, m, 8, false},
		"later, arena here":  {[4]uint64{a + 0x30, 0x7fc7d4000000, 0x21000, 0x21000}, m, 8, false},
	} {
		if got := heapInfoShaped(c.h, c.m, c.word); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

// A value given as a mapping from a reading made at an earlier stop is
// placed from a new reading (the mapping may have been replaced): once per
// stop, within maxMapsReads; a value in the heap is not read again for.
func TestMapsAgain(t *testing.T) {
	reads := 0
	path := "/tmp/first"
	s := &session{res: &ports.TraceResult{}, conv: convention{word: 8}, procMaps: func(int) ([]byte, error) {
		reads++
		return []byte("555555559000-55555557a000 rw-p 00000000 00:00 0 [heap]\n" +
			"7f0000000000-7f0000001000 r--p 00000000 08:01 7 " + path + "\n"), nil
	}}
	ctx := context.Background()
	check := func(v uint64, want string, wantReads int) {
		t.Helper()
		a := ports.TraceRegister{Value: v}
		if err := s.placeElsewhere(ctx, &a, threadID{TID: 1}, 0x7ffffffde000); err != nil {
			t.Fatal(err)
		}
		got := "heap"
		if a.Mapping != nil {
			got = a.Mapping.Path
		}
		if got != want || reads != wantReads {
			t.Errorf("stop %d: %#x in %s after %d reads, want %s after %d", s.stops, v, got, reads, want, wantReads)
		}
	}
	check(0x7f0000000010, "/tmp/first", 1) // the first reading
	check(0x7f0000000010, "/tmp/first", 1) // the same stop
	check(0x555555559010, "heap", 1)
	s.stops++
	check(0x555555559010, "heap", 1)
	path = "/tmp/second"
	check(0x7f0000000010, "/tmp/second", 2) // read again: replaced
	check(0x7f0000000010, "/tmp/second", 2)
	s.stops++
	s.mapsReads = maxMapsReads
	path = "/tmp/third"
	check(0x7f0000000010, "/tmp/second", 2) // past the bound: as it was
}
