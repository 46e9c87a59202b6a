package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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

// TestEvidenceAtNested resolves Evidence arguments nested in arrays and
// objects and records each as its reference (core/runtime follows a
// summary view to its parent on top of this).
func TestEvidenceAtNested(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	var got []core.EvidenceID
	var params []any
	ops := []*core.Operation{
		{Name: "make_tool", Title: "Make", Description: "Makes a record.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return &core.Observation{Result: map[string]any{"graph": map[string]any{"n": c.Args["n"]}}, Unbound: true}, nil
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
	inline, err := core.MarshalNoEscape(full.Evidence)
	is.NoErr(err)
	ref := `{"kind":"retained-evidence","evidence_id":"` + string(full.Evidence.EvidenceID) + `"}`

	_, err = s.Call(ctx, "read_tool", json.RawMessage(`{"layers":[{"analysis":`+ref+`},{"analysis":`+string(inline)+`}]}`), nil)
	is.NoErr(err)
	is.Equal(got, []core.EvidenceID{full.Evidence.EvidenceID, full.Evidence.EvidenceID})
	_, err = s.Call(ctx, "read_tool", json.RawMessage(`{"layers":[{"analysis":`+ref+`},{"analysis":`+ref+`}]}`), nil)
	is.NoErr(err)
	is.Equal(params[0], params[1]) // every form is recorded as the reference

	for _, tc := range []struct {
		args string
		code core.Code
	}{
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

// TestRetainComplete: the complete record a concise page links to is the
// record a "detail":"complete" call seals, retained, and the page's own
// arguments are left as they were.
func TestRetainComplete(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	ops := []*core.Operation{{Name: "page_tool", Title: "Page", Description: "Pages a result.", Kind: core.KindApplication, Input: open, Result: open,
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			complete := &core.Observation{Result: map[string]any{"items": []any{1, 2, 3}}, Unbound: true}
			if c.Args["detail"] == "complete" {
				return complete, nil
			}
			id, err := c.RetainComplete(complete)
			if err != nil {
				return nil, err
			}
			return &core.Observation{Result: map[string]any{"items": []any{1}}, Unbound: true, Links: []core.EvidenceID{id}}, nil
		}}}
	cat, err := core.NewCatalog(ops)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	page, err := s.Call(ctx, "page_tool", json.RawMessage(`{"n":3}`), nil)
	is.NoErr(err)
	is.Equal(string(page.Evidence.Parameters), `{"n":3}`) // the page's arguments are its own
	is.Equal(len(page.Evidence.EvidenceLinks), 1)
	parent, err := s.Ledger().Resolve(page.Evidence.EvidenceLinks[0]) // retained
	is.NoErr(err)
	is.Equal(string(parent.Parameters), `{"detail":"complete","n":3}`)
	full, err := s.Call(ctx, "page_tool", json.RawMessage(`{"n":3,"detail":"complete"}`), nil)
	is.NoErr(err)
	is.Equal(full.Evidence.EvidenceID, parent.EvidenceID) // the record a complete call seals
}

// TestResolveParent: a concise record's parent_evidence_id is followed to
// the complete record this connection retains; one it does not hold is
// refused with details naming the missing record, the concise record that
// names it, and what to pass instead. Before, the details were
// "expected":"retained-evidence","actual":null, which no caller had sent.
func TestResolveParent(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	ops := []*core.Operation{
		{Name: "page_tool", Title: "Page", Description: "Pages a result.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				id, err := c.RetainComplete(&core.Observation{Result: map[string]any{"items": []any{1, 2, 3}}, Unbound: true})
				if err != nil {
					return nil, err
				}
				return &core.Observation{Result: map[string]any{"items": []any{1}, "parent_evidence_id": string(id)}, Unbound: true, Links: []core.EvidenceID{id}}, nil
			}},
		{Name: "read_tool", Title: "Read", Description: "Reads a record.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				ev, err := c.EvidenceArg("source")
				if err != nil {
					return nil, err
				}
				var r struct {
					Parent string `json:"parent_evidence_id"`
				}
				is.NoErr(json.Unmarshal(ev.NormalizedResult, &r))
				full, err := c.ResolveParent(ev, r.Parent)
				if err != nil {
					return nil, err
				}
				return &core.Observation{Result: map[string]any{"full": string(full.EvidenceID)}, Unbound: true}, nil
			}}}
	cat, err := core.NewCatalog(ops)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	made := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	page, err := made.Call(ctx, "page_tool", json.RawMessage(`{}`), nil)
	is.NoErr(err)
	parent := string(page.Evidence.EvidenceLinks[0])
	inline, err := json.Marshal(map[string]any{"source": page.Evidence})
	is.NoErr(err)
	got, err := made.Call(ctx, "read_tool", inline, nil) // the connection that made it follows the reference
	is.NoErr(err)
	is.True(string(got.Evidence.NormalizedResult) == `{"full":"`+parent+`"}`)
	_, err = core.NewSession(cat, reg, nil).Call(ctx, "read_tool", inline, nil) // another does not hold the parent
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(e.Details["reason"], "missing")
	is.Equal(e.Details["evidence_id"], parent)                                   // what is missing
	is.Equal(e.Details["concise_evidence_id"], string(page.Evidence.EvidenceID)) // what named it
	is.True(e.Details["expected"] != "retained-evidence")
	instead, _ := e.Details["pass_instead"].(string) // what to pass instead
	is.True(strings.Contains(instead, parent) && strings.Contains(instead, `"detail":"complete"`) && strings.Contains(instead, "page_tool"))
	is.True(strings.Contains(e.Remediation, instead))
}
