package zip_test

import (
	stdzip "archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/zip"
	"rea/ports"
)

var update = flag.Bool("update", false, "rewrite testdata/bad")

func open(t *testing.T, b []byte, o *zip.Options) (*zip.Reader, error) {
	t.Helper()
	r, err := zip.NewReader(bytes.NewReader(b), int64(len(b)), o)
	if err == nil {
		t.Cleanup(func() { r.Close() })
	}
	return r, err
}

func readAll(t *testing.T, r *zip.Reader, name string) ([]byte, error) {
	t.Helper()
	rc, err := r.Open(context.Background(), name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func TestEntries(t *testing.T) {
	is := is.New(t)
	b := build(t,
		member{name: "AndroidManifest.xml", data: []byte("<manifest/>")},
		member{name: "lib/arm64-v8a/libapp.so", data: bytes.Repeat([]byte{0x7f, 'E', 'L', 'F'}, 100), mode: 0o755},
		member{name: "assets/", mode: fs.ModeDir | 0o755},
		member{name: "assets/app.js", data: []byte("console.log(1)\n"), store: true},
		member{name: "link", data: []byte("assets/app.js"), mode: fs.ModeSymlink | 0o777},
		member{name: "secret.bin", data: []byte("ciphertext"), flags: 0x1},
	)
	r, err := open(t, b, nil)
	is.NoErr(err)
	byPath := map[string]ports.ContainerEntry{}
	for _, e := range r.Entries() {
		byPath[e.Path] = e
	}
	is.Equal(len(byPath), 6)
	is.Equal(byPath["assets"].Kind, ports.EntryDirectory)
	so := byPath["lib/arm64-v8a/libapp.so"]
	is.Equal(so.Kind, ports.EntryFile)
	is.True(so.Executable)
	is.Equal(so.Size, int64(400))
	is.True(so.CompressedSize < so.Size) // deflated
	is.True(so.Offset > 0)
	js := byPath["assets/app.js"]
	is.Equal(js.CompressedSize, js.Size) // stored
	is.Equal(string(b[js.Offset:js.Offset+js.Length]), "console.log(1)\n")
	is.Equal(byPath["link"].Kind, ports.EntrySymlink)
	is.Equal(byPath["link"].Link, "assets/app.js")
	is.True(byPath["secret.bin"].Encrypted)
	is.Equal(byPath["AndroidManifest.xml"].DeclaredSHA256, "") // ZIP declares CRC-32 only

	got, err := readAll(t, r, "lib/arm64-v8a/libapp.so")
	is.NoErr(err)
	is.Equal(len(got), 400)
	_, err = r.Open(context.Background(), "secret.bin")
	var ce *ports.ContainerError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Reason, ports.ContainerUnavailable)
	_, err = r.Open(context.Background(), "assets")
	is.True(errors.As(err, &ce))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = r.Open(ctx, "assets/app.js")
	is.True(errors.Is(err, context.Canceled))
}

func TestRecognize(t *testing.T) {
	var o zip.Opener
	empty := build(t)
	for _, c := range []struct {
		name, want string
		head       []byte
	}{
		{"app.apk", "apk", []byte("PK\x03\x04....")},
		{"App.IPA", "ipa", []byte("PK\x03\x04")},
		{"pkg.msix", "msix", []byte("PK\x03\x04")},
		{"pkg.appx", "appx", []byte("PK\x03\x04")},
		{"lib.jar", "zip", []byte("PK\x03\x04")},
		{"empty.zip", "zip", empty},
		{"x.zip", "", []byte("MZ")},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			f, ok := o.Recognize(c.head, c.name)
			is.Equal(ok, c.want != "")
			is.Equal(f, c.want)
		})
	}
}

// badCases are the bad-input corpus: each archive, the reason its typed
// error carries, and whether it fails when opened or when read.
func badCases(t testing.TB) map[string]struct {
	data   []byte
	reason string
	detail string // NameError reason or LimitError limit
	onRead bool
	opts   *zip.Options
} {
	zeros := bytes.Repeat([]byte{0}, 4<<20)
	type c = struct {
		data   []byte
		reason string
		detail string
		onRead bool
		opts   *zip.Options
	}
	return map[string]c{
		"dotdot":           {build(t, member{name: "../evil.sh", data: []byte("x")}), ports.ContainerPath, "dot-dot", false, nil},
		"dotdot-inner":     {build(t, member{name: "a/../../evil", data: []byte("x")}), ports.ContainerPath, "dot-dot", false, nil},
		"absolute":         {build(t, member{name: "/etc/passwd", data: []byte("x")}), ports.ContainerPath, "absolute", false, nil},
		"drive":            {build(t, member{name: "C:/x", data: []byte("x")}), ports.ContainerPath, "absolute", false, nil},
		"backslash":        {build(t, member{name: `..\evil`, data: []byte("x")}), ports.ContainerPath, "backslash", false, nil},
		"nul":              {build(t, member{name: "a\x00b", data: []byte("x")}), ports.ContainerPath, "nul", false, nil},
		"empty-component":  {build(t, member{name: "a//b", data: []byte("x")}), ports.ContainerPath, "empty", false, nil},
		"duplicate":        {build(t, member{name: "a", data: []byte("x")}, member{name: "a", data: []byte("y")}), ports.ContainerPath, "duplicate", false, nil},
		"file-as-dir":      {build(t, member{name: "a", data: []byte("x")}, member{name: "a/b", data: []byte("y")}), ports.ContainerPath, "file-as-directory", false, nil},
		"bomb":             {build(t, member{name: "zeros.bin", data: zeros}), ports.ContainerLimit, "max_compression_ratio", false, nil},
		"too-many":         {build(t, member{name: "a", data: nil}, member{name: "b", data: nil}, member{name: "c", data: nil}), ports.ContainerLimit, "max_entries", false, &zip.Options{MaxEntries: 2}},
		"entry-too-big":    {build(t, member{name: "a", data: make([]byte, 1000), store: true}), ports.ContainerLimit, "max_entry_bytes", false, &zip.Options{MaxEntryBytes: 999}},
		"total-too-big":    {build(t, member{name: "a", data: make([]byte, 600), store: true}, member{name: "b", data: make([]byte, 600), store: true}), ports.ContainerLimit, "max_total_bytes", false, &zip.Options{MaxTotalBytes: 1000}},
		"size-lie":         {build(t, member{name: "a", data: []byte("0123456789"), rawSize: 4}), ports.ContainerFormat, "", true, nil},
		"truncated":        {build(t, member{name: "a", data: []byte("hello")})[:20], ports.ContainerFormat, "", false, nil},
		"long-name":        {build(t, member{name: strings.Repeat("d/", 40) + "f", data: nil}), ports.ContainerLimit, "max_path_bytes", false, &zip.Options{MaxPathBytes: 64}},
		"symlink-nul":      {build(t, member{name: "l", data: []byte("a\x00b"), mode: fs.ModeSymlink | 0o777}), ports.ContainerPath, "utf8", false, nil},
		"symlink-too-long": {build(t, member{name: "l", data: bytes.Repeat([]byte("a"), 100), mode: fs.ModeSymlink | 0o777}), ports.ContainerLimit, "max_path_bytes", false, &zip.Options{MaxPathBytes: 64}},
	}
}

func TestBadInput(t *testing.T) {
	for name, c := range badCases(t) {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			file := filepath.Join("testdata", "bad", name+".zip")
			if *update {
				is.NoErr(os.WriteFile(file, c.data, 0o644))
			}
			data, err := os.ReadFile(file)
			is.NoErr(err) // run go test -update to write the corpus
			r, err := open(t, data, c.opts)
			if c.onRead {
				is.NoErr(err)
				for _, e := range r.Entries() {
					if e.Kind == ports.EntryFile {
						if _, err = readAll(t, r, e.Path); err != nil {
							break
						}
					}
				}
			}
			var ce *ports.ContainerError
			if !errors.As(err, &ce) {
				t.Fatalf("want a *ports.ContainerError, got %v", err)
			}
			is.Equal(ce.Reason, c.reason)
			var ne *zip.NameError
			var le *zip.LimitError
			switch c.reason {
			case ports.ContainerPath:
				is.True(errors.As(err, &ne))
				is.Equal(ne.Reason, c.detail)
			case ports.ContainerLimit:
				is.True(errors.As(err, &le))
				is.Equal(le.Limit, c.detail)
				is.Equal(ce.Limit, c.detail)
			}
		})
	}
}

// TestLimitsWhileReading trips each limit during decompression, as a header
// that understated sizes would, by lowering the limits after opening.
func TestLimitsWhileReading(t *testing.T) {
	zeros := bytes.Repeat([]byte{0}, 1<<20)
	b := build(t, member{name: "z", data: zeros}, member{name: "y", data: zeros})
	for _, c := range []struct {
		limit string
		opts  zip.Options
		names []string
	}{
		{"max_entry_bytes", zip.Options{MaxEntryBytes: 1000}, []string{"z"}},
		{"max_compression_ratio", zip.Options{MaxCompressionRatio: 10}, []string{"z"}},
		{"max_total_bytes", zip.Options{MaxTotalBytes: 1<<20 + 10, MaxCompressionRatio: 2000}, []string{"z", "y"}},
	} {
		t.Run(c.limit, func(t *testing.T) {
			is := is.New(t)
			r, err := open(t, b, &zip.Options{MaxCompressionRatio: 2000})
			is.NoErr(err)
			zip.SetLimits(r, c.opts)
			for _, n := range c.names {
				if _, err = readAll(t, r, n); err != nil {
					break
				}
			}
			var le *zip.LimitError
			is.True(errors.As(err, &le))
			is.Equal(le.Limit, c.limit)
		})
	}
}

func TestOpenFile(t *testing.T) {
	is := is.New(t)
	p := filepath.Join(t.TempDir(), "a.jar")
	is.NoErr(os.WriteFile(p, build(t, member{name: "META-INF/MANIFEST.MF", data: []byte("Manifest-Version: 1.0\n")}), 0o644))
	r, err := zip.Open(p, nil)
	is.NoErr(err)
	defer r.Close()
	got, err := readAll(t, r, "META-INF/MANIFEST.MF")
	is.NoErr(err)
	is.Equal(string(got), "Manifest-Version: 1.0\n")
	_, err = zip.Open(filepath.Join(t.TempDir(), "absent.zip"), nil)
	var ce *ports.ContainerError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Reason, ports.ContainerIO)
}

func TestOpener(t *testing.T) {
	is := is.New(t)
	b := build(t, member{name: "classes.dex", data: []byte("dex\n035")})
	c, err := zip.Opener{}.OpenContainer(context.Background(), ports.ContainerRequest{Name: "app.apk", ReaderAt: bytes.NewReader(b), Size: int64(len(b)),
		Limits: ports.ContainerLimits{MaxEntries: 10}})
	is.NoErr(err)
	defer c.Close()
	is.Equal(len(c.Entries()), 1)
	rc, err := c.Open(context.Background(), "classes.dex")
	is.NoErr(err)
	got, _ := io.ReadAll(rc)
	rc.Close()
	is.Equal(string(got), "dex\n035")
}

// With SkipUnsafeNames (what the Opener sets), every archive the strict
// reader refuses for a name opens: the entry is listed in Rejected with the
// reason the strict reader gives, left out of Entries, and cannot be
// opened; the other entries are intact.
func TestSkipUnsafeNames(t *testing.T) {
	for name, c := range badCases(t) {
		if c.reason != ports.ContainerPath {
			continue
		}
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			data := append([]byte(nil), c.data...)
			// One safe file after the hostile ones.
			data = appendMember(t, data, member{name: "ok.txt", data: []byte("fine")})
			r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)), &zip.Options{SkipUnsafeNames: true})
			is.NoErr(err)
			rej := r.Rejected()
			is.True(len(rej) > 0)
			for _, e := range rej {
				is.True(strings.HasSuffix(e.Reason, c.detail)) // "utf8" for a link's target is "link-utf8"
				for _, ok := range r.Entries() {
					is.True(ok.Path != strings.TrimSuffix(e.Name, "/"))
				}
				_, err := r.Open(t.Context(), e.Name)
				is.True(err != nil)
			}
			got, err := readAll(t, r, "ok.txt")
			is.NoErr(err)
			is.Equal(string(got), "fine")
		})
	}
	// Both copies of a shared name are left out, each with its index.
	is := is.New(t)
	data := build(t, member{name: "a", data: []byte("x")}, member{name: "keep", data: []byte("k")}, member{name: "a", data: []byte("yy")})
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)), &zip.Options{SkipUnsafeNames: true})
	is.NoErr(err)
	is.Equal(r.Rejected(), []ports.RejectedEntry{
		{Name: "a", Index: 0, Reason: "duplicate", Kind: ports.EntryFile, Size: 1, CompressedSize: r.Rejected()[0].CompressedSize},
		{Name: "a", Index: 2, Reason: "duplicate", Kind: ports.EntryFile, Size: 2, CompressedSize: r.Rejected()[1].CompressedSize},
	})
	is.Equal(len(r.Entries()), 1)
	is.Equal(r.Entries()[0].Path, "keep")
}

// appendMember copies an archive built by build, names as written, and
// adds m.
func appendMember(t *testing.T, data []byte, m member) []byte {
	t.Helper()
	z, err := stdzip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, stdzip.ErrInsecurePath) {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	for _, f := range z.File {
		if err := w.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := w.Create(m.name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(m.data)
	w.Close()
	return buf.Bytes()
}

// TestForgedSizesAreNamed: an entry whose data does not match the size its
// headers declare (a ZIP bomb that understates its size, a truncated
// archive) or its CRC-32 fails as a format error that says which. Before,
// an inventory of a ZIP declaring 1000 bytes for 512 MiB of zeros failed
// with only "zip: format (entry \"zeros.bin\"): zip: not a valid zip file".
func TestForgedSizesAreNamed(t *testing.T) {
	data := bytes.Repeat([]byte{'a'}, 4096)
	for _, c := range []struct {
		name   string
		m      member
		want   string
		target error
	}{
		{"understated", member{name: "z", data: data, rawSize: 1000}, "its data runs past the 1000 bytes its header declares", stdzip.ErrFormat},
		{"overstated", member{name: "z", data: data, rawSize: 8192}, "its data ends after 4096 of the 8192 bytes its header declares", io.ErrUnexpectedEOF},
		{"checksum", member{name: "z", data: data, rawSize: 4096, crc: 1}, "its data does not match the CRC-32 its header declares", stdzip.ErrChecksum},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			r, err := open(t, build(t, c.m), nil)
			is.NoErr(err)
			_, err = readAll(t, r, "z")
			var ce *ports.ContainerError
			is.True(errors.As(err, &ce))
			is.Equal(ce.Reason, ports.ContainerFormat)
			is.Equal(ce.Path, "z")
			is.True(errors.Is(err, c.target))              // the archive/zip error stays reachable
			is.True(strings.Contains(err.Error(), c.want)) // says what is wrong
		})
	}
}
