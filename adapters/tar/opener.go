package tar

import (
	"bytes"
	"context"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"rea/ports"
)

// Opener is the ports.ContainerOpener for tar archives, plain or inside
// gzip or zstd. It is stateless and safe for concurrent use.
type Opener struct{}

var _ ports.ContainerOpener = Opener{}

// The formats Recognize reports.
const (
	FormatTar  = "tar"
	FormatGzip = "tar.gz"
	FormatZstd = "tar.zst"
)

const blockSize = 512

// maxWindow bounds the history a zstd frame may ask the decoder to keep
// (what zstd's levels up to 19 use; --long and --ultra frames ask for more):
// a frame asking for more fails with a format error rather than allocating
// it. OpenContainer charges it with ports.Reserve while it decompresses.
// Recognize, which has no memory account, lets a frame's head allocate at
// most recognizeWindow (zstd's default level uses 2 MiB) and otherwise
// goes by the name.
const (
	maxWindow       = 8 << 20
	recognizeWindow = 2 << 20
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Recognize reports a tar archive by content: a first header block with the
// "ustar" magic at offset 257 or a valid header checksum (pre-POSIX tar),
// read directly or after decompressing the head of a gzip or zstd stream.
// A zstd head whose first block does not fit in head, or whose window is
// over 2 MiB, is taken on its name (.tar.zst, .tzst) alone. Decompression
// is bounded to one block of output.
func (Opener) Recognize(head []byte, name string) (string, bool) {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return "", false
		}
		zr.Multistream(false)
		if isHeader(readBlock(zr)) {
			return FormatGzip, true
		}
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(bytes.NewReader(head), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(recognizeWindow))
		if err != nil {
			return "", false
		}
		defer zr.Close()
		b := readBlock(zr)
		if isHeader(b) {
			return FormatZstd, true
		}
		n := strings.ToLower(name)
		if len(b) < blockSize && (strings.HasSuffix(n, ".tar.zst") || path.Ext(n) == ".tzst") {
			return FormatZstd, true
		}
	case isHeader(head):
		return FormatTar, true
	}
	return "", false
}

// readBlock decompresses up to one header block.
func readBlock(r io.Reader) []byte {
	b := make([]byte, blockSize)
	n, _ := io.ReadFull(r, b)
	return b[:n]
}

// isHeader reports whether b starts with a tar header block: the ustar magic
// (POSIX and GNU), or a checksum that matches (pre-POSIX archives).
func isHeader(b []byte) bool {
	if len(b) < blockSize {
		return false
	}
	if bytes.HasPrefix(b[257:], []byte("ustar")) {
		return true
	}
	field := strings.Trim(string(b[148:156]), " \x00")
	want, err := strconv.ParseInt(field, 8, 64)
	if err != nil || field == "" {
		return false
	}
	var unsigned, signed int64
	for i, c := range b[:blockSize] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return want == unsigned || want == signed
}

// OpenContainer indexes the archive within req.Limits in one pass. A plain
// tar is read in place; a compressed one is decompressed once into a spool
// file (see the package documentation).
func (Opener) OpenContainer(ctx context.Context, req ports.ContainerRequest) (ports.Container, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	magic := make([]byte, 4)
	n, _ := req.ReaderAt.ReadAt(magic, 0)
	magic = magic[:n]
	format := FormatTar
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		format = FormatGzip
	case bytes.HasPrefix(magic, zstdMagic):
		format = FormatZstd
	}
	c, err := open(ctx, format, req)
	if err != nil {
		return nil, err
	}
	// The index is held while the container is open: charge it (its size
	// is bounded by MaxEntries and MaxPathBytes before this point).
	release, err := ports.Reserve(ctx, "the tar index", c.indexBytes())
	if err != nil {
		c.Close()
		return nil, err
	}
	c.release = release
	return c, nil
}
