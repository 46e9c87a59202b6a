package zip

import (
	"bytes"
	"context"
	"os"
	"path"
	"strings"

	"rea/ports"
)

// Opener is the ports.ContainerOpener for ZIP and the formats built on it.
// It is stateless and safe for concurrent use.
type Opener struct{}

var _ ports.ContainerOpener = Opener{}

// Recognize reports a ZIP local file header or an empty archive's end
// record. The format follows the name: apk, ipa, msix and appx keep their
// own names; everything else, JAR included, is "zip".
func (Opener) Recognize(head []byte, name string) (string, bool) {
	if !bytes.HasPrefix(head, []byte("PK\x03\x04")) && !bytes.HasPrefix(head, []byte("PK\x05\x06")) {
		return "", false
	}
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".apk", ".ipa", ".msix", ".appx":
		return ext[1:], true
	}
	return "zip", true
}

// OpenContainer reads the central directory within req.Limits.
func (Opener) OpenContainer(ctx context.Context, req ports.ContainerRequest) (ports.Container, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := req.Limits
	r, err := NewReader(req.ReaderAt, req.Size, &Options{MaxEntries: l.MaxEntries, MaxEntryBytes: l.MaxEntryBytes,
		MaxTotalBytes: l.MaxTotalBytes, MaxCompressionRatio: l.MaxCompressionRatio, MaxPathBytes: l.MaxPathBytes, SkipUnsafeNames: true})
	if err != nil {
		return nil, err
	}
	// The central directory is held while the container is open: charge
	// it (what archive/zip read is bounded by the archive's size, and the
	// entry count by MaxEntries, before this point).
	release, err := ports.Reserve(ctx, "the ZIP central directory", r.indexBytes())
	if err != nil {
		r.Close()
		return nil, err
	}
	r.release = release
	return r, nil
}

func openFile(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, &ports.ContainerError{Format: "zip", Reason: ports.ContainerIO, Err: err}
	}
	return f, nil
}
