package zip_test

import (
	"bytes"
	"io/fs"
	"testing"

	"rea/adapters/zip"
	"rea/ports/portstest"
)

// The opener runs the container conformance suite on an archive with
// deflated and stored files, a directory and nested paths, under a ZIP name
// and an APK name.
func TestContainerConformance(t *testing.T) {
	data := build(t,
		member{name: "META-INF/", mode: fs.ModeDir | 0o755},
		member{name: "META-INF/MANIFEST.MF", data: []byte("Manifest-Version: 1.0\n")},
		member{name: "classes.dex", data: bytes.Repeat([]byte("dex\n035\x00"), 200)},
		member{name: "res/raw/stored.bin", data: []byte("stored bytes"), store: true},
		member{name: "AndroidManifest.xml", data: []byte("<manifest/>")},
	)
	for _, tt := range []struct{ name, format string }{{"app.zip", "zip"}, {"game.apk", "apk"}} {
		t.Run(tt.format, func(t *testing.T) {
			portstest.RunContainer(t, zip.Opener{}, portstest.ContainerSample{Name: tt.name, Format: tt.format, Data: data})
		})
	}
}
