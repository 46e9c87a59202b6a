package ar

import (
	"context"

	"rea/adapters/internal/arfile"
	"rea/ports"
)

// Opener is the ports.ContainerOpener for Unix ar archives. It is
// stateless and safe for concurrent use.
type Opener struct{}

var _ ports.ContainerOpener = Opener{}

// Format is the format Recognize reports.
const Format = "ar"

// Recognize reports an ar archive by its magic, "!<arch>\n" (or a thin
// archive's "!<thin>\n", which OpenContainer then refuses with a reason).
func (Opener) Recognize(head []byte, name string) (string, bool) {
	if arfile.IsArchive(head) {
		return Format, true
	}
	return "", false
}

// OpenContainer indexes the archive's member headers within req.Limits;
// members are read in place.
func (Opener) OpenContainer(ctx context.Context, req ports.ContainerRequest) (ports.Container, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, err := open(ctx, req)
	if err != nil {
		return nil, err
	}
	// The index is held while the container is open: charge it (its size
	// is bounded by MaxEntries and MaxPathBytes before this point).
	release, err := ports.Reserve(ctx, "the ar index", c.indexBytes())
	if err != nil {
		return nil, err
	}
	c.release = release
	return c, nil
}
