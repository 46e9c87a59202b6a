package asar_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
)

var update = flag.Bool("update", false, "rewrite testdata/bad from badCorpus")

func deepHeader(levels int) string {
	return `{"files":` + strings.Repeat(`{"d":{"files":`, levels) + `{}` + strings.Repeat(`}}`, levels) + `}`
}

// badCorpus is the malformed-archive corpus: each file in testdata/bad is
// generated from it and must fail NewReader with the given reason.
var badCorpus = []struct {
	file   string
	data   []byte
	reason string
}{
	{"short.asar", []byte{4, 0, 0}, asar.ReasonHeaderSize},
	{"size-pickle.asar", func() []byte { b := rawArchive(`{"files":{}}`, ""); b[0] = 8; return b }(), asar.ReasonHeaderSize},
	{"header-past-end.asar", func() []byte {
		b := rawArchive(`{"files":{}}`, "")
		binary.LittleEndian.PutUint32(b[4:], 1<<20)
		return b
	}(), asar.ReasonHeaderSize},
	{"string-past-payload.asar", func() []byte {
		b := rawArchive(`{"files":{}}`, "")
		binary.LittleEndian.PutUint32(b[12:], 200)
		return b
	}(), asar.ReasonHeaderSize},
	{"json-syntax.asar", rawArchive(`{"files":{"a":{"size":1,`, "x"), asar.ReasonJSON},
	{"json-trailing.asar", rawArchive(`{"files":{}}{}`, ""), asar.ReasonJSON},
	{"json-duplicate-key.asar", rawArchive(`{"files":{"a":{"size":1,"size":2,"offset":"0"}}}`, "xx"), asar.ReasonJSON},
	{"not-object.asar", rawArchive(`[1,2,3]`, ""), asar.ReasonNotObject},
	{"files-not-object.asar", rawArchive(`{"files":["a"]}`, ""), asar.ReasonNotObject},
	{"no-files.asar", rawArchive(`{"other":{}}`, ""), asar.ReasonNotObject},
	{"entry-not-object.asar", rawArchive(`{"files":{"a":7}}`, ""), asar.ReasonNotObject},
	{"offset-past-end.asar", rawArchive(`{"files":{"a":{"size":1,"offset":"100"}}}`, "abcd"), asar.ReasonOffset},
	{"offset-not-string.asar", rawArchive(`{"files":{"a":{"size":1,"offset":0}}}`, "abcd"), asar.ReasonOffset},
	{"offset-not-decimal.asar", rawArchive(`{"files":{"a":{"size":1,"offset":"0x1"}}}`, "abcd"), asar.ReasonOffset},
	{"offset-negative.asar", rawArchive(`{"files":{"a":{"size":1,"offset":"-1"}}}`, "abcd"), asar.ReasonOffset},
	{"offset-missing.asar", rawArchive(`{"files":{"a":{"size":1}}}`, "abcd"), asar.ReasonOffset},
	{"size-past-end.asar", rawArchive(`{"files":{"a":{"size":100,"offset":"2"}}}`, "abcd"), asar.ReasonSize},
	{"size-negative.asar", rawArchive(`{"files":{"a":{"size":-1,"offset":"0"}}}`, "abcd"), asar.ReasonSize},
	{"size-string.asar", rawArchive(`{"files":{"a":{"size":"3","offset":"0"}}}`, "abcd"), asar.ReasonSize},
	{"size-fraction.asar", rawArchive(`{"files":{"a":{"size":1.5,"offset":"0"}}}`, "abcd"), asar.ReasonSize},
	{"size-huge.asar", rawArchive(`{"files":{"a":{"size":99999999999999999999,"offset":"0"}}}`, "abcd"), asar.ReasonSize},
	{"size-missing.asar", rawArchive(`{"files":{"a":{"offset":"0"}}}`, "abcd"), asar.ReasonSize},
	{"path-dotdot.asar", rawArchive(`{"files":{"..":{"files":{"etc":{"size":1,"offset":"0"}}}}}`, "abcd"), asar.ReasonPath},
	{"path-dot.asar", rawArchive(`{"files":{".":{"size":1,"offset":"0"}}}`, "abcd"), asar.ReasonPath},
	{"path-empty.asar", rawArchive(`{"files":{"":{"size":1,"offset":"0"}}}`, "abcd"), asar.ReasonPath},
	{"path-absolute.asar", rawArchive(`{"files":{"/etc/passwd":{"size":1,"offset":"0"}}}`, "abcd"), asar.ReasonPath},
	{"path-slash.asar", rawArchive(`{"files":{"a/b":{"size":1,"offset":"0"}}}`, "abcd"), asar.ReasonPath},
	{"path-backslash.asar", rawArchive(`{"files":{"..\\evil":{"size":1,"offset":"0"}}}`, "abcd"), asar.ReasonPath},
	{"path-nul.asar", rawArchive(`{"files":{"a\u0000.js":{"size":1,"offset":"0"}}}`, "abcd"), asar.ReasonPath},
	{"path-case-collision.asar", rawArchive(`{"files":{"Readme":{"size":1,"offset":"0"},"README":{"size":1,"offset":"1"}}}`, "abcd"), asar.ReasonPath},
	{"path-duplicate.asar", rawArchive(`{"files":{"a":{"size":1,"offset":"0"},"a":{"size":1,"offset":"1"}}}`, "abcd"), asar.ReasonPath},
	{"link-outside.asar", rawArchive(`{"files":{"l":{"link":"../../etc/passwd"}}}`, ""), asar.ReasonLink},
	{"link-absolute.asar", rawArchive(`{"files":{"l":{"link":"/etc/passwd"}}}`, ""), asar.ReasonLink},
	{"link-cycle.asar", rawArchive(`{"files":{"a":{"link":"b"},"b":{"link":"a"}}}`, ""), asar.ReasonLink},
	{"link-self.asar", rawArchive(`{"files":{"d":{"files":{"l":{"link":"d/l/x"}}}}}`, ""), asar.ReasonLink},
	{"link-not-string.asar", rawArchive(`{"files":{"l":{"link":1}}}`, ""), asar.ReasonLink},
	{"entry-file-and-link.asar", rawArchive(`{"files":{"a":{"files":{},"link":"b"},"b":{"files":{}}}}`, ""), asar.ReasonEntry},
	{"entry-executable-type.asar", rawArchive(`{"files":{"a":{"size":1,"offset":"0","executable":"yes"}}}`, "abcd"), asar.ReasonEntry},
	{"integrity-block-size.asar", rawArchive(`{"files":{"a":{"size":1,"offset":"0","integrity":{"algorithm":"SHA256","hash":"","blockSize":0,"blocks":[]}}}}`, "abcd"), asar.ReasonIntegrity},
	{"integrity-missing-blocks.asar", rawArchive(`{"files":{"a":{"size":1,"offset":"0","integrity":{"algorithm":"SHA256","hash":"","blockSize":4}}}}`, "abcd"), asar.ReasonIntegrity},
	{"depth.asar", rawArchive(deepHeader(300), ""), asar.ReasonDepth},
	{"skip-depth.asar", rawArchive(`{"x":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`,"files":{}}`, ""), asar.ReasonDepth},
}

// TestGenerateCorpus rewrites testdata/bad when run with -update.
func TestGenerateCorpus(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/bad")
	}
	dir := filepath.Join("testdata", "bad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range badCorpus {
		if err := os.WriteFile(filepath.Join(dir, c.file), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("npm", func(t *testing.T) {
		n := needNode(t)
		src := filepath.Join(t.TempDir(), "src")
		small := slices.DeleteFunc(interopTree(), func(f diskFile) bool { return strings.HasPrefix(f.path, "big/") })
		buildTree(t, src, small)
		archive := filepath.Join("testdata", "npm-small.asar")
		if err := os.RemoveAll(archive + ".unpacked"); err != nil {
			t.Fatal(err)
		}
		n.run(t, "pack", src, archive, "*.node")
	})
}

// TestCommittedNPMArchive reads an archive @electron/asar packed, so the
// format is covered even where node is absent.
func TestCommittedNPMArchive(t *testing.T) {
	is := is.New(t)
	r, err := asar.Open(filepath.Join("testdata", "npm-small.asar"))
	is.NoErr(err)
	defer r.Close()
	small := slices.DeleteFunc(interopTree(), func(f diskFile) bool { return strings.HasPrefix(f.path, "big/") })
	slices.SortFunc(small, func(a, b diskFile) int { return strings.Compare(a.path, b.path) })
	got := r.Entries()
	is.Equal(len(got), len(small))
	for i, f := range small {
		g := got[i]
		g.Offset, g.Integrity = 0, nil
		is.Equal(g, f.want())
	}
	results, err := r.VerifyAll(context.Background(), 0)
	is.NoErr(err)
	for _, res := range results {
		is.Equal(res.Status, asar.StatusVerified) // every file in the committed archive verifies
	}
}

func TestBadCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "bad", "*.asar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(badCorpus) {
		t.Fatalf("testdata/bad has %d files, badCorpus %d: run go test -run TestGenerateCorpus -update", len(files), len(badCorpus))
	}
	for _, c := range badCorpus {
		t.Run(c.file, func(t *testing.T) {
			is := is.New(t)
			b, err := os.ReadFile(filepath.Join("testdata", "bad", c.file))
			is.NoErr(err)
			is.True(bytes.Equal(b, c.data)) // testdata/bad is stale: rerun with -update
			_, err = asar.NewReader(bytes.NewReader(b), int64(len(b)), nil)
			var fe *asar.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("NewReader error = %v, want a *FormatError", err)
			}
			is.Equal(fe.Reason, c.reason)
			t.Log(err)
			if c.reason == asar.ReasonPath {
				var ne *asar.NameError
				is.True(errors.As(err, &ne)) // the unsafe name is available
			}
			if c.file == "path-case-collision.asar" {
				_, err := asar.NewReader(bytes.NewReader(b), int64(len(b)), &asar.Options{AllowCaseCollisions: true})
				is.NoErr(err) // accepted on request
			}
		})
	}
}
