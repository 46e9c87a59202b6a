package native_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// TestReadBytesThroughLoadSegments: the bytes a load segment maps outside
// every section (the ELF header at a PIE's address 0 and a non-PIE's
// 0x400000, a PE image's headers at its base, the Mach-O header at the
// start of __TEXT) are read from the file; an address nothing maps and the
// zero-filled tail of a segment are still not found.
func TestReadBytesThroughLoadSegments(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ fixture, segment, magic string }{
		{"c", "LOAD#0", "\x7fELF"},         // gcc's default, a PIE at 0
		{"ptr-nopie", "LOAD#0", "\x7fELF"}, // -no-pie, at 0x400000
		{"go-windows-amd64", "headers", "MZ"},
		{"go-darwin-arm64", "__TEXT", "\xcf\xfa\xed\xfe"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			is := is.New(t)
			a := openAnalysis(t, fixturePath(t, tc.fixture))
			loads, err := a.LoadSegments(ctx)
			is.NoErr(err)
			var seg *ports.Segment
			for i := range loads {
				if loads[i].Name == tc.segment {
					seg = &loads[i]
				}
			}
			if seg == nil {
				t.Fatalf("no load segment %s in %+v", tc.segment, loads)
			}
			is.Equal(seg.FileOffset, uint64(0)) // it maps the file's header
			segs, err := a.Segments(ctx)
			is.NoErr(err)
			for _, s := range segs {
				if s.Start <= seg.Start && seg.Start-s.Start < s.Size && s.Perms.Read {
					t.Fatalf("section %s maps %#x: the test reads nothing new", s.Name, seg.Start)
				}
			}
			b, err := a.ReadBytes(ctx, seg.Start, 64)
			is.NoErr(err)
			is.Equal(len(b), 64)
			is.Equal(string(b[:len(tc.magic)]), tc.magic)
		})
	}
	is := is.New(t)
	a := openAnalysis(t, fixturePath(t, "c"))
	_, err := a.ReadBytes(ctx, 0xdeadbeef0000, 16)
	is.True(errors.Is(err, ports.ErrNotFound))
}

// TestReadBytesZeroFill: a load segment's bytes past its file size are the
// loader's zero fill, which ReadBytes does not invent: a read stops at the
// file size and a read inside the fill is not found.
func TestReadBytesZeroFill(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	data, err := os.ReadFile(fixturePath(t, "c"))
	is.NoErr(err)
	f, err := elf.NewFile(bytes.NewReader(data))
	is.NoErr(err)
	// Stretch the first PT_LOAD's memory size past its file size, over
	// addresses no section holds.
	phoff := binary.LittleEndian.Uint64(data[0x20:])
	var load elf.ProgHeader
	for i, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			load = p.ProgHeader
			binary.LittleEndian.PutUint64(data[phoff+uint64(i)*56+40:], p.Filesz+0x100)
			break
		}
	}
	if load.Filesz == 0 || load.Vaddr != 0 {
		t.Fatalf("first PT_LOAD %+v: want one at 0 with file bytes", load)
	}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Addr < load.Filesz+0x100 && s.Addr+s.Size > load.Filesz {
			t.Fatalf("section %s holds the stretched part", s.Name)
		}
	}
	a, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	is.NoErr(err)
	defer a.Close(ctx)
	b, err := a.ReadBytes(ctx, 0, int(load.Filesz)+64) // from the ELF header, which no section holds
	is.NoErr(err)
	is.Equal(b, data[load.Off:load.Off+load.Filesz]) // stops at the file size
	_, err = a.ReadBytes(ctx, load.Filesz+8, 8)
	is.True(errors.Is(err, ports.ErrNotFound))
}
