package core

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"
)

// The presentation cache.
//
// Presenting 59 tools' schemas (flattening, sharing, compact inlining, output
// projection and $ids) costs tens of milliseconds of CPU, which start-up would
// pay before answering initialize. The presentations are a pure function of
// the declarations, so `go generate ./core` computes them once into
// presented.json, embedded here. A tool uses its cached presentation only
// when the fingerprint of its declaration (name, input, result, examples,
// session flag) matches; anything else is presented at start-up as before.
// TestPresentationCacheCurrent fails when presented.json differs from a
// fresh computation, so a change to the presentation code cannot land with
// a stale cache.

//go:generate go run ../cmd/presentgen -o presented.json

//go:embed presented.json
var presentedJSON []byte

type cachedTool struct {
	Fingerprint    string          `json:"fingerprint"`
	Full           json.RawMessage `json:"full"`
	Compact        json.RawMessage `json:"compact"`
	CompactKind    string          `json:"compact_kind"`
	Output         json.RawMessage `json:"output"`
	CompleteOutput json.RawMessage `json:"complete_output"`
}

var presentedCache = sync.OnceValue(func() map[string]*cachedTool {
	var m map[string]*cachedTool
	if json.Unmarshal(presentedJSON, &m) != nil {
		return nil
	}
	return m
})

// fingerprint digests everything a presentation is computed from.
func (o *Operation) fingerprint() string {
	h := sha256.New()
	sep := []byte{0}
	for _, part := range [][]byte{[]byte(o.Name), o.Input, o.Result, []byte{boolByte(o.RequiresSession)}} {
		h.Write(part)
		h.Write(sep)
	}
	for _, ex := range o.Examples {
		h.Write(ex)
		h.Write(sep)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// cached returns o's cached presentations when they are current.
func (o *Operation) cached() *cachedTool {
	if o.examplesCatalog == nil || o.examplesCatalog.fresh {
		return nil
	}
	c := presentedCache()[o.Name]
	if c == nil || c.Fingerprint != o.fingerprint() {
		return nil
	}
	return c
}

// WritePresentations computes every presentation of cat without the cache
// and writes presented.json (cmd/presentgen; the drift test).
func WritePresentations(w io.Writer, cat *Catalog) error {
	cat.fresh = true
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, op := range cat.ops {
		full, _, err := op.presentation(ProfileFull)
		if err != nil {
			return err
		}
		compact, kind, err := op.presentation(ProfileCompact)
		if err != nil {
			return err
		}
		if err := op.prepareOutput(); err != nil {
			return err
		}
		line, err := MarshalNoEscape(cachedTool{Fingerprint: op.fingerprint(), Full: full, Compact: compact, CompactKind: kind,
			Output: op.output, CompleteOutput: op.completeOutput})
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
		key, _ := MarshalNoEscape(op.Name)
		buf.Write(key)
		buf.WriteString(":")
		buf.Write(line)
	}
	buf.WriteString("\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}
