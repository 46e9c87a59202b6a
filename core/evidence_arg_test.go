package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// toolSessions returns a maker of connections to a catalog of one tool per
// handler, each taking and answering any object.
func toolSessions(t *testing.T, handlers map[string]core.Handler) func() *core.Session {
	t.Helper()
	open := json.RawMessage(`{"type":"object"}`)
	var ops []*core.Operation
	for _, name := range slices.Sorted(maps.Keys(handlers)) {
		ops = append(ops, &core.Operation{Name: name, Title: name, Description: "A test tool.", Kind: core.KindApplication, Input: open, Result: open, Handler: handlers[name]})
	}
	cat, err := core.NewCatalog(ops)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return func() *core.Session { return core.NewSession(cat, reg, nil) }
}

func unbound(result any) *core.Observation { return &core.Observation{Result: result, Unbound: true} }

func retained(id core.EvidenceID) string {
	return `{"kind":"retained-evidence","evidence_id":"` + string(id) + `"}`
}

// pageTool answers a page of its items, the first, naming as
// parent_evidence_id the complete record it retains, the record a
// "detail":"complete" call answers.
func pageTool(ctx context.Context, c *core.Call) (any, error) {
	complete := unbound(map[string]any{"items": []any{1, 2, 3}})
	if c.Args["detail"] == "complete" {
		return complete, nil
	}
	id, err := c.RetainComplete(complete)
	if err != nil {
		return nil, err
	}
	return &core.Observation{Result: map[string]any{"items": []any{1}, "parent_evidence_id": string(id)}, Unbound: true, Links: []core.EvidenceID{id}}, nil
}

// TestEvidenceArg resolves an Evidence argument in both forms, records it
// as the retained reference, and types the failures.
func TestEvidenceArg(t *testing.T) {
	is := is.New(t)
	var seen []core.EvidenceID
	var params []any
	s := toolSessions(t, map[string]core.Handler{
		"make_tool": func(ctx context.Context, c *core.Call) (any, error) { return unbound(map[string]any{"n": 1}), nil },
		"read_tool": func(ctx context.Context, c *core.Call) (any, error) {
			ev, err := c.EvidenceArg("source")
			if err != nil {
				return nil, err
			}
			c.KeepReference("source", ev)
			seen = append(seen, ev.EvidenceID)
			params = append(params, c.Args["source"])
			return unbound(map[string]any{"operation": ev.Operation}), nil
		},
	})()
	ctx := context.Background()
	made, err := s.Call(ctx, "make_tool", json.RawMessage(`{}`), nil)
	is.NoErr(err)
	inline, err := core.MarshalNoEscape(made.Evidence)
	is.NoErr(err)
	a, err := s.Call(ctx, "read_tool", json.RawMessage(`{"source":`+retained(made.Evidence.EvidenceID)+`}`), nil)
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
		{`{"source":` + retained(core.EvidenceID("ev_"+strings.Repeat("a", 64))) + `}`, string(core.CodeEvidenceIntegrityMismatch)},
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

// TestCompleteEvidence: an Evidence argument nested in arrays and objects
// that is a concise record (parent_evidence_id, retained as a
// "detail":"complete" call records it) is followed to its complete record,
// whichever form it came in, and recorded as that record's reference. A
// connection that does not hold the complete record refuses the concise one
// naming what is missing, what named it, and what to pass instead (before,
// "expected":"retained-evidence","actual":null, which no caller had sent);
// a parent another operation made is refused as wrong_operation.
func TestCompleteEvidence(t *testing.T) {
	is := is.New(t)
	var got []core.EvidenceID
	var params []any
	sessions := toolSessions(t, map[string]core.Handler{
		"page_tool": pageTool,
		"other_tool": func(ctx context.Context, c *core.Call) (any, error) {
			return unbound(map[string]any{"parent_evidence_id": c.Args["parent"]}), nil
		},
		"read_tool": func(ctx context.Context, c *core.Call) (any, error) {
			got = got[:0]
			l, _ := c.Args["layers"].([]any)
			for i := range l {
				ev, err := c.EvidenceAt("layers", i, "analysis")
				if err != nil {
					return nil, err
				}
				if ev, err = c.CompleteEvidence(ev); err != nil {
					return nil, err
				}
				c.KeepReferenceAt(ev, "layers", i, "analysis")
				got = append(got, ev.EvidenceID)
			}
			params = append(params, c.Args["layers"])
			return unbound(map[string]any{"n": len(got)}), nil
		},
	})
	s := sessions()
	ctx := context.Background()
	page, err := s.Call(ctx, "page_tool", json.RawMessage(`{}`), nil)
	is.NoErr(err)
	full, err := s.Call(ctx, "page_tool", json.RawMessage(`{"detail":"complete"}`), nil)
	is.NoErr(err)
	parent := string(full.Evidence.EvidenceID)
	is.Equal(page.Evidence.EvidenceLinks, []core.EvidenceID{full.Evidence.EvidenceID}) // the complete record was retained
	inline, err := core.MarshalNoEscape(page.Evidence)
	is.NoErr(err)
	layers := func(analyses ...string) json.RawMessage {
		return json.RawMessage(`{"layers":[{"analysis":` + strings.Join(analyses, `},{"analysis":`) + `}]}`)
	}

	_, err = s.Call(ctx, "read_tool", layers(retained(full.Evidence.EvidenceID), string(inline)), nil)
	is.NoErr(err)
	is.Equal(got, []core.EvidenceID{full.Evidence.EvidenceID, full.Evidence.EvidenceID}) // the concise record led to its parent
	_, err = s.Call(ctx, "read_tool", layers(retained(page.Evidence.EvidenceID), retained(full.Evidence.EvidenceID)), nil)
	is.NoErr(err)
	is.Equal(params[0], params[1]) // every form is recorded as the parent's reference

	_, err = sessions().Call(ctx, "read_tool", layers(string(inline)), nil) // another connection does not hold the parent
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(e.Details["reason"], "missing")
	is.Equal(e.Details["evidence_id"], parent)                                   // what is missing
	is.Equal(e.Details["concise_evidence_id"], string(page.Evidence.EvidenceID)) // what named it
	instead, _ := e.Details["pass_instead"].(string)                             // what to pass instead
	is.True(strings.Contains(instead, parent) && strings.Contains(instead, `"detail":"complete"`) && strings.Contains(instead, "page_tool"))
	is.True(strings.Contains(e.Remediation, instead))

	other, err := s.Call(ctx, "other_tool", json.RawMessage(`{"parent":"`+parent+`"}`), nil)
	is.NoErr(err)
	for _, tc := range []struct {
		args   json.RawMessage
		code   core.Code
		reason string
	}{
		{layers(retained(other.Evidence.EvidenceID)), core.CodeEvidenceIntegrityMismatch, "wrong_operation"}, // a parent another operation made
		{json.RawMessage(`{"layers":[{}]}`), core.CodeInvalidRequest, ""},
		{layers(`"x"`), core.CodeInvalidRequest, ""},
		{layers(`{"kind":"retained-evidence","evidence_id":"ev_nope"}`), core.CodeInvalidRequest, ""},
	} {
		_, err := s.Call(ctx, "read_tool", tc.args, nil)
		var e *core.Error
		is.True(errors.As(err, &e)) // every failure is typed
		is.Equal(e.Code, tc.code)
		if tc.reason != "" {
			is.Equal(e.Details["reason"], tc.reason)
		}
	}
}

// TestRetainComplete: the complete record a concise page links to is the
// record a "detail":"complete" call seals, retained, and the page's own
// arguments are left as they were.
func TestRetainComplete(t *testing.T) {
	is := is.New(t)
	s := toolSessions(t, map[string]core.Handler{"page_tool": pageTool})()
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
