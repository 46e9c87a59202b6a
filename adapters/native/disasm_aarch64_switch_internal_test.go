package native

import (
	"bytes"
	"encoding/binary"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"
)

// AArch64 encodings for hand-built dispatches (checked against arm64asm's
// rendering in TestArmSwitchEncodings).
func aCmp(r, n uint32) uint32         { return 0x7100001f | n<<10 | r<<5 }
func aBCond(c uint32, off int) uint32 { return 0x54000000 | uint32(off/4)&0x7ffff<<5 | c }
func aAdrp(rd uint32, pages int) uint32 {
	return 0x90000000 | uint32(pages)&3<<29 | uint32(pages>>2)&0x7ffff<<5 | rd
}
func aAdr(rd uint32, off int) uint32 {
	return 0x10000000 | uint32(off)&3<<29 | uint32(off>>2)&0x7ffff<<5 | rd
}
func aAddImm(rd, rn, imm uint32) uint32 { return 0x91000000 | imm<<10 | rn<<5 | rd }

// aLdr is LDR{B,H,SW,} rt, [rn, rm{, option #size}]: size 0-3, opc 1
// (zero-extending) or 2 (sign-extending to 64 bits), option 2 (uxtw) or 3
// (lsl).
func aLdr(size, opc, rt, rn, rm, option uint32, scaled bool) uint32 {
	x := 0x38200800 | size<<30 | opc<<22 | rm<<16 | option<<13 | rn<<5 | rt
	if scaled {
		x |= 1 << 12
	}
	return x
}
func aAddExt(rd, rn, rm, option, shift uint32) uint32 {
	return 0x8b200000 | rm<<16 | option<<13 | shift<<10 | rn<<5 | rd
}
func aAddLsl(rd, rn, rm, shift uint32) uint32 { return 0x8b000000 | rm<<16 | shift<<10 | rn<<5 | rd }
func aMov(rd, rm uint32) uint32               { return 0x2a0003e0 | rm<<16 | rd }
func aBr(rn uint32) uint32                    { return 0xd61f0000 | rn<<5 }
func aB(off int) uint32                       { return 0x14000000 | uint32(off/4)&0x3ffffff }
func aCbz(r uint32, off int) uint32           { return 0x34000000 | uint32(off/4)&0x7ffff<<5 | r }
func aAddW(rd, rn, imm uint32) uint32         { return 0x11000000 | imm<<10 | rn<<5 | rd }
func aLdrW(rt, rn uint32) uint32              { return 0xb9400000 | rn<<5 | rt }

const (
	aNop = 0xd503201f
	aRet = 0xd65f03c0
	aHI  = 8
	aLS  = 9
)

func TestArmSwitchEncodings(t *testing.T) {
	for _, c := range []struct {
		x    uint32
		want string
	}{
		{aCmp(0, 11), "cmp w0, #0xb"},
		{aLdr(0, 1, 1, 1, 0, 2, false), "ldrb w1, [x1,w0,uxtw]"},
		{aLdr(1, 1, 11, 9, 8, 3, true), "ldrh w11, [x9,x8,lsl #1]"},
		{aLdr(2, 2, 11, 9, 8, 3, true), "ldrsw x11, [x9,x8,lsl #2]"},
		{aAddExt(1, 0, 1, 4, 2), "add x1, x0, w1, sxtb #2"},
		{aAddLsl(10, 10, 11, 2), "add x10, x10, x11, lsl #2"},
		{aMov(8, 0), "mov w8, w0"},
		{aBr(1), "br x1"},
		{aB(16), "b .+0x10"},
		{aCbz(2, 28), "cbz w2, .+0x1c"},
		{aAddW(0, 0, 1), "add w0, w0, #0x1"},
		{aLdrW(0, 2), "ldr w0, [x2]"},
	} {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], c.x)
		inst, err := arm64asm.Decode(b[:])
		if err != nil {
			t.Fatalf("%08x: %v", c.x, err)
		}
		if got := arm64asm.GNUSyntax(inst); got != c.want {
			t.Errorf("%08x is %q, want %q", c.x, got, c.want)
		}
	}
}

// armSwitchImage is code at armSwitchBase followed by a table at tableAt
// (an offset from the base), as one executable region with file bytes.
const armSwitchBase = 0x10000

func armSwitchImage(code []uint32, tableAt int, table []byte) []byte {
	out := make([]byte, max(len(code)*4, tableAt+len(table)))
	for i, x := range code {
		binary.LittleEndian.PutUint32(out[i*4:], x)
	}
	copy(out[tableAt:], table)
	return out
}

// armSweepTables sweeps data as AArch64 code at armSwitchBase and returns
// the tables of its indirect jumps, by address.
func armSweepTables(data []byte) map[uint64][]uint64 {
	n := uint64(len(data))
	mm := &memMap{regions: []memRegion{{name: ".text", addr: armSwitchBase, size: n, fileSize: n, exec: true}}, starts: []uint64{armSwitchBase}}
	src := source{r: bytes.NewReader(data), size: int64(len(data))}
	d := newDecoder(archARM64, mm, src)
	out := map[uint64][]uint64{}
	sweep(d, data, armSwitchBase, armSwitchBase+n, len(data), func(in *insn) bool {
		if len(in.table) > 0 {
			out[in.addr] = slices.Clone(in.table)
		}
		return true
	})
	return out
}

// gccDispatch is gcc's shape (-O1): cmp w0, #n-1; b.hi; adrp/add x1 the
// table at tab; ldrb/ldrh/ldr w1 by w0; adr x0 the label after the br; add
// x1, x0, w1, sxt? #2; br x1. The br is the 8th instruction, the label the
// 9th.
func gccDispatch(n uint32, size uint32, tab int) []uint32 {
	return []uint32{aCmp(0, n-1), aBCond(aHI, 0x100), aAdrp(1, 0), aAddImm(1, 1, uint32(tab)),
		aLdr(size, 1, 1, 1, 0, 2, size > 0), aAdr(0, 12), aAddExt(1, 0, 1, 4+size, 2), aBr(1)}
}

// TestArmSwitchShapes recovers hand-built dispatches and refuses the ones
// whose bound, index or targets cannot be trusted.
func TestArmSwitchShapes(t *testing.T) {
	const label = armSwitchBase + 8*4
	bytesOf := func(vs ...int) []byte {
		var b []byte
		for _, v := range vs {
			b = append(b, byte(int8(v)))
		}
		return b
	}
	halves := func(vs ...int) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(v)))
		}
		return b
	}
	words := func(vs ...int) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(v)))
		}
		return b
	}
	pad := func(code []uint32, n int) []uint32 {
		for len(code) < n {
			code = append(code, aNop)
		}
		return append(code, aRet)
	}
	gcc := func(size uint32, table []byte, n uint32) []byte {
		return armSwitchImage(pad(gccDispatch(n, size, 0x200), 64), 0x200, table)
	}
	// run is gccDispatch's run after the bound (a byte table at tab, the
	// index in w0) with its registers from rT, rT+1; at is its first
	// instruction's index, so that (run, table 0, 1) targets the
	// instructions at+6 and at+7.
	run := func(rT uint32, tab int) []uint32 {
		return []uint32{aAdrp(rT, 0), aAddImm(rT, rT, uint32(tab)), aLdr(0, 1, rT, rT, 0, 2, false), aAdr(rT+1, 12), aAddExt(rT, rT+1, rT, 4, 2), aBr(rT)}
	}
	after := func(at int) []uint64 { return []uint64{armSwitchBase + uint64(at+6)*4, armSwitchBase + uint64(at+7)*4} }
	cat := func(parts ...[]uint32) []uint32 { return slices.Concat(parts...) }
	far := slices.Repeat([]uint32{aNop}, 700)
	for _, c := range []struct {
		name string
		data []byte
		want []uint64
	}{
		{"gcc byte", gcc(0, bytesOf(0, 1, 1, 3), 4), []uint64{label, label + 4, label + 12}},
		{"gcc byte negative", gcc(0, bytesOf(0, -2, 1), 3), []uint64{label - 8, label, label + 4}},
		{"gcc halfword", gcc(1, halves(0, 2, 100), 3), []uint64{label, label + 8, label + 400}},
		{"gcc word", gcc(2, words(5, 0), 2), []uint64{label, label + 20}},
		{"clang byte", armSwitchImage(pad([]uint32{aCmp(0, 2), aBCond(aHI, 0x100), aAdrp(9, 0), aMov(8, 0), aAddImm(9, 9, 0x200),
			aAdr(10, 16), aLdr(0, 1, 11, 9, 8, 3, false), aAddLsl(10, 10, 11, 2), aBr(10)}, 64), 0x200, bytesOf(0, 2, 4)),
			[]uint64{armSwitchBase + 36, armSwitchBase + 44, armSwitchBase + 52}},
		{"clang ldrsw", armSwitchImage(pad([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aAdrp(9, 0), aMov(8, 0), aAddImm(9, 9, 0x200),
			aAdr(10, 0), aLdr(2, 2, 11, 9, 8, 3, true), aAddLsl(10, 10, 11, 0), aBr(10)}, 64), 0x200, words(-20, 40)),
			[]uint64{armSwitchBase + 0, armSwitchBase + 60}},
		// gcc -O2: the in-range path jumps over the default to the dispatch.
		{"b.ls to the dispatch", armSwitchImage(pad([]uint32{aCmp(0, 1), aBCond(aLS, 12), aNop, aRet, aAdrp(1, 0), aAddImm(1, 1, 0x200),
			aLdr(0, 1, 1, 1, 0, 2, false), aAdr(0, 12), aAddExt(1, 0, 1, 4, 2), aBr(1)}, 64), 0x200, bytesOf(0, 1)),
			[]uint64{armSwitchBase + 40, armSwitchBase + 44}},
		{"scheduled between cmp and b.hi", armSwitchImage(pad([]uint32{aCmp(0, 1), aAddImm(29, 31, 0), aBCond(aHI, 0x100), aAdrp(9, 0), aMov(8, 0), aAddImm(9, 9, 0x200),
			aAdr(10, 16), aLdr(0, 1, 11, 9, 8, 3, false), aAddLsl(10, 10, 11, 2), aBr(10)}, 64), 0x200, bytesOf(0, 1)),
			[]uint64{armSwitchBase + 40, armSwitchBase + 44}},
		// vfscanf: the b.ls is 700 instructions before the dispatch.
		{"b.ls far away", armSwitchImage(cat([]uint32{aCmp(0, 1), aBCond(aLS, 703*4), aRet}, far, []uint32{aRet}, run(1, 0xe00), []uint32{aRet}), 0xe00, bytesOf(0, 1)),
			after(704)},
		// setlocale: the table's address set before a loop whose b.ls
		// jumps out of it to the dispatch.
		{"table set before the b.ls", armSwitchImage(pad(cat([]uint32{aAdrp(1, 0), aAddImm(1, 1, 0x200), aCbz(5, 0x100), aCmp(0, 1), aBCond(aLS, 12), aRet, aRet},
			run(1, 0x200)[2:]), 64), 0x200, bytesOf(0, 1)), after(5)},
		// The bound falls through to a b to the dispatch.
		{"b.hi then b", armSwitchImage(pad(cat([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aB(12), aRet, aRet}, run(1, 0x200)), 64), 0x200, bytesOf(0, 1)),
			after(5)},
		{"b.ls then b then cbz", armSwitchImage(pad(cat([]uint32{aCmp(0, 1), aBCond(aLS, 8), aRet, aB(8), aRet, aCbz(3, 8), aRet}, run(1, 0x200)), 64), 0x200, bytesOf(0, 1)),
			after(7)},
		// No table: no bound, the bound on another register, the index
		// changed after the compare, a target outside the code.
		{"no bound", armSwitchImage(pad(gccDispatch(4, 0, 0x200)[2:], 64), 0x200, bytesOf(0, 1, 2, 3)), nil},
		{"bound on another register", armSwitchImage(pad(append([]uint32{aCmp(2, 3)}, gccDispatch(4, 0, 0x200)[1:]...), 64), 0x200, bytesOf(0, 1, 2, 3)), nil},
		{"index changed", armSwitchImage(pad(append(append(gccDispatch(4, 0, 0x200)[:2:2], aAddImm(0, 0, 1)), gccDispatch(4, 0, 0x200)[2:]...), 64), 0x200, bytesOf(0, 1, 2, 3)), nil},
		{"target outside", gcc(1, halves(0, 0x7000), 2), nil},
		// A b.ls jumps to the dispatch, but a b.eq's other path falls into it.
		{"falls into the b.ls target", armSwitchImage(pad([]uint32{aCmp(0, 1), aBCond(aLS, 8), aBCond(0, 0x100), aAdrp(1, 0), aAddImm(1, 1, 0x200),
			aLdr(0, 1, 1, 1, 0, 2, false), aAdr(0, 12), aAddExt(1, 0, 1, 4, 2), aBr(1)}, 64), 0x200, bytesOf(0, 1)), nil},
		{"table beyond the file", gcc(0, bytesOf(0, 1), 200), nil},
		// The path to the br redefines the index after the bound.
		{"index changed before the b", armSwitchImage(pad(cat([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aAddW(0, 0, 1), aB(8), aRet}, run(1, 0x200)), 64), 0x200, bytesOf(0, 1)), nil},
		// Two predecessors: a second b, with an index not bounded, to the
		// dispatch the bound's b goes to; a b to the run the bound's b.hi
		// falls into; a b to the run a cbz falls into.
		{"two jumps to the run", armSwitchImage(pad(cat([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aB(20), aRet, aLdrW(0, 2), aB(8), aRet}, run(1, 0x200)), 64), 0x200, bytesOf(0, 1)), nil},
		{"a jump into the b.hi's run", armSwitchImage(pad(cat([]uint32{aCmp(0, 1), aBCond(aHI, 0x100)}, run(1, 0x200), []uint32{aLdrW(0, 2), aB(-28)}), 64), 0x200, bytesOf(0, 1)), nil},
		{"a jump into the cbz's run", armSwitchImage(pad(cat([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aCbz(2, 0x100)}, run(1, 0x200), []uint32{aLdrW(0, 2), aB(-28)}), 64), 0x200, bytesOf(0, 1)), nil},
		// The path's jump is a b.hi: no bound.
		{"b.hi to the run", armSwitchImage(pad(cat([]uint32{aCmp(0, 1), aBCond(aHI, 8), aRet}, run(1, 0x200)), 64), 0x200, bytesOf(0, 1)), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := armSweepTables(c.data)
			if c.want == nil {
				if len(got) != 0 {
					t.Fatalf("tables %x, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("tables %x, want one", got)
			}
			for _, tab := range got {
				if !slices.Equal(tab, c.want) {
					t.Errorf("targets %x, want %x", tab, c.want)
				}
			}
		})
	}
}

// TestArmSwitchOneBound: one bound serves two dispatches a cbz after it
// chooses between (the second's run starts after the first's br), and
// neither when the index is loaded again between the bound and the cbz.
func TestArmSwitchOneBound(t *testing.T) {
	run := func(rT uint32) []uint32 {
		return []uint32{aAdrp(rT, 0), aAddImm(rT, rT, 0x200), aLdr(0, 1, rT, rT, 0, 2, false), aAdr(rT+1, 12), aAddExt(rT, rT+1, rT, 4, 2), aBr(rT)}
	}
	at := func(i int) uint64 { return armSwitchBase + uint64(i)*4 }
	code := slices.Concat([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aCbz(2, 28)}, run(1), run(3), []uint32{aRet})
	got := armSweepTables(armSwitchImage(code, 0x200, []byte{0, 1}))
	want := map[uint64][]uint64{at(8): {at(9), at(10)}, at(14): {at(15), at(16)}}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("tables %x, want %x", got, want)
	}
	code = slices.Insert(code, 2, aLdrW(0, 2))
	if got := armSweepTables(armSwitchImage(code, 0x200, []byte{0, 1})); len(got) != 0 {
		t.Errorf("index loaded after the bound: tables %x, want none", got)
	}
}

// TestArmSwitchBudget: a sweep over many dispatches, each asking for the
// largest table, reads no more entries than its budget.
func TestArmSwitchBudget(t *testing.T) {
	var code []uint32
	const copies = 64
	for range copies {
		code = append(code, gccDispatch(maxJumpTable, 0, copies*32)...) // one table after the code
	}
	data := armSwitchImage(code, 0, nil)
	data = append(data, make([]byte, maxJumpTable)...) // zero entries: every case is the label
	got := armSweepTables(data)
	if len(got) == 0 || len(got) >= copies {
		t.Fatalf("%d of %d dispatches got a table; the budget (%d entries) allows %d", len(got), copies, armTableBudget+len(data), (armTableBudget+len(data))/maxJumpTable)
	}
	if len(got) > (armTableBudget+len(data))/maxJumpTable {
		t.Errorf("%d tables of %d entries read, past the budget", len(got), maxJumpTable)
	}
}

// FuzzArmSwitch sweeps arbitrary bytes as AArch64 code whose tables are in
// the same bytes: no panic, and every table's targets are sorted, unique,
// 4-aligned and in the code.
func FuzzArmSwitch(f *testing.F) {
	f.Add(armSwitchImage(append(gccDispatch(4, 0, 0x40), aNop, aRet), 0x40, []byte{0, 1, 0xff, 3}))
	f.Add(armSwitchImage(append(gccDispatch(3, 1, 0x40), aRet), 0x40, []byte{0, 0, 2, 0, 0xfe, 0xff}))
	f.Add(armSwitchImage([]uint32{aCmp(0, 1), aBCond(aLS, 12), aNop, aRet, aAdrp(1, 0), aAddImm(1, 1, 0x40),
		aLdr(0, 1, 1, 1, 0, 2, false), aAdr(0, 12), aAddExt(1, 0, 1, 4, 2), aBr(1), aRet}, 0x40, []byte{0, 1}))
	f.Add(armSwitchImage([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aAdrp(9, 0), aMov(8, 0), aAddImm(9, 9, 0x40),
		aAdr(10, 0), aLdr(2, 2, 11, 9, 8, 3, true), aAddLsl(10, 10, 11, 0), aBr(10), aRet}, 0x40, []byte{0, 0, 0, 0, 8, 0, 0, 0}))
	f.Add(armSwitchImage([]uint32{aCmp(0, 1), aBCond(aHI, 0x100), aCbz(2, 28), aAdrp(1, 0), aAddImm(1, 1, 0x40), aLdr(0, 1, 1, 1, 0, 2, false),
		aAdr(0, 12), aAddExt(1, 0, 1, 4, 2), aBr(1), aAdrp(3, 0), aAddImm(3, 3, 0x40), aLdr(0, 1, 3, 3, 0, 2, false), aAdr(4, 12), aAddExt(3, 4, 3, 4, 2), aBr(3), aRet}, 0x40, []byte{0, 1}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			data = data[:1<<16]
		}
		for at, tab := range armSweepTables(data) {
			if len(tab) > maxJumpTable || !slices.IsSorted(tab) || len(slices.Compact(slices.Clone(tab))) != len(tab) {
				t.Fatalf("br at 0x%x: targets %x", at, tab)
			}
			for _, x := range tab {
				if x%4 != 0 || x < armSwitchBase || x >= armSwitchBase+uint64(len(data)) {
					t.Fatalf("br at 0x%x: target 0x%x outside the code", at, x)
				}
			}
		}
	})
}

// A compiler's table dispatch as objdump prints it: within the four
// instructions before the br, a load of the entry indexed by a register
// and an add of it, times 4, to the label (or the load of an address).
var (
	armDumpLine  = regexp.MustCompile(`^\s+([0-9a-f]+):\t(\S+)(?:\t(.*))?$`)
	armDumpEntry = regexp.MustCompile(`^ldr(b|h|sw)?\t[wx]\d+, \[x\d+, [wx]\d+`)
	armDumpAdd   = regexp.MustCompile(`^add\tx\d+, x\d+, [wx]\d+, (sxt[bhw]|lsl) #2$|^ldr\tx\d+, \[x\d+, x\d+, lsl #3\]$`)
)

// TestArmSwitchLibc: in Debian's AArch64 C library, every compiler's
// dispatch objdump shows carries a table, and no other br does (vfprintf's
// computed gotos add an entry to a label address kept on the stack). Among them: setlocale's (the
// table's address set before a loop whose b.ls jumps out to the
// dispatch), vfscanf's and vfwscanf's second dispatches (their b.ls 580
// and 600 instructions away). glibc's hand-written memcpy dispatches
// through an entry whose address it computed (ldr w7, [x6]), bounded by
// an and: not a compiler's, and not recovered.
func TestArmSwitchLibc(t *testing.T) {
	if _, err := exec.LookPath("aarch64-linux-gnu-objdump"); err != nil {
		t.Skip("aarch64-linux-gnu-objdump not found: apt install binutils-aarch64-linux-gnu")
	}
	a, err := OpenFile(t.Context(), armLibc)
	if err != nil {
		t.Skipf("%v: apt install libc6-arm64-cross", err)
	}
	defer a.Close(t.Context())
	text, err := exec.Command("aarch64-linux-gnu-objdump", "-d", "-j", ".text", "--no-show-raw-insn", armLibc).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]bool{}
	var last []string // the instructions before, latest last
	for _, line := range strings.Split(string(text), "\n") {
		m := armDumpLine.FindStringSubmatch(line)
		if m == nil {
			last = last[:0]
			continue
		}
		if m[2] == "br" {
			at, _ := strconv.ParseUint(m[1], 16, 64)
			before := last[max(0, len(last)-4):]
			if slices.ContainsFunc(before, armDumpEntry.MatchString) && slices.ContainsFunc(before, armDumpAdd.MatchString) {
				want[at] = true
			}
		}
		last = append(last, m[2]+"\t"+m[3])
	}
	mm := newMemMap(a.img)
	i := slices.IndexFunc(mm.regions, func(r memRegion) bool { return r.name == ".text" })
	if i < 0 {
		t.Fatal("no .text")
	}
	text0 := mm.regions[i]
	code, err := mm.view(a.src, text0.addr, text0.fileSize)
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64]bool{}
	sweep(newDecoder(archARM64, mm, a.src), code, text0.addr, text0.addr+uint64(len(code)), len(code), func(in *insn) bool {
		if len(in.table) > 0 {
			got[in.addr] = true
		}
		return true
	})
	if len(want) < 30 {
		t.Fatalf("objdump shows %d dispatches, want 30 or more", len(want))
	}
	for at := range want {
		if !got[at] {
			t.Errorf("dispatch at 0x%x has no table", at)
		}
	}
	for at := range got {
		if !want[at] {
			t.Errorf("br at 0x%x has a table objdump shows no dispatch for", at)
		}
	}
	t.Logf("%d dispatches, %d tables", len(want), len(got))
}
