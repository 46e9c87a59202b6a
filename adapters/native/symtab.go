package native

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"unsafe"

	"rea/ports"
)

// Symbol tables are read here, entry by entry in bounded chunks, instead of
// through debug/elf, debug/macho and debug/pe, which materialise every
// entry (and a string per name) before anything is kept: a sparse file
// whose header claims 16M symbols cost gigabytes there. Memory now follows
// the symbols kept, which are bounded, not the count a header claims.
const (
	// maxSymbolEntries bounds the entries read from one symbol table
	// (384 MiB of ELF64 entries); the rest is reported as a limitation.
	maxSymbolEntries = 16 << 20
	// maxKeptSymbols bounds the symbols one analysis keeps across its
	// tables (procedures plus labels).
	maxKeptSymbols = 2 << 20
	// maxWholeStrtab is the largest string table read at once; a larger
	// one is read name by name.
	maxWholeStrtab = 64 << 20
	// maxSymbolName bounds one name read from a string table.
	maxSymbolName = 64 << 10
	// symbolChunk is the bytes of entries read per ReadAt.
	symbolChunk = 64 << 10
)

// keep reports whether the set may take one more symbol, noting the cut
// once when it may not.
func (set *symbolSet) keep() bool {
	if set.kept < maxKeptSymbols {
		set.kept++
		return true
	}
	if !set.cut {
		set.cut = true
		set.limit(fmt.Sprintf("The engine keeps at most %d symbols per binary; further symbols were not read, so procedures and names beyond them come only from discovery.", maxKeptSymbols))
	}
	return false
}

// limit records a limitation once.
func (set *symbolSet) limit(s string) {
	for _, l := range set.limits {
		if l == s {
			return
		}
	}
	set.limits = append(set.limits, s)
}

// symbolRange bounds the entries of a table of size bytes at off: it fails
// like the standard library did when the table is not whole entries or
// lies beyond the file, and cuts it at maxSymbolEntries with a limitation.
func symbolRange(src source, set *symbolSet, table string, off, size, entSize uint64) (uint64, error) {
	if size%entSize != 0 {
		return 0, &ports.FormatError{Format: src.format, Offset: int64(min(off, 1<<62)),
			Msg: fmt.Sprintf("symbol table %s of %d bytes is not a whole number of %d-byte entries", table, size, entSize)}
	}
	if !src.contains(off, size) {
		return 0, &ports.FormatError{Format: src.format, Offset: int64(min(off, 1<<62)),
			Msg: fmt.Sprintf("symbol table %s of %d bytes extends beyond the end of the file (%d bytes)", table, size, src.size)}
	}
	n := size / entSize
	if n > maxSymbolEntries {
		set.limit(fmt.Sprintf("Symbol table %s declares %d entries; the engine reads the first %d (its per-table limit), so later symbols are missing.", table, n, maxSymbolEntries))
		n = maxSymbolEntries
	}
	return n, nil
}

// maxPresize bounds the entries the symbol lists are sized for before the
// tables are read, so a table that declares many entries it then skips
// does not cost memory up front.
const maxPresize = 1 << 19

// presize gives the lists room for about n symbols (a declared count): a
// large binary's lists then grow without copying themselves again and
// again.
func (s *symbolSet) presize(n uint64) {
	n = min(n, maxPresize)
	s.procs = slices.Grow(s.procs, int(n))
	s.labels = slices.Grow(s.labels, int(n))
}

// eachEntry calls visit with each of the n entSize-byte entries at off,
// reading symbolChunk bytes at a time and checking ctx between chunks.
func eachEntry(ctx context.Context, src source, off, n, entSize uint64, visit func(i uint64, e []byte) error) error {
	per := max(symbolChunk/entSize, 1)
	buf := make([]byte, min(n, per)*entSize)
	for i := uint64(0); i < n; i += per {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(per, n-i)
		b := buf[:k*entSize]
		if m, err := src.r.ReadAt(b, int64(off+i*entSize)); m < len(b) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return &ports.FormatError{Format: src.format, Offset: int64(off + i*entSize), Msg: "symbol table: " + err.Error()}
		}
		if i > 0 && i%(1<<20) < per {
			ports.Observe(ctx, "symbols", fmt.Sprintf("%d of %d symbol entries", i, n))
		}
		for j := range k {
			if err := visit(i+j, b[j*entSize:(j+1)*entSize]); err != nil {
				return err
			}
		}
	}
	return nil
}

// strtab reads NUL-terminated names from a string table: whole when it is
// small, name by name otherwise. Names are interned by offset, so a table
// whose entries all point at one long name holds it once.
type strtab struct {
	ctx       context.Context // carries the call's memory account
	src       source
	off, size uint64
	data      string // the whole table, when read at once
	loaded    bool
	seen      map[uint32]string
	err       error  // the memory budget refused the whole table
	release   func() // returns the whole table's reservation
}

func newStrtab(ctx context.Context, src source, off, size uint64) *strtab {
	return &strtab{ctx: ctx, src: src, off: off, size: src.clamp(off, size), seen: map[uint32]string{}, release: func() {}}
}

// done drops the table and its reservation, and reports a refused one.
func (t *strtab) done() error {
	t.data, t.seen = "", nil
	t.release()
	return t.err
}

// name returns the name at offset i, or "" when it is outside the table or
// unreadable (as debug/elf and debug/pe did).
func (t *strtab) name(i uint32) string {
	if uint64(i) >= t.size {
		return ""
	}
	if t.data != "" {
		return t.whole(i)
	}
	if s, ok := t.seen[i]; ok {
		return s
	}
	if !t.loaded && t.size <= maxWholeStrtab {
		t.loaded = true
		release, err := ports.Reserve(t.ctx, "a symbol string table", int64(t.size))
		if err != nil {
			t.err = err
			return ""
		}
		t.release = release
		if b, err := t.src.read(t.off, t.size); err == nil {
			// The buffer is this table's own and never written again, so
			// it becomes the string the names are cut from: no copy, and no
			// allocation per name.
			t.data = unsafe.String(unsafe.SliceData(b), len(b))
		}
	}
	if t.err != nil {
		return ""
	}
	if t.data != "" {
		return t.whole(i)
	}
	s := t.read(uint64(i))
	t.seen[i] = s
	return s
}

// whole returns the name at offset i of the table read whole: a part of
// the table's string, without a copy or a lookup (names read from the file
// one at a time are remembered by offset). The names kept hold the table's
// bytes alive, about as many bytes as copies of them would take.
func (t *strtab) whole(i uint32) string {
	if k := strings.IndexByte(t.data[i:], 0); k >= 0 {
		return t.data[i : int(i)+k]
	}
	return ""
}

// read reads one name from the file: 256 bytes first, then up to
// maxSymbolName. A name without its NUL in that span (or before the end of
// the table) reads as "".
func (t *strtab) read(i uint64) string {
	for _, want := range []uint64{256, maxSymbolName} {
		n := min(want, t.size-i)
		b, err := t.src.read(t.off+i, n)
		if err != nil {
			return ""
		}
		if k := bytes.IndexByte(b, 0); k >= 0 {
			return string(b[:k])
		}
		if n < want {
			return ""
		}
	}
	return ""
}
