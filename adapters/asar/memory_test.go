package asar_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
	"rea/ports"
)

// budget is a bounded memory account.
type budget struct{ max, used int64 }

func (b *budget) Reserve(what string, n int64) (func(), error) {
	if b.used+n > b.max {
		return nil, &ports.LimitError{What: what, Limit: "TEST_MEMORY", Max: b.max, InUse: b.used, Requested: n}
	}
	b.used += n
	done := false
	return func() {
		if !done {
			done = true
			b.used -= n
		}
	}, nil
}

// The header an open ASAR holds is charged before it is read and until
// Close; an account too small refuses the open with the limit error.
func TestOpenContainerChargesTheHeader(t *testing.T) {
	is := is.New(t)
	data := writeArchive(t, sampleEntries(), nil)
	req := ports.ContainerRequest{Name: "app.asar", ReaderAt: bytes.NewReader(data), Size: int64(len(data)),
		Limits: ports.ContainerLimits{MaxEntries: 1000, MaxEntryBytes: 1 << 20, MaxTotalBytes: 1 << 20, MaxCompressionRatio: 100, MaxDepth: 8, MaxPathBytes: 4096}}

	big := &budget{max: 1 << 30}
	c, err := asar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	is.True(big.used > 0)
	is.NoErr(c.Close())
	is.Equal(big.used, int64(0))

	small := &budget{max: 16}
	_, err = asar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), small), req)
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(small.used, int64(0))
}
