package js_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

// A file's string literals are its own: the walk collects them in scratch
// it reuses for the next file, and gives each file a copy.
func TestStringsAreEachFilesOwn(t *testing.T) {
	is := is.New(t)
	source := func(prefix string, n int) []byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "f(%q);\n", fmt.Sprintf("%s-%d", prefix, i))
		}
		return []byte(b.String())
	}
	a, err := js.New().Facts(context.Background(), ports.JSRequest{Source: source("a", 33)})
	is.NoErr(err)
	b, err := js.New().Facts(context.Background(), ports.JSRequest{Source: source("b", 40)})
	is.NoErr(err)
	is.Equal(len(a.Strings), 33)
	is.Equal(len(b.Strings), 40)
	for i, s := range a.Strings {
		is.Equal(s.Value, fmt.Sprintf("a-%d", i)) // the next file's walk left them alone
	}
	for i, s := range b.Strings {
		is.Equal(s.Value, fmt.Sprintf("b-%d", i))
	}
	none, err := js.New().Facts(context.Background(), ports.JSRequest{Source: []byte("f(1)")})
	is.NoErr(err)
	is.True(none.Strings == nil) // none, as before: JSON null
}
