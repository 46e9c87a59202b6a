// Package identify recognises a target's format, kind and architecture from
// its headers (ELF, PE, Mach-O, ASAR, ZIP, tar, ar, JavaScript, source maps), as
// open_binary needs before any engine runs. It reads the headers by hand and
// never panics on what it reads. It imports the standard library only.
// Digest hashes a target's bytes for its identity.
package identify

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// Classify returns (format, kind, architecture) of a file from its first
// bytes (head) and its headers read through r, or "" when unrecognised.
// path is consulted only for suffixes a format has no magic for.
func Classify(r io.ReaderAt, size int64, head []byte, path string) (format, kind, arch string) {
	defer func() {
		// Standard-library parsers can panic on corrupt headers: a file whose
		// magic matched keeps its format with an unknown kind.
		if recover() != nil && format != "" {
			kind, arch = "unknown", ""
		}
	}()
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		format, kind = "elf", "unknown"
		if h, ok := elfHeader(r, size); ok {
			arch = elfArch(h.machine)
			switch h.typ {
			case elf.ET_EXEC:
				kind = "executable"
			case elf.ET_REL:
				kind = "object"
			case elf.ET_CORE:
				kind = "core"
			case elf.ET_DYN:
				kind = "shared-library"
				if h.interp {
					kind = "executable"
				}
			}
		}
		return
	case bytes.HasPrefix(head, []byte("MZ")):
		if len(head) < 64 {
			return "", "", "" // not even a complete DOS header
		}
		lfanew := int64(binary.LittleEndian.Uint32(head[0x3c:]))
		sig := make([]byte, 4)
		if n, _ := r.ReadAt(sig, lfanew); n < 4 || !bytes.Equal(sig, []byte("PE\x00\x00")) {
			return "dos-mz", "executable", ""
		}
		format, kind = "pe", "unknown"
		if f, ok := peHeader(r, lfanew+4); ok {
			switch f.Machine {
			case pe.IMAGE_FILE_MACHINE_AMD64:
				arch = "x86_64"
			case pe.IMAGE_FILE_MACHINE_I386:
				arch = "x86"
			case pe.IMAGE_FILE_MACHINE_ARM64:
				arch = "arm64"
			case pe.IMAGE_FILE_MACHINE_ARMNT, pe.IMAGE_FILE_MACHINE_ARM:
				arch = "arm"
			}
			kind = "executable"
			if f.Characteristics&pe.IMAGE_FILE_DLL != 0 {
				kind = "shared-library"
			}
			if ilOnly(r, lfanew+4) {
				arch = "cil" // a .NET assembly: its code is CIL whatever machine the header names
			}
		}
		return
	case len(head) >= 4 && isMachOMagic(binary.LittleEndian.Uint32(head)):
		format, kind = "mach-o", "unknown"
		if f, ok := machoHeader(r, 0); ok {
			arch = machoArch(f.Cpu)
			switch f.Type {
			case macho.TypeExec:
				kind = "executable"
			case macho.TypeDylib:
				kind = "shared-library"
			case macho.TypeObj:
				kind = "object"
			case macho.TypeBundle:
				kind = "bundle"
			}
		}
		return
	case len(head) >= 8 && binary.BigEndian.Uint32(head) == 0xcafebabe && binary.BigEndian.Uint32(head[4:]) < 32:
		format, kind = "mach-o-universal", "universal"
		if off := make([]byte, 4); readFull(r, off, 16) {
			if f, ok := machoHeader(r, int64(binary.BigEndian.Uint32(off))); ok {
				arch = machoArch(f.Cpu)
			}
		}
		return
	case len(head) >= 16 && binary.LittleEndian.Uint32(head) == 4 && bytes.HasPrefix(head[16:], []byte(`{"files"`)):
		return "asar", "archive", ""
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		switch ext {
		case ".apk", ".ipa", ".msix", ".appx":
			return ext[1:], "archive", ""
		}
		return "zip", "archive", ""
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}) && isTarHeader(gunzipBlock(head)):
		return "tar.gz", "archive", ""
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}) && (ext == ".tzst" || strings.HasSuffix(strings.ToLower(path), ".tar.zst")):
		// No zstd decoder in the standard library: the magic and the name.
		return "tar.zst", "archive", ""
	case isTarHeader(head):
		return "tar", "archive", ""
	case bytes.HasPrefix(head, []byte("!<arch>\n")) || bytes.HasPrefix(head, []byte("!<thin>\n")):
		return "ar", "archive", "" // a static library; a thin one names its members' files
	case ext == ".map" || (ext == ".json" && isSourceMap(head)):
		if isSourceMap(head) || ext == ".map" {
			return "source-map", "source-map", ""
		}
	case ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".jsx":
		return "javascript", "script", ""
	case bytes.HasPrefix(head, []byte("bplist00")) || ext == ".plist":
		return "plist", "property-list", ""
	}
	return "", "", ""
}

// gunzipBlock decompresses up to one tar block from the head of a gzip
// stream.
func gunzipBlock(head []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return nil
	}
	b := make([]byte, 512)
	n, _ := io.ReadFull(zr, b)
	return b[:n]
}

// isTarHeader reports a tar header block: the "ustar" magic (POSIX, GNU) or
// a matching header checksum (pre-POSIX tar).
func isTarHeader(b []byte) bool {
	if len(b) < 512 {
		return false
	}
	if bytes.HasPrefix(b[257:], []byte("ustar")) {
		return true
	}
	field := strings.Trim(string(b[148:156]), " \x00")
	want, err := strconv.ParseInt(field, 8, 64)
	if err != nil || field == "" {
		return false
	}
	var unsigned, signed int64
	for i, c := range b[:512] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return want == unsigned || want == signed
}

func isSourceMap(head []byte) bool {
	var probe struct {
		Version  json.Number `json:"version"`
		Mappings *string     `json:"mappings"`
		Sections []any       `json:"sections"`
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	_ = dec.Decode(&probe)
	return probe.Version == "3" || bytes.Contains(head, []byte(`"mappings"`))
}

func isMachOMagic(m uint32) bool {
	switch m {
	case macho.Magic32, macho.Magic64, 0xcefaedfe, 0xcffaedfe:
		return true
	}
	return false
}

func elfArch(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_386:
		return "x86"
	case elf.EM_AARCH64:
		return "arm64"
	case elf.EM_ARM:
		return "arm"
	}
	return ""
}

func machoArch(c macho.Cpu) string {
	switch c {
	case macho.CpuAmd64:
		return "x86_64"
	case macho.Cpu386:
		return "x86"
	case macho.CpuArm64:
		return "arm64"
	case macho.CpuArm:
		return "arm"
	}
	return ""
}

// Identification reads the headers by hand: debug/elf, debug/pe and
// debug/macho load symbol tables (and ELF's section-name table) while they
// parse, sized by counts a hostile file declares (a sparse 4 GiB file cost
// gigabytes here), and identification needs none of that.

func readFull(r io.ReaderAt, b []byte, off int64) bool {
	n, _ := r.ReadAt(b, off)
	return n == len(b)
}

type elfIdentity struct {
	machine elf.Machine
	typ     elf.Type
	interp  bool // a PT_INTERP program header
}

// elfHeader reads the ELF header and the program header types.
func elfHeader(r io.ReaderAt, size int64) (elfIdentity, bool) {
	var id elfIdentity
	h := make([]byte, 64)
	if !readFull(r, h[:52], 0) {
		return id, false
	}
	r.ReadAt(h[52:], 52)
	var bo binary.ByteOrder
	switch elf.Data(h[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		bo = binary.BigEndian
	default:
		return id, false
	}
	var phoff uint64
	var phentsize, phnum uint16
	switch elf.Class(h[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		phoff, phentsize, phnum = bo.Uint64(h[32:]), bo.Uint16(h[54:]), bo.Uint16(h[56:])
	case elf.ELFCLASS32:
		phoff, phentsize, phnum = uint64(bo.Uint32(h[28:])), bo.Uint16(h[42:]), bo.Uint16(h[44:])
	default:
		return id, false
	}
	id.typ, id.machine = elf.Type(bo.Uint16(h[16:])), elf.Machine(bo.Uint16(h[18:]))
	if phentsize < 4 || phoff >= uint64(size) {
		return id, true
	}
	// The table is read a window of whole headers at a time (a header
	// at a time was a system call per header: 60,000 of them for a
	// hostile file's table, twice per rea analyze).
	ent := uint64(phentsize)
	per := max(1, phWindow/ent)
	buf := make([]byte, min(per, uint64(phnum))*ent)
	for i := uint64(0); i < uint64(phnum); i += per {
		at := phoff + i*ent
		if at >= uint64(size) {
			break
		}
		n, _ := r.ReadAt(buf[:min(per, uint64(phnum)-i)*ent], int64(at))
		for k := uint64(0); k+4 <= uint64(n); k += ent {
			if elf.ProgType(bo.Uint32(buf[k:])) == elf.PT_INTERP {
				id.interp = true
				return id, true
			}
		}
	}
	return id, true
}

// phWindow is how many bytes of the program header table elfHeader reads
// at once.
const phWindow = 64 << 10

// peHeader reads the COFF file header at off.
func peHeader(r io.ReaderAt, off int64) (pe.FileHeader, bool) {
	var f pe.FileHeader
	b := make([]byte, 20)
	if !readFull(r, b, off) {
		return f, false
	}
	f.Machine, f.Characteristics = binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[18:])
	switch f.Machine { // the machines debug/pe accepts, as identification did through it
	case pe.IMAGE_FILE_MACHINE_AMD64, pe.IMAGE_FILE_MACHINE_ARM64, pe.IMAGE_FILE_MACHINE_ARMNT, pe.IMAGE_FILE_MACHINE_I386,
		pe.IMAGE_FILE_MACHINE_RISCV32, pe.IMAGE_FILE_MACHINE_RISCV64, pe.IMAGE_FILE_MACHINE_RISCV128, pe.IMAGE_FILE_MACHINE_UNKNOWN:
		return f, true
	}
	return f, false
}

// ilOnly reports whether the PE image whose COFF header is at off has a
// CLR header (data directory 14) with the ILONLY flag: a .NET assembly
// holding no native code.
func ilOnly(r io.ReaderAt, off int64) bool {
	le := binary.LittleEndian
	coff := make([]byte, 20)
	if !readFull(r, coff, off) {
		return false
	}
	nsec, optSize := int64(le.Uint16(coff[2:])), int64(le.Uint16(coff[16:]))
	opt := off + 20
	magic := make([]byte, 2)
	if !readFull(r, magic, opt) {
		return false
	}
	dirs := opt + 96 // PE32
	if le.Uint16(magic) == 0x20b {
		dirs = opt + 112 // PE32+
	}
	if dirs+15*8 > opt+optSize {
		return false
	}
	d := make([]byte, 8)
	if !readFull(r, d, dirs+14*8) {
		return false
	}
	rva := le.Uint32(d)
	if rva == 0 || le.Uint32(d[4:]) < 20 {
		return false
	}
	sec := make([]byte, 40)
	for i := range min(nsec, 96) {
		if !readFull(r, sec, opt+optSize+40*i) {
			return false
		}
		va, raw, ptr := le.Uint32(sec[12:]), le.Uint32(sec[16:]), le.Uint32(sec[20:])
		if rva < va || rva-va >= raw || rva-va > raw-20 {
			continue
		}
		h := make([]byte, 20)
		return readFull(r, h, int64(ptr)+int64(rva-va)) && le.Uint32(h[16:])&1 != 0
	}
	return false
}

// machoHeader reads the Mach-O header at off.
func machoHeader(r io.ReaderAt, off int64) (macho.FileHeader, bool) {
	var f macho.FileHeader
	b := make([]byte, 28)
	if !readFull(r, b, off) {
		return f, false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch m := binary.BigEndian.Uint32(b); m {
	case macho.Magic32, macho.Magic64:
		bo = binary.BigEndian
	default:
		if !isMachOMagic(binary.LittleEndian.Uint32(b)) {
			return f, false
		}
	}
	f.Magic, f.Cpu, f.Type = bo.Uint32(b), macho.Cpu(bo.Uint32(b[4:])), macho.Type(bo.Uint32(b[12:]))
	return f, true
}

// Digest is the SHA-256 of r's bytes from offset 0 to the end, in hex. It
// stops with ctx's error when ctx ends.
func Digest(ctx context.Context, r io.ReaderAt) (string, error) {
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); ; {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := r.ReadAt(buf, off)
		off += int64(n)
		for b := buf[:n]; len(b) > 0; b = b[min(len(b), 64<<10):] { // short assembly calls, so the GC can preempt between them
			h.Write(b[:min(len(b), 64<<10)])
		}
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}
