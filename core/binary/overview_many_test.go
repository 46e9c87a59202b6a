package binary_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// manySectionsFake is dossierFake with 500 loaded sections, as a
// relocatable object built with -ffunction-sections has.
type manySectionsFake struct{ dossierFake }

func (f manySectionsFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }

func (f manySectionsFake) Segments(ctx context.Context) ([]ports.Segment, error) {
	segs, err := f.dossierFake.Segments(ctx)
	for i := range 500 {
		segs = append(segs, ports.Segment{Name: fmt.Sprintf(".text.f%d", i), Kind: "section", Start: 0x100000 + uint64(i)*0x10, Size: 0x10,
			Perms: ports.Permissions{Read: true, Execute: true}})
	}
	return segs, err
}

// TestOverviewListsTheFirstSegments: a concise overview lists the first
// 64 segments, counts them all and says where the rest are. Before, an
// object with thousands of sections (or a hostile file with 60,000
// headers) put every one in the overview.
func TestOverviewListsTheFirstSegments(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, manySectionsFake{}) // it opens the target and checks the outputs against their schemas
	for _, in := range []string{`{}`, `{"detail":"detailed"}`} {
		res, err := s.Call(context.Background(), "binary_overview", json.RawMessage(in), nil)
		is.NoErr(err)
		var ov struct {
			SegmentCount int `json:"segment_count"`
			Segments     []struct {
				Name string `json:"name"`
			} `json:"segments"`
		}
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &ov))
		is.Equal(len(ov.Segments), 64)
		is.Equal(ov.Segments[0].Name, ".text")      // in list_segments' order
		is.Equal(ov.Segments[63].Name, ".text.f61") // after .text and .data
		is.Equal(ov.SegmentCount, 502)
		said := false
		for _, l := range res.Evidence.Limitations {
			said = said || strings.Contains(l, "first 64 of 502") && strings.Contains(l, "list_segments")
		}
		is.True(said) // the limitation says how many and where the rest are
		list, err := s.Call(context.Background(), "list_segments", json.RawMessage(`{}`), nil)
		is.NoErr(err)
		var all struct {
			Items []json.RawMessage `json:"items"`
		}
		is.NoErr(json.Unmarshal(list.Evidence.NormalizedResult, &all))
		is.Equal(len(all.Items), 502) // list_segments still lists every one
	}
}
