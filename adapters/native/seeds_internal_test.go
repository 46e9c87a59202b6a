package native

import (
	"context"
	"os"
	"slices"
	"testing"
)

// Merging the symbols and the table starts as two lists gives what merging
// them joined gives, whichever list a candidate at one address comes from.
func TestMergeProceduresOfTwoLists(t *testing.T) {
	syms := []candidate{
		{addr: 0x30, name: "c", source: "symbol", rank: rankGlobal},
		{addr: 0x10, name: "a_long", source: "symbol", rank: rankLocal},
		{addr: 0x10, name: "a", source: "dynamic-symbol", rank: rankLocal, size: 4},
		{addr: 0x20, name: "entry", source: "entry", rank: rankSynthetic},
	}
	extra := []candidate{
		{addr: 0x10, size: 16, source: "eh-frame", rank: rankUnnamed},
		{addr: 0x20, size: 8, source: "eh-frame", rank: rankUnnamed},
		{addr: 0x40, size: 2, source: "init", rank: rankUnnamed},
	}
	joined := append(slices.Clone(syms), extra...)
	want := mergeProcedures(candList{joined, nil})
	got := mergeProcedures(candList{syms, extra})
	if !slices.Equal(got, want) {
		t.Fatalf("two lists: %+v\njoined: %+v", got, want)
	}
	if len(got) != 4 || got[0].Name != "a" || got[0].Size != 4 || got[1].Source != "entry" || got[1].Size != 8 || got[3].Size != 2 {
		t.Fatalf("merged list: %+v", got)
	}
	if s, w := sizeSources(got, candList{syms, extra}), sizeSources(want, candList{joined, nil}); !slices.Equal(s, w) {
		t.Fatalf("size sources %q, joined %q", s, w)
	}
}

// The .eh_frame list is sized from .eh_frame_hdr's count, which bounds the
// FDEs read.
func TestFDECountSizesTheUnwindList(t *testing.T) {
	const path = "/usr/bin/ls"
	f, err := os.Open(path)
	if err != nil {
		t.Skip(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	a, err := newAnalysis(f, st.Size(), path, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	e, ok := a.img.(*elfImage)
	if !ok || e.f.Section(".eh_frame_hdr") == nil {
		t.Skip("no ELF .eh_frame_hdr")
	}
	n := e.fdeCount(1 << 30)
	if n == 0 {
		t.Fatal("fdeCount read no count from .eh_frame_hdr")
	}
	got, err := e.ehFrame(context.Background(), newMemMap(a.img))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) > n || cap(got) != n {
		t.Fatalf("%d FDE candidates in a list of capacity %d; .eh_frame_hdr counts %d", len(got), cap(got), n)
	}
	if m := e.fdeCount(16 * 3); m != 3 {
		t.Fatalf("fdeCount bounded by 48 bytes of .eh_frame = %d, want 3", m)
	}
}
