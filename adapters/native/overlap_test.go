package native_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// overlappingELF is a section-less x86-64 ELF whose loads PT_LOADs (not
// executable) all cover the same bytes, with notes PT_NOTEs inside them:
// one note, then four copies of a string.
func overlappingELF(t *testing.T, loads, notes int) string {
	t.Helper()
	le := binary.LittleEndian
	const phoff, phsize = 64, 56
	ph := loads + notes
	dataOff := uint64(phoff + phsize*ph)
	note := le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 4), 8), 1)
	note = append(note, "GNU\x00hello wo"...)
	data := note
	for range 4 {
		data = append(data, "some string here\x00"...)
	}
	b := append([]byte("\x7fELF"), 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	b = le.AppendUint16(b, 2)    // ET_EXEC
	b = le.AppendUint16(b, 0x3e) // x86-64
	b = le.AppendUint32(b, 1)
	b = le.AppendUint64(b, 0x400000) // entry
	b = le.AppendUint64(b, phoff)
	b = le.AppendUint64(b, 0) // no section headers
	b = le.AppendUint32(b, 0)
	for _, v := range []uint16{64, phsize, uint16(ph), 0, 0, 0} {
		b = le.AppendUint16(b, v)
	}
	prog := func(typ uint32, size, align uint64) {
		b = le.AppendUint32(b, typ)
		b = le.AppendUint32(b, 4) // PF_R
		for _, v := range []uint64{dataOff, 0x400000 + dataOff, 0x400000 + dataOff, size, size, align} {
			b = le.AppendUint64(b, v)
		}
	}
	for range loads {
		prog(1, uint64(len(data)), 0x1000)
	}
	for range notes {
		prog(4, uint64(len(note)), 4)
	}
	p := filepath.Join(t.TempDir(), "overlap")
	if err := os.WriteFile(p, append(b, data...), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bytes that several segments (or sections) cover are scanned once: a
// string is listed once however many PT_LOADs overlap over it. Before,
// each load was scanned whole and each note read in each load, so 4,000
// loads over the same bytes took 25 s and listed every string 4,000
// times (30,000 took 7.5 minutes).
func TestOverlappingSegmentsAreScannedOnce(t *testing.T) {
	a := openAnalysis(t, overlappingELF(t, 300, 300))
	strs, err := a.Strings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	at := map[uint64]int{}
	n := 0
	for _, s := range strs {
		if s.Value == "some string here" {
			n++
			at[s.Address]++
		}
	}
	if n != 4 || len(at) != 4 {
		t.Fatalf("the string is listed %d times at %d addresses, want 4 at 4: %v", n, len(at), at)
	}
}
