package ndjson_test

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/internal/ndjson"
)

func TestReadLine(t *testing.T) {
	is := is.New(t)
	r := bufio.NewReaderSize(strings.NewReader("{\"a\":1}\r\n\n"+strings.Repeat("x", 40)+"\nlast"), 16)
	l, err := ndjson.ReadLine(r, 32)
	is.NoErr(err)
	is.Equal(string(l), `{"a":1}`) // carriage return dropped
	l, err = ndjson.ReadLine(r, 32)
	is.NoErr(err)
	is.Equal(len(l), 0) // an empty line
	_, err = ndjson.ReadLine(r, 32)
	is.True(errors.Is(err, ndjson.ErrLineTooLong)) // 40 bytes over a 32-byte bound, across buffer fills
	r = bufio.NewReader(strings.NewReader("partial"))
	_, err = ndjson.ReadLine(r, 32)
	is.True(errors.Is(err, io.ErrUnexpectedEOF))
	r = bufio.NewReader(strings.NewReader("exact\n"))
	l, err = ndjson.ReadLine(r, 5)
	is.NoErr(err)
	is.Equal(string(l), "exact") // a line of exactly max bytes is accepted
	_, err = ndjson.ReadLine(r, 5)
	is.True(errors.Is(err, io.EOF))
}

// FuzzReadLine: any input gives lines within the bound or an error, never
// a panic, and the lines read are the input's lines.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{}\n{\"id\":1}\r\n"), 8)
	f.Add([]byte("\n\n\n"), 0)
	f.Add([]byte(strings.Repeat("y", 100)), 50)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		r := bufio.NewReaderSize(strings.NewReader(string(in)), 16)
		var got []string
		for {
			l, err := ndjson.ReadLine(r, max)
			if err != nil {
				break
			}
			if len(l) > max {
				t.Fatalf("line of %d bytes over the bound %d", len(l), max)
			}
			got = append(got, string(l))
		}
		want := strings.Split(strings.ReplaceAll(string(in), "\r", ""), "\n")
		if len(got) > len(want) {
			t.Fatalf("read %d lines from %d", len(got), len(want))
		}
		for i, l := range got {
			if l != want[i] {
				t.Fatalf("line %d: %q, want %q", i, l, want[i])
			}
		}
	})
}
