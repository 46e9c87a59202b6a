package native

import (
	"context"
	"debug/dwarf"

	"rea/ports"
)

// addDWARF adds a procedure for every DWARF subprogram with code. infoSize
// is the size of .debug_info: every entry takes at least one byte of it.
func addDWARF(ctx context.Context, set *symbolSet, d *dwarf.Data, infoSize uint64, codeAddr func(uint64) uint64) error {
	r := d.Reader()
	var last dwarf.Offset
	for i := uint64(0); ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		ent, err := r.Next()
		if err != nil {
			return err
		}
		if ent == nil {
			return nil
		}
		// debug/dwarf can return entries forever on corrupt units: a
		// sequential read must move forward and end within the section.
		if i > infoSize {
			return &ports.FormatError{Format: "dwarf", Offset: -1, Msg: "more debug entries than .debug_info bytes"}
		}
		if ent.Tag == 0 { // a null entry, ending a list of children
			continue
		}
		if ent.Offset <= last && i > 0 {
			return &ports.FormatError{Format: "dwarf", Offset: int64(ent.Offset), Msg: "debug entries do not advance"}
		}
		last = ent.Offset
		if ent.Tag != dwarf.TagSubprogram {
			continue
		}
		// The linkage name is the symbol's (C++'s mangled one).
		name, _ := dwarfVal(d, ent, dwarf.AttrLinkageName).(string)
		if name == "" {
			name, _ = dwarfVal(d, ent, dwarf.AttrName).(string)
		}
		ranges, err := d.Ranges(ent)
		if err != nil || len(ranges) == 0 || ranges[0][0] == 0 || name == "" {
			continue
		}
		addr := codeAddr(ranges[0][0])
		var size uint64
		if ranges[0][1] > ranges[0][0] {
			size = ranges[0][1] - ranges[0][0]
		}
		set.procs = append(set.procs, candidate{addr: addr, name: name, size: size, source: "dwarf", rank: rankDebug})
		set.labels = append(set.labels, ports.Name{Address: addr, Name: name, Kind: "function"})
	}
}

// maxOrigins bounds the references dwarfVal follows: gcc's out-of-line copy
// of an inlined C++ method refers to its abstract entry, which refers to
// the declaration in the class.
const maxOrigins = 4

// dwarfVal is ent's attribute, or, when ent has none, that of the entry
// its DW_AT_abstract_origin or DW_AT_specification refers to. The
// out-of-line copy of a function that is also inlined (and gcc's clones of
// a function) carries only a reference to the abstract entry, as do its
// parameters; a C++ method defined outside its class declaration refers to
// that declaration. clang -O2 -g describes every external function it
// inlines somewhere so.
func dwarfVal(d *dwarf.Data, ent *dwarf.Entry, attr dwarf.Attr) any {
	for range maxOrigins {
		if v := ent.Val(attr); v != nil {
			return v
		}
		off, ok := ent.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			if off, ok = ent.Val(dwarf.AttrSpecification).(dwarf.Offset); !ok {
				return nil
			}
		}
		r := d.Reader()
		r.Seek(off)
		next, err := r.Next()
		if err != nil || next == nil || next.Offset != off {
			return nil
		}
		ent = next
	}
	return nil
}
