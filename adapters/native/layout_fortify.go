package native

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// FORTIFY_SOURCE. Built with _FORTIFY_SOURCE (and optimisation), glibc's
// headers turn calls whose buffer sizes the compiler knows but cannot
// prove safe into calls of checked variants (__memcpy_chk, __printf_chk,
// __read_chk, ...), so a dynamic image so built imports them. A static one
// links glibc's objects, which define them (and call each other) whatever
// the program was built with: there, as for the canary (layout_canary.go),
// the program's own code is read for direct calls (or tail jumps) to
// them. musl has no checked functions, so a program linked with it says
// false. A build whose every call the compiler proved safe calls none
// either; the indicator cannot tell it from one built without.

// maxFortified bounds the checked functions listed (glibc has about 80).
const maxFortified = 64

// checkedName reports whether n names one of glibc's checked functions,
// __X_chk. __stack_chk_fail, __stack_chk_guard and __chk_fail (what the
// checked functions call on failure) do not end so.
func checkedName(n string) bool {
	return len(n) > len("___chk") && strings.HasPrefix(n, "__") && strings.HasSuffix(n, "_chk")
}

// addChecked records name for the function at addr; of several names at
// one address (glibc's ___printf_chk beside __printf_chk) it keeps the
// shortest, the one a program calls.
func addChecked(m map[uint64]string, addr uint64, name string) {
	if old, ok := m[addr]; !ok || len(name) < len(old) || len(name) == len(old) && name < old {
		m[addr] = name
	}
}

// importedFortify sets Fortified from the checked functions a dynamic
// image (or an object) imports: its undefined symbols.
func (lr *layoutReader) importedFortify() {
	used := map[string]bool{}
	for _, s := range lr.l.Symbols {
		if n := string(s.Name.Bytes); s.SectionIndex == uint16(elf.SHN_UNDEF) && checkedName(n) {
			used[n] = true
		}
	}
	lr.setFortified(used)
}

// setFortified lists used, sorted, at most maxFortified of them.
func (lr *layoutReader) setFortified(used map[string]bool) {
	d := &lr.l.Dynamic
	d.Fortified = slices.Sorted(maps.Keys(used))
	if n := len(d.Fortified); n > maxFortified {
		d.Fortified = d.Fortified[:maxFortified]
		lr.fortifyLimit(fmt.Sprintf("fortified_functions lists the first %d of the %d checked functions used, by name.", maxFortified, n))
	}
}

// fortifyLimit adds s to what limits the FORTIFY_SOURCE answer.
func (lr *layoutReader) fortifyLimit(s string) {
	d := &lr.l.Dynamic
	if d.FortifyLimit != "" {
		s = d.FortifyLimit + " " + s
	}
	d.FortifyLimit = s
}

// checkedCalls adds to used the checked functions that code at addr calls
// or jumps to directly: x86's e8 and e9 rel32, AArch64's bl and b. Like
// the canary's callsAny it reads the bytes rather than decoding them, so
// a displacement inside another instruction could match; it would have to
// land exactly on a checked function's start.
func (lr *layoutReader) checkedCalls(code []byte, addr uint64, checked map[uint64]string, used map[string]bool) {
	add := func(to uint64) {
		if n, ok := checked[to]; ok {
			used[n] = true
		}
	}
	switch lr.f.Machine {
	case elf.EM_AARCH64:
		for k := 0; 4*k+4 <= len(code); k++ {
			w := binary.LittleEndian.Uint32(code[4*k:])
			if w&0x7c000000 == 0x14000000 { // b, bl
				add(addr + uint64(4*k) + uint64(int64(int32(w<<6)>>6)*4))
			}
		}
	default:
		for i := 0; i+5 <= len(code); i++ {
			if code[i] != 0xe8 && code[i] != 0xe9 {
				continue
			}
			to := addr + uint64(i) + 5 + uint64(int64(int32(binary.LittleEndian.Uint32(code[i+1:]))))
			if !lr.wide {
				to &= 0xffffffff
			}
			add(to)
		}
	}
}

// maxUnnamedChecked is the size under which a function main reaches that
// the signature libraries did not name may be one of glibc's checked
// functions all the same: the shortest (x86-64's __memcpy_chk and
// __read_chk, 16 bytes; i686's __memcpy_chk, 14, which falls through into
// memcpy; AArch64's __read_chk, 24) hold fewer fixed bytes than the
// libraries name a function by, and are named only when their calls land
// on functions already named (__chk_fail is named by where its named
// callers call it, libcallers.go); i686's __memcpy_chk makes no call and
// AArch64's is not named, so they can still be taken for the program's.
// None returns: each ends in a jump to the function checked, a fall into
// it, or a call of __chk_fail.
const maxUnnamedChecked = 32

// strippedFortify says what the FORTIFY_SOURCE answer of a stripped static
// program rests on, and makes it null when a checked function may have
// been taken for the program's own: none named was seen called, but main
// reaches a function short enough to be one that does not return
// (programCode.short).
func (lr *layoutReader) strippedFortify(pc *programCode, checked map[uint64]string, told string) {
	d := &lr.l.Dynamic
	var short []string
	for _, a := range pc.short[:min(len(pc.short), 8)] {
		short = append(short, fmt.Sprintf("0x%x", a))
	}
	if len(pc.short) > 8 {
		short = append(short, "...")
	}
	looked := "; looked at: " + pc.describe() + "; functions reached only through pointers were not."
	var maybe string
	if len(short) > 0 {
		maybe = fmt.Sprintf("the functions at %s, which the walk took for the program's, are short and do not return, as the checked functions too short for the libraries to name by their bytes (i686's __memcpy_chk) do", strings.Join(short, ", "))
	}
	switch {
	case len(d.Fortified) == 0 && maybe != "":
		d.FortifyUnknown = true
		lr.fortifyLimit("fortify_source_indicator is null" + told + ": no checked function the signature libraries name is called, but " + maybe + looked)
	case len(d.Fortified) == 0 && len(checked) == 0:
		lr.fortifyLimit("fortify_source_indicator is false" + told + ": neither a symbol nor the signature libraries name a __*_chk function in it" + looked)
	case len(d.Fortified) == 0:
		lr.fortifyLimit("fortify_source_indicator is false" + told + ": no function looked at calls a checked function" + looked)
	case maybe != "":
		lr.fortifyLimit("fortify_source_indicator is true" + told + "; fortified_functions lists those the signature libraries name, and " + maybe + looked)
	default:
		lr.fortifyLimit("fortify_source_indicator is true" + told + "; fortified_functions lists those the signature libraries name" + looked)
	}
}
