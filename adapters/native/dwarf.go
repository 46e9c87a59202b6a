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
		name, _ := ent.Val(dwarf.AttrName).(string)
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
