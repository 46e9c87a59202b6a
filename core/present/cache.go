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
// not parse (every tool is then presented afresh). It decodes no schema:
// each is a slice of data, found by skipping over JSON values, so a
// presentation costs neither a decode nor a copy until it is used (most
// never are: a command needs a few tools, a complete output schema only
// `rea tools NAME`). data must not change afterwards (it is embedded).
func ParseCache(data []byte) map[string]*Tool {
	m := map[string]*Tool{}
	ok := members(data, func(name, tool []byte) bool {
		t := &Tool{}
		var ok bool
		if t.Name, ok = unquote(name); !ok || m[t.Name] != nil {
			return false
		}
		m[t.Name] = t
		return members(tool, func(k, v []byte) bool {
			ok := true
			switch string(k) {
			case `"fingerprint"`:
				t.Fingerprint, ok = unquote(v)
			case `"compact_kind"`:
				t.CompactKind, ok = unquote(v)
			case `"full"`:
				t.Full = v
			case `"compact"`:
				t.Compact = v
			case `"output"`:
				t.Output = v
			case `"complete_output"`:
				t.CompleteOutput = v
			}
			return ok
		})
	})
	if !ok {
		return nil
	}
	return m
}

// members calls f with each member of the JSON object data: its name and
// its value as written (capacity clipped); false
// when data is not one object or f returns false. It checks the object's
// framing only: a value is skipped by its brackets and strings.
func members(data []byte, f func(name, value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	if i = skipSpace(data, i+1); i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		end := valueEnd(data, i)
		if end < 0 || data[i] != '"' {
			return false
		}
		name := data[i:end]
		if i = skipSpace(data, end); i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		if end = valueEnd(data, i); end < 0 || !f(name, data[i:end:end]) {
			return false
		}
		if i = skipSpace(data, end); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		return i < len(data) && data[i] == '}' && skipSpace(data, i+1) == len(data)
	}
}

// valueEnd is the index just past the JSON value starting at data[i], or
// -1 when it does not end.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		for j := i + 1; j < len(data); j++ {
			switch data[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				if j = valueEnd(data, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) && !bytes.ContainsRune([]byte(",:{}[] \t\r\n"), rune(data[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// unquote decodes a JSON string as written.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if !bytes.ContainsRune(raw, '\\') {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
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
