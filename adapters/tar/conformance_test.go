package tar_test

import (
	"testing"

	"rea/adapters/tar"
	"rea/ports/portstest"
)

// The opener runs the container conformance suite on the same package as a
// plain tar, a gzip-compressed .tgz and a zstd-compressed .tar.zst, each
// recognised by content.
func TestContainerConformance(t *testing.T) {
	data := sample(t)
	for _, tt := range []struct {
		name, format string
		data         []byte
	}{
		{"pkg.tar", tar.FormatTar, data},
		{"pkg-1.0.0.tgz", tar.FormatGzip, gz(t, data)},
		{"pkg.tar.zst", tar.FormatZstd, zst(t, data)},
		{"renamed.bin", tar.FormatGzip, gz(t, data)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			portstest.RunContainer(t, tar.Opener{}, portstest.ContainerSample{Name: tt.name, Format: tt.format, Data: tt.data})
		})
	}
}
