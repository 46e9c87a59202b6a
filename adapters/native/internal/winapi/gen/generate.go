package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"rea/adapters/native/internal/winapi"
)

// generate reads mingw-w64's i686 import libraries (lib*.a in dir,
// /usr/i686-w64-mingw32/lib on Debian) and returns the table's text: per
// DLL, each export's stack bytes (see Table). An archive's members are
// of three kinds. dlltool's import stubs are COFF objects: a stub's
// .idata$6 holds the hint and the name the import table will carry (none
// when it imports by ordinal, which .idata$4 then holds), its symbols the
// decorated name ("_CreateFileA@28", "@Name@8", "_printf"), and its
// .idata$7 a relocation against the "__head_…" symbol of the archive's
// head member, whose undefined "…_iname" symbol the tail member defines
// in its .idata$7 at the DLL's name. So the DLL is read from the
// descriptor, not guessed from the archive's name (libwindowsapp.a holds
// many DLLs', libws2_32.a is WS2_32.dll). llvm-dlltool's short import
// objects (signature 0, 0xffff) carry the name and the DLL themselves.
// Members of any other kind (static code: libmingwex.a) are skipped.
// Exports without code (data: msvcrt's _iob) are left out.
//
// An export listed more than once for one DLL (aliases, the same DLL in
// several archives) keeps its bytes when they agree and is left out when
// they do not; Stats.Conflicts lists those.
func generate(dir string) (text []byte, st Stats, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "lib*.a"))
	if err != nil {
		return nil, st, err
	}
	if len(paths) == 0 {
		return nil, st, fmt.Errorf("gen: no import libraries in %s", dir)
	}
	slices.Sort(paths)
	all := map[string]map[string]string{} // dll -> name -> code
	bad := map[string]map[string]bool{}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, st, err
		}
		stubs, err := readLibrary(b)
		if err != nil {
			return nil, st, fmt.Errorf("gen: %s: %w", filepath.Base(path), err)
		}
		for _, s := range stubs {
			dll := winapi.NormalizeDLL(s.dll)
			if all[dll] == nil {
				all[dll], bad[dll] = map[string]string{}, map[string]bool{}
			}
			switch old, ok := all[dll][s.name]; {
			case bad[dll][s.name]:
			case ok && old != s.code:
				delete(all[dll], s.name)
				bad[dll][s.name] = true
				st.Conflicts = append(st.Conflicts, dll+" "+s.name)
			default:
				all[dll][s.name] = s.code
			}
		}
	}
	var out bytes.Buffer
	for _, dll := range slices.Sorted(mapKeys(all)) {
		if len(all[dll]) == 0 {
			continue
		}
		st.DLLs++
		fmt.Fprintf(&out, "=%s\n", dll)
		for _, name := range slices.Sorted(mapKeys(all[dll])) {
			st.Entries++
			fmt.Fprintf(&out, "%s\t%s\n", name, all[dll][name])
		}
	}
	return out.Bytes(), st, nil
}

// Stats counts what Generate read.
type Stats struct {
	DLLs, Entries int
	Conflicts     []string // "dll name" of the exports left out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// stub is one function an import library imports: its DLL as the
// descriptor spells it, its name in the import table ("#N" by ordinal)
// and its code in the table's text ("28", "c", "f8").
type stub struct {
	dll, name, code string
}

// member is an archive member's COFF object, read for what the DLL
// resolution needs.
type member struct {
	stub    *stub  // an import stub's name and code, its dll not yet known
	head    string // the "__head_…" symbol a stub's .idata$7 refers to
	defHead string // the "__head_…" symbol a head member defines…
	iname   string // …and the "…_iname" symbol it refers to
	defName string // the "…_iname" symbol a tail member defines…
	dll     string // …at this DLL name
}

// readLibrary lists the functions one import library imports.
func readLibrary(b []byte) ([]stub, error) {
	const magic = "!<arch>\n"
	if !bytes.HasPrefix(b, []byte(magic)) {
		return nil, errors.New("not an ar archive")
	}
	var members []member
	var out []stub
	for off := len(magic); off+60 <= len(b); {
		h := b[off : off+60]
		size, err := strconv.Atoi(strings.TrimSpace(string(h[48:58])))
		if err != nil || size < 0 || off+60+size > len(b) {
			return nil, fmt.Errorf("bad member header at offset %d", off)
		}
		name := strings.TrimSpace(string(h[:16]))
		data := b[off+60 : off+60+size]
		off += 60 + size + size%2
		if name == "/" || name == "//" || name == "/SYM64/" {
			continue
		}
		if len(data) >= 20 && binary.LittleEndian.Uint16(data) == 0 && binary.LittleEndian.Uint16(data[2:]) == 0xffff {
			if s, ok := shortImport(data); ok {
				out = append(out, s)
			}
			continue
		}
		if m, ok := coffMember(data); ok {
			members = append(members, m)
		}
	}
	inames, dlls := map[string]string{}, map[string]string{}
	for _, m := range members {
		if m.defHead != "" {
			inames[m.defHead] = m.iname
		}
		if m.defName != "" {
			dlls[m.defName] = m.dll
		}
	}
	for _, m := range members {
		if m.stub == nil {
			continue
		}
		dll := dlls[inames[m.head]]
		if dll == "" {
			continue // a stub whose descriptor the archive does not hold
		}
		s := *m.stub
		s.dll = dll
		out = append(out, s)
	}
	return out, nil
}

// shortImport reads a short import object (Microsoft's and llvm-dlltool's
// import library format): its header, then the symbol and the DLL's name.
func shortImport(data []byte) (stub, bool) {
	le := binary.LittleEndian
	if le.Uint16(data[6:]) != pe.IMAGE_FILE_MACHINE_I386 {
		return stub{}, false
	}
	ordinal, typ := le.Uint16(data[16:]), le.Uint16(data[18:])
	rest := data[20:]
	sym, rest, ok := bytes.Cut(rest, []byte{0})
	if !ok {
		return stub{}, false
	}
	dll, _, ok := bytes.Cut(rest, []byte{0})
	if !ok || typ&3 != 0 { // IMPORT_OBJECT_CODE only
		return stub{}, false
	}
	code, undecorated, ok := decoration(string(sym))
	if !ok {
		return stub{}, false
	}
	name := string(sym)
	switch typ >> 2 & 7 {
	case 0: // IMPORT_OBJECT_ORDINAL
		name = "#" + strconv.Itoa(int(ordinal))
	case 1: // IMPORT_OBJECT_NAME: the symbol as it is
	case 2: // IMPORT_OBJECT_NAME_NOPREFIX
		name = strings.TrimLeft(name, "?@_")
	default: // IMPORT_OBJECT_NAME_UNDECORATE and later
		name = undecorated
	}
	return stub{dll: string(dll), name: name, code: code}, true
}

// coffMember reads an i386 COFF object dlltool wrote: an import stub, a
// head or a tail.
func coffMember(data []byte) (member, bool) {
	f, err := pe.NewFile(bytes.NewReader(data))
	if err != nil || f.Machine != pe.IMAGE_FILE_MACHINE_I386 {
		return member{}, false
	}
	defer f.Close()
	var m member
	sectionData := func(name string) []byte {
		s := f.Section(name)
		if s == nil {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			return nil
		}
		return b
	}
	var fn string
	hasImp := false
	for _, s := range f.Symbols {
		if s.StorageClass != 2 { // IMAGE_SYM_CLASS_EXTERNAL
			continue
		}
		sec := ""
		if s.SectionNumber > 0 && int(s.SectionNumber) <= len(f.Sections) {
			sec = f.Sections[s.SectionNumber-1].Name
		}
		switch {
		case s.SectionNumber == 0 && strings.HasPrefix(s.Name, "__head_"):
			m.head = s.Name
		case s.SectionNumber == 0 && strings.HasSuffix(s.Name, "_iname"):
			m.iname = s.Name
		case s.SectionNumber > 0 && strings.HasPrefix(s.Name, "__head_"):
			m.defHead = s.Name
		case sec == ".idata$7" && strings.HasSuffix(s.Name, "_iname"):
			if b := sectionData(".idata$7"); int(s.Value) < len(b) {
				if dll, _, ok := bytes.Cut(b[s.Value:], []byte{0}); ok {
					m.defName, m.dll = s.Name, string(dll)
				}
			}
		case sec == ".idata$5" && strings.HasPrefix(s.Name, "__imp_"):
			hasImp = true
		case sec == ".text":
			fn = s.Name
		}
	}
	if !hasImp || fn == "" || m.head == "" {
		return m, true // data (no code) or not a stub
	}
	code, _, ok := decoration(fn)
	if !ok {
		return m, true
	}
	name := ""
	if hn := sectionData(".idata$6"); len(hn) > 2 {
		if n, _, ok := bytes.Cut(hn[2:], []byte{0}); ok {
			name = string(n)
		}
	} else if lookup := sectionData(".idata$4"); len(lookup) >= 4 && binary.LittleEndian.Uint32(lookup)&(1<<31) != 0 {
		name = "#" + strconv.Itoa(int(binary.LittleEndian.Uint32(lookup)&0xffff))
	}
	if name == "" {
		return m, true
	}
	m.stub = &stub{name: name, code: code}
	return m, true
}

// decoration reads a function symbol's decoration: "_Name@N" is stdcall
// (code "N"), "@Name@N" fastcall ("fN"), "_Name" cdecl ("c"); the name
// undecorated.
func decoration(sym string) (code, name string, ok bool) {
	if rest, ok := strings.CutPrefix(sym, "@"); ok {
		if k := strings.LastIndexByte(rest, '@'); k > 0 {
			if n, err := strconv.Atoi(rest[k+1:]); err == nil && n >= 0 && n%4 == 0 {
				return "f" + rest[k+1:], rest[:k], true
			}
		}
		return "", "", false
	}
	rest, ok := strings.CutPrefix(sym, "_")
	if !ok || rest == "" {
		return "", "", false
	}
	if k := strings.LastIndexByte(rest, '@'); k > 0 {
		if n, err := strconv.Atoi(rest[k+1:]); err == nil && n >= 0 && n%4 == 0 {
			return rest[k+1:], rest[:k], true
		}
		return "", "", false
	}
	return "c", rest, true
}
