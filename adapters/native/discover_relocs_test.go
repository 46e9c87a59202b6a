package native_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
)

// TestDiscoveryFromRelativeAddends: in a stripped AArch64 PIE whose linker
// left the RELATIVE slots to the loader (as lld does: the file holds zeros,
// the relocations' addends hold the pointers), the functions reached only
// through tables of function pointers are still procedure starts, compared
// with the symbols of the same program built unstripped. Go's linker
// writes the addends into the slots and keeps a pclntab that names every
// function, so the test clears both in its copy of the stripped build:
// discovery then has only the code and the relocations.
func TestDiscoveryFromRelativeAddends(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	full, err := elf.Open(fixturePath(t, "go-table-arm64"))
	is.NoErr(err)
	defer full.Close()
	syms, err := full.Symbols()
	is.NoErr(err)
	funcs := map[uint64]string{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			funcs[s.Value] = s.Name
		}
	}
	data, err := os.ReadFile(fixturePath(t, "go-table-arm64-stripped"))
	is.NoErr(err)
	f, err := elf.NewFile(bytes.NewReader(data))
	is.NoErr(err)
	is.Equal(f.Type, elf.ET_DYN)
	fileOffset := func(addr uint64) (uint64, bool) {
		for _, s := range f.Sections {
			if s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr+8 <= s.Addr+s.Size {
				return s.Offset + addr - s.Addr, true
			}
		}
		return 0, false
	}
	pcln := f.Section(".gopclntab")
	if pcln == nil {
		t.Fatal("no .gopclntab")
	}
	copy(data[pcln.Offset:], make([]byte, 8)) // its magic: the table no longer reads
	targets := map[uint64]string{}            // addend -> the function it starts
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		b, err := s.Data()
		is.NoErr(err)
		for i := 0; i+24 <= len(b); i += 24 {
			if elf.R_AARCH64(binary.LittleEndian.Uint64(b[i+8:])&0xffffffff) != elf.R_AARCH64_RELATIVE {
				continue
			}
			at, v := binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+16:])
			if off, ok := fileOffset(at); ok {
				binary.LittleEndian.PutUint64(data[off:], 0) // left to the loader
			}
			if name, ok := funcs[v]; ok {
				targets[v] = name
			}
		}
	}
	for _, name := range []string{"main.alpha", "main.beta", "main.gamma"} {
		found := false
		for _, n := range targets {
			found = found || n == name
		}
		if !found {
			t.Fatalf("%s is not the addend of a RELATIVE relocation: the fixture has no table", name)
		}
	}

	a, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	is.NoErr(err)
	defer a.Close(ctx)
	procs, err := a.Procedures(ctx)
	is.NoErr(err)
	starts := map[uint64]string{}
	for _, p := range procs {
		starts[p.Address] = p.Source
	}
	for v, name := range targets {
		if _, ok := starts[v]; !ok {
			t.Errorf("%s at %#x, a RELATIVE addend, is not a procedure start", name, v)
		}
	}
	again, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	is.NoErr(err)
	defer again.Close(ctx)
	procs2, err := again.Procedures(ctx)
	is.NoErr(err)
	is.Equal(procs, procs2) // deterministic
}

// countingReader counts the bytes read inside [lo, hi).
type countingReader struct {
	r      *bytes.Reader
	lo, hi int64
	n      int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	if lo, hi := max(off, c.lo), min(off+int64(len(p)), c.hi); hi > lo {
		c.n += hi - lo
	}
	return c.r.ReadAt(p, off)
}

// TestRelativeTableReadOnce: in a PIE whose linker left the RELATIVE slots
// to the loader (the copy zeroes them, as lld leaves them), the init
// array's functions come from the relocations' addends and so do the
// table's pointers; discovery reads the relocation table once, the init
// array's few slots being looked up in its sorted run (DT_RELACOUNT), not
// walked a second time.
func TestRelativeTableReadOnce(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	data, err := os.ReadFile(fixturePath(t, "rel-pie"))
	is.NoErr(err)
	f, err := elf.NewFile(bytes.NewReader(data))
	is.NoErr(err)
	rela, init := f.Section(".rela.dyn"), f.Section(".init_array")
	if rela == nil || init == nil || rela.Size < 1000*24 {
		t.Fatalf("the fixture has no large .rela.dyn or no .init_array: %v %v", rela, init)
	}
	var inits []uint64 // what the init array's slots hold (GNU ld writes the addends)
	for i := uint64(0); i+8 <= init.Size; i += 8 {
		inits = append(inits, binary.LittleEndian.Uint64(data[init.Offset+i:]))
	}
	fileOffset := func(addr uint64) (uint64, bool) {
		for _, s := range f.Sections {
			if s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr+8 <= s.Addr+s.Size {
				return s.Offset + addr - s.Addr, true
			}
		}
		return 0, false
	}
	b, err := rela.Data()
	is.NoErr(err)
	for i := 0; i+24 <= len(b); i += 24 {
		if elf.R_X86_64(binary.LittleEndian.Uint64(b[i+8:])&0xffffffff) == elf.R_X86_64_RELATIVE {
			if off, ok := fileOffset(binary.LittleEndian.Uint64(b[i:])); ok {
				binary.LittleEndian.PutUint64(data[off:], 0) // left to the loader
			}
		}
	}

	r := &countingReader{r: bytes.NewReader(data), lo: int64(rela.Offset), hi: int64(rela.Offset + rela.Size)}
	a, err := native.NewAnalysis(r, int64(len(data)))
	is.NoErr(err)
	defer a.Close(ctx)
	procs, err := a.Procedures(ctx)
	is.NoErr(err)
	source := map[uint64]string{}
	for _, p := range procs {
		source[p.Address] = p.Source
	}
	fromInit := 0 // frame_dummy: no other table names it
	for _, v := range inits {
		if source[v] == "" {
			t.Errorf("%#x, the addend of an init array slot, is not a procedure start", v)
		}
		if source[v] == "init" {
			fromInit++
		}
	}
	is.True(fromInit > 0)
	// The PLT's slots are looked up in one walk (gotRelocs) and the
	// data-pointer pass makes another; a third is what a walk for the init
	// array cost, where the sample and the lookups read a few kilobytes.
	if r.n >= int64(rela.Size)*5/2 {
		t.Errorf("discovery read %d bytes of the %d-byte relocation table", r.n, rela.Size)
	}

	// Without DT_RELACOUNT (its tag made DT_DEBUG) the init array's slots
	// are found by a walk, with the same result.
	dyn := f.Section(".dynamic")
	is.True(dyn != nil)
	patched := false
	for i := dyn.Offset; i+16 <= dyn.Offset+dyn.Size; i += 16 {
		if elf.DynTag(binary.LittleEndian.Uint64(data[i:])) == elf.DT_RELACOUNT {
			binary.LittleEndian.PutUint64(data[i:], uint64(elf.DT_DEBUG))
			patched = true
		}
	}
	is.True(patched)
	walked, err := native.NewAnalysis(bytes.NewReader(data), int64(len(data)))
	is.NoErr(err)
	defer walked.Close(ctx)
	procs2, err := walked.Procedures(ctx)
	is.NoErr(err)
	is.Equal(procs2, procs)
}
