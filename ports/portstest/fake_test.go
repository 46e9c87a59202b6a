package portstest_test

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
	"rea/ports/portstest"
)

func TestFakePassesRun(t *testing.T) {
	tests := []struct {
		name   string
		fake   *portstest.Fake
		target ports.Target
	}{
		{"sample", portstest.NewFake(), ports.Target{Path: "/bin/hello", Format: "elf", Size: 0x3000}},
		{"empty", &portstest.Fake{}, ports.Target{Path: "x.exe", Format: "pe"}},
		{"restricted", &portstest.Fake{ID: "only-pe", Formats: []string{"pe"}}, ports.Target{Path: "x.exe", Format: "pe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			portstest.Run(t, tt.fake, tt.target)
		})
	}
}

func TestFake(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := &portstest.Fake{ID: "only-pe", Formats: []string{"pe"}}

	s := f.Support(ctx, ports.Target{Format: "elf"})
	is.True(!s.Supported)
	is.Equal(s.Code, "target_format_unsupported")
	_, err := f.Open(ctx, ports.Target{Format: "elf"})
	is.True(errors.Is(err, ports.ErrUnsupported))

	a, err := f.Open(ctx, ports.Target{Path: "dir/x.exe", Format: "pe", Architecture: "x86_64"})
	is.NoErr(err)
	fa := a.(*portstest.FakeAnalysis)
	docs, err := fa.Documents(ctx)
	is.NoErr(err)
	is.Equal(docs, []ports.Document{{Name: "x.exe", Format: "pe", Architecture: "x86_64"}})
	is.True(!fa.Closed())
	is.NoErr(a.Close(ctx))
	is.True(fa.Closed())
	_, err = fa.Procedures(ctx)
	is.True(errors.Is(err, fs.ErrClosed))
}

func TestFakeListsAreCopies(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	f := portstest.NewFake()
	a, err := f.Open(ctx, ports.Target{Format: "elf"})
	is.NoErr(err)
	defer a.Close(ctx)
	strs, err := a.(ports.StringLister).Strings(ctx) // the caller's own
	is.NoErr(err)
	strs[0].Value = "changed"
	again, err := a.(ports.StringLister).Strings(ctx)
	is.NoErr(err)
	is.Equal(again[0].Value, "hello, world")
	procs, err := a.(ports.ProcedureLister).Procedures(ctx) // shared by the analysis, not with the Fake
	is.NoErr(err)
	procs[0].Name = "changed"
	is.Equal(f.Procedures[0].Name, "puts@plt")
}

// TestFakeReportsAModifiedSharedList: the fake hands out its own slices for
// the lists ports declares shared, and names at Close every one a caller
// wrote into, so that tests running operations over fakes catch a caller
// that sorts or edits a shared list in place.
func TestFakeReportsAModifiedSharedList(t *testing.T) {
	ctx := context.Background()
	a, err := (&portstest.Fake{ID: "shared", Procedures: portstest.NewFake().Procedures, Names: portstest.NewFake().Names}).Open(ctx, ports.Target{Path: "/bin/x"})
	if err != nil {
		t.Fatal(err)
	}
	fa := a.(*portstest.FakeAnalysis)
	procs, _ := fa.Procedures(ctx)
	procs[0], procs[2] = procs[2], procs[0] // what an in-place sort by name would do
	again, _ := fa.Procedures(ctx)
	if again[0].Name != "main" {
		t.Fatalf("the procedures list is not shared: %v", again[0])
	}
	if got := fa.ModifiedLists(); len(got) != 1 || got[0] != "procedures" {
		t.Fatalf("ModifiedLists = %v, want [procedures]", got)
	}
	if err := fa.Close(ctx); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range portstest.ModifiedSharedLists() {
		found = found || m == "shared: procedures"
	}
	if !found {
		t.Fatalf("ModifiedSharedLists = %v, want it to name shared: procedures", portstest.ModifiedSharedLists())
	}
	b, _ := portstest.NewFake().Open(ctx, ports.Target{Path: "/bin/x"})
	if names, _ := b.(ports.NameLister).Names(ctx); len(names) == 0 {
		t.Fatal("no names")
	}
	if got := b.(*portstest.FakeAnalysis).ModifiedLists(); len(got) != 0 {
		t.Fatalf("an analysis only read reports %v", got)
	}
}
