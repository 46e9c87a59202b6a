package native

import (
	"context"
	"debug/dwarf"
	"encoding/binary"
)

// LineUnitOffsets is where the units the source-line index reads start,
// and where a supplementary (dwz) file's units start in the joined DWARF
// (0 without one).
func LineUnitOffsets(ctx context.Context, a *Analysis) ([]dwarf.Offset, uint64, error) {
	idx, err := a.lines.get(ctx, a.readLines)
	if err != nil {
		return nil, 0, err
	}
	var out []dwarf.Offset
	for _, u := range idx.units {
		out = append(out, u.Offset)
	}
	return out, a.dwarf(ctx).supAt, nil
}

// JoinSupplementary is mergeSupplementary, for fuzzing.
func JoinSupplementary(bo binary.ByteOrder, main, sup map[string][]byte) (map[string][]byte, uint64, error) {
	return mergeSupplementary(bo, main, sup)
}
