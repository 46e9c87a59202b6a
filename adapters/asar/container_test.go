package asar_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
	"rea/ports"
)

func openContainer(t *testing.T, b []byte, companion map[string]string) (ports.Container, error) {
	t.Helper()
	req := ports.ContainerRequest{Name: "app.asar", ReaderAt: bytes.NewReader(b), Size: int64(len(b)),
		Limits: ports.ContainerLimits{MaxEntries: 100, MaxDepth: 20, MaxPathBytes: 4096}}
	if companion != nil {
		req.Companion = func(_ context.Context, name string) (io.ReadCloser, error) {
			data, ok := companion[name]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return io.NopCloser(strings.NewReader(data)), nil
		}
	}
	c, err := asar.Opener{}.OpenContainer(context.Background(), req)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func TestOpenerEntries(t *testing.T) {
	is := is.New(t)
	b := writeArchive(t, sampleEntries(), nil)
	format, ok := asar.Opener{}.Recognize(b[:64], "app.asar")
	is.True(ok)
	is.Equal(format, "asar")
	_, ok = asar.Opener{}.Recognize([]byte("PK\x03\x04"), "app.asar")
	is.True(!ok)

	c, err := openContainer(t, b, map[string]string{"app.asar.unpacked/lib/sub/addon.node": "\x7fELF native"})
	is.NoErr(err)
	byPath := map[string]ports.ContainerEntry{}
	for _, e := range c.Entries() {
		byPath[e.Path] = e
	}
	is.Equal(len(byPath), len(sampleEntries()))
	tool := byPath["bin/tool"]
	is.Equal(tool.Kind, ports.EntryFile)
	is.True(tool.Executable)
	is.Equal(tool.CompressedSize, int64(-1))
	is.Equal(string(b[tool.Offset:tool.Offset+tool.Length]), "#!/bin/sh\necho hi\n")
	sum := sha256.Sum256([]byte("#!/bin/sh\necho hi\n"))
	is.Equal(tool.DeclaredSHA256, hex.EncodeToString(sum[:]))
	is.Equal(byPath["lib"].Kind, ports.EntryDirectory)
	is.Equal(byPath["lib/main.js"].Kind, ports.EntrySymlink)
	is.Equal(byPath["lib/main.js"].Link, "lib/index.js")
	addon := byPath["lib/sub/addon.node"]
	is.True(addon.Unpacked)
	is.Equal(addon.Offset, int64(-1))

	rc, err := c.Open(context.Background(), "lib/sub/addon.node")
	is.NoErr(err)
	got, _ := io.ReadAll(rc)
	rc.Close()
	is.Equal(string(got), "\x7fELF native")
	rc, err = c.Open(context.Background(), "bin/tool")
	is.NoErr(err)
	got, _ = io.ReadAll(rc)
	rc.Close()
	is.Equal(string(got), "#!/bin/sh\necho hi\n")
}

func TestOpenerMissingCompanion(t *testing.T) {
	b := writeArchive(t, sampleEntries(), nil)
	for name, companion := range map[string]map[string]string{"no companion": nil, "empty companion": {}} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			c, err := openContainer(t, b, companion)
			is.NoErr(err)
			_, err = c.Open(context.Background(), "lib/sub/addon.node")
			var ce *ports.ContainerError
			is.True(errors.As(err, &ce))
			is.Equal(ce.Reason, ports.ContainerUnavailable)
			is.Equal(ce.Path, "lib/sub/addon.node")
			is.True(errors.Is(err, asar.ErrUnpackedMissing))
		})
	}
}

func TestOpenerErrors(t *testing.T) {
	deep := `{"files":{` + strings.Repeat(`"d":{"files":{`, 25) + `"f":{"size":0,"offset":"0"}` + strings.Repeat(`}}`, 25) + `}}`
	cases := []struct {
		name, header string
		reason       string
		limit        string
	}{
		{"name too long", `{"files":{"` + strings.Repeat("n", 5000) + `":{"size":1,"offset":"0"}}}`, ports.ContainerLimit, "max_path_bytes"}, // a limit, not a name to leave out
		{"not an object", `[1,2]`, ports.ContainerFormat, ""},
		{"offset past end", `{"files":{"a":{"size":10,"offset":"99"}}}`, ports.ContainerFormat, ""},
		{"too deep", deep, ports.ContainerLimit, "max_depth"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			_, err := openContainer(t, rawArchive(c.header, "x"), nil)
			var ce *ports.ContainerError
			if !errors.As(err, &ce) {
				t.Fatalf("want *ports.ContainerError, got %v", err)
			}
			is.Equal(ce.Reason, c.reason)
			is.Equal(ce.Limit, c.limit)
			var fe *asar.FormatError
			is.True(errors.As(err, &fe)) // the typed error is kept
		})
	}
}

// Through the Opener an archive with unsafe names still opens: each entry
// whose name or link is at fault is left out with everything beneath it and
// listed by ports.EntryRejecter (both copies of a repeated key), and the
// rest is intact and readable.
func TestOpenerLeavesOutUnsafeEntries(t *testing.T) {
	is := is.New(t)
	header := `{"files":{` +
		`"..":{"files":{"evil.sh":{"size":1,"offset":"0"}}},` +
		`"a\\b":{"size":1,"offset":"0"},` +
		`"l":{"link":"../../etc/passwd"},` +
		`"dup":{"size":1,"offset":"0"},"dup":{"size":2,"offset":"0"},` +
		`"Pod":{"size":1,"offset":"0"},"pod":{"size":1,"offset":"1"},` +
		`"ok":{"files":{"good.txt":{"size":2,"offset":"0"},"to-good":{"link":"ok/good.txt"},"to-dup":{"link":"dup"}}}}}`
	c, err := openContainer(t, rawArchive(header, "xy"), nil)
	is.NoErr(err)
	defer c.Close()
	var kept []string
	for _, e := range c.Entries() {
		kept = append(kept, e.Path)
	}
	is.Equal(kept, []string{"Pod", "ok", "ok/good.txt", "ok/to-dup", "ok/to-good"})
	rj, ok := c.(ports.EntryRejecter)
	is.True(ok)
	type r struct {
		name, reason string
		kind         ports.EntryKind
		index        int
	}
	var got []r
	for _, e := range rj.Rejected() {
		got = append(got, r{e.Name, e.Reason, e.Kind, e.Index})
	}
	is.Equal(got, []r{
		{"..", "dot-dot", ports.EntryDirectory, 0},
		{`a\b`, "backslash", ports.EntryFile, 2},
		{"l", "link-dot-dot", ports.EntrySymlink, 3},
		{"dup", "duplicate", ports.EntryFile, 4},
		{"dup", "duplicate", ports.EntryFile, 5},
		{"pod", "case-collision", ports.EntryFile, 7},
	})
	rc, err := c.Open(t.Context(), "ok/good.txt")
	is.NoErr(err)
	b, err := io.ReadAll(rc)
	rc.Close()
	is.NoErr(err)
	is.Equal(string(b), "xy")
	for _, p := range []string{"../evil.sh", "dup", "pod", "l", "ok/to-dup"} {
		_, err := c.Open(t.Context(), p)
		is.True(err != nil) // left out, or a link into what was left out
	}
}

// TestOpenerErrorSaysItOnce: the *ports.ContainerError of a malformed
// archive names the format, reason and entry itself, so what it wraps reads
// as the problem and where in the archive it was found, not as another
// "asar: offset: ... (entry \"a\")". Before, the whole read "asar: format
// (entry \"a\"): asar: offset: offset 99 is past the end of 1 bytes of data
// (entry \"a\") at offset 26".
func TestOpenerErrorSaysItOnce(t *testing.T) {
	is := is.New(t)
	_, err := openContainer(t, rawArchive(`{"files":{"a":{"size":10,"offset":"99"}}}`, "x"), nil)
	var ce *ports.ContainerError
	is.True(errors.As(err, &ce))
	var fe *asar.FormatError
	is.True(errors.As(err, &fe)) // the typed error is kept
	is.Equal(ce.Err.Error(), fe.Msg+fmt.Sprintf(" (archive byte %d)", fe.Offset))
	is.Equal(strings.Count(err.Error(), "asar"), 1)
	is.Equal(strings.Count(err.Error(), `"a"`), 1)
}
