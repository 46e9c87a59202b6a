package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestCompleteEvidenceFollowsASummary: an Evidence argument nested in
// arrays and objects that is a summary view (parent_evidence_id, no graph)
// is followed to its retained parent, whichever form it came in, and a
// parent of another operation is refused.
func TestCompleteEvidenceFollowsASummary(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	var got []core.EvidenceID
	var params []any
	ops := []*core.Operation{
		{Name: "make_tool", Title: "Make", Description: "Makes a record or its summary.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				if p, ok := c.Args["parent"].(string); ok {
					return &core.Observation{Result: map[string]any{"parent_evidence_id": p}, Unbound: true}, nil
				}
				return &core.Observation{Result: map[string]any{"graph": map[string]any{"n": c.Args["n"]}}, Unbound: true}, nil
			}},
		{Name: "other_tool", Title: "Other", Description: "Makes a summary naming another operation's record.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return &core.Observation{Result: map[string]any{"parent_evidence_id": c.Args["parent"]}, Unbound: true}, nil
			}},
		{Name: "read_tool", Title: "Read", Description: "Reads nested records.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				got = got[:0]
				l, _ := c.Args["layers"].([]any)
				for i := range l {
					ev, err := c.EvidenceAt("layers", i, "analysis")
					if err != nil {
						return nil, err
					}
					if ev, err = completeEvidence(c, ev, "graph"); err != nil {
						return nil, err
					}
					c.KeepReferenceAt(ev, "layers", i, "analysis")
					got = append(got, ev.EvidenceID)
				}
				params = append(params, c.Args["layers"])
				return &core.Observation{Result: map[string]any{"n": len(got)}, Unbound: true}, nil
			}},
	}
	cat, err := core.NewCatalog(ops)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	full, err := s.Call(ctx, "make_tool", json.RawMessage(`{"n":1}`), nil)
	is.NoErr(err)
	id := string(full.Evidence.EvidenceID)
	summary, err := s.Call(ctx, "make_tool", json.RawMessage(`{"parent":"`+id+`"}`), nil)
	is.NoErr(err)
	inline, err := core.MarshalNoEscape(summary.Evidence)
	is.NoErr(err)
	ref := func(id core.EvidenceID) string {
		return `{"kind":"retained-evidence","evidence_id":"` + string(id) + `"}`
	}

	_, err = s.Call(ctx, "read_tool", json.RawMessage(`{"layers":[{"analysis":`+ref(full.Evidence.EvidenceID)+`},{"analysis":`+string(inline)+`}]}`), nil)
	is.NoErr(err)
	is.Equal(got, []core.EvidenceID{full.Evidence.EvidenceID, full.Evidence.EvidenceID}) // the summary led to its parent
	_, err = s.Call(ctx, "read_tool", json.RawMessage(`{"layers":[{"analysis":`+ref(summary.Evidence.EvidenceID)+`},{"analysis":`+ref(full.Evidence.EvidenceID)+`}]}`), nil)
	is.NoErr(err)
	is.Equal(params[0], params[1]) // every form is recorded as the parent's reference

	// Another connection does not hold the parent: the refusal names it, the
	// summary that named it, and what to pass instead.
	_, err = core.NewSession(cat, reg, nil).Call(ctx, "read_tool", json.RawMessage(`{"layers":[{"analysis":`+string(inline)+`}]}`), nil)
	var missing *core.Error
	is.True(errors.As(err, &missing))
	is.Equal(missing.Details["reason"], "missing")
	is.Equal(missing.Details["evidence_id"], id)
	is.Equal(missing.Details["concise_evidence_id"], string(summary.Evidence.EvidenceID))
	is.True(missing.Details["pass_instead"] != nil)

	other, err := s.Call(ctx, "other_tool", json.RawMessage(`{"parent":"`+id+`"}`), nil)
	is.NoErr(err)
	for _, tc := range []struct {
		args string
		code core.Code
	}{
		{`{"layers":[{"analysis":` + ref(other.Evidence.EvidenceID) + `}]}`, core.CodeEvidenceIntegrityMismatch}, // parent of another operation
		{`{"layers":[{}]}`, core.CodeInvalidRequest},
		{`{"layers":[{"analysis":"x"}]}`, core.CodeInvalidRequest},
		{`{"layers":[{"analysis":{"kind":"retained-evidence","evidence_id":"ev_nope"}}]}`, core.CodeInvalidRequest},
	} {
		_, err := s.Call(ctx, "read_tool", json.RawMessage(tc.args), nil)
		var e *core.Error
		is.True(errors.As(err, &e)) // every failure is typed
		is.Equal(e.Code, tc.code)
	}
}
