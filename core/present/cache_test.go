package present

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"unsafe"
)

// TestParseCacheSlicesTheFile: every presentation ParseCache finds in the
// generated cache is the bytes json.Unmarshal finds, and a slice of the
// file itself: nothing is decoded or copied until used (a decoding parse
// copies every schema, 600 KB, on the first presentation of any tool).
func TestParseCacheSlicesTheFile(t *testing.T) {
	data, err := os.ReadFile("../presented.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]*Tool
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	got := ParseCache(data)
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d tools parsed, want %d", len(got), len(want))
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	for name, w := range want {
		g := got[name]
		if g == nil || g.Name != name || g.Fingerprint != w.Fingerprint || g.CompactKind != w.CompactKind {
			t.Fatalf("%s: parsed %+v", name, g)
		}
		for i, pair := range [][2]json.RawMessage{{g.Full, w.Full}, {g.Compact, w.Compact}, {g.Output, w.Output}, {g.CompleteOutput, w.CompleteOutput}} {
			if !bytes.Equal(pair[0], pair[1]) {
				t.Fatalf("%s: presentation %d differs from the decoded one", name, i)
			}
			if p := uintptr(unsafe.Pointer(&pair[0][0])); p < lo || p > hi || cap(pair[0]) != len(pair[0]) {
				t.Fatalf("%s: presentation %d is a copy, not a clipped slice of the file", name, i)
			}
		}
	}
}

// TestParseCacheRefusesWhatItCannotFrame: a cache cut short, or with a bad
// member anywhere, parses to nil (every tool is presented afresh) and never
// panics.
func TestParseCacheRefusesWhatItCannotFrame(t *testing.T) {
	var buf bytes.Buffer
	err := WriteCache(&buf, []Tool{{Name: "a\"b", Fingerprint: "f1", Full: json.RawMessage(`{"x":["}",{"y":"\"{"}]}`),
		Compact: json.RawMessage(`{}`), CompactKind: "inline", Output: json.RawMessage(`[1,true,null]`), CompleteOutput: json.RawMessage(`{"z":-1.5e3}`)},
		{Name: "c", Fingerprint: "f2", Full: json.RawMessage(`{}`), Compact: json.RawMessage(`{}`), CompactKind: "full", Output: json.RawMessage(`{}`), CompleteOutput: json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	m := ParseCache(data)
	if a := m["a\"b"]; a == nil || a.Fingerprint != "f1" || string(a.Full) != `{"x":["}",{"y":"\"{"}]}` || string(a.CompleteOutput) != `{"z":-1.5e3}` || m["c"] == nil {
		t.Fatalf("parsed %v", m)
	}
	for n := range len(bytes.TrimSpace(data)) {
		if ParseCache(data[:n]) != nil {
			t.Fatalf("a cache cut at %d bytes parsed", n)
		}
	}
	for _, bad := range []string{``, `[]`, `{"a":{"fingerprint":1}}`, `{"a":{},"a":{}}`, `{"a":{"full":{}}`, `{"a" {}}`, `{"a":{}} x`, `{"a":{},}`} {
		if ParseCache([]byte(bad)) != nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if m := ParseCache([]byte(" {} ")); m == nil || len(m) != 0 {
		t.Errorf("an empty cache: %v", m)
	}
}
