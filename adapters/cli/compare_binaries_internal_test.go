package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestBinaryComparisonShowsRenames: rea compare of two builds shows a
// function renamed without a change of code (compute_total, now sum_pair)
// as a renamed row; before, the table had no row for it and neither name
// appeared. A renamed function that changed keeps only its changed row.
func TestBinaryComparisonShowsRenames(t *testing.T) {
	is := is.New(t)
	result := `{"summary":{"left_functions":3,"right_functions":3,"matched":3,"unchanged":2,"changed":1,"added":0,"removed":0,"match_rate":1,
 "by_basis":{"name":1,"instruction-hash":2}},"not_comparable":[],
 "changed":[{"left":{"name":"check","address":"0x1200"},"right":{"name":"verify","address":"0x1300"},"basis":"instruction-hash","similarity":0.9,"changed_dimensions":["strings"]}],
 "added":[],"removed":[],
 "renamed":[{"left":{"name":"check","address":"0x1200"},"right":{"name":"verify","address":"0x1300"}},
  {"left":{"name":"compute_total","address":"0x11ca"},"right":{"name":"sum_pair","address":"0x11c5"}}],
 "imports":{"added":[],"removed":[]}}`
	var out bytes.Buffer
	is.NoErr(writeBinaryComparison(&out, []byte(result)))
	text := out.String()
	is.True(strings.Contains(text, "renamed  compute_total 0x11ca  sum_pair 0x11c5")) // the rename has a row
	is.Equal(strings.Count(text, "verify"), 1)                                        // once, as changed
}

// TestBinaryComparisonShowsData: two builds whose code is the same and
// whose data differs (ls and dir: one byte of .data) print that data
// changed and the comparison's limitations; before, the text said only
// "0 changed".
func TestBinaryComparisonShowsData(t *testing.T) {
	is := is.New(t)
	result := `{"summary":{"left_functions":1,"right_functions":1,"matched":1,"unchanged":1,"changed":0,"added":0,"removed":0,"match_rate":1,
 "by_basis":{"name":1}},"not_comparable":[],"changed":[],"added":[],"removed":[],"imports":{"added":[],"removed":[]},
 "data":{"strings":{"added":["dir"],"removed":["ls"],"omitted":0},"sections_changed":[".data"]},
 "limitations":["No function's code changed, but the data did."]}`
	var out bytes.Buffer
	is.NoErr(writeBinaryComparison(&out, []byte(result)))
	text := out.String()
	is.True(strings.Contains(text, "data strings: +[\"dir\"] -[\"ls\"]\n"))
	is.True(strings.Contains(text, "data sections changed: .data\n"))
	is.True(strings.Contains(text, "limitation: No function's code changed, but the data did.\n"))
}
