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

// The central directory an open container holds is charged to the call's
// memory account until Close; an account too small refuses the open with
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

	big := &budget{max: 1 << 30}
	c, err := zip.Opener{}.OpenContainer(ports.WithMemory(context.Background(), big), req)
	is.NoErr(err)
	is.True(big.used > 200*100) // charged per entry
	is.NoErr(c.Close())
	is.Equal(big.used, int64(0)) // released at Close

	small := &budget{max: 4 << 10}
	_, err = zip.Opener{}.OpenContainer(ports.WithMemory(context.Background(), small), req)
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(small.used, int64(0))
}
