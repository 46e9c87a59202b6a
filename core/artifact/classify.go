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
	"tar": "application/x-tar", "tar.gz": "application/gzip", "tar.zst": "application/zstd",
	"ar": "application/x-archive",
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
	case 1: // ET_REL: gcc -c, a kernel module, a static library's member
		return "object", arch, false
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
	case 1: // MH_OBJECT
		return "object", arch, false
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
// and browserify's preludes. Each is searched for at one of its bytes that
// code seldom holds (rare), not at its first: bytes.Contains stops at every
// '_', '/', 'w' or 'f' of the head, for each of the thirteen marks, and
// that was most of classifying a JavaScript file.
var bundleMarks = [...]struct {
	mark []byte
	rare int
}{
	{[]byte("__webpack_require__"), 12}, {[]byte("__webpack_modules__"), 8}, {[]byte("webpackChunk"), 7}, {[]byte("webpackJsonp"), 7},
	{[]byte("/******/"), 1}, {[]byte("__commonJS("), 8}, {[]byte("__esm("), 1}, {[]byte("__toESM("), 6}, {[]byte("__toCommonJS("), 10},
	{[]byte("{exports:{}}).exports"), 2}, {[]byte("parcelRequire"), 8}, {[]byte("System.register("), 1},
	{[]byte("function r(e,n,t){function o(i,f)"), 12},
}

// containsAt reports whether s contains sep, searching for sep's byte at
// rare and comparing the rest around it.
func containsAt(s, sep []byte, rare int) bool {
	c := sep[rare]
	for i := rare; i < len(s); {
		j := bytes.IndexByte(s[i:], c)
		if j < 0 {
			return false
		}
		at := i + j - rare
		if at+len(sep) <= len(s) && string(s[at:at+len(sep)]) == string(sep) {
			return true
		}
		i += j + 1
	}
	return false
}

// jsFormat tells a JavaScript file a build produced from one written by
// hand: javascript-bundle when its first 4 KiB hold a bundler's runtime or
// a minifier's line (4 KiB without a line break, or a shorter line that
// reads as minified: minifiedLine; in a file under minLineBytes,
// shortMinified), or its end names a source map; else file (a plain
// module or script). A file whose source map sits beside it (x.js.map) is
// made a bundle when the graph is sealed.
func jsFormat(head, tail []byte) string {
	for _, m := range bundleMarks {
		if containsAt(head, m.mark, m.rare) {
			return "javascript-bundle"
		}
	}
	if len(head) >= 4096 && bytes.IndexByte(head, '\n') < 0 || minifiedLine(head) || shortMinified(head) {
		return "javascript-bundle"
	}
	if bytes.Contains(tail, []byte("sourceMappingURL=")) {
		return "javascript-bundle"
	}
	return "file"
}

// minLineBytes is the shortest line whose share of blanks and punctuation
// minifiedLine weighs: a shorter one holds too few characters for a ratio
// to tell a minifier's line from a compact hand-written one.
const minLineBytes = 128

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
		if len(line) < minLineBytes {
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

// shortMinified reports a whole file under minLineBytes (head is all of
// it) that reads as a minifier's output. Ratios mean little at that size;
// what can be told is whether the places where hand-written code (and
// every formatter) puts a blank have none: after a ';' that more code
// follows, on either side of an operator (=, ==, =>, +, *, <, &&, ?, ...),
// between ')' and '{', between a keyword and a following string, brace or
// operator (return"x", export{, else{) and between '}' and a following
// name (}export), after ',' in a call's arguments or a sequence; after
// ',' in a [ ] or { } list and after ':' too, but as minifiedLine asks for
// code rather than data, those count only when they have their blank (a
// generated table, module.exports={A:"..",B:1}, is not minified code). A
// file is minified when at least minifiedPlaces places of code have no
// blank and no place has one, outside strings and comments: esbuild's
// const t=(d,o)=>d+o;export{t as add}; and terser's export function
// greet(e){return"Hello, "+e} are, while console.log(1); or
// module.exports=require("./x"); show too few places to tell a minifier
// from a terse hand (file), and a hand-written one-liner spaces at least
// one of them.
func shortMinified(head []byte) bool {
	if len(head) >= minLineBytes {
		return false
	}
	declined, taken := 0, 0
	var open []byte // the brackets open at i
	// place counts a place with or without its blank; one that is not
	// code (in a literal's list) counts only with it.
	place := func(blank, code bool) {
		switch {
		case blank:
			taken++
		case code:
			declined++
		}
	}
	isBlank := func(c byte) bool { return c == ' ' || c == '\t' }
	isWord := func(c byte) bool {
		return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	isOp := func(c byte) bool { return strings.IndexByte("=+*%<>&|^?:!", c) >= 0 }
	// prev and next are the neighbours of head[i:j] on its line: 0 at a
	// line's end (no place there), ' ' for any blanks.
	prev := func(i int) byte {
		if i == 0 || head[i-1] == '\n' || head[i-1] == '\r' {
			return 0
		}
		if isBlank(head[i-1]) {
			return ' '
		}
		return head[i-1]
	}
	next := func(j int) byte {
		if j >= len(head) || head[j] == '\n' || head[j] == '\r' {
			return 0
		}
		if isBlank(head[j]) {
			return ' '
		}
		return head[j]
	}
	for i := 0; i < len(head); {
		c := head[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(head) && head[j] != c && (c == '`' || head[j] != '\n') {
				if head[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
			continue
		case c == '/' && i+1 < len(head) && head[i+1] == '/':
			for i < len(head) && head[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(head) && head[i+1] == '*':
			end := bytes.Index(head[i+2:], []byte("*/"))
			if end < 0 {
				return false
			}
			i += end + 4
			continue
		case c == ',' || c == ';':
			// Not before a closing bracket (a trailing comma) or another
			// ';' (for (;;)), nor before the line's end or a comment. A
			// ',' in a call's arguments or a sequence is code; in a
			// literal's list ([ or {) it may be data.
			k := i + 1
			for k < len(head) && isBlank(head[k]) {
				k++
			}
			if n := next(k); n != 0 && n != '/' && strings.IndexByte(")]};", n) < 0 && (c == ',' || n != '}') {
				list := len(open) > 0 && open[len(open)-1] != '('
				place(k > i+1, c == ';' || !list)
			}
		case c == '(' || c == '[' || c == '{':
			open = append(open, c)
		case c == ']':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case c == ')':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			j := i + 1
			for j < len(head) && isBlank(head[j]) {
				j++
			}
			if j < len(head) && head[j] == '{' {
				place(j > i+1, true)
			}
		case c == '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			if n := next(i + 1); n == ' ' || isWord(n) {
				j := i + 1
				for j < len(head) && isBlank(head[j]) {
					j++
				}
				if j < len(head) && isWord(head[j]) {
					place(n == ' ', true)
				}
			}
		case isOp(c):
			j := i
			for j < len(head) && isOp(head[j]) {
				j++
			}
			run := string(head[i:j])
			// Not unary (!x), increments, optional chaining (?.), a
			// colon (after it alone: {a: 1}) nor a line's edge.
			p, n := prev(i), next(j)
			switch {
			case run == "!" || run == "++" || run == "?" && n == '.':
			case run[0] == ':': // {a:!0} too
				if n != 0 && p != 0 {
					place(n == ' ', false)
				}
			case p != 0 && n != 0:
				place(p == ' ' || n == ' ', true)
			}
			i = j
			continue
		case isWord(c):
			j := i
			for j < len(head) && isWord(head[j]) {
				j++
			}
			if i > 0 && isWord(head[i-1]) {
				i = j
				continue
			}
			switch string(head[i:j]) {
			case "return", "typeof", "else", "default", "export", "import", "from", "void", "throw", "case", "try", "finally", "do":
				k := j
				for k < len(head) && isBlank(head[k]) {
					k++
				}
				// A name, a call, a member or the statement's end after
				// it says nothing (return x, from(...), return;).
				if k < len(head) && !isWord(head[k]) && strings.IndexByte("(.;)\n\r,", head[k]) < 0 {
					place(k > j, true)
				}
			}
			i = j
			continue
		}
		i++
	}
	return taken == 0 && declined >= minifiedPlaces
}

// minifiedPlaces is how many places without the blank hand-written code
// puts there make a short file minified (shortMinified).
const minifiedPlaces = 3
