package js

import (
	"bytes"
	"testing"
)

// indexRare finds what bytes.Index finds, wherever the rare byte also
// lies outside a match.
func TestIndexRare(t *testing.T) {
	seps := []struct {
		sep  string
		rare int
	}{{"pack", 3}, {".exports", 2}, {"__commonJS", 8}, {"__esm(", 0}, {"__toESM", 5}, {"k", 0}}
	srcs := []string{"", "pack", "webpack", "kpack", "pac", "ack", "packpack", "k.exports", "x.exports", ".exports",
		"m.exp.exports,", "e.exportsx", "__esm__esm(", "_esm(", "___esm(", "a__commonJS", "__commonJ", "__toES__toESM",
		"kkkkpac", "pac" + "k", "xxxxxxx.exports"}
	for _, s := range seps {
		for _, src := range srcs {
			want := bytes.Index([]byte(src), []byte(s.sep))
			if got := indexRare([]byte(src), []byte(s.sep), s.rare); got != want {
				t.Errorf("indexRare(%q, %q, %d) = %d, want %d", src, s.sep, s.rare, got, want)
			}
		}
	}
}
