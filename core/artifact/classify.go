package artifact

import (
	"bytes"
	"encoding/binary"
	"path"
	"strings"

	"rea/ports"
)

// artClass is what the first bytes and the name say about a file (§15.3
// node kind and format).
type artClass struct {
	kind, format, arch, media string
	executable                bool // the bytes are a runnable image or script, whatever the file mode
}

// classifyArtifact classifies a file from its name, its first bytes (head,
// up to 4 KiB), its last bytes (tail, up to tailBytes, kept for JavaScript
// only) and, for a universal Mach-O, 16 bytes at its first slice. It reads
// nothing else, so it works on bytes streamed out of a container.
func classifyArtifact(name string, head, tail, slice []byte, openers []ports.ContainerOpener) artClass {
	ext := strings.ToLower(path.Ext(name))
	lower := strings.ToLower(name)
	addon := ext == ".node"
	c := artClass{kind: "resource", format: "file", media: mediaTypes[ext]}
	if len(head) == 0 {
		c.kind = "unknown"
	}
	native := func(format, kind, arch string, exec bool) artClass {
		c.format, c.kind, c.arch, c.executable = format, kind, arch, exec
		if addon {
			c.kind = "native-addon"
		}
		switch format {
		case "elf":
			c.media = "application/x-elf"
		case "pe":
			c.media = "application/vnd.microsoft.portable-executable"
		default:
			c.media = "application/x-mach-binary"
		}
		return c
	}
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		kind, arch, exec := elfFacts(head)
		return native("elf", kind, arch, exec)
	case bytes.HasPrefix(head, []byte("MZ")):
		if kind, arch, exec, ok := peFacts(head); ok {
			return native("pe", kind, arch, exec)
		}
	case len(head) >= 28 && machoMagic(head) != nil:
		kind, arch, exec := machoFacts(head)
		return native("mach-o", kind, arch, exec)
	case universalSliceOffset(head) > 0:
		kind, exec := "unknown", false
		if len(slice) >= 16 && machoMagic(slice) != nil {
			kind, _, exec = machoFacts(slice)
		}
		return native("mach-o-universal", kind, "", exec)
	}
	for _, o := range openers {
		if f, ok := o.Recognize(head, name); ok {
			if !artifactFormats[f] {
				f = "unknown"
			}
			c.kind, c.format = "container", f
			if c.media == "" {
				c.media = containerMedia[f]
			}
			return c
		}
	}
	switch {
	case ext == ".dmg":
		c.kind, c.format = "container", "dmg"
	case bytes.HasPrefix(head, []byte("xar!")):
		c.kind, c.format = "container", "pkg"
	case ext == ".map":
		c.kind, c.format = "source-map", "source-map"
	case ext == ".js" || ext == ".mjs" || ext == ".cjs":
		c.kind, c.format = "javascript", jsFormat(head, tail)
	case lower == "package.json":
		c.kind = "package-metadata"
	case ext == ".entitlements" || ext == ".xcent":
		c.kind, c.format = "entitlements", "entitlements"
	case bytes.HasPrefix(head, []byte("bplist00")) || ext == ".plist" || bytes.Contains(head, []byte("<!DOCTYPE plist")):
		c.kind, c.format = "plist", "plist"
	case bytes.HasPrefix(head, []byte("#!")):
		c.executable = true
	}
	return c
}

var mediaTypes = map[string]string{
	".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript",
	".json": "application/json", ".map": "application/json",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".txt": "text/plain", ".md": "text/markdown",
	".xml": "application/xml", ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".ico": "image/vnd.microsoft.icon", ".wasm": "application/wasm",
	".woff": "font/woff", ".woff2": "font/woff2", ".plist": "application/x-plist",
}

var containerMedia = map[string]string{
	"zip": "application/zip", "apk": "application/vnd.android.package-archive", "ipa": "application/octet-stream",
	"msix": "application/msix", "appx": "application/appx", "asar": "application/x-asar",
}

// elfFacts reads e_type, e_machine and, for ET_DYN, whether a PT_INTERP
// program header makes it an executable (PIE) rather than a library.
func elfFacts(h []byte) (kind, arch string, exec bool) {
	if len(h) < 52 {
		return "unknown", "", false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h[5] == 2 {
		bo = binary.BigEndian
	}
	typ, mach := bo.Uint16(h[16:]), bo.Uint16(h[18:])
	switch mach {
	case 3:
		arch = "x86"
	case 62:
		arch = "x86_64"
	case 40:
		arch = "arm"
	case 183:
		arch = "arm64"
	}
	var phoff uint64
	var phentsize, phnum uint16
	if h[4] == 2 && len(h) >= 64 {
		phoff, phentsize, phnum = bo.Uint64(h[32:]), bo.Uint16(h[54:]), bo.Uint16(h[56:])
	} else {
		phoff, phentsize, phnum = uint64(bo.Uint32(h[28:])), bo.Uint16(h[42:]), bo.Uint16(h[44:])
	}
	interp := false
	for i := range uint64(phnum) {
		off := phoff + i*uint64(phentsize)
		if phentsize < 4 || off+4 > uint64(len(h)) {
			break
		}
		if bo.Uint32(h[off:]) == 3 { // PT_INTERP
			interp = true
		}
	}
	switch typ {
	case 2: // ET_EXEC
		return "executable", arch, true
	case 3: // ET_DYN
		if interp {
			return "executable", arch, true
		}
		return "dynamic-library", arch, false
	}
	return "unknown", arch, false
}

// peFacts reads the COFF header's machine and characteristics.
func peFacts(h []byte) (kind, arch string, exec, ok bool) {
	if len(h) < 64 {
		return "", "", false, false
	}
	off := int(binary.LittleEndian.Uint32(h[0x3c:]))
	if off < 0 || off+24 > len(h) || !bytes.Equal(h[off:off+4], []byte("PE\x00\x00")) {
		return "", "", false, false
	}
	switch binary.LittleEndian.Uint16(h[off+4:]) {
	case 0x8664:
		arch = "x86_64"
	case 0x14c:
		arch = "x86"
	case 0xaa64:
		arch = "arm64"
	case 0x1c0, 0x1c4:
		arch = "arm"
	}
	ch := binary.LittleEndian.Uint16(h[off+22:])
	switch {
	case ch&0x2000 != 0: // IMAGE_FILE_DLL
		return "dynamic-library", arch, false, true
	case ch&0x0002 != 0: // IMAGE_FILE_EXECUTABLE_IMAGE
		return "executable", arch, true, true
	}
	return "unknown", arch, false, true
}

func machoMagic(h []byte) binary.ByteOrder {
	if len(h) < 4 {
		return nil
	}
	switch binary.LittleEndian.Uint32(h) {
	case 0xfeedface, 0xfeedfacf:
		return binary.LittleEndian
	case 0xcefaedfe, 0xcffaedfe:
		return binary.BigEndian
	}
	return nil
}

// machoFacts reads cputype and filetype of a thin Mach-O header.
func machoFacts(h []byte) (kind, arch string, exec bool) {
	bo := machoMagic(h)
	if bo == nil || len(h) < 16 {
		return "unknown", "", false
	}
	switch bo.Uint32(h[4:]) {
	case 7:
		arch = "x86"
	case 0x01000007:
		arch = "x86_64"
	case 12:
		arch = "arm"
	case 0x0100000c:
		arch = "arm64"
	}
	switch bo.Uint32(h[12:]) {
	case 2: // MH_EXECUTE
		return "executable", arch, true
	case 6: // MH_DYLIB
		return "dynamic-library", arch, false
	case 8: // MH_BUNDLE
		return "dynamic-library", arch, false
	case 0xc: // MH_KEXT_BUNDLE
		return "dynamic-library", arch, false
	}
	return "unknown", arch, false
}

// universalSliceOffset returns the file offset of a universal (fat)
// Mach-O's first slice, or 0 when head is not one. Java class files share
// the magic; their version numbers make nfat_arch implausibly large.
func universalSliceOffset(h []byte) int64 {
	if len(h) < 28 || binary.BigEndian.Uint32(h) != 0xcafebabe {
		return 0
	}
	n := binary.BigEndian.Uint32(h[4:])
	if n == 0 || n >= 32 {
		return 0
	}
	off := int64(binary.BigEndian.Uint32(h[16:]))
	if off < 28 {
		return 0
	}
	return off
}

// CompanionTwin returns, for a logical path inside an ASAR's unpacked
// companion directory ("app.asar.unpacked/native/x.node"), the path of the
// same entry inside the expanded ASAR ("app.asar/native/x.node"): the ASAR
// reads that entry's bytes from the companion file, so an inventory of the
// directory holding both lists one file twice. ok is false for any other
// path.
func CompanionTwin(p string) (twin string, ok bool) {
	const dir = ".asar.unpacked"
	for i := 0; i < len(p); {
		j := strings.Index(p[i:], dir+"/")
		if j < 0 {
			return "", false
		}
		j += i
		if j > 0 && p[j-1] != '/' {
			return p[:j] + ".asar/" + p[j+len(dir)+1:], true
		}
		i = j + len(dir) + 1
	}
	return "", false
}

// tailBytes is how much of a JavaScript file's end classification sees:
// a sourceMappingURL comment is the file's last line.
const tailBytes = 512

// bundleMarks are bundler runtimes' names and shapes, as they appear in a
// bundle's first 4 KiB: webpack's bootstrap and chunk loading, esbuild's
// helpers (named, or minified to their body's shape), Parcel's, SystemJS's
// and browserify's preludes.
var bundleMarks = [][]byte{
	[]byte("__webpack_require__"), []byte("__webpack_modules__"), []byte("webpackChunk"), []byte("webpackJsonp"), []byte("/******/"),
	[]byte("__commonJS("), []byte("__esm("), []byte("__toESM("), []byte("__toCommonJS("), []byte("{exports:{}}).exports"),
	[]byte("parcelRequire"), []byte("System.register("), []byte("function r(e,n,t){function o(i,f)"),
}

// jsFormat tells a JavaScript file a build produced from one written by
// hand: javascript-bundle when its first 4 KiB hold a bundler's runtime or
// a minifier's line (4 KiB without a line break, or a shorter line that
// reads as minified: minifiedLine), or its end names a source map; else file (a plain module or script). A file whose source
// map sits beside it (x.js.map) is made a bundle when the graph is sealed.
func jsFormat(head, tail []byte) string {
	for _, m := range bundleMarks {
		if bytes.Contains(head, m) {
			return "javascript-bundle"
		}
	}
	if len(head) >= 4096 && bytes.IndexByte(head, '\n') < 0 || minifiedLine(head) {
		return "javascript-bundle"
	}
	if bytes.Contains(tail, []byte("sourceMappingURL=")) {
		return "javascript-bundle"
	}
	return "file"
}

// minifiedLine reports a line in head that reads as a minifier's output,
// so a minified file under 4 KiB is told apart: at least 128 bytes, under
// 6% of them blanks (hand-written code indents and spaces its operators:
// 10% and more), and code rather than data (a ';' or '{' per 64 bytes, so
// a long array of numbers or a base64 literal is not one). esbuild's and
// terser's output have about 3% blanks and a ';' or '{' every 10 bytes.
func minifiedLine(head []byte) bool {
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if len(line) < 128 {
			continue
		}
		blanks := bytes.Count(line, []byte{' '}) + bytes.Count(line, []byte{'\t'})
		if blanks*100 >= 6*len(line) {
			continue
		}
		if code := bytes.Count(line, []byte{';'}) + bytes.Count(line, []byte{'{'}); code*64 >= len(line) {
			return true
		}
	}
	return false
}
