package native

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"rea/ports"
)

// A kept reference packs into 12 bytes and gives back where it was made,
// its target (all 64 bits) and whether it is an address constant.
func TestJumpRefPacks(t *testing.T) {
	if n := unsafe.Sizeof(jumpRef{}); n != 12 {
		t.Fatalf("jumpRef is %d bytes, want 12", n)
	}
	base := uint64(0x7fff_0000_1000)
	for _, x := range []xref{
		{from: base, to: 0x401000, kind: kindJump},
		{from: base + 15<<20, to: 0xffff_ffff_ffff_fff0, kind: kindAddress},
		{from: base + 7, to: 0x1_0000_0000, kind: kindJump},
	} {
		j := packJump(x, base)
		if j.at(base) != x.from || j.to() != x.to || j.address() != (x.kind == kindAddress) {
			t.Errorf("%+v packed as %+v: at %#x to %#x address %v", x, j, j.at(base), j.to(), j.address())
		}
	}
}

// Merging new starts in place gives the list a fresh merge would: sorted,
// every old entry kept with its parallel values, every new one unnamed.
func TestStateInsertMergesInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		used := map[uint64]bool{}
		var s state
		for range rng.IntN(40) {
			a := rng.Uint64N(1000)
			if used[a] {
				continue
			}
			used[a] = true
			s.procs = append(s.procs, ports.Procedure{Address: a, Name: "f"})
		}
		slices.SortFunc(s.procs, func(a, b ports.Procedure) int { return int(a.Address) - int(b.Address) })
		for i, p := range s.procs {
			s.sizeSrc = append(s.sizeSrc, "symbol")
			s.results = append(s.results, &fnResult{start: p.Address, insns: int32(i)})
		}
		var found []candidate
		for range rng.IntN(40) {
			a := rng.Uint64N(1000)
			if used[a] {
				continue
			}
			used[a] = true
			found = append(found, candidate{addr: a, source: "gap"})
		}
		old := len(s.procs)
		s.insert(found)
		if len(s.procs) != old+len(found) || len(s.sizeSrc) != len(s.procs) || len(s.results) != len(s.procs) {
			t.Fatalf("round %d: lengths %d %d %d, want %d", round, len(s.procs), len(s.sizeSrc), len(s.results), old+len(found))
		}
		for i, p := range s.procs {
			if i > 0 && s.procs[i-1].Address >= p.Address {
				t.Fatalf("round %d: not sorted at %d: %#x then %#x", round, i, s.procs[i-1].Address, p.Address)
			}
			isNew := p.Name == ""
			switch {
			case isNew && (p.Source != "gap" || s.sizeSrc[i] != "" || s.results[i] != nil):
				t.Fatalf("round %d: new start %#x carries %q %q %v", round, p.Address, p.Source, s.sizeSrc[i], s.results[i])
			case !isNew && (s.sizeSrc[i] != "symbol" || s.results[i] == nil || s.results[i].start != p.Address):
				t.Fatalf("round %d: old start %#x lost its values", round, p.Address)
			}
		}
	}
}

// Pages given back to the system read the same when accessed again.
func TestDroppedPagesReadTheSame(t *testing.T) {
	want := make([]byte, 5*os.Getpagesize()+123)
	for i := range want {
		want[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := mapFile(f, int64(len(want)))
	if m == nil {
		t.Skip("no mapping on this system")
	}
	defer m.close()
	if !bytes.Equal(m.data, want) {
		t.Fatal("mapping differs from the file")
	}
	m.drop(100, uint64(len(want))) // past the end: clipped
	m.drop(0, uint64(len(want)))
	var nilMap *mapping
	nilMap.drop(0, 10)
	if !bytes.Equal(m.data, want) {
		t.Fatal("mapping differs from the file after drop")
	}
}

// A sweep over a long inferred range keeps one gapInsn per instruction
// (a million on chromium's longest), so it stays at 24 bytes, and a jump
// table's whole length fits its count.
func TestGapInsnIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(gapInsn{}); n != 24 {
		t.Fatalf("gapInsn is %d bytes, want 24", n)
	}
	if maxJumpTable > math.MaxUint16 {
		t.Fatalf("maxJumpTable %d does not fit gapInsn.ntab", maxJumpTable)
	}
}

// The code a parallel pass read is let go in a few long runs, each of
// batches already done (never under a worker still reading) and inside
// one region, and none of it is left held.
func TestDropRunsJoinBatches(t *testing.T) {
	const batches = 4000
	const step = 4096 // each batch reads one page; region 1 begins at batch 3000
	region := func(start, end uint64) int {
		switch {
		case start >= 3000*step && end <= batches*step:
			return 1
		case end <= 3000*step:
			return 0
		}
		return -1
	}
	rng := rand.New(rand.NewPCG(3, 4))
	order := rng.Perm(batches)
	// Workers finish batches a little out of order, never far.
	slices.Sort(order)
	for i := 0; i+1 < len(order); i += 2 {
		if rng.IntN(2) == 0 {
			order[i], order[i+1] = order[i+1], order[i]
		}
	}
	ended := make([]bool, batches)
	var drops [][2]uint64
	d := newDropRuns(batches, func(start, end uint64) {
		for b := start / step; b < (end+step-1)/step; b++ {
			if !ended[b] {
				t.Fatalf("[%#x, %#x) let go while batch %d is not done", start, end, b)
			}
		}
		if region(start, end) < 0 {
			t.Fatalf("[%#x, %#x) is not inside one region", start, end)
		}
		drops = append(drops, [2]uint64{start, end})
	}, region)
	for _, b := range order {
		ended[b] = true
		if b == 17 {
			d.done(b, 0, 0) // read nothing
			continue
		}
		d.done(b, uint64(b)*step, uint64(b+1)*step)
	}
	d.flush()
	for b := uint64(0); b < batches; b++ {
		in := slices.ContainsFunc(drops, func(r [2]uint64) bool { return r[0] <= b*step && (b+1)*step <= r[1] })
		if !in && b != 17 {
			t.Fatalf("batch %d never let go", b)
		}
	}
	if max := 8; len(drops) > max { // 16 MB, in runs of dropRun (4 MB) and one more where region 1 begins
		t.Errorf("%d calls to let go, want at most %d", len(drops), max)
	}
}

// The candidate part holding an address is found as a search of every
// candidate finds it, whether or not its block is marked (partSeeds.blocks).
func TestPartSeedsAtMatchesSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 20 {
		var cands []candidate
		for range 1 + rng.IntN(60) {
			a := 0x1000 + rng.Uint64N(1<<16)
			cands = append(cands, candidate{addr: a, size: 1 + rng.Uint64N(600), midFrame: true})
		}
		s := newPartSeeds(candList{cands, nil})
		if s == nil {
			t.Fatal("no seeds")
		}
		for addr := uint64(0xf00); addr < 0x1000+1<<16+800; addr++ {
			want := -1
			i, _ := slices.BinarySearchFunc(s.list, addr, func(p partSeed, t uint64) int { return cmp.Compare(p.start, t+1) })
			if i > 0 && addr < s.list[i-1].end {
				want = i - 1
			}
			if got := s.at(addr); got != want {
				t.Fatalf("round %d: at(%#x) = %d, want %d", round, addr, got, want)
			}
		}
	}
}
