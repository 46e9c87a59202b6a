package tar_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/tar"
	"rea/ports"
	"rea/ports/portstest"
)

// OpenContainer charges the index it holds to the memory account and
// releases it at Close; a budget too small for it fails with the account's
// limit error.
func TestOpenContainerChargesTheIndex(t *testing.T) {
	is := is.New(t)
	var ms []member
	for i := range 200 {
		ms = append(ms, member{name: fmt.Sprintf("dir/file-%03d.txt", i), data: []byte("x")})
	}
	data := gz(t, build(t, ms...))
	req := ports.ContainerRequest{Name: "a.tgz", ReaderAt: bytes.NewReader(data), Size: int64(len(data))}

	big := &portstest.MemoryAccount{Max: 1 << 30}
	c, err := tar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	is.True(big.InUse() > 200*100) // charged per entry
	is.NoErr(c.Close())
	is.Equal(big.InUse(), int64(0)) // released at Close

	small := &portstest.MemoryAccount{Max: 4 << 10}
	_, err = tar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), small), req)
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(small.InUse(), int64(0))
}

// Decompressing a .tar.zst charges the decoder's window while it runs.
func TestZstdChargesTheWindow(t *testing.T) {
	is := is.New(t)
	data := zst(t, sample(t))
	req := ports.ContainerRequest{Name: "a.tar.zst", ReaderAt: bytes.NewReader(data), Size: int64(len(data))}
	small := &portstest.MemoryAccount{Max: 4 << 20}
	_, err := tar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), small), req)
	var le *ports.LimitError
	is.True(errors.As(err, &le)) // 4 MiB cannot hold an 8 MiB window
	big := &portstest.MemoryAccount{Max: 1 << 30}
	c, err := tar.Opener{}.OpenContainer(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	is.True(big.InUse() < 1<<20) // the window is released once the archive is indexed
	is.NoErr(c.Close())
}
