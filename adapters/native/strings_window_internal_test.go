package native

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// windowTestData is a region of about 3 windows: text, UTF-16LE runs and
// noise, with or without runs of zero bytes, so that runs cross where a cut
// would split them if it were made anywhere else.
func windowTestData(seed uint64, zeros bool) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	noise := func() byte { // without zeros: dense data (compressed resources)
		if zeros {
			return byte(rng.IntN(256))
		}
		return byte(1 + rng.IntN(255))
	}
	var b bytes.Buffer
	for b.Len() < 3*scanWindow+12345 {
		switch rng.IntN(6) {
		case 0, 1:
			b.WriteString(strings.Repeat("x", rng.IntN(40)))
			b.WriteByte(0)
		case 2:
			for range rng.IntN(20) {
				b.Write([]byte{'a' + byte(rng.IntN(26)), 0})
			}
		case 3:
			if zeros {
				b.Write(make([]byte, rng.IntN(3)))
			}
		case 4:
			for range rng.IntN(64) {
				b.WriteByte(noise())
			}
		case 5:
			b.WriteString("long" + strings.Repeat("y", rng.IntN(5000)))
		}
	}
	return b.Bytes()
}

// Reading a region in windows finds exactly the strings a scan of the
// whole region finds, with the same offsets.
func TestWindowedScanMatchesWholeScan(t *testing.T) {
	ctx := context.Background()
	opts := (*Options)(nil).withDefaults()
	for seed := range uint64(4) {
		data := windowTestData(seed, seed%2 == 0)
		src := source{r: bytes.NewReader(data), size: int64(len(data)), format: "elf"}
		r := region{name: ".rodata", addr: 0x1000, size: uint64(len(data))}
		whole, err := scanBytes(ctx, data, r, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, forced, err := scanWindows(ctx, src, r, uint64(len(data)), opts, nil, &charge{ctx: ctx})
		if err != nil {
			t.Fatal(err)
		}
		if forced != 0 {
			t.Fatalf("seed %d: %d forced cuts in data without 2 MiB runs of text", seed, forced)
		}
		if len(whole) < 1000 || !slices.Equal(whole, got) {
			t.Fatalf("seed %d: windowed scan found %d strings, whole scan %d (first difference at %d)", seed, len(got), len(whole), firstDiff(whole, got))
		}
	}
}

func firstDiff(a, b []strRec) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A region without any pair of zero bytes is cut at window ends; the cut
// is counted so the scan can report it, and every byte is still covered.
func TestWindowedScanReportsForcedCuts(t *testing.T) {
	ctx := context.Background()
	opts := (*Options)(nil).withDefaults()
	data := bytes.Repeat([]byte("A"), 2*scanWindow+10)
	src := source{r: bytes.NewReader(data), size: int64(len(data)), format: "elf"}
	r := region{name: ".rodata", size: uint64(len(data))}
	got, forced, err := scanWindows(ctx, src, r, uint64(len(data)), opts, nil, &charge{ctx: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if forced != 2 || len(got) != 3 {
		t.Fatalf("forced %d, strings %d; want 2 and 3", forced, len(got))
	}
	total := 0
	for _, s := range got {
		total += s.n
	}
	if total != len(data) {
		t.Fatalf("strings cover %d bytes of %d", total, len(data))
	}
}

// budget refuses reservations past max.
type budget struct{ max, used int64 }

func (b *budget) Reserve(what string, n int64) (func(), error) {
	if b.used+n > b.max {
		return nil, &ports.LimitError{What: what, Limit: "TEST_LIMIT", Max: b.max, InUse: b.used, Requested: n}
	}
	b.used += n
	return func() { b.used -= n }, nil
}

// The strings list is charged to the call's memory account as it grows: a
// budget smaller than the list refuses it with a limit error, and a
// refused scan holds nothing afterwards.
func TestStringsListIsCharged(t *testing.T) {
	data := bytes.Repeat([]byte("abcd\x00"), 1<<20) // 1M strings
	src := source{r: bytes.NewReader(data), size: int64(len(data)), format: "elf"}
	regions := []region{{name: ".rodata", size: uint64(len(data))}}
	opts := (*Options)(nil).withDefaults()

	small := &budget{max: 4 << 20}
	_, err := scanRegions(ports.WithMemory(context.Background(), small), src, regions, opts, nil)
	var le *ports.LimitError
	if err == nil || !asLimit(err, &le) || le.Limit != "TEST_LIMIT" {
		t.Fatalf("scan under a 4 MiB budget: %v", err)
	}
	if small.used != 0 {
		t.Fatalf("refused scan still holds %d bytes", small.used)
	}

	big := &budget{max: 1 << 30}
	set, err := scanRegions(ports.WithMemory(context.Background(), big), src, regions, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.recs) != 1<<20 || big.used < recBytes*int64(len(set.recs)) {
		t.Fatalf("%d strings, %d bytes reserved", len(set.recs), big.used)
	}
	set.held()
	if big.used != 0 {
		t.Fatalf("released set still holds %d bytes", big.used)
	}
}

func asLimit(err error, le **ports.LimitError) bool { return errors.As(err, le) }

// Splitting a region where safeAt holds finds exactly what one scan of the
// whole region finds, on short buffers over an alphabet of text, Latin-1,
// zero and other bytes, at every position.
func TestSafeCutsSplitNoRun(t *testing.T) {
	ctx := context.Background()
	opts := (*Options)(nil).withDefaults()
	opts.MinStringChars = 2
	alphabet := []byte{0, 0, 'a', 'b', 1, 0xa0, 0xe9}
	rng := rand.New(rand.NewPCG(7, 7))
	r := region{name: ".rodata"}
	checked := 0
	for range 3000 {
		w := make([]byte, 24)
		for i := range w {
			w[i] = alphabet[rng.IntN(len(alphabet))]
		}
		whole, err := scanBytes(ctx, w, r, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 2; i+1 < len(w); i++ {
			if !safeAt(w, i) {
				continue
			}
			left, _ := scanBytes(ctx, w[:i], r, opts, nil)
			right, _ := scanBytes(ctx, w[i:], r, opts, nil)
			for k := range right {
				right[k].off += uint64(i)
			}
			if got := append(left, right...); !slices.Equal(got, whole) {
				t.Fatalf("split of %q at %d: %v, whole %v", w, i, got, whole)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d safe positions checked", checked)
	}
}

// The pieces the parallel scan plans are the windows a scan reading window
// after window makes, with the same cuts, also where the last place no run
// crosses is far from a window's end or missing.
func TestPlannedPiecesAreTheWindows(t *testing.T) {
	ctx := context.Background()
	textEnd := bytes.Repeat([]byte("z"), 3*scanWindow)
	for i := scanWindow / 3; i < len(textEnd); i += scanWindow / 3 {
		textEnd[i] = 0 // a cut is possible only every third of a window
	}
	cases := [][]byte{
		windowTestData(7, true),
		windowTestData(8, false),
		textEnd,
		bytes.Repeat([]byte("A"), 2*scanWindow+10),
		[]byte("short"),
	}
	for k, data := range cases {
		src := source{r: bytes.NewReader(data), size: int64(len(data)), format: "elf"}
		var want []strPiece
		wantForced, err := windows(ctx, src, 0, uint64(len(data)), 0, func(pos uint64, w []byte) error {
			want = append(want, strPiece{region: 3, pos: pos, n: uint64(len(w))})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, forced, err := planWindows(ctx, src, 0, uint64(len(data)), 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		if forced != wantForced || !slices.EqualFunc(got, want, func(a, b strPiece) bool { return a.region == b.region && a.pos == b.pos && a.n == b.n }) {
			t.Fatalf("case %d: planned %v (%d forced), windows %v (%d forced)", k, got, forced, want, wantForced)
		}
	}
}

// scanWindows (the tests' view of the scan) appends the strings of the n bytes of region r, read in
// windows, with their offsets from the region's start, and reports how
// many windows were cut where a run might cross.
func scanWindows(ctx context.Context, src source, r region, n uint64, opts Options, out []strRec, ch *charge) ([]strRec, int, error) {
	pieces, forced, err := planWindows(ctx, src, r.off, n, 0, nil)
	if err != nil {
		return nil, forced, err
	}
	out, err = scanPieces(ctx, src, []region{r}, pieces, opts, out, ch)
	return out, forced, err
}
