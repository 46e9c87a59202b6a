package main

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A trace is about the application it traces: its Evidence's subject is
// the analysis Evidence's, as a view's is, and it carries no "No single
// artifact is this record's subject" limitation. Before, both trace tools
// sealed Unbound records with no subject.
func TestTraceEvidenceHasTheApplicationsSubject(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	app := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	is.True(app.Subject != nil)
	ref := map[string]any{"kind": "retained-evidence", "evidence_id": string(app.EvidenceID)}
	for name, args := range map[string]map[string]any{
		"trace_application_feature":  {"application": ref, "seed": map[string]any{"kind": "ipc-channel", "value": "dialog:open"}},
		"trace_javascript_semantics": {"application": ref, "query": map[string]any{"kind": "symbol", "value": "search"}},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			tr := jaCall(t, s, name, args)
			if tr.Subject == nil {
				t.Fatalf("%s has no subject; want the application's %s", name, app.Subject.Name)
			}
			is.Equal(*tr.Subject, *app.Subject)
			is.Equal(tr.Provider.ID, "rea")
			for _, l := range tr.Limitations {
				if strings.Contains(l, "No single artifact") {
					t.Errorf("limitation %q on a record whose subject is the application", l)
				}
			}
		})
	}
}
