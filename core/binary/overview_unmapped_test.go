package binary_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// unmappedFake is dossierFake with an ELF's unallocated sections: a
// .comment and a .symtab at address 0 that grant no access.
type unmappedFake struct{ dossierFake }

func (f unmappedFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }

func (f unmappedFake) Segments(ctx context.Context) ([]ports.Segment, error) {
	segs, err := f.dossierFake.Segments(ctx)
	return append(segs,
		ports.Segment{Name: ".comment", Kind: "section", Start: 0, Size: 0x27, FileOffset: 0x3028, FileSize: 0x27},
		ports.Segment{Name: ".symtab", Kind: "section", Start: 0, Size: 0x3f0, FileOffset: 0x3050, FileSize: 0x3f0}), err
}

// TestOverviewLeavesOutUnmappedSections: binary_overview's segments are
// address ranges, so the sections a file holds but never loads are left
// out and named in a limitation. Before, .comment and .symtab were listed
// as 0x0-0x27 and 0x0-0x3f0, over the first load segment's addresses.
func TestOverviewLeavesOutUnmappedSections(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, unmappedFake{}) // it opens the target and checks the outputs against their schemas
	res, err := s.Call(context.Background(), "binary_overview", json.RawMessage(`{}`), nil)
	is.NoErr(err)
	var ov struct {
		SegmentCount int `json:"segment_count"`
		Segments     []struct {
			Name string `json:"name"`
		} `json:"segments"`
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &ov))
	var names []string
	for _, sg := range ov.Segments {
		names = append(names, sg.Name)
	}
	is.Equal(names, []string{".text", ".data"})
	is.Equal(ov.SegmentCount, 4) // as list_segments counts them
	said := false
	for _, l := range res.Evidence.Limitations {
		said = said || strings.Contains(l, ".comment, .symtab") && strings.Contains(l, "list_segments")
	}
	is.True(said) // the limitation names them and where to find them
}
