// Package winapi is the 32-bit Windows API's stack bytes: per DLL and
// export, how many bytes of arguments a call pops on return (stdcall's
// "@N", fastcall's past its two register words) or that the caller pops
// them (cdecl). The table is generated (go generate) from mingw-w64's i686
// import libraries and embedded compressed; it is read on the first
// lookup, so a program that never opens a 32-bit PE pays nothing.
//
// It imports the standard library only.
package winapi

//go:generate go run ./gen -o table.gz

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"io"
	"strconv"
	"strings"
	"sync"
)

//go:embed table.gz
var tableGz []byte

// Convention is how a function takes its stack arguments.
type Convention uint8

const (
	Cdecl    Convention = iota + 1 // the caller pops its arguments
	Stdcall                        // the callee pops Bytes
	Fastcall                       // the first two words in ecx and edx, the callee pops the rest
)

// Entry is what the table knows of one export.
type Entry struct {
	Convention Convention
	// Bytes is the argument bytes the decoration names (stdcall's and
	// fastcall's @N), 0 for cdecl, whose arguments the table does not
	// know.
	Bytes int
}

// Pops is how many bytes a call of the export pops on return: stdcall's
// all, fastcall's past the two register words, cdecl's none.
func (e Entry) Pops() int {
	switch e.Convention {
	case Stdcall:
		return e.Bytes
	case Fastcall:
		return max(0, e.Bytes-8)
	}
	return 0
}

// table is the table's text, "=dll" lines each followed by its exports'
// "name\tcode" lines (code "28" stdcall, "f8" fastcall, "c" cdecl), and
// each DLL's lines (from the newline before the first) by its name. Only
// the DLLs looked up are parsed into maps: decompressing the table takes
// about 10 ms and its 1.3 MB, maps of all its 61,000 exports twice that
// and 17 MB more.
type table struct {
	text string
	dlls map[string]string
	// parsed holds the exports of the DLLs looked up so far, by name.
	mu     sync.Mutex
	parsed map[string]map[string]string
}

// exports is DLL dll's exports' codes, by name, parsed on its first
// lookup; nil when the table does not hold the DLL.
func (t *table) exports(dll string) map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.parsed[dll]; ok {
		return m
	}
	lines, ok := t.dlls[dll]
	if !ok {
		return nil
	}
	m := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimPrefix(lines, "\n"), "\n") {
		if name, code, ok := strings.Cut(line, "\t"); ok {
			m[name] = code
		}
	}
	if t.parsed == nil {
		t.parsed = map[string]map[string]string{}
	}
	t.parsed[dll] = m
	return m
}

// load reads the table on first use (a package-level sync.OnceValue would
// be init code every rea process runs).
var loaded struct {
	sync.Once
	t *table
}

func load() *table {
	loaded.Do(func() { loaded.t = readTable() })
	return loaded.t
}

// readTable decompresses and indexes the embedded table.
func readTable() *table {
	r, err := gzip.NewReader(bytes.NewReader(tableGz))
	if err != nil {
		return &table{}
	}
	// One allocation of the text's size (gzip's trailer holds it), and
	// no copy of it into a string.
	var text strings.Builder
	if n := len(tableGz); n >= 4 {
		text.Grow(int(binary.LittleEndian.Uint32(tableGz[n-4:])))
	}
	if _, err := io.Copy(&text, r); err != nil {
		return &table{}
	}
	return index(text.String())
}

// index finds each DLL's lines in text.
func index(text string) *table {
	t := &table{text: text, dlls: map[string]string{}}
	for at := 0; at < len(text); {
		rest := text[at:]
		if !strings.HasPrefix(rest, "=") {
			break
		}
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		end := len(rest) // the next "=dll" line, or the end
		if k := strings.Index(rest[nl:], "\n="); k >= 0 {
			end = nl + k + 1
		}
		t.dlls[rest[1:nl]] = rest[nl:end]
		at += end
	}
	return t
}

// find returns the code of name in lines (the whole text) from offset,
// and where its line ends.
func find(lines, name string, from int) (code string, next int, ok bool) {
	k := strings.Index(lines[from:], "\n"+name+"\t")
	if k < 0 {
		return "", 0, false
	}
	at := from + k + len(name) + 2
	end := strings.IndexByte(lines[at:], '\n')
	if end < 0 {
		end = len(lines) - at
	}
	return lines[at : at+end], at + end, true
}

func parseCode(code string) (Entry, bool) {
	if code == "c" {
		return Entry{Convention: Cdecl}, true
	}
	conv := Stdcall
	if rest, ok := strings.CutPrefix(code, "f"); ok {
		conv, code = Fastcall, rest
	}
	n, err := strconv.Atoi(code)
	if err != nil || n < 0 {
		return Entry{}, false
	}
	return Entry{Convention: conv, Bytes: n}, true
}

// Lookup returns what the table knows of export name of dll, as an import
// table names them ("KERNEL32.dll", "kernel32", "CreateFileA"). The DLL
// decides: a name the table has under another DLL only is unknown (a
// program's own DLL may export a "connect" of its own), but for an API
// set ("api-ms-win-core-file-l1-1-0.dll"), a name for its host DLL, that
// the table does not hold, the name is looked up in every DLL and known
// when they agree.
func Lookup(dll, name string) (Entry, bool) {
	t := load()
	if name == "" || strings.ContainsAny(name, "\t\n") {
		return Entry{}, false
	}
	dll = NormalizeDLL(dll)
	if m := t.exports(dll); m != nil {
		if code, ok := m[name]; ok {
			return parseCode(code)
		}
		return Entry{}, false
	}
	if !strings.HasPrefix(dll, "api-ms-win-") && !strings.HasPrefix(dll, "ext-ms-win-") {
		return Entry{}, false
	}
	var e Entry
	n := 0
	for at := 0; ; n++ {
		code, next, ok := find(t.text, name, at)
		if !ok {
			break
		}
		c, ok := parseCode(code)
		if !ok || n > 0 && c != e {
			return Entry{}, false
		}
		e, at = c, next
	}
	return e, n > 0
}

// Size is how many DLLs and exports the table holds.
func Size() (dlls, exports int) {
	t := load()
	return len(t.dlls), strings.Count(t.text, "\n") - len(t.dlls)
}

// NormalizeDLL spells a DLL's name as the table does: lower case, with
// ".dll" when it has no extension (the loader's default).
func NormalizeDLL(dll string) string {
	dll = strings.ToLower(strings.TrimSpace(dll))
	if dll != "" && !strings.Contains(dll, ".") {
		dll += ".dll"
	}
	return dll
}
