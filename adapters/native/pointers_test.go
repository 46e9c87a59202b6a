package native_test

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// elfSymbols maps the .symtab names of path to their values and sizes,
// read with debug/elf rather than rea.
func elfSymbols(t *testing.T, path string) map[string]elf.Symbol {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]elf.Symbol{}
	for _, s := range syms {
		out[s.Name] = s
	}
	return out
}

func openNative(t *testing.T, path string) *native.Analysis {
	t.Helper()
	a, err := native.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(t.Context()) })
	return a
}

// pointerRefsTo lists the pointer references to addr.
func pointerRefsTo(t *testing.T, a *native.Analysis, addr uint64) []ports.Reference {
	t.Helper()
	refs, err := a.ReferencesTo(t.Context(), addr, addr+1)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(refs, func(r ports.Reference) bool { return r.Kind != ports.RefPointer })
}

// sectionOf returns a section's header, read with debug/elf.
func sectionOf(t *testing.T, path, name string) *elf.Section {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		t.Fatalf("%s has no %s section", path, name)
	}
	return s
}

// TestPointerReferences checks that a function stored in a table of
// function pointers, in a PIE (RELATIVE relocations) and without PIE
// (absolute words), and the init and fini arrays' entries, have a pointer
// reference from their slot, and that the two directions agree.
func TestPointerReferences(t *testing.T) {
	for _, name := range []string{"ptr-pie", "ptr-nopie", "clang-ptr-pie-lld", "clang-ptr-nopie"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			path := fixturePath(t, name)
			sym := elfSymbols(t, path)
			a := openNative(t, path)
			ops := sym["ops"].Value
			for k, fn := range []string{"add", "sub"} {
				refs := pointerRefsTo(t, a, sym[fn].Value)
				is.Equal(refs, []ports.Reference{{From: ops + uint64(8*k), To: sym[fn].Value, Kind: ports.RefPointer}}) // the slot in ops
			}
			from, err := a.ReferencesFrom(t.Context(), ops, ops+16)
			is.NoErr(err)
			is.Equal(from, []ports.Reference{ // the same two from the table's side
				{From: ops, To: sym["add"].Value, Kind: ports.RefPointer},
				{From: ops + 8, To: sym["sub"].Value, Kind: ports.RefPointer},
			})
			for sec, fn := range map[string]string{".init_array": "frame_dummy", ".fini_array": "__do_global_dtors_aux"} {
				at := sectionOf(t, path, sec).Addr
				is.True(slices.Contains(pointerRefsTo(t, a, sym[fn].Value), ports.Reference{From: at, To: sym[fn].Value, Kind: ports.RefPointer})) // an init or fini array entry
			}
		})
	}
}

// TestPointerReferencesFromRelocations checks that in a PIE the value of a
// slot is its relocation's addend, not the word in the file (zero in
// files from linkers that do not write it), and that a word no relocation
// fills is no pointer even when it equals a function's address.
func TestPointerReferencesFromRelocations(t *testing.T) {
	is := is.New(t)
	orig := fixturePath(t, "ptr-pie")
	sym := elfSymbols(t, orig)
	data := sectionOf(t, orig, ".data")
	b, err := os.ReadFile(orig)
	is.NoErr(err)
	ops := sym["ops"].Value
	at := func(addr uint64) []byte { return b[data.Offset+(addr-data.Addr):] }
	binary.LittleEndian.PutUint64(at(ops), 0)
	binary.LittleEndian.PutUint64(at(ops+8), 0)
	// .data starts with __data_start, a word no relocation fills.
	stray := sym["__data_start"].Value
	is.Equal(binary.LittleEndian.Uint64(at(stray)), uint64(0))
	binary.LittleEndian.PutUint64(at(stray), sym["main"].Value)
	path := filepath.Join(t.TempDir(), "ptr-pie-zeroed")
	is.NoErr(os.WriteFile(path, b, 0o755))

	a := openNative(t, path)
	is.Equal(pointerRefsTo(t, a, sym["add"].Value), []ports.Reference{{From: ops, To: sym["add"].Value, Kind: ports.RefPointer}})
	is.Equal(pointerRefsTo(t, a, sym["sub"].Value), []ports.Reference{{From: ops + 8, To: sym["sub"].Value, Kind: ports.RefPointer}})
	from, err := a.ReferencesFrom(t.Context(), stray, stray+8)
	is.NoErr(err)
	is.Equal(len(from), 0) // an unrelocated word is an integer, whatever its value
}

// TestPointerReferencesVtable checks a C++ virtual method called only
// through a base pointer: its only reference is its vtable slot.
func TestPointerReferencesVtable(t *testing.T) {
	for _, name := range []string{"vtable", "clang-vtable"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			path := fixturePath(t, name)
			sym := elfSymbols(t, path)
			a := openNative(t, path)
			area, vt := sym["_ZNK2Sq4areaEv"], sym["_ZTV2Sq"]
			is.True(area.Value != 0 && vt.Value != 0)
			refs, err := a.ReferencesTo(t.Context(), area.Value, area.Value+1)
			is.NoErr(err)
			is.Equal(len(refs), 1)
			r := refs[0]
			is.Equal(r.Kind, ports.RefPointer)
			is.True(r.From >= vt.Value && r.From < vt.Value+vt.Size) // the slot is in Sq's vtable
			is.Equal(r.From%8, uint64(0))
			is.Equal(sectionOf(t, path, ".data.rel.ro").Addr <= r.From, true)
		})
	}
}
