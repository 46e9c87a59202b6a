package native_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// typed reports whether err is one of the errors the provider promises for
// bad input.
func typed(err error) bool {
	var fe *ports.FormatError
	return errors.Is(err, ports.ErrUnsupported) || (errors.As(err, &fe) && errors.Is(err, ports.ErrMalformed))
}

// listAll parses data and calls every lister; it fails on a panic or an
// untyped error.
func listAll(t testing.TB, data []byte) {
	t.Helper()
	ctx := context.Background()
	a, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if !typed(err) {
			t.Fatalf("NewAnalysis: untyped error %T: %v", err, err)
		}
		return
	}
	defer a.Close(ctx)
	check := func(what string, err error) {
		if err != nil && !typed(err) {
			t.Fatalf("%s: untyped error %T: %v", what, err, err)
		}
	}
	_, err = a.Documents(ctx)
	check("documents", err)
	_, err = a.Segments(ctx)
	check("segments", err)
	_, err = a.Procedures(ctx)
	check("procedures", err)
	_, err = a.Names(ctx)
	check("names", err)
	_, err = a.Strings(ctx)
	check("strings", err)
	_, err = a.Limitations(ctx)
	check("limitations", err)
	_, err = a.Stripping(ctx) // reads a PE's debug directory and CodeView record, an ELF's .gnu_debuglink
	check("stripping", err)
}

// header returns the first bytes of a fixture, where its headers and load
// commands are; Go fixtures are too large to mutate whole.
func header(t *testing.T, fixture string, n int) []byte {
	t.Helper()
	path := ""
	if fixture == "go-darwin-fat" {
		path = fatFixture(t)
	} else {
		path = fixturePath(t, fixture)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data[:min(len(data), n)]
}

func TestTruncatedAndFlipped(t *testing.T) {
	for _, fixture := range []string{"c", "c-stripped", "go-linux-arm64", "go-windows-amd64", "go-darwin-arm64", "go-darwin-fat"} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			data := header(t, fixture, 32<<10)
			for n := 0; n < len(data); n += 1 + n/64 {
				listAll(t, data[:n])
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(fixture))))
			for range 300 {
				mutated := bytes.Clone(data)
				for range 1 + rng.IntN(8) {
					i := rng.IntN(min(len(mutated), 4096))
					mutated[i] ^= byte(1 + rng.IntN(255))
				}
				listAll(t, mutated)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dosExe := make([]byte, 128)
	copy(dosExe, "MZ")
	binary.LittleEndian.PutUint32(dosExe[0x3c:], 0x40)
	copy(dosExe[0x40:], "NE")
	tests := []struct {
		name string
		path string
		is   error
	}{
		{"missing", filepath.Join(dir, "missing"), fs.ErrNotExist},
		{"directory", dir, ports.ErrUnsupported},
		{"empty", write("empty", nil), ports.ErrUnsupported},
		{"text", write("text", []byte("#!/bin/sh\necho hi\n")), ports.ErrUnsupported},
		{"java class", write("class", []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x34, 0, 0}), ports.ErrUnsupported},
		{"dos executable", write("dos", dosExe), ports.ErrUnsupported},
		{"elf magic only", write("elf", []byte("\x7fELF")), ports.ErrMalformed},
		{"mz only", write("mz", []byte("MZ")), ports.ErrMalformed},
		{"mach-o magic only", write("macho", []byte{0xcf, 0xfa, 0xed, 0xfe}), ports.ErrMalformed},
		{"fat header only", write("fat", []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2}), ports.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			a, err := native.OpenFile(context.Background(), tt.path)
			is.True(a == nil)
			is.True(errors.Is(err, tt.is)) // error kind
			if errors.Is(err, ports.ErrMalformed) {
				var fe *ports.FormatError
				is.True(errors.As(err, &fe)) // malformed input is a FormatError
			}
		})
	}
}

func TestOpenCancelled(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := native.OpenFile(ctx, fixturePath(t, "c"))
	is.True(errors.Is(err, context.Canceled))
}

func TestClosed(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a, err := native.OpenFile(ctx, fixturePath(t, "c"))
	is.NoErr(err)
	_, err = a.Procedures(ctx) // cached before Close
	is.NoErr(err)
	is.NoErr(a.Close(ctx))
	is.NoErr(a.Close(ctx))
	_, err = a.Procedures(ctx)
	is.True(errors.Is(err, fs.ErrClosed))
	_, err = a.Strings(ctx)
	is.True(errors.Is(err, fs.ErrClosed))
}

// TestHugeSectionSizes checks that sizes claimed by headers are bounded by
// the file before anything is allocated.
func TestHugeSectionSizes(t *testing.T) {
	is := is.New(t)
	path := fixturePath(t, "c")
	data, err := os.ReadFile(path)
	is.NoErr(err)
	f, err := elf.Open(path)
	is.NoErr(err)
	defer f.Close()
	// Every section header's sh_size becomes 1 TiB.
	const shentsize = 64
	for i := range f.Sections {
		off := int(binary.LittleEndian.Uint64(data[0x28:])) + i*shentsize + 0x20
		binary.LittleEndian.PutUint64(data[off:], 1<<40)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	if err == nil {
		ctx := context.Background()
		segs, err := a.Segments(ctx)
		is.NoErr(err)
		is.True(len(segs) > 0)
		is.Equal(segs[1].Size, uint64(1<<40)) // reported as the header says
		_, err = a.Strings(ctx)
		is.True(err == nil || typed(err))
		_, err = a.Procedures(ctx)
		is.True(err == nil || typed(err))
	} else {
		is.True(typed(err))
	}
	runtime.ReadMemStats(&after)
	is.True(after.TotalAlloc-before.TotalAlloc < 64<<20) // allocations bounded by the file, not the headers
}
