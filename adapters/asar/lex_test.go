package asar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode"
)

// lexTokens renders what the lexer reads from b, one token per line,
// ending with "error" when it stops on bad input.
func lexTokens(b []byte) string {
	var out strings.Builder
	l := lexer{b: b}
	for {
		if len(l.stack) == 0 && l.tops > 0 {
			if !l.atEOF() {
				out.WriteString("error\n")
			}
			return out.String()
		}
		t, err := l.next()
		if err != nil {
			out.WriteString("error\n")
			return out.String()
		}
		switch t.kind {
		case tokObject:
			out.WriteString("{\n")
		case tokObjectEnd:
			out.WriteString("}\n")
		case tokArray:
			out.WriteString("[\n")
		case tokArrayEnd:
			out.WriteString("]\n")
		case tokString:
			fmt.Fprintf(&out, "s%q\n", t.s)
		case tokNumber:
			fmt.Fprintf(&out, "n%s\n", t.num)
		case tokTrue:
			out.WriteString("true\n")
		case tokFalse:
			out.WriteString("false\n")
		case tokNull:
			out.WriteString("null\n")
		}
	}
}

// jsonTokens is lexTokens through encoding/json's Decoder.Token, for one
// top-level value.
func jsonTokens(b []byte) string {
	var out strings.Builder
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			if !errors.Is(err, io.EOF) || depth > 0 || out.Len() == 0 {
				out.WriteString("error\n")
			}
			return out.String()
		}
		switch x := t.(type) {
		case json.Delim:
			fmt.Fprintf(&out, "%c\n", x)
			if x == '{' || x == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			fmt.Fprintf(&out, "s%q\n", x)
		case json.Number:
			fmt.Fprintf(&out, "n%s\n", x)
		case bool:
			fmt.Fprintf(&out, "%t\n", x)
		case nil:
			out.WriteString("null\n")
		}
		if depth == 0 {
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				out.WriteString("error\n")
			}
			return out.String()
		}
	}
}

var lexSeeds = []string{
	`{"files":{"a":{"size":1,"offset":"0","integrity":{"algorithm":"SHA256","hash":"ab","blockSize":4194304,"blocks":["ab"]}}}}`,
	`{"a":[1,-0,2.5e+3,1E9,0.1,true,false,null,{},[]]}`,
	`{"esc":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\udc00\ud800\u0041é"}`,
	"{\"bytes\":\"a\xffb\xc3\xa9\xe2\x82\xed\xa0\x80\x7f\"}",
	" \t\n{ \"a\" : [ 1 , 2 ] }\r\n ",
	`{"a":1,}`, `{"a" 1}`, `{"a":1 "b":2}`, `[1,]`, `[,1]`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":"x` + "\x01" + `"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":1}x`, `{"a":1}{}`,
	`{1:2}`, `{"a"}`, `{"a":`, `"str"`, `12`, ``, `   `, `{"a":"unterminated`, `{"a":[1,2`, `}`, `]`, `{"a":[}]}`,
}

// TestLexerMatchesEncodingJSON: the lexer reads the same tokens as
// encoding/json's Decoder.Token and fails on the same inputs.
func TestLexerMatchesEncodingJSON(t *testing.T) {
	for _, s := range lexSeeds {
		if got, want := lexTokens([]byte(s)), jsonTokens([]byte(s)); got != want {
			t.Errorf("%q:\nlexer:\n%s\nencoding/json:\n%s", s, got, want)
		}
	}
}

func FuzzLexer(f *testing.F) {
	for _, s := range lexSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := lexTokens(b), jsonTokens(b); got != want {
			t.Fatalf("%q:\nlexer:\n%s\nencoding/json:\n%s", b, got, want)
		}
	})
}

// TestFoldKeyASCII: the ASCII shortcut gives what the general fold gives.
func TestFoldKeyASCII(t *testing.T) {
	var all []byte
	for c := range 128 {
		all = append(all, byte(c))
	}
	for _, s := range []string{string(all), "Pod", "pod", "ks", "KS", "", "node_modules/.bin"} {
		want := strings.Map(func(r rune) rune {
			m := r
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				m = min(m, f)
			}
			return m
		}, s)
		if got := foldKey(s); got != want {
			t.Errorf("foldKey(%q) = %q, want %q", s, got, want)
		}
	}
}
