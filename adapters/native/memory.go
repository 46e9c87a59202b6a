package native

import (
	"context"
	"unsafe"

	"rea/ports"
)

// Charging what an Analysis keeps. The lists it caches (segments,
// procedures, names, the symbol set, the strings list and the
// cross-reference index), the DWARF it loads (dwarf_load.go) and a
// relocatable object's relocated sections (elf_rel.go, charged by the
// call that opens the file) are reserved against the memory budget of the
// call that computes them (ports.Reserve) and held until Close, so a
// server's budget counts every open analysis; a refused reservation fails
// that call with the *ports.LimitError naming the setting, and is not
// cached.
// Strings are counted by their bytes; element headers by their size.

// listBytes estimates the memory of a cached list.
func listBytes(v any) int64 {
	switch l := v.(type) {
	case []ports.Procedure:
		n := int64(cap(l)) * int64(unsafe.Sizeof(ports.Procedure{}))
		for _, p := range l {
			n += int64(len(p.Name) + len(p.ThunkTarget))
		}
		return n
	case []ports.Name:
		n := int64(cap(l)) * int64(unsafe.Sizeof(ports.Name{}))
		for _, x := range l {
			n += int64(len(x.Name))
		}
		return n
	case []ports.Segment:
		n := int64(cap(l)) * int64(unsafe.Sizeof(ports.Segment{}))
		for _, s := range l {
			n += int64(len(s.Name))
		}
		return n
	case *symbolSet:
		if l == nil {
			return 0
		}
		n := int64(cap(l.procs))*int64(unsafe.Sizeof(candidate{})) + listBytes(l.labels)
		for _, c := range l.procs {
			n += int64(len(c.target)) // names are shared with the labels
		}
		return n
	}
	return 0
}

// reserveHeld reserves n bytes for what against ctx's account and holds
// them until Close.
func (a *Analysis) reserveHeld(ctx context.Context, what string, n int64) error {
	release, err := ports.Reserve(ctx, what, n)
	if err != nil {
		return err
	}
	a.hold(release)
	return nil
}
