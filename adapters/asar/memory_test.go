package asar_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
	"rea/ports"
	"rea/ports/portstest"
)

// Close; an account too small refuses the open with the limit error.
func TestOpenContainerChargesTheHeader(t *testing.T) {
	is := is.New(t)
	data := writeArchive(t, sampleEntries(), nil)
	req := ports.ContainerRequest{Name: "app.asar", ReaderAt: bytes.NewReader(data), Size: int64(len(data)),
		Limits: ports.ContainerLimits{MaxEntries: 1000, MaxEntryBytes: 1 << 20, MaxTotalBytes: 1 << 20, MaxCompressionRatio: 100, MaxDepth: 8, MaxPathBytes: 4096}}

	big := &portstest.MemoryAccount{Max: 1 << 30}
	c, err := asar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	is.True(big.InUse() > 0)
	is.NoErr(c.Close())
	is.Equal(big.InUse(), int64(0))

	small := &portstest.MemoryAccount{Max: 16}
	_, err = asar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), small), req)
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(small.InUse(), int64(0))
}
