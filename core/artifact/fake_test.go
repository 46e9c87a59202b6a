package artifact_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// fakeOpener is a working in-memory container format for core's tests:
// "FAKE<format>\n" followed by a JSON list of entries with their bytes
// inline. It honours Companion for unpacked entries and reports unsafe
// paths and limits as ports.ContainerError, like the real adapters.
type fakeOpener struct{}

type fakeEntry struct {
	Path      string `json:"path"`
	Kind      string `json:"kind,omitempty"` // file (default), directory, symlink
	Data      string `json:"data,omitempty"`
	Link      string `json:"link,omitempty"`
	Exec      bool   `json:"exec,omitempty"`
	Unpacked  bool   `json:"unpacked,omitempty"`
	SHA       string `json:"sha,omitempty"` // declared sha256; "ok" means the correct one
	Size      int64  `json:"size,omitempty"`
	CSize     int64  `json:"csize,omitempty"` // compressed size, 0 means not compressed
	Encrypted bool   `json:"enc,omitempty"`
	Reject    string `json:"reject,omitempty"` // a ports.RejectedEntry reason: the entry is left out and listed by Rejected
}

// fakeBox encodes a container of the given format ("asar", "zip").
func fakeBox(format string, entries ...fakeEntry) []byte {
	for i := range entries {
		if entries[i].SHA == "ok" {
			entries[i].SHA = sum256(entries[i].Data)
		}
	}
	b, _ := json.Marshal(entries)
	return append([]byte("FAKE"+format+"\n"), b...)
}

func sum256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

var (
	openHookMu sync.Mutex
	openHook   func(path string) // called on every Open of a fake entry
)

func setOpenHook(f func(string)) func() {
	openHookMu.Lock()
	openHook = f
	openHookMu.Unlock()
	return func() { setOpenHook(nil) }
}

func (fakeOpener) Recognize(head []byte, name string) (string, bool) {
	if !bytes.HasPrefix(head, []byte("FAKE")) {
		return "", false
	}
	i := bytes.IndexByte(head, '\n')
	if i < 0 {
		return "", false
	}
	return string(head[4:i]), true
}

func (o fakeOpener) OpenContainer(ctx context.Context, req ports.ContainerRequest) (ports.Container, error) {
	raw, err := io.ReadAll(io.NewSectionReader(req.ReaderAt, 0, req.Size))
	if err != nil {
		return nil, err
	}
	format, _ := o.Recognize(raw, req.Name)
	var entries []fakeEntry
	if err := json.Unmarshal(raw[bytes.IndexByte(raw, '\n')+1:], &entries); err != nil {
		return nil, &ports.ContainerError{Format: format, Reason: ports.ContainerFormat, Err: err}
	}
	c := &fakeContainer{format: format, req: req, byPath: map[string]fakeEntry{}}
	for i, e := range entries {
		if e.Reject != "" {
			c.rejected = append(c.rejected, ports.RejectedEntry{Name: e.Path, Index: i, Reason: e.Reject, Kind: ports.EntryFile, Size: int64(len(e.Data)), CompressedSize: -1})
			continue
		}
		if strings.Contains(e.Path, "..") || strings.HasPrefix(e.Path, "/") {
			return nil, &ports.ContainerError{Format: format, Reason: ports.ContainerPath, Path: e.Path, Err: errors.New("unsafe name")}
		}
		declared := int64(len(e.Data))
		if e.Size != 0 {
			declared = e.Size // a header that lies
		}
		// Like a real adapter, the fake checks what the header declares.
		if req.Limits.MaxCompressionRatio > 0 && e.CSize > 0 && declared > e.CSize*req.Limits.MaxCompressionRatio {
			return nil, &ports.ContainerError{Format: format, Reason: ports.ContainerLimit, Limit: "max_compression_ratio", Path: e.Path, Err: errors.New("bomb")}
		}
		ce := ports.ContainerEntry{Path: e.Path, Kind: ports.EntryKind(e.Kind), Link: e.Link, Executable: e.Exec, Unpacked: e.Unpacked,
			Encrypted: e.Encrypted, CompressedSize: -1, Offset: -1, DeclaredSHA256: e.SHA}
		if ce.Kind == "" {
			ce.Kind = ports.EntryFile
		}
		if ce.Kind == ports.EntryFile {
			ce.Size = int64(len(e.Data))
			if e.Size != 0 {
				ce.Size = e.Size
			}
			if e.CSize > 0 {
				ce.CompressedSize = e.CSize
			}
		}
		c.entries = append(c.entries, ce)
		c.byPath[e.Path] = e
	}
	return c, nil
}

type fakeContainer struct {
	format   string
	req      ports.ContainerRequest
	entries  []ports.ContainerEntry
	byPath   map[string]fakeEntry
	rejected []ports.RejectedEntry
}

func (c *fakeContainer) Entries() []ports.ContainerEntry { return c.entries }
func (c *fakeContainer) Rejected() []ports.RejectedEntry { return c.rejected }
func (c *fakeContainer) Close() error                    { return nil }

func (c *fakeContainer) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	openHookMu.Lock()
	h := openHook
	openHookMu.Unlock()
	if h != nil {
		h(name)
	}
	e, ok := c.byPath[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	if e.Unpacked {
		missing := &ports.ContainerError{Format: c.format, Reason: ports.ContainerUnavailable, Path: name, Err: errors.New("companion missing")}
		if c.req.Companion == nil {
			return nil, missing
		}
		rc, err := c.req.Companion(ctx, path.Join(c.req.Name+".unpacked", name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, missing
		}
		return rc, err
	}
	return io.NopCloser(strings.NewReader(e.Data)), nil
}

// catalog is the default catalog, checked, with output validation on.
func catalog(t *testing.T) *core.Catalog {
	t.Helper()
	c, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	c.SetCheckOutputs(true)
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	return c
}
