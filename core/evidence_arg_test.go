package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestEvidenceArg resolves an Evidence argument in both forms, records it
// as the retained reference, and types the failures.
func TestEvidenceArg(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	var seen []core.EvidenceID
	var params []any
	ops := []*core.Operation{
		{Name: "make_tool", Title: "Make", Description: "Makes a record.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return &core.Observation{Result: map[string]any{"n": 1}, Unbound: true}, nil
			}},
		{Name: "read_tool", Title: "Read", Description: "Reads a record.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				ev, err := c.EvidenceArg("source")
				if err != nil {
					return nil, err
				}
				c.KeepReference("source", ev)
				seen = append(seen, ev.EvidenceID)
				params = append(params, c.Args["source"])
				return &core.Observation{Result: map[string]any{"operation": ev.Operation}, Unbound: true}, nil
			}},
	}
	cat, err := core.NewCatalog(ops)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	made, err := s.Call(ctx, "make_tool", json.RawMessage(`{}`), nil)
	is.NoErr(err)
	inline, err := core.MarshalNoEscape(made.Evidence)
	is.NoErr(err)
	ref := `{"kind":"retained-evidence","evidence_id":"` + string(made.Evidence.EvidenceID) + `"}`
	a, err := s.Call(ctx, "read_tool", json.RawMessage(`{"source":`+ref+`}`), nil)
	is.NoErr(err)
	b, err := s.Call(ctx, "read_tool", json.RawMessage(`{"source":`+string(inline)+`}`), nil)
	is.NoErr(err)
	is.Equal(seen, []core.EvidenceID{made.Evidence.EvidenceID, made.Evidence.EvidenceID})
	is.Equal(params[0], params[1])                         // both forms seal the same parameters
	is.Equal(a.Evidence.EvidenceID, b.Evidence.EvidenceID) // and so the same record

	for _, tc := range []struct {
		args, code string
	}{
		{`{}`, string(core.CodeInvalidRequest)},
		{`{"source":{"kind":"retained-evidence","evidence_id":"ev_nope"}}`, string(core.CodeInvalidRequest)},
		{`{"source":{"kind":"retained-evidence","evidence_id":"ev_` + string(make64('a')) + `"}}`, string(core.CodeEvidenceIntegrityMismatch)},
		{`{"source":{"evidence_id":"ev_x","normalized_result":{}}}`, ""},
	} {
		_, err := s.Call(ctx, "read_tool", json.RawMessage(tc.args), nil)
		var e *core.Error
		is.True(errors.As(err, &e)) // every failure is typed
		if tc.code != "" {
			is.Equal(string(e.Code), tc.code)
		}
	}
}

func make64(c byte) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return b
}
