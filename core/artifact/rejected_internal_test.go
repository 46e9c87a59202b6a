package artifact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// A container's rejected entries are named on its occurrence, at most
// maxRejectedListed of them, the rest counted; the graph's limitation counts
// them all, over every container.
func TestRejectedEntriesAreNamedAndBounded(t *testing.T) {
	is := is.New(t)
	var rejected []ports.RejectedEntry
	for i := range maxRejectedListed + 5 {
		rejected = append(rejected, ports.RejectedEntry{Name: fmt.Sprintf("../x%d", i), Index: i, Reason: "dot-dot", Kind: ports.EntryFile, Size: 7})
	}
	a, b := &Item{}, &Item{}
	noteRejected(a, rejected)
	noteRejected(b, []ports.RejectedEntry{{Name: "d/", Index: 3, Reason: "duplicate", Kind: ports.EntryDirectory, CompressedSize: -1}})
	is.Equal(len(a.limits), maxRejectedListed+1)
	is.Equal(a.limits[0], `Entry "../x0" (file, 7 bytes, entry 0 as declared) was left out: its name climbs out of the archive (..); its bytes were not read.`)
	is.Equal(a.limits[maxRejectedListed], "5 more entries were left out for unsafe or ambiguous names.")
	is.True(strings.HasPrefix(b.limits[0], `Entry "d/" (directory, entry 3 as declared) was left out with everything beneath it: another entry declares the same name`))
	is.True(strings.HasSuffix(b.limits[0], "; nothing beneath it was read."))
	is.True(strings.HasPrefix(leftOut([]*Item{a, {}, b}, ""), "26 entr(ies) of 2 container(s) were left out"))
	is.Equal(leftOut([]*Item{{}}, ""), "")
}
