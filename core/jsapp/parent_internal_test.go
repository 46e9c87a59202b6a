package jsapp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestSummaryWithoutItsParentSaysWhatToPass: an application summary
// (parent_evidence_id, no graph) passed to a connection that does not hold
// its complete record is refused naming that record, the summary, and what
// to pass instead, not "expected":"retained-evidence","actual":null.
func TestSummaryWithoutItsParentSaysWhatToPass(t *testing.T) {
	is := is.New(t)
	open := json.RawMessage(`{"type":"object"}`)
	parent := "ev_" + strings.Repeat("c", 64)
	ops := []*core.Operation{
		{Name: "analyze_javascript_application", Title: "Analyze", Description: "Makes a summary.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return &core.Observation{Result: map[string]any{"parent_evidence_id": parent}, Unbound: true}, nil
			}},
		{Name: "read_tool", Title: "Read", Description: "Reads an application.", Kind: core.KindApplication, Input: open, Result: open,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				_, err := jsappEvidenceArg(c, "application", "analyze_javascript_application")
				return nil, err
			}},
	}
	cat, err := core.NewCatalog(ops)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	summary, err := s.Call(ctx, "analyze_javascript_application", json.RawMessage(`{}`), nil)
	is.NoErr(err)
	args, err := json.Marshal(map[string]any{"application": core.Reference(summary.Evidence.EvidenceID)})
	is.NoErr(err)
	_, err = s.Call(ctx, "read_tool", args, nil)
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(e.Details["reason"], "missing")
	is.Equal(e.Details["evidence_id"], parent)
	is.Equal(e.Details["concise_evidence_id"], string(summary.Evidence.EvidenceID))
	is.True(e.Details["pass_instead"] != nil)
}

// TestViewsNameTheInputPath: every view of an application (its summary
// included, analyze_javascript_application detail "summary") carries the
// input_path the application records as artifact.path; before, "".
func TestViewsNameTheInputPath(t *testing.T) {
	is := is.New(t)
	parent := &core.Evidence{Operation: "analyze_javascript_application", PredicateType: core.DefaultPredicate,
		NormalizedResult: json.RawMessage(`{"input_path":"/opt/App/resources/app.asar","format":"asar","graph":{"nodes":[],"edges":[]}}`)}
	body, err := jsappView(parent, &core.ViewRequest{Kind: "summary"})
	is.NoErr(err)
	is.Equal(body.Path, "/opt/App/resources/app.asar")
}
