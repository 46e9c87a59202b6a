package asar_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
)

// rawArchive frames a header JSON string and data the way @electron/asar does,
// without checking either, so tests can build malformed archives.
func rawArchive(headerJSON string, data string) []byte {
	n := len(headerJSON)
	padded := (n + 3) &^ 3
	b := make([]byte, 16+padded, 16+padded+len(data))
	binary.LittleEndian.PutUint32(b[0:], 4)
	binary.LittleEndian.PutUint32(b[4:], uint32(8+padded))
	binary.LittleEndian.PutUint32(b[8:], uint32(4+padded))
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	copy(b[16:], headerJSON)
	return append(b, data...)
}

// writeArchive writes entries with asar.Write and returns the bytes.
func writeArchive(t testing.TB, files []asar.WriteEntry, opts *asar.WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := asar.Write(&buf, files, opts); err != nil {
		t.Fatalf("write: %v", err)
	}
	return buf.Bytes()
}

func memReader(t testing.TB, b []byte, opts *asar.Options) *asar.Reader {
	t.Helper()
	r, err := asar.NewReader(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// pattern returns n bytes that differ from block to block.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// sampleEntries is a small tree exercising every entry kind.
func sampleEntries() []asar.WriteEntry {
	return []asar.WriteEntry{
		{Path: "10", Type: asar.TypeDir},
		{Path: "2", Type: asar.TypeFile, Data: []byte("two")},
		{Path: "README.md", Type: asar.TypeFile, Data: []byte("# readme\n")},
		{Path: "bin", Type: asar.TypeDir},
		{Path: "bin/tool", Type: asar.TypeFile, Data: []byte("#!/bin/sh\necho hi\n"), Executable: true},
		{Path: "empty", Type: asar.TypeFile},
		{Path: "lib", Type: asar.TypeDir},
		{Path: "lib/big.bin", Type: asar.TypeFile, Data: pattern(9<<20+3, 1)},
		{Path: "lib/current", Type: asar.TypeLink, Link: "lib/sub"},
		{Path: "lib/index.js", Type: asar.TypeFile, Data: []byte("module.exports = 1\n")},
		{Path: "lib/main.js", Type: asar.TypeLink, Link: "lib/index.js"},
		{Path: "lib/sub", Type: asar.TypeDir},
		{Path: "lib/sub/addon.node", Type: asar.TypeFile, Data: []byte("\x7fELF native"), Unpacked: true},
		{Path: "lib/sub/data.json", Type: asar.TypeFile, Data: []byte(`{"a":1}`)},
		{Path: "héllo wörld.txt", Type: asar.TypeFile, Data: []byte("unicode\n")},
	}
}

// interop locates node and @electron/asar, or skips.
type interop struct {
	node   string
	root   string // directory holding package.json and node_modules
	script string
}

func needNode(t *testing.T) *interop {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping @electron/asar interop: node is not in PATH")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "package.json")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Skip("skipping @electron/asar interop: no package.json above " + wd)
		}
		root = parent
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@electron", "asar", "package.json")); err != nil {
		t.Skip("skipping @electron/asar interop: " + filepath.Join(root, "node_modules/@electron/asar") + " is absent (run npm ci in " + root + ")")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "asar.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	return &interop{node: node, root: root, script: script}
}

func (n *interop) run(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), n.node, append([]string{n.script}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(n.root, "node_modules"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

var _ = is.New
