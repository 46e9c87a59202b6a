package artifact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"rea/core"
	"rea/ports"
)

// spanOpener is a container format for these tests whose entries, like an
// ASAR's packed files, are byte ranges of the archive: "SPAN" then a count
// and (offset, length) pairs, little-endian uint32. Entry i is "f<i>". It
// counts Opens, so a test can tell which entries were read on their own.
type spanOpener struct{ opens *atomic.Int64 }

func (spanOpener) Recognize(head []byte, name string) (string, bool) {
	if len(head) >= 17 && bytes.HasPrefix(head, []byte("SPAN")) {
		return "span", true
	}
	return "", false
}

func (o spanOpener) OpenContainer(ctx context.Context, req ports.ContainerRequest) (ports.Container, error) {
	var hdr [8]byte
	if _, err := req.ReaderAt.ReadAt(hdr[:], 0); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[4:])
	raw := make([]byte, 8*n)
	if _, err := req.ReaderAt.ReadAt(raw, 8); err != nil {
		return nil, err
	}
	c := &spanContainer{o: o, ra: req.ReaderAt}
	for i := range n {
		off := int64(binary.LittleEndian.Uint32(raw[8*i:]))
		l := int64(binary.LittleEndian.Uint32(raw[8*i+4:]))
		if off+l > req.Size {
			return nil, &ports.ContainerError{Format: "span", Reason: ports.ContainerFormat, Err: errors.New("past the end")}
		}
		c.entries = append(c.entries, ports.ContainerEntry{Path: fmt.Sprintf("f%d", i), Kind: ports.EntryFile, Size: l,
			CompressedSize: -1, Offset: off, Length: l})
	}
	return c, nil
}

type spanContainer struct {
	o       spanOpener
	ra      io.ReaderAt
	entries []ports.ContainerEntry
}

func (c *spanContainer) Entries() []ports.ContainerEntry { return c.entries }
func (c *spanContainer) Close() error                    { return nil }
func (c *spanContainer) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	c.o.opens.Add(1)
	for _, e := range c.entries {
		if e.Path == name {
			return io.NopCloser(io.NewSectionReader(c.ra, e.Offset, e.Length)), nil
		}
	}
	return nil, errors.New("no such entry")
}

// spanArchive writes an archive of size bytes (random, after the table)
// with the given (offset, length) entries and returns its path and bytes.
func spanArchive(t *testing.T, size int, spans [][2]int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	copy(data, "SPAN")
	binary.LittleEndian.PutUint32(data[4:], uint32(len(spans)))
	for i, s := range spans {
		binary.LittleEndian.PutUint32(data[8+8*i:], uint32(s[0]))
		binary.LittleEndian.PutUint32(data[12+8*i:], uint32(s[1]))
	}
	p := filepath.Join(t.TempDir(), "app.span")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, data
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestStreamHashesEveryEntryOnce: the root archive and its stored entries
// are hashed in one read (entries spanning chunks, empty ones, ones at the
// end, gaps between them, in any declared order), and only an entry
// overlapping an earlier one is opened on its own; every digest is the
// digest of the entry's bytes.
func TestStreamHashesEveryEntryOnce(t *testing.T) {
	const size = 3*streamChunkBytes + 1000
	spans := [][2]int{
		{streamChunkBytes - 10, 2*streamChunkBytes + 20}, // across three chunks
		{200, 300},
		{500, 0},  // empty
		{200, 50}, // overlaps f1: opened on its own
		{600, streamChunkBytes - 700},
		{size - 900, 900}, // up to the end
		{size, 0},         // empty, at the end
		{3*streamChunkBytes + 10, 80},
	}
	p, data := spanArchive(t, size, spans)
	var opens atomic.Int64
	g, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: p, Policy: IntegrityFail, Limits: defaultArtifactLimits,
		Openers: []ports.ContainerOpener{spanOpener{&opens}}, KeepOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := g.Root().SHA256; got != hexSum(data) {
		t.Errorf("root sha256 %s, want %s", got, hexSum(data))
	}
	seen := 0
	for _, it := range g.Items {
		if it == g.Root() {
			continue
		}
		var i int
		fmt.Sscanf(it.Path, "f%d", &i)
		s := spans[i]
		if want := hexSum(data[s[0] : s[0]+s[1]]); it.SHA256 != want || it.Size != int64(s[1]) {
			t.Errorf("%s: sha256 %s size %d, want %s %d", it.Path, it.SHA256, it.Size, want, s[1])
		}
		seen++
	}
	if seen != len(spans) {
		t.Errorf("%d entries, want %d", seen, len(spans))
	}
	if n := opens.Load(); n != 1 {
		t.Errorf("%d entries opened on their own, want 1 (the overlapping one)", n)
	}
}

// TestStreamTruncatedWhileRead: an archive cut short after its directory
// was read (here, as hashing starts) fails with artifact_changed, never a
// panic or an inventory of the shorter bytes.
func TestStreamTruncatedWhileRead(t *testing.T) {
	const size = 2*streamChunkBytes + 500
	for _, cut := range []int64{100, streamChunkBytes, size - 1} {
		p, _ := spanArchive(t, size, [][2]int{{64, 100}, {1000, streamChunkBytes}, {size - 400, 400}})
		var opens atomic.Int64
		_, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: p, Policy: IntegrityFail, Limits: defaultArtifactLimits,
			Openers: []ports.ContainerOpener{spanOpener{&opens}}, ResultOnly: true,
			Observe: func(s string) {
				if strings.HasPrefix(s, "hashing") {
					if err := os.Truncate(p, cut); err != nil {
						t.Error(err)
					}
				}
			}})
		var e *core.Error
		if !errors.As(err, &e) || e.Code != core.CodeArtifactChanged {
			t.Fatalf("cut at %d: got %v, want %s", cut, err, core.CodeArtifactChanged)
		}
		if !strings.Contains(e.Message, "ended before the bytes of f") {
			t.Errorf("cut at %d: %q does not name the entry cut short", cut, e.Message)
		}
		if opens.Load() != 0 {
			t.Errorf("cut at %d: %d entries opened on their own", cut, opens.Load())
		}
	}
}

// FuzzStream: whatever the entries' ranges (overlapping, empty, anywhere in
// the archive) and the archive's size, every entry's digest is the digest of
// its bytes and the archive's is the digest of the file.
func FuzzStream(f *testing.F) {
	f.Add(uint32(3000), []byte{0, 10, 5, 200, 100, 0, 7, 7})
	f.Add(uint32(2*streamChunkBytes+7), []byte{255, 255, 1, 2, 128, 0, 128, 1})
	f.Fuzz(func(t *testing.T, size uint32, raw []byte) {
		size = 64 + size%(3*streamChunkBytes)
		var spans [][2]int
		for i := 0; i+4 <= len(raw) && len(spans) < 6; i += 4 {
			off := 8 + 8*6 + int(uint64(binary.LittleEndian.Uint16(raw[i:]))*uint64(size)/65536)
			l := int(uint64(binary.LittleEndian.Uint16(raw[i+2:])) * uint64(size) / 65536)
			if off > int(size) {
				off = int(size)
			}
			l = min(l, int(size)-off)
			spans = append(spans, [2]int{off, l})
		}
		if len(spans) == 0 {
			return
		}
		p, data := spanArchive(t, int(size), spans)
		var opens atomic.Int64
		g, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: p, Policy: IntegrityFail, Limits: defaultArtifactLimits,
			Openers: []ports.ContainerOpener{spanOpener{&opens}}, KeepOpen: true})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		if g.Root().SHA256 != hexSum(data) {
			t.Fatal("root digest")
		}
		for _, it := range g.Items {
			if it == g.Root() {
				continue
			}
			var i int
			fmt.Sscanf(it.Path, "f%d", &i)
			s := spans[i]
			if it.SHA256 != hexSum(data[s[0]:s[0]+s[1]]) || it.Size != int64(s[1]) {
				t.Fatalf("%s %v: wrong digest or size", it.Path, s)
			}
		}
	})
}
