package core_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// TestEngineNotesReachTheEvidence: a limitation an engine notes during a
// call (ports.Note) is sealed with that call's result once, after the
// handler's own, and does not leak into the next call.
func TestEngineNotesReachTheEvidence(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	ops := []*core.Operation{
		{Name: "noted_tool", Title: "Noted", Description: "Notes.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				if _, ok := c.Args["note"]; ok {
					ports.Note(ctx, ports.SnapshotLimitation)
					ports.Note(ctx, ports.SnapshotLimitation)
					ports.Note(ctx, "handler's own")
				}
				return &core.Observation{Result: map[string]any{}, Limitations: []string{"handler's own"}, Unbound: true}, nil
			}},
	}
	cat, err := core.NewCatalog(ops)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	a, err := s.Call(ctx, "noted_tool", json.RawMessage(`{"note":true}`), nil)
	is.NoErr(err)
	lims := a.Evidence.Limitations[len(a.Evidence.Limitations)-2:] // after the session's own
	is.Equal(lims, []string{"handler's own", ports.SnapshotLimitation})
	b, err := s.Call(ctx, "noted_tool", json.RawMessage(`{}`), nil)
	is.NoErr(err)
	is.Equal(b.Evidence.Limitations[len(b.Evidence.Limitations)-1], "handler's own")
	is.True(!slices.Contains(b.Evidence.Limitations, ports.SnapshotLimitation))
	ports.Note(ctx, "outside any call") // no notes in ctx: nothing happens
}
