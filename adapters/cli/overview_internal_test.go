package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestOverviewLimitationKeepsTheHeaderAligned: rea analyze prints the
// overview's limitations (every ELF now has one: its unloaded sections)
// below the header, not as a row of it, whose label widened every other
// row ("evidence    ev_...").
func TestOverviewLimitationKeepsTheHeaderAligned(t *testing.T) {
	is := is.New(t)
	ev := &core.Evidence{EvidenceID: "ev_1", Limitations: []string{"4 sections not loaded in memory are left out of segments."},
		NormalizedResult: []byte(`{"document":"elf","format":"elf","procedure_count":0,"procedure_list":"complete","segment_count":4,"string_count":0,"segments":[]}`)}
	var out bytes.Buffer
	is.NoErr(writeOverview(&out, &core.OpenBinaryResult{Path: "/bin/x", Kind: "executable"}, ev))
	text := out.String()
	is.True(strings.Contains(text, "\n  evidence  ev_1\n"))                                         // aligned with format, sha256, ...
	is.True(strings.Contains(text, "\n  limitation: 4 sections not loaded in memory are left out")) // still shown
}
