package binary_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// busyFake is dossierFake whose g also reads twelve data addresses, so
// g's concise dossier cuts outgoing_references and links the complete one.
type busyFake struct{ dossierFake }

func (busyFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return busyFake{}, nil }

func (f busyFake) ReferencesFrom(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	out, err := f.dossierFake.ReferencesFrom(ctx, start, end)
	for i := uint64(0); i < 12; i++ {
		if r := (ports.Reference{From: 0x1100 + i%4*4, To: 0x2100 + 8*i, Kind: ports.RefRead}); r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, err
}

// A concise dossier whose collections mention an analyst's name says so in
// a limitation; the complete dossier it links to (evidence_links[0]) says
// the same, as a call with "detail":"complete" does. Before, the linked
// record was sealed without it.
func TestConciseDossierLinkKeepsTheRenamedLimitation(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, busyFake{})
	ctx := context.Background()
	_, err := s.Call(ctx, "set_address_name", json.RawMessage(`{"address":"0x1000","name":"decrypt_config"}`), nil)
	is.NoErr(err)
	renamed := func(ls []string) bool {
		return slices.ContainsFunc(ls, func(l string) bool {
			return strings.Contains(l, "Names set by the analyst") && strings.Contains(l, `"decrypt_config"`)
		})
	}
	res, err := s.Call(ctx, "analyze_function", json.RawMessage(`{"procedure":"g"}`), nil)
	is.NoErr(err)
	concise := res.Evidence
	is.True(renamed(concise.Limitations)) // g's callee f has the analyst's name
	if len(concise.EvidenceLinks) != 1 {
		t.Fatalf("the concise dossier links %d records, want the complete one", len(concise.EvidenceLinks))
	}
	complete, err := s.Ledger().Resolve(concise.EvidenceLinks[0])
	is.NoErr(err)
	is.Equal(complete.Operation, "analyze_function")
	if !renamed(complete.Limitations) {
		t.Errorf("the linked complete dossier lacks the renamed limitation: %q", complete.Limitations)
	}
	direct, err := s.Call(ctx, "analyze_function", json.RawMessage(`{"procedure":"g","detail":"complete"}`), nil)
	is.NoErr(err)
	is.True(renamed(direct.Evidence.Limitations))
}

// notingFake is busyFake whose engine notes, for the call it answers, that
// the answer came from an analysis snapshot (ports.Note, as the lazy engine
// does on a warm start).
type notingFake struct{ busyFake }

func (notingFake) Open(context.Context, ports.Target) (ports.Analysis, error) {
	return notingFake{}, nil
}

func (f notingFake) ReferencesFrom(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	ports.Note(ctx, ports.SnapshotLimitation)
	return f.busyFake.ReferencesFrom(ctx, start, end)
}

// The complete dossier a concise analyze_function links to carries the
// engine's notes for the call, as a "detail":"complete" call's Evidence
// does, and the concise one keeps them. Before, the linked record was
// sealed inside the handler, without the notes the session adds after it.
func TestConciseDossierLinkKeepsTheEngineNotes(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, notingFake{})
	ctx := context.Background()
	direct, err := s.Call(ctx, "analyze_function", json.RawMessage(`{"procedure":"g","detail":"complete"}`), nil)
	is.NoErr(err)
	is.True(slices.Contains(direct.Evidence.Limitations, ports.SnapshotLimitation))
	res, err := s.Call(ctx, "analyze_function", json.RawMessage(`{"procedure":"g"}`), nil)
	is.NoErr(err)
	concise := res.Evidence
	is.True(slices.Contains(concise.Limitations, ports.SnapshotLimitation))
	if len(concise.EvidenceLinks) != 1 {
		t.Fatalf("the concise dossier links %d records, want the complete one", len(concise.EvidenceLinks))
	}
	complete, err := s.Ledger().Resolve(concise.EvidenceLinks[0])
	is.NoErr(err)
	if !slices.Contains(complete.Limitations, ports.SnapshotLimitation) {
		t.Errorf("the linked complete dossier lacks the engine's note: %q", complete.Limitations)
	}
	is.Equal(complete.Limitations, direct.Evidence.Limitations) // the same record's limitations, in the same order
}
