package native_test

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
)

// TestLayoutVersionsMatchDebugELF: the layout reads .dynsym's versions from
// the version sections alone, and names each symbol's as debug/elf's
// DynamicSymbols does (needed versions, defined ones, none), on the
// system's own programs and libraries.
func TestLayoutVersionsMatchDebugELF(t *testing.T) {
	var paths []string
	for _, p := range []string{"/usr/bin/ls", "/usr/bin/gdb", "/bin/sh"} {
		paths = append(paths, p)
	}
	libs, _ := filepath.Glob("/usr/lib/x86_64-linux-gnu/lib[cm].so.6")
	paths = append(paths, libs...)
	checked := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			continue
		}
		want, err := f.DynamicSymbols()
		if err != nil {
			continue
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			is := is.New(t)
			l, err := readLayout(t, data)
			is.NoErr(err)
			k, versioned := 0, 0
			for _, s := range l.Symbols {
				if s.Table != "dynsym" {
					continue
				}
				is.True(k < len(want))
				is.Equal(s.Version, want[k].Version) // symbol k+1
				if s.Version != "" {
					versioned++
				}
				k++
			}
			is.Equal(k, len(want))
			is.True(versioned > 0)
			checked++
		})
	}
	if checked == 0 {
		t.Skip("no dynamic ELF program with symbol versions here")
	}
}

// rangeReader records how many times each byte range is read.
type rangeReader struct {
	r     *bytes.Reader
	mu    sync.Mutex
	reads [][2]int64
}

func (c *rangeReader) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.reads = append(c.reads, [2]int64{off, off + int64(len(p))})
	c.mu.Unlock()
	return c.r.ReadAt(p, off)
}

// TestLayoutReadsSymbolTablesOnce: the layout reads each symbol table's
// entries and its string table once (it used to read .dynsym and .dynstr a
// second time through debug/elf's DynamicSymbols, for the versions).
func TestLayoutReadsSymbolTablesOnce(t *testing.T) {
	is := is.New(t)
	data, err := os.ReadFile("/usr/bin/ls")
	if err != nil {
		t.Skip("/usr/bin/ls is not here")
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	is.NoErr(err)
	cr := &rangeReader{r: bytes.NewReader(data)}
	_, err = native.New(nil).ReadLayout(t.Context(), cr, int64(len(data)))
	is.NoErr(err)
	for _, name := range []string{".dynsym", ".dynstr"} {
		s := f.Section(name)
		if s == nil {
			t.Fatalf("/usr/bin/ls has no %s", name)
		}
		n := 0
		for _, r := range cr.reads {
			if r[0] < int64(s.Offset+s.Size) && r[1] > int64(s.Offset) && r[1]-r[0] > 64 {
				n++ // a read of more than a header's bytes over the table
			}
		}
		if n != 1 {
			t.Errorf("%s: read %d times, want once", name, n)
		}
	}
}
