package present

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
)

// The presentation cache.
//
// Presenting every tool's schemas (flattening, sharing, compact inlining,
// output projection and $ids) costs tens of milliseconds of CPU, which
// start-up would pay before answering initialize. The presentations are a
// pure function of the declarations, so `go generate ./core` computes them
// once into core/presented.json, which the kernel embeds. A tool uses its
// cached presentation only when the Fingerprint of its declaration
// matches; anything else is presented at start-up as before.

// Tool is one operation's presentations as the cache holds them.
type Tool struct {
	Name           string          `json:"-"`
	Fingerprint    string          `json:"fingerprint"`
	Full           json.RawMessage `json:"full"`
	Compact        json.RawMessage `json:"compact"`
	CompactKind    string          `json:"compact_kind"`
	Output         json.RawMessage `json:"output"`
	CompleteOutput json.RawMessage `json:"complete_output"`
}

// Fingerprint digests everything an operation's presentations are computed
// from: its name, input and result schemas, session flag, examples and the
// sentences of its shallow inputs (Shallow).
func Fingerprint(name string, input, result json.RawMessage, session bool, examples []json.RawMessage, shallow map[string]string) string {
	h := sha256.New()
	sep := []byte{0}
	flag := []byte{0}
	if session {
		flag[0] = 1
	}
	for _, part := range [][]byte{[]byte(name), input, result, flag} {
		h.Write(part)
		h.Write(sep)
	}
	for _, ex := range examples {
		h.Write(ex)
		h.Write(sep)
	}
	if len(shallow) > 0 { // absent from older fingerprints, which stay valid
		h.Write([]byte("shallow"))
		for _, at := range sortedMapKeys(anyMap(shallow)) {
			h.Write([]byte(at))
			h.Write(sep)
			h.Write([]byte(shallow[at]))
			h.Write(sep)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ParseCache reads a cache file written by WriteCache; nil when it does
// not parse (every tool is then presented afresh).
func ParseCache(data []byte) map[string]*Tool {
	var m map[string]*Tool
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// WriteCache writes tools, one line each in the order given, as a cache
// file.
func WriteCache(w io.Writer, tools []Tool) error {
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, t := range tools {
		line, err := encode(t)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
		key, _ := encode(t.Name)
		buf.Write(key)
		buf.WriteString(":")
		buf.Write(line)
	}
	buf.WriteString("\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}
