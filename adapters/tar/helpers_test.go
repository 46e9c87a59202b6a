package tar_test

import (
	stdtar "archive/tar"
	"bytes"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// member is one entry written by build.
type member struct {
	name string
	data []byte
	typ  byte  // 0 means a regular file
	mode int64 // 0 means 0644 (0755 for directories)
	link string
	size int64 // when set, the size the header declares (the bytes written stay data)
}

// build writes a tar with archive/tar, which does not check names, so
// unsafe names reach the archive as an attacker would write them. A member
// whose size lies ends the archive there, unclosed.
func build(t testing.TB, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := stdtar.NewWriter(&buf)
	for _, m := range members {
		h := &stdtar.Header{Name: m.name, Typeflag: m.typ, Mode: m.mode, Linkname: m.link, Size: int64(len(m.data)), Format: stdtar.FormatPAX}
		if h.Typeflag == 0 {
			h.Typeflag = stdtar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
			if h.Typeflag == stdtar.TypeDir {
				h.Mode = 0o755
			}
		}
		if h.Typeflag != stdtar.TypeReg {
			h.Size = 0
		}
		if m.size != 0 {
			h.Size = m.size
			if err := w.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			w.Write(m.data)
			w.Flush()
			return append(buf.Bytes(), make([]byte, 1024)...)
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zst(t testing.TB, b []byte) []byte { return zstWindow(t, b, 0) }

// zstWindow compresses b in a zstd frame declaring a window of size bytes
// (0: the encoder's default).
func zstWindow(t testing.TB, b []byte, size int) []byte {
	t.Helper()
	opts := []zstd.EOption{zstd.WithEncoderConcurrency(1)}
	if size > 0 {
		opts = append(opts, zstd.WithWindowSize(size))
	}
	w, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

// sample is an npm-like package: files under package/, a directory, an
// executable, a symbolic link and a hard link.
func sample(t testing.TB) []byte {
	return build(t,
		member{name: "package/", typ: stdtar.TypeDir},
		member{name: "package/package.json", data: []byte(`{"name":"tiny","version":"1.0.0","main":"index.js"}`)},
		member{name: "package/index.js", data: []byte("module.exports = require('./lib/a.js');\n")},
		member{name: "package/lib/a.js", data: bytes.Repeat([]byte("exports.a = 1;\n"), 300)},
		member{name: "package/bin/cli.js", data: []byte("#!/usr/bin/env node\nrequire('..');\n"), mode: 0o755},
		member{name: "package/latest.js", typ: stdtar.TypeSymlink, link: "index.js"},
		member{name: "package/copy.js", typ: stdtar.TypeLink, link: "package/index.js"},
	)
}
