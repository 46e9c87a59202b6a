package asar_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
)

func TestEntries(t *testing.T) {
	is := is.New(t)
	b := writeArchive(t, sampleEntries(), nil)
	r := memReader(t, b, nil)
	got := r.Entries()
	var paths []string
	for _, e := range got {
		paths = append(paths, e.Path)
	}
	is.True(slices.IsSorted(paths)) // code-point order of full paths
	is.Equal(len(got), len(sampleEntries()))

	want := map[string]asar.WriteEntry{}
	for _, e := range sampleEntries() {
		want[e.Path] = e
	}
	for _, e := range got {
		w := want[e.Path]
		is.Equal(e.Type, w.Type)
		is.Equal(e.Unpacked, w.Unpacked)
		switch e.Type {
		case asar.TypeFile:
			is.Equal(e.Size, int64(len(w.Data)))
			is.Equal(e.Executable, w.Executable)
			is.True(e.Integrity != nil)
			is.Equal(e.Integrity.BlockSize, int64(asar.BlockSize))
			if !e.Unpacked {
				// Offset is absolute: the bytes are right there.
				is.True(e.Offset >= r.DataOffset())
				is.True(bytes.Equal(b[e.Offset:e.Offset+e.Size], w.Data))
			} else {
				is.Equal(e.Offset, int64(0))
			}
		case asar.TypeLink:
			is.Equal(e.Link, w.Link)
		}
	}
	e, ok := r.Lookup("lib/main.js")
	is.True(ok)
	is.Equal(e.Type, asar.TypeLink)
	_, ok = r.Lookup("nope")
	is.True(!ok)
	is.True(bytes.HasPrefix(r.RawHeader(), []byte(`{"files":{"2":`))) // integer-like names first, as in JavaScript
}

func TestOpen(t *testing.T) {
	r := memReader(t, writeArchive(t, sampleEntries(), nil), nil)
	tests := []struct {
		name string
		want string
		err  error
	}{
		{"lib/index.js", "module.exports = 1\n", nil},
		{"lib/main.js", "module.exports = 1\n", nil},
		{"lib/current/data.json", `{"a":1}`, nil},
		{"empty", "", nil},
		{"missing", "", fs.ErrNotExist},
		{"../etc/passwd", "", fs.ErrInvalid},
		{"/2", "", fs.ErrInvalid},
		{"lib/sub/addon.node", "", asar.ErrUnpackedMissing}, // NewReader without UnpackedDir
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rc, err := r.Open(tt.name)
			if tt.err != nil {
				is.True(errors.Is(err, tt.err))
				return
			}
			is.NoErr(err)
			defer rc.Close()
			b, err := io.ReadAll(rc)
			is.NoErr(err)
			is.Equal(string(b), tt.want)
			_, seekable := rc.(io.ReadSeeker)
			is.True(seekable)
		})
	}
	is := is.New(t)
	_, err := r.Open("lib")
	is.True(err != nil) // a directory has no bytes
}

func TestOptionsLimits(t *testing.T) {
	deep := `{"files":{"a":{"files":{"b":{"files":{"c":{"size":0,"offset":"0"}}}}}}}`
	tests := []struct {
		name   string
		header string
		opts   asar.Options
		reason string
	}{
		{"entries", `{"files":{"a":{"files":{}},"b":{"files":{}},"c":{"files":{}}}}`, asar.Options{MaxEntries: 2}, asar.ReasonLimit},
		{"depth", deep, asar.Options{MaxDepth: 2}, asar.ReasonDepth},
		{"path", deep, asar.Options{MaxPathBytes: 4}, asar.ReasonPath},
		{"header", deep, asar.Options{MaxHeaderBytes: 16}, asar.ReasonLimit},
		{"within limits", deep, asar.Options{MaxDepth: 3, MaxEntries: 3, MaxPathBytes: 5}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			b := rawArchive(tt.header, "")
			_, err := asar.NewReader(bytes.NewReader(b), int64(len(b)), &tt.opts)
			if tt.reason == "" {
				is.NoErr(err)
				return
			}
			var fe *asar.FormatError
			is.True(errors.As(err, &fe))
			is.Equal(fe.Reason, tt.reason)
		})
	}
}

func TestLenientFields(t *testing.T) {
	is := is.New(t)
	// Unknown keys are skipped; a dangling link is kept but resolves to nothing.
	h := `{"version":1,"files":{"a":{"size":2,"offset":"0","mtime":[1,{"x":null}]},"u":{"size":5,"unpacked":true},"l":{"link":"gone/x"}}}`
	r := memReader(t, rawArchive(h, "ab"), nil)
	is.Equal(len(r.Entries()), 3)
	b, err := fs.ReadFile(r.FS(), "a")
	is.NoErr(err)
	is.Equal(string(b), "ab")
	_, err = fs.Stat(r.FS(), "l")
	is.True(errors.Is(err, fs.ErrNotExist))
	e, _ := r.Lookup("u")
	is.True(e.Unpacked)
	is.Equal(e.Size, int64(5))
}

func TestWriteRejectsUnsafeNames(t *testing.T) {
	tests := []struct {
		name    string
		entries []asar.WriteEntry
		reason  string
	}{
		{"dot-dot", []asar.WriteEntry{{Path: "../x", Type: asar.TypeFile}}, "dot-dot"},
		{"absolute", []asar.WriteEntry{{Path: "/x", Type: asar.TypeFile}}, "absolute"},
		{"backslash", []asar.WriteEntry{{Path: `a\b`, Type: asar.TypeFile}}, "backslash"},
		{"nul", []asar.WriteEntry{{Path: "a\x00", Type: asar.TypeFile}}, "nul"},
		{"empty component", []asar.WriteEntry{{Path: "a//b", Type: asar.TypeFile}}, "empty"},
		{"invalid utf-8", []asar.WriteEntry{{Path: "a\xff", Type: asar.TypeFile}}, "utf8"},
		{"duplicate", []asar.WriteEntry{{Path: "a", Type: asar.TypeFile}, {Path: "a", Type: asar.TypeDir}}, "duplicate"},
		{"case", []asar.WriteEntry{{Path: "d/Makefile", Type: asar.TypeFile}, {Path: "d/makefile", Type: asar.TypeFile}}, "case-collision"},
		{"link outside", []asar.WriteEntry{{Path: "l", Type: asar.TypeLink, Link: "../x"}}, "dot-dot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := asar.Write(io.Discard, tt.entries, nil)
			var ne *asar.NameError
			is.True(errors.As(err, &ne))
			is.Equal(ne.Reason, tt.reason)
		})
	}
	is := is.New(t)
	err := asar.Write(io.Discard, []asar.WriteEntry{{Path: "f", Type: asar.TypeFile}, {Path: "f/x", Type: asar.TypeFile}}, nil)
	is.True(err != nil && strings.Contains(err.Error(), "not a directory"))
}

func TestWriteJSONEscaping(t *testing.T) {
	is := is.New(t)
	// JSON.stringify escapes only quotes, backslashes and control characters.
	name := "tab\there \"q\" <&> \u2028"
	b := writeArchive(t, []asar.WriteEntry{{Path: name, Type: asar.TypeFile, Data: []byte("x")}}, nil)
	r := memReader(t, b, nil)
	is.True(bytes.Contains(r.RawHeader(), []byte(`"tab\there \"q\" <&> `+"\u2028"+`"`)))
	_, ok := r.Lookup(name)
	is.True(ok)
}
