package native_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// shortStringsC prints literals of two and three characters, which a list
// of strings of at least 4 (the default) leaves out.
const shortStringsC = `#include <stdio.h>
int main(int argc, char **argv) {
	if (argc > 2)
		puts("ok");
	printf("%s:%d\n", argv[0], argc);
	return argc > 1 ? puts("nope") : 0;
}
`

// StringsMinChars lists the strings of another shortest length than the
// profile's: a lower one finds the literals of two and three characters,
// the profile's own list keeps its length after it (a list of another
// length never replaces it), and the profile's length gives the profile's
// list. Before, the shortest length was fixed when the provider was made.
func TestStringsMinChars(t *testing.T) {
	needTool(t, "gcc")
	is := is.New(t)
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "short.c"), filepath.Join(dir, "short")
	is.NoErr(os.WriteFile(src, []byte(shortStringsC), 0o644))
	_, err := run(t.Context(), "", nil, "gcc", "-O1", "-o", bin, src)
	is.NoErr(err)
	a := openAnalysis(t, bin)
	values := func(l ports.StringLister) []string {
		t.Helper()
		strs, err := l.Strings(t.Context())
		is.NoErr(err)
		var out []string
		for _, s := range strs {
			out = append(out, s.Value)
		}
		return out
	}
	short := a.StringsMinChars(2)
	got := values(short)
	is.True(slices.Contains(got, "ok"))      // two characters, listed at 2
	is.True(slices.Contains(got, "%s:%d\n")) // and the longer ones
	page, total, err := short.(ports.StringPager).StringsPage(t.Context(), 0, 1)
	is.NoErr(err)
	is.Equal(total, len(got)) // the page's total is the list's
	is.Equal(len(page), 1)
	def := values(a)
	is.True(!slices.Contains(def, "ok"))                            // the profile's list is as it was
	is.True(slices.Contains(def, "nope"))                           // four characters
	is.Equal(values(a.StringsMinChars(4)), def)                     // the profile's length: its list
	is.True(!slices.Contains(values(a.StringsMinChars(5)), "nope")) // a longer one leaves it out
	is.Equal(values(a.StringsMinChars(1)), got)                     // clamped to 2: not one character
}
