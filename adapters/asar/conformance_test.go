package asar_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
	"rea/ports"
	"rea/ports/portstest"
)

// The opener runs the container conformance suite on an archive written by
// @electron/asar (with unpacked files beside it) and on one written by this
// package.
func TestContainerConformance(t *testing.T) {
	t.Run("npm", func(t *testing.T) {
		data, err := os.ReadFile("testdata/npm-small.asar")
		if err != nil {
			t.Fatal(err)
		}
		portstest.RunContainer(t, asar.Opener{}, portstest.ContainerSample{
			Name: "npm-small.asar", Format: "asar", Data: data,
			Companion: func(_ context.Context, name string) (io.ReadCloser, error) {
				return os.Open(filepath.Join("testdata", filepath.FromSlash(name)))
			},
		})
	})
	t.Run("written", func(t *testing.T) {
		var entries []asar.WriteEntry
		for _, e := range sampleEntries() {
			if e.Path != "lib/big.bin" {
				entries = append(entries, e)
			}
		}
		portstest.RunContainer(t, asar.Opener{}, portstest.ContainerSample{
			Name: "app.asar", Format: "asar", Data: writeArchive(t, entries, nil),
		})
	})
}

// An unpacked companion larger than its entry declares is cut at
// MaxEntryBytes: the limit holds whatever the header says.
func TestOpenerBoundsUnpacked(t *testing.T) {
	is := is.New(t)
	b := writeArchive(t, []asar.WriteEntry{{Path: "m.node", Type: asar.TypeFile, Data: []byte("tiny"), Unpacked: true}}, nil)
	req := ports.ContainerRequest{Name: "app.asar", ReaderAt: bytes.NewReader(b), Size: int64(len(b)),
		Limits: ports.ContainerLimits{MaxEntryBytes: 10},
		Companion: func(context.Context, string) (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(make([]byte, 1000))), nil
		}}
	c, err := asar.Opener{}.OpenContainer(t.Context(), req)
	is.NoErr(err)
	defer c.Close()
	rc, err := c.Open(t.Context(), "m.node")
	is.NoErr(err)
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	var ce *ports.ContainerError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Limit, "max_entry_bytes")
	is.True(n <= 10)
}
