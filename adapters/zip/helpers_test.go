package zip_test

import (
	stdzip "archive/zip"
	"bytes"
	"io/fs"
	"testing"
)

// member is one entry written by build.
type member struct {
	name    string
	data    []byte
	mode    fs.FileMode // 0 means 0644 for files
	store   bool        // no compression
	flags   uint16      // extra general purpose flags (0x1 marks encryption)
	rawSize uint64      // when set, the declared uncompressed size (the header lies)
	crc     uint32      // with rawSize, the declared CRC-32 (0: none to check)
}

// build writes a ZIP with archive/zip, which does not check names, so unsafe
// names reach the archive as an attacker would write them.
func build(t testing.TB, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	for _, m := range members {
		h := &stdzip.FileHeader{Name: m.name, Method: stdzip.Deflate}
		if m.store {
			h.Method = stdzip.Store
		}
		mode := m.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		if m.flags != 0 || m.rawSize != 0 {
			// CreateRaw lets a test declare any sizes and flags.
			h.Flags |= m.flags
			h.Method = stdzip.Store
			h.CompressedSize64 = uint64(len(m.data))
			h.UncompressedSize64 = uint64(len(m.data))
			if m.rawSize != 0 {
				h.UncompressedSize64 = m.rawSize
			}
			h.CRC32 = m.crc
			fw, err := w.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			fw.Write(m.data)
			continue
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
