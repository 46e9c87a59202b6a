package native_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
	"rea/ports/portstest"
)

const fatAlign = 1 << 14

var fat struct {
	once sync.Once
	path string
}

// fatFixture wraps the darwin/arm64 Go program into a universal binary with
// two slices: the program, and a copy whose headers claim x86_64 (its
// code stays arm64, which no list looks at).
func fatFixture(t *testing.T) string {
	t.Helper()
	thin := fixturePath(t, "go-darwin-arm64")
	fat.once.Do(func() {
		data, err := os.ReadFile(thin)
		if err != nil {
			t.Fatal(err)
		}
		amd64 := append([]byte(nil), data...)
		binary.LittleEndian.PutUint32(amd64[4:], 0x01000007) // CPU_TYPE_X86_64
		binary.LittleEndian.PutUint32(amd64[8:], 3)          // CPU_SUBTYPE_X86_64_ALL

		first := uint32(fatAlign)
		second := (first + uint32(len(data)) + fatAlign - 1) &^ (fatAlign - 1)
		out := make([]byte, int(second)+len(amd64))
		be := binary.BigEndian
		be.PutUint32(out[0:], 0xcafebabe)
		be.PutUint32(out[4:], 2)
		for i, a := range []struct{ cpu, sub, off uint32 }{{0x0100000c, 0, first}, {0x01000007, 3, second}} {
			h := out[8+20*i:]
			be.PutUint32(h[0:], a.cpu)
			be.PutUint32(h[4:], a.sub)
			be.PutUint32(h[8:], a.off)
			be.PutUint32(h[12:], uint32(len(data)))
			be.PutUint32(h[16:], 14)
		}
		copy(out[first:], data)
		copy(out[second:], amd64)
		p := filepath.Join(fixtureDir, "go-darwin-fat")
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		fat.path = p
	})
	if fat.path == "" {
		t.Fatal("universal fixture not built")
	}
	return fat.path
}

func TestUniversal(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := fatFixture(t)
	u, err := native.OpenFile(ctx, path)
	is.NoErr(err)
	defer u.Close(ctx)
	thin, err := native.OpenFile(ctx, fixturePath(t, "go-darwin-arm64"))
	is.NoErr(err)
	defer thin.Close(ctx)

	docs, err := u.Documents(ctx)
	is.NoErr(err)
	thinDocs, err := thin.Documents(ctx)
	is.NoErr(err)
	entry := thinDocs[0].Entry
	is.Equal(docs, []ports.Document{
		{Name: "go-darwin-fat#arm64", Format: "mach-o", Architecture: "arm64", Entry: entry, HasEntry: true},
		{Name: "go-darwin-fat#x86_64", Format: "mach-o", Architecture: "x86_64", Entry: entry, HasEntry: true},
	})

	// The lists describe the first slice; file offsets are the file's.
	procs, err := u.Procedures(ctx)
	is.NoErr(err)
	thinProcs, err := thin.Procedures(ctx)
	is.NoErr(err)
	is.Equal(procs, thinProcs)

	segs, err := u.Segments(ctx)
	is.NoErr(err)
	thinSegs, err := thin.Segments(ctx)
	is.NoErr(err)
	is.Equal(len(segs), len(thinSegs))
	for i := range segs {
		want := thinSegs[i]
		if want.FileOffset != 0 {
			want.FileOffset += fatAlign
		}
		is.Equal(segs[i], want)
	}

	strs, err := u.Strings(ctx)
	is.NoErr(err)
	thinStrs, err := thin.Strings(ctx)
	is.NoErr(err)
	is.Equal(len(strs), len(thinStrs))
	for i := range strs {
		want := thinStrs[i]
		want.FileOffset += fatAlign
		is.Equal(strs[i], want)
	}

	portstest.Run(t, native.New(nil), target(t, path, "mach-o-universal"))
}
