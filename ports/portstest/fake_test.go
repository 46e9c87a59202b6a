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
	procs, err := a.(ports.ProcedureLister).Procedures(ctx)
	is.NoErr(err)
	procs[0].Name = "changed"
	again, err := a.(ports.ProcedureLister).Procedures(ctx)
	is.NoErr(err)
	is.Equal(again[0].Name, "puts@plt")
	is.Equal(f.Procedures[0].Name, "puts@plt")
}
