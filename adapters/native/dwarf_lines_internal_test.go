package native

import (
	"encoding/binary"
	"testing"
)

// lineHeader5 is a DWARF 5 line table header listing one directory and
// files entries named "a.c" (path as DW_FORM_string; at most four of them
// written, whatever the count says), or, with noFormats, file entries of
// no bytes at all.
func lineHeader5(files uint64, noFormats bool) []byte {
	var h []byte
	h = binary.LittleEndian.AppendUint16(h, 5)
	h = append(h, 8, 0)                        // address size, segment selector size
	h = binary.LittleEndian.AppendUint32(h, 0) // header length (not checked)
	h = append(h, 1, 1, 1, 0xfb, 14, 13)       // min inst length, max ops, default is_stmt, line base, line range, opcode base
	h = append(h, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1)
	h = append(h, 1, 1, 0x08, 1, '/', 0) // one directory format (path, string), one directory
	if noFormats {
		h = append(h, 0)
	} else {
		h = append(h, 1, 1, 0x08)
	}
	h = binary.AppendUvarint(h, files)
	for range min(files, 4) {
		if !noFormats {
			h = append(h, 'a', '.', 'c', 0)
		}
	}
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(h))), h...)
}

// TestCheckLineHeader: counts no header could hold are refused before
// debug/dwarf allocates a slice of that many entries and loops over them.
func TestCheckLineHeader(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		ok   bool
	}{
		{"one file", lineHeader5(1, false), true},
		{"four files", lineHeader5(4, false), true},
		{"more files than bytes", lineHeader5(1<<40, false), false},
		{"no file", lineHeader5(0, true), true},
		{"files of no bytes, more than bytes left", lineHeader5(4, true), false},
		{"files of no bytes, many", lineHeader5(1<<62, true), false},
		{"truncated", lineHeader5(4, false)[:30], false},
		{"length past the end", append([]byte{0xff, 0xff, 0xff, 0xfe}, lineHeader5(1, false)[4:]...), false},
		{"dwarf 4", []byte{2, 0, 0, 0, 4, 0}, true},
	}
	for _, tt := range tests {
		if err := checkLineHeader(tt.b); (err == nil) != tt.ok {
			t.Errorf("%s: %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
