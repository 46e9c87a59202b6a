package core_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func TestParseResponseBudget(t *testing.T) {
	is := is.New(t)
	b, err := core.ParseResponseBudget("", false)
	is.NoErr(err)
	is.Equal(b.MaxResponseBytes, int64(core.DefaultMaxResponseBytes))
	is.Equal(b.ResultBudget(), int64(core.DefaultMaxResponseBytes-1024))
	b, err = core.ParseResponseBudget("20971520", true)
	is.NoErr(err)
	is.Equal(b.MaxResponseBytes, int64(20971520))
	for _, bad := range []string{"", "0", "1024", "1.5", "1e8", " 10485760", "10485760 ", "+10485760", "010485760", "9007199254740992", "10485759"} {
		_, err := core.ParseResponseBudget(bad, true)
		ce := core.AsError("start", err)
		is.Equal(ce.Code, core.CodeConfigurationInvalid)
		is.Equal(ce.Details["settings"].([]map[string]any)[0]["setting"], core.MaxResponseBytesEnv)
	}
}

// SuccessBytes must never under-count what an encoder writes.
func TestSuccessBytesIsAnUpperBound(t *testing.T) {
	is := is.New(t)
	for _, s := range []string{`{}`, `{"a":"<tag> & \"quote\" \\ é \u2028 \n\t\u0001"}`} {
		j := []byte(s)
		text, _ := json.Marshal(string(j))
		full, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(j)}}, "structuredContent": json.RawMessage(j)})
		is.True(core.SuccessBytes(j) >= int64(len(full)))
		is.True(core.SuccessBytes(j) >= int64(len(text)+len(j)))
	}
}

// An oversized retained result names the concrete calls that read it.
func TestResourceConstraintNamesTheNextCall(t *testing.T) {
	is := is.New(t)
	b := core.ResponseBudget{MaxResponseBytes: 1100}
	ev := &core.Evidence{Operation: "inspect_binary_layout", Parameters: json.RawMessage(`{"path":"/x"}`),
		NormalizedResult: json.RawMessage(`{"symbols":[]}`), Confidence: "observed", Authority: "shipped-artifact", PredicateType: "rea.analysis",
		Provider: core.ProviderRef{ID: "fake", Name: "fake"}}
	is.NoErr(ev.Seal())
	big := make([]byte, 4096)
	for i := range big {
		big[i] = 'a'
	}
	for _, c := range []struct {
		op   string
		want []string
	}{
		{"inspect_binary_layout", []string{`"detail":"summary"`, `"evidence_id":"` + string(ev.EvidenceID) + `"`, "export_evidence_bundle {"}},
		{"analyze_function", []string{`without "detail":"complete"`, "inspect_analysis_view {", "export_evidence_bundle {"}},
		{"list_strings", []string{"export_evidence_bundle {"}},
	} {
		e := b.CheckSuccess(c.op, &core.Result{Evidence: ev}, []byte(`"`+string(big)+`"`), true)
		is.True(e != nil)
		is.Equal(e.Code, core.CodeResourceConstraint)
		for _, w := range c.want {
			if !strings.Contains(e.Remediation, w) {
				t.Errorf("%s: remediation %q lacks %q", c.op, e.Remediation, w)
			}
		}
	}
}
