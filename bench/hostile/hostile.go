// Package hostile writes hostile inputs whose headers claim far more than
// they hold: sparse ELF, Mach-O and PE files with huge symbol tables, a ZIP
// of nested ASARs that inflates to about 1 GiB, and a source map with 100k
// sources. The files are sparse where they can be, so a 4 GiB ELF takes a
// few kilobytes of disk. Measure runs a command as a child and reports its
// peak resident set, killing it when it passes a bound.
//
// The memory-limited test (cmd/rea) and the benchmark (bench/hostile/run.sh)
// share it. Standard library only.
package hostile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Case is one hostile input on disk.
type Case struct {
	Name string
	Path string
	// Kind says how rea reads it: "binary" (rea analyze), "archive" (rea
	// inventory) or "javascript" (rea analyze-javascript-application).
	Kind string
	// Size is the file's apparent size; Disk the bytes it holds on disk
	// (for a directory, the sums over its files).
	Size, Disk int64
}

// Set selects the cases Write produces.
type Set struct {
	ELFDynsymMiB []int64 // .dynsym sizes, e.g. 64, 256, 512
	ELFSparse    bool    // a 4 GiB ELF whose .symtab fills it
	ELFRodataMiB int64   // a sparse .rodata of this size (0 for none)
	MachOSyms    int64   // Mach-O LC_SYMTAB count (0 for none)
	PESyms       int64   // PE COFF symbol count (0 for none)
	NestedASARs  int     // ASAR members of the nested-archive ZIP (0 for none)
	ASARMiB      int64   // inflated size of each nested ASAR
	MapSources   int     // sources of the giant source map (0 for none)
	SelfMain     bool    // an app requiring a package whose "main" is "." (itself)
}

// Full is the set the issue measured.
var Full = Set{
	ELFDynsymMiB: []int64{64, 256, 512}, ELFSparse: true, ELFRodataMiB: 2048,
	MachOSyms: 16 << 20, PESyms: 16 << 20,
	NestedASARs: 4, ASARMiB: 255, MapSources: 100_000, SelfMain: true,
}

// Write creates the cases of s under dir.
func Write(dir string, s Set) ([]Case, error) {
	var out []Case
	add := func(name, kind string, write func(string) error) error {
		p := filepath.Join(dir, name)
		if err := write(p); err != nil {
			return fmt.Errorf("hostile: %s: %w", name, err)
		}
		size, disk, err := usage(p)
		if err != nil {
			return fmt.Errorf("hostile: %s: %w", name, err)
		}
		out = append(out, Case{Name: name, Path: p, Kind: kind, Size: size, Disk: disk})
		return nil
	}
	for _, mib := range s.ELFDynsymMiB {
		if err := add(fmt.Sprintf("elf-dynsym-%dm", mib), "binary", func(p string) error { return writeELF(p, mib<<20, true) }); err != nil {
			return nil, err
		}
	}
	if s.ELFSparse {
		if err := add("elf-symtab-4g", "binary", func(p string) error { return writeELF(p, 4<<30-64<<10, false) }); err != nil {
			return nil, err
		}
	}
	if s.ELFRodataMiB > 0 {
		if err := add(fmt.Sprintf("elf-rodata-%dm", s.ELFRodataMiB), "binary", func(p string) error { return writeELFRodata(p, s.ELFRodataMiB<<20) }); err != nil {
			return nil, err
		}
	}
	if s.MachOSyms > 0 {
		if err := add(fmt.Sprintf("macho-%dm-syms", s.MachOSyms>>20), "binary", func(p string) error { return writeMachO(p, s.MachOSyms) }); err != nil {
			return nil, err
		}
	}
	if s.PESyms > 0 {
		if err := add(fmt.Sprintf("pe-%dm-coff-syms", s.PESyms>>20), "binary", func(p string) error { return writePE(p, s.PESyms) }); err != nil {
			return nil, err
		}
	}
	if s.NestedASARs > 0 {
		if err := add(fmt.Sprintf("zip-%dx%dm-asar.zip", s.NestedASARs, s.ASARMiB), "archive", func(p string) error {
			return writeNestedZip(p, s.NestedASARs, s.ASARMiB<<20)
		}); err != nil {
			return nil, err
		}
	}
	if s.MapSources > 0 {
		if err := add(fmt.Sprintf("sourcemap-%dk", s.MapSources/1000), "javascript", func(p string) error { return writeSourceMapApp(p, s.MapSources) }); err != nil {
			return nil, err
		}
	}
	if s.SelfMain {
		if err := add("self-main-app", "javascript", writeSelfMainApp); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// usage is the apparent size and the allocated bytes of p (summed over a
// directory's files).
func usage(p string) (size, disk int64, err error) {
	err = filepath.Walk(p, func(q string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		size += info.Size()
		disk += allocated(info)
		return nil
	})
	return size, disk, err
}

// sparse creates p with the given apparent size and writes the chunks at
// their offsets; everything else is a hole.
func sparse(p string, size int64, chunks map[int64][]byte) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	for off, b := range chunks {
		if _, err := f.WriteAt(b, off); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

var le = binary.LittleEndian

// writeELF writes an x86-64 ELF shared object whose symbol table (.dynsym
// when dyn, else .symtab) is table bytes long: one real function symbol
// ("main"), then zeros.
func writeELF(p string, table int64, dyn bool) error {
	const (
		textOff   = 0x1000
		strOff    = 0x1100
		shstrOff  = 0x1200
		tableOff  = 0x2000
		textAddr  = 0x401000
		nSections = 5
	)
	table -= table % 24
	shoff := int64(tableOff) + table
	size := shoff + nSections*64

	ehdr := make([]byte, 64)
	copy(ehdr, "\x7fELF\x02\x01\x01")
	le.PutUint16(ehdr[16:], 3)  // ET_DYN
	le.PutUint16(ehdr[18:], 62) // EM_X86_64
	le.PutUint32(ehdr[20:], 1)
	le.PutUint64(ehdr[24:], textAddr)
	le.PutUint64(ehdr[40:], uint64(shoff))
	le.PutUint16(ehdr[52:], 64)
	le.PutUint16(ehdr[58:], 64)
	le.PutUint16(ehdr[60:], nSections)
	le.PutUint16(ehdr[62:], 4) // .shstrtab

	text := []byte{0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x5d, 0xc3}
	strtab := []byte("\x00main\x00")
	tabName, strName, tabType := ".symtab", ".strtab", uint32(2)
	if dyn {
		tabName, strName, tabType = ".dynsym", ".dynstr", 11
	}
	shstr := []byte("\x00.text\x00" + strName + "\x00" + tabName + "\x00.shstrtab\x00")
	name := func(s string) uint32 { return uint32(bytes.Index(shstr, []byte("\x00"+s+"\x00")) + 1) }

	sym := make([]byte, 48) // the null symbol, then main
	le.PutUint32(sym[24:], 1)
	sym[24+4] = 1<<4 | 2 // STB_GLOBAL, STT_FUNC
	le.PutUint16(sym[24+6:], 1)
	le.PutUint64(sym[24+8:], textAddr)
	le.PutUint64(sym[24+16:], uint64(len(text)))

	sh := make([]byte, nSections*64)
	put := func(i int, name, typ uint32, flags, addr, off, size uint64, link, info uint32, align, entsize uint64) {
		h := sh[i*64:]
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[8:], flags)
		le.PutUint64(h[16:], addr)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
		le.PutUint32(h[40:], link)
		le.PutUint32(h[44:], info)
		le.PutUint64(h[48:], align)
		le.PutUint64(h[56:], entsize)
	}
	put(1, name(".text"), 1, 0x6, textAddr, textOff, uint64(len(text)), 0, 0, 16, 0)
	put(2, name(strName), 3, 0x2, 0, strOff, uint64(len(strtab)), 0, 0, 1, 0)
	put(3, name(tabName), tabType, 0x2, 0, tableOff, uint64(table), 2, 1, 8, 24)
	put(4, name(".shstrtab"), 3, 0, 0, shstrOff, uint64(len(shstr)), 0, 0, 1, 0)
	return sparse(p, size, map[int64][]byte{0: ehdr, textOff: text, strOff: strtab, shstrOff: shstr, tableOff: sym, shoff: sh})
}

// writeELFRodata writes an x86-64 ELF executable whose .rodata is size
// bytes of holes with a few strings at its start, middle and end: the
// strings scan must not cost the section.
func writeELFRodata(p string, size int64) error {
	const (
		textOff   = 0x1000
		shstrOff  = 0x1100
		roOff     = 0x2000
		textAddr  = 0x401000
		nSections = 4
	)
	roAddr := uint64(0x800000)
	shoff := roOff + size
	ehdr := make([]byte, 64)
	copy(ehdr, "\x7fELF\x02\x01\x01")
	le.PutUint16(ehdr[16:], 2)  // ET_EXEC
	le.PutUint16(ehdr[18:], 62) // EM_X86_64
	le.PutUint32(ehdr[20:], 1)
	le.PutUint64(ehdr[24:], textAddr)
	le.PutUint64(ehdr[40:], uint64(shoff))
	le.PutUint16(ehdr[52:], 64)
	le.PutUint16(ehdr[58:], 64)
	le.PutUint16(ehdr[60:], nSections)
	le.PutUint16(ehdr[62:], 3) // .shstrtab

	text := []byte{0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x5d, 0xc3}
	shstr := []byte("\x00.text\x00.rodata\x00.shstrtab\x00")
	name := func(s string) uint32 { return uint32(bytes.Index(shstr, []byte("\x00"+s+"\x00")) + 1) }
	sh := make([]byte, nSections*64)
	put := func(i int, name, typ uint32, flags, addr, off, size uint64) {
		h := sh[i*64:]
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[8:], flags)
		le.PutUint64(h[16:], addr)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
		le.PutUint64(h[48:], 1)
	}
	put(1, name(".text"), 1, 0x6, textAddr, textOff, uint64(len(text)))
	put(2, name(".rodata"), 1, 0x2, roAddr, roOff, uint64(size))
	put(3, name(".shstrtab"), 3, 0, 0, shstrOff, uint64(len(shstr)))
	str := func(s string) []byte { return append([]byte(s), 0) }
	return sparse(p, shoff+nSections*64, map[int64][]byte{
		0: ehdr, textOff: text, shstrOff: shstr, shoff: sh,
		roOff:             str("hostile rodata first string"),
		roOff + size/2:    str("hostile rodata middle string"),
		roOff + size - 64: str("hostile rodata last string"),
	})
}

// writeMachO writes an x86-64 Mach-O executable whose LC_SYMTAB claims n
// symbols: one real (_main), then zeros.
func writeMachO(p string, n int64) error {
	const (
		textOff = 0xf00
		symOff  = 0x2000
		base    = 0x100000000
	)
	strtab := []byte("\x00_main\x00\x00")
	strOff := int64(symOff) + n*16
	size := strOff + int64(len(strtab))

	var lc bytes.Buffer
	u32 := func(v uint32) { binary.Write(&lc, le, v) }
	u64 := func(v uint64) { binary.Write(&lc, le, v) }
	name16 := func(s string) { b := make([]byte, 16); copy(b, s); lc.Write(b) }
	// LC_SEGMENT_64 __TEXT with one section.
	u32(0x19)
	u32(72 + 80)
	name16("__TEXT")
	u64(base)
	u64(0x1000)
	u64(0)
	u64(0x1000)
	u32(5)
	u32(5)
	u32(1)
	u32(0)
	name16("__text")
	name16("__TEXT")
	u64(base + textOff)
	u64(8)
	u32(textOff)
	u32(0)
	u32(0)
	u32(0)
	u32(0x80000400)
	u32(0)
	u32(0)
	u32(0)
	// LC_SYMTAB
	u32(2)
	u32(24)
	u32(symOff)
	u32(uint32(n))
	u32(uint32(strOff))
	u32(uint32(len(strtab)))

	hdr := make([]byte, 32)
	le.PutUint32(hdr[0:], 0xfeedfacf)
	le.PutUint32(hdr[4:], 0x01000007)
	le.PutUint32(hdr[8:], 3)
	le.PutUint32(hdr[12:], 2) // MH_EXECUTE
	le.PutUint32(hdr[16:], 2)
	le.PutUint32(hdr[20:], uint32(lc.Len()))
	head := append(hdr, lc.Bytes()...)

	sym := make([]byte, 16)
	le.PutUint32(sym[0:], 1)
	sym[4] = 0x0f // N_SECT | N_EXT
	sym[5] = 1
	le.PutUint64(sym[8:], base+textOff)
	text := []byte{0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x5d, 0xc3}
	return sparse(p, size, map[int64][]byte{0: head, textOff: text, symOff: sym, strOff: strtab})
}

// writePE writes an x86-64 PE whose COFF header claims n symbols: one real
// (main), then zeros, then an empty string table.
func writePE(p string, n int64) error {
	const (
		peOff  = 0x80
		textAt = 0x200
		symOff = 0x400
	)
	strOff := int64(symOff) + n*18
	size := strOff + 4
	h := make([]byte, 0x200)
	copy(h, "MZ")
	le.PutUint32(h[0x3c:], peOff)
	copy(h[peOff:], "PE\x00\x00")
	c := h[peOff+4:]
	le.PutUint16(c[0:], 0x8664)
	le.PutUint16(c[2:], 1)
	le.PutUint32(c[8:], symOff)
	le.PutUint32(c[12:], uint32(n))
	le.PutUint16(c[16:], 240)
	le.PutUint16(c[18:], 0x22)
	o := c[20:]
	le.PutUint16(o[0:], 0x20b)
	le.PutUint32(o[4:], 0x200)
	le.PutUint32(o[16:], 0x1000)
	le.PutUint32(o[20:], 0x1000)
	le.PutUint64(o[24:], 0x140000000)
	le.PutUint32(o[32:], 0x1000)
	le.PutUint32(o[36:], 0x200)
	le.PutUint16(o[40:], 6)
	le.PutUint16(o[48:], 6)
	le.PutUint32(o[56:], 0x2000)
	le.PutUint32(o[60:], 0x200)
	le.PutUint16(o[68:], 3)
	le.PutUint32(o[108:], 16)
	s := o[240:]
	copy(s, ".text")
	le.PutUint32(s[8:], 8)
	le.PutUint32(s[12:], 0x1000)
	le.PutUint32(s[16:], 0x200)
	le.PutUint32(s[20:], textAt)
	le.PutUint32(s[36:], 0x60000020)
	text := []byte{0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x5d, 0xc3}
	sym := make([]byte, 18)
	copy(sym, "main")
	le.PutUint16(sym[12:], 1)
	le.PutUint16(sym[14:], 0x20)
	sym[16] = 2
	strs := make([]byte, 4)
	le.PutUint32(strs, 4)
	return sparse(p, size, map[int64][]byte{0: h, textAt: text, symOff: sym, strOff: strs})
}

// asarHeader is the pickled header of an ASAR holding one file of size n.
func asarHeader(n int64) []byte {
	js, _ := json.Marshal(map[string]any{"files": map[string]any{"big.bin": map[string]any{"size": n, "offset": "0"}}})
	str := len(js)
	pad := (4 - str%4) % 4
	payload := 4 + str + pad
	b := make([]byte, 16+str+pad)
	le.PutUint32(b[0:], 4)
	le.PutUint32(b[4:], uint32(payload+4))
	le.PutUint32(b[8:], uint32(payload))
	le.PutUint32(b[12:], uint32(str))
	copy(b[16:], js)
	return b
}

// writeNestedZip writes a ZIP of k identical deflated ASARs, each asarSize
// bytes once inflated, holding one mostly-zero file. The members are
// compressed once and stored k times, so writing is quick.
func writeNestedZip(p string, k int, asarSize int64) error {
	hdr := asarHeader(0)
	fileSize := asarSize - int64(len(hdr))
	hdr = asarHeader(fileSize)
	fileSize = asarSize - int64(len(hdr))
	hdr = asarHeader(fileSize)

	var comp bytes.Buffer
	crc := crc32.NewIEEE()
	fw, err := flate.NewWriter(&comp, flate.BestSpeed)
	if err != nil {
		return err
	}
	w := io.MultiWriter(fw, crc)
	w.Write(hdr)
	// Mostly zeros with a varying byte every 1 KiB keeps the ratio under
	// rea's default max_compression_ratio (1000) so the members are read.
	block := make([]byte, 1<<20)
	for left, i := fileSize, 0; left > 0; i++ {
		for j := 0; j < len(block); j += 1024 {
			block[j] = byte(i*31 + j/1024*7 + 1)
		}
		n := min(left, int64(len(block)))
		w.Write(block[:n])
		left -= n
	}
	if err := fw.Close(); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for i := range k {
		h := &zip.FileHeader{Name: fmt.Sprintf("resources/app%d.asar", i), Method: zip.Deflate,
			CRC32: crc.Sum32(), CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(asarSize)}
		rw, err := zw.CreateRaw(h)
		if err != nil {
			f.Close()
			return err
		}
		if _, err := rw.Write(comp.Bytes()); err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeSourceMapApp writes a directory holding a small bundle and its
// source map with n sources, each with about 100 bytes of content.
func writeSourceMapApp(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var m strings.Builder
	m.WriteString(`{"version":3,"file":"index.js","sources":[`)
	for i := range n {
		if i > 0 {
			m.WriteByte(',')
		}
		fmt.Fprintf(&m, `"src/module%06d.js"`, i)
	}
	m.WriteString(`],"sourcesContent":[`)
	for i := range n {
		if i > 0 {
			m.WriteByte(',')
		}
		fmt.Fprintf(&m, `"export function f%06d(a, b) {\n  return a + b + %d; // generated to fill the map\n}\n"`, i, i)
	}
	// One segment per source, all on the first generated line.
	m.WriteString(`],"names":[],"mappings":"AAAA`)
	for i := 1; i < n; i++ {
		m.WriteString(",CCAA")
	}
	m.WriteString(`"}`)
	js := "export function main(a, b) { return a + b; }\n//# sourceMappingURL=index.js.map\n"
	pkg := `{"name":"hostile-sourcemap","version":"1.0.0","main":"index.js"}` + "\n"
	for name, body := range map[string]string{"index.js": js, "index.js.map": m.String(), "package.json": pkg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeSelfMainApp writes an application that requires a package whose
// package.json names the package's own directory as its main ("."), as
// the fixtures of the npm package "resolve" do: resolving it must not
// recurse forever.
func writeSelfMainApp(dir string) error {
	files := map[string]string{
		"package.json":                  `{"name":"hostile-self-main","version":"1.0.0","main":"index.js"}` + "\n",
		"index.js":                      "const dep = require('dep');\nmodule.exports = dep;\n",
		"node_modules/dep/package.json": `{"name":"dep","version":"1.0.0","main":"."}` + "\n",
		"node_modules/dep/index.js":     "module.exports = 1;\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
