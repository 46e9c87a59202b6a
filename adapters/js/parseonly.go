package js

import (
	"github.com/tdewolff/parse/v2"
	tjs "github.com/tdewolff/parse/v2/js"
)

// ParseOnly parses src with the parser and options Facts starts with and
// does nothing else: the baseline bench/jsapp compares the whole analysis
// with. It reports whether src parsed.
func ParseOnly(src []byte) bool {
	_, err := tjs.Parse(parse.NewInputBytes(src), tjs.Options{})
	return err == nil
}
