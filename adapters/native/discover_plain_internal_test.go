package native

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// A range cut from a sweep (derive) whose first instruction the sweep
// found plain (builder.plain) is not decoded again, and discovery ends
// as it does when every derived range's first instructions are decoded:
// the same procedures (thunks and their targets included), ranges,
// instruction count and bytes swept.
func TestDerivePlainMatchesDecoding(t *testing.T) {
	t.Setenv("REA_NATIVE_CACHE_DIR", "off")
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("#include <stdio.h>\n__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }\n")
	for i := range 200 {
		switch i % 4 {
		case 0: // a thunk: its first instruction is a jump
			fmt.Fprintf(&src, "__attribute__((noinline)) int f%d(int x) { return leaf(x); }\n", i)
		case 1: // padding may come first where the range is cut
			fmt.Fprintf(&src, "__attribute__((noinline, aligned(32))) int f%d(int x) { return x ? f%d(x - 1) + %d : 0; }\n", i, i-1, i)
		default:
			fmt.Fprintf(&src, "__attribute__((noinline)) int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d ^ (s >> 3); return s; }\n", i, i+3)
		}
	}
	src.WriteString("int (*table[])(int) = {\n")
	for i := range 200 {
		fmt.Fprintf(&src, "f%d,\n", i)
	}
	src.WriteString("};\nint main(int argc, char **argv) { int s = 0; for (int i = 0; i < 200; i++) s += table[i](argc); printf(\"%d\\n\", s); return 0; }\n")
	c := filepath.Join(dir, "many.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{
		{"-O2", "-s", "-fno-asynchronous-unwind-tables"},
		{"-O2", "-s", "-fno-asynchronous-unwind-tables", "-fcf-protection=full"},
		{"-O1", "-s", "-fno-asynchronous-unwind-tables", "-fno-optimize-sibling-calls"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			exe := filepath.Join(dir, fmt.Sprintf("many%d", len(flags)))
			if b, err := exec.Command("gcc", append(flags, "-o", exe, c)...).CombinedOutput(); err != nil {
				t.Skipf("gcc %v: %v\n%s", flags, err, b)
			}
			type outcome struct {
				procs  []ports.Procedure
				ranges []ports.FunctionRange
				stats  DiscoveryStats
			}
			discover := func(off bool) outcome {
				t.Helper()
				noPlainDerive = off
				defer func() { noPlainDerive = false }()
				ctx := context.Background()
				a, err := OpenFile(ctx, exe)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close(ctx)
				var o outcome
				if o.procs, err = a.Procedures(ctx); err != nil {
					t.Fatal(err)
				}
				if o.ranges, err = a.FunctionRanges(ctx); err != nil {
					t.Fatal(err)
				}
				if o.stats, err = a.Discovery(ctx); err != nil {
					t.Fatal(err)
				}
				return o
			}
			fast, slow := discover(false), discover(true)
			if !slices.Equal(fast.procs, slow.procs) {
				t.Errorf("procedures differ:\n%v\n%v", fast.procs, slow.procs)
			}
			if !slices.Equal(fast.ranges, slow.ranges) {
				t.Errorf("ranges differ")
			}
			if f, s := fast.stats, slow.stats; f.Instructions != s.Instructions || f.DecodedBytes != s.DecodedBytes || f.Rounds != s.Rounds || f.Cached || s.Cached {
				t.Errorf("stats %+v; decoding every derived range: %+v", f, s)
			}
			thunks := 0
			for _, pr := range fast.procs {
				if pr.Thunk {
					thunks++
				}
			}
			t.Logf("%d procedures, %d thunks, %d rounds, %d bytes swept", len(fast.procs), thunks, fast.stats.Rounds, fast.stats.DecodedBytes)
		})
	}
}

// codeSet.next finds the first member at or after start and before end,
// across words, and none outside code or past end.
func TestCodeSetNext(t *testing.T) {
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x400, fileSize: 0x400, exec: true}}, starts: []uint64{0x1000}}
	s := newCodeSet(mm)
	for _, a := range []uint64{0x1003, 0x1040, 0x10bf, 0x13ff} {
		s.add(a)
	}
	for _, c := range []struct {
		start, end, want uint64
		ok               bool
	}{
		{0x1000, 0x1400, 0x1003, true},
		{0x1003, 0x1400, 0x1003, true},
		{0x1004, 0x1400, 0x1040, true},
		{0x1041, 0x1400, 0x10bf, true},
		{0x1041, 0x10bf, 0, false},
		{0x10c0, 0x2000, 0x13ff, true},
		{0x1400, 0x2000, 0, false},
		{0x800, 0x1400, 0, false},
	} {
		got, ok := s.next(c.start, c.end)
		if got != c.want || ok != c.ok {
			t.Errorf("next(%#x, %#x) = %#x, %v, want %#x, %v", c.start, c.end, got, ok, c.want, c.ok)
		}
	}
}
