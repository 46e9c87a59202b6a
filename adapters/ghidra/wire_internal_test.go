package ghidra

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/internal/ndjson"
)

func TestParseResponse(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"id":1,"ok":true,"result":null}`, true},
		{`{"id":1,"ok":false,"error":{"code":"not_found","message":"m"}}`, true},
		{`{"id":2,"ok":true,"result":1}`, false}, // id not yet sent
		{`{"id":0,"ok":true,"result":1}`, false}, // id 0
		{`{"id":1,"ok":true}`, false},            // no result
		{`{"id":1,"ok":true,"result":1,"x":1}`, false},
		{`{"id":1,"ok":false,"error":{"code":"","message":"m"}}`, false},
		{`{"id":1,"ok":false,"error":{"code":"c","message":"m","x":1}}`, false},
		{`[1]`, false},
		{`null`, false},
	} {
		t.Run(c.line, func(t *testing.T) {
			is := is.New(t)
			_, err := parseResponse([]byte(c.line), 2)
			is.Equal(err == nil, c.ok)
		})
	}
}

// FuzzReadLine feeds the client's NDJSON reader and strict reply parser
// arbitrary bytes: they must never panic, never return a line over the
// limit, and every reply they accept has an id below the next one.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{
		"{\"id\":1,\"ok\":true,\"result\":[\"a\"]}\n",
		"{\"id\":1,\"ok\":false,\"error\":{\"code\":\"not_found\",\"message\":\"x\"}}\r\n",
		"\n\n", "{", strings.Repeat("y", 300) + "\n", "{\"id\":9007199254740993,\"ok\":true,\"result\":0}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for {
			line, err := ndjson.ReadLine(r, 256)
			if err != nil {
				return
			}
			if len(line) > 256 {
				t.Fatalf("line of %d bytes over the 256-byte limit", len(line))
			}
			if resp, err := parseResponse(line, 5); err == nil && (resp.ID < 1 || resp.ID >= 5) {
				t.Fatalf("accepted id %d", resp.ID)
			}
		}
	})
}
