package zip_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/zip"
	"rea/ports"
	"rea/ports/portstest"
)

// the limit error.
func TestOpenContainerChargesTheDirectory(t *testing.T) {
	is := is.New(t)
	var ms []member
	for i := range 200 {
		ms = append(ms, member{name: fmt.Sprintf("dir/file-%03d.txt", i), data: []byte("x")})
	}
	data := build(t, ms...)
	req := ports.ContainerRequest{Name: "a.zip", ReaderAt: bytes.NewReader(data), Size: int64(len(data)),
		Limits: ports.ContainerLimits{MaxEntries: 1000, MaxEntryBytes: 1 << 20, MaxTotalBytes: 1 << 20, MaxCompressionRatio: 100, MaxDepth: 8, MaxPathBytes: 4096}}

	big := &portstest.MemoryAccount{Max: 1 << 30}
	c, err := zip.Opener{}.OpenContainer(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	is.True(big.InUse() > 200*100) // charged per entry
	is.NoErr(c.Close())
	is.Equal(big.InUse(), int64(0)) // released at Close

	small := &portstest.MemoryAccount{Max: 4 << 10}
	_, err = zip.Opener{}.OpenContainer(ports.WithMemory(context.Background(), small), req)
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(small.InUse(), int64(0))
}
