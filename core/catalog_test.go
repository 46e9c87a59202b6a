package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"rea/core"
	"rea/core/standard"
)

func catalog(t *testing.T) *core.Catalog {
	t.Helper()
	c, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	c.SetCheckOutputs(true)
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCatalogExamplesAreDistinctAndValid(t *testing.T) {
	c := catalog(t)
	for _, op := range c.Operations() {
		t.Run(op.Name, func(t *testing.T) {
			is := is.New(t)
			is.True(len(op.Examples) > 0)
			seen := map[string]bool{}
			for _, ex := range op.Examples {
				canon, err := core.Canonicalize(ex)
				is.NoErr(err)
				is.True(!seen[string(canon)]) // distinct
				seen[string(canon)] = true
				_, err = c.Validate(op, ex)
				is.NoErr(err)
			}
			is.True(op.Title != "" && op.Description != "")
		})
	}
}

func TestCatalogSortedByCodePoint(t *testing.T) {
	is := is.New(t)
	ops := catalog(t).Operations()
	for i := 1; i < len(ops); i++ {
		is.True(ops[i-1].Name < ops[i].Name)
	}
}

func TestCatalogOutputSchemas(t *testing.T) {
	for _, op := range catalog(t).Operations() {
		t.Run(op.Name, func(t *testing.T) {
			is := is.New(t)
			var m map[string]any
			is.NoErr(json.Unmarshal(op.OutputSchema(), &m))
			id, _ := m["$id"].(string)
			is.True(strings.HasPrefix(id, "urn:rea:tool-output:sha256:"))
			is.Equal(m["type"], "object")
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(op.OutputSchema()))
			is.NoErr(err)
			comp := jsonschema.NewCompiler()
			is.NoErr(comp.AddResource(id, doc))
			_, err = comp.Compile(id)
			is.NoErr(err)
		})
	}
}

func TestValidationIssues(t *testing.T) {
	c := catalog(t)
	cases := []struct {
		tool, args string
		path       []any
		reason     string
		message    string // when set, the issue's message
	}{
		{"open_binary", `{}`, []any{"path"}, core.ReasonMissingArgument, ""},
		{"open_binary", `{"path":"/bin/ls","bogus":1}`, []any{"bogus"}, core.ReasonUnknownArgument, ""},
		{"open_binary", `{"path":7}`, []any{"path"}, core.ReasonInvalidType, ""},
		{"open_binary", `{"path":"/bin/ls","provider_id":"Bad Id"}`, []any{"provider_id"}, core.ReasonInvalidFormat, ""},
		{"list_procedures", `{"limit":501}`, []any{"limit"}, core.ReasonOutOfRange, ""},
		{"list_procedures", `{"offset":-1}`, []any{"offset"}, core.ReasonOutOfRange, "got -1, want at least 0"},
		// Numbers in plain digits, not the validator's 1 × 10⁰⁸ and 65,536.
		{"read_bytes", `{"address":"0x0","length":100000000}`, []any{"length"}, core.ReasonOutOfRange, "got 100000000, want at most 65536"},
		{"list_procedures", `{"limit":2.5}`, []any{"limit"}, core.ReasonInvalidType, ""},
		{"binary_overview", `{"detail":"everything"}`, []any{"detail"}, core.ReasonInvalidValue, ""},
		{"list_unknowns", `{"unknown_id":"main"}`, []any{"unknown_id"}, core.ReasonInvalidFormat, ""}, // code locations take names
		{"list_names", `[1]`, []any{}, core.ReasonInvalidType, ""},
		// A bad property name (propertyNames) is located at that name, not
		// at the root where the validator checked the name by itself.
		{"capture_process_scenario", `{"executable":"/bin/true","environment":{"A=B":"x"}}`, []any{"environment", "A=B"}, core.ReasonInvalidFormat, ""},
		{"capture_process_scenario", `{"executable":"/bin/true","environment":{"REA_PROCESS_RUN_ID":"x"}}`, []any{"environment", "REA_PROCESS_RUN_ID"}, core.ReasonInvalidValue, ""},
		{"trace_native_calls", `{"procedures":["main"],"environment":{"":"x"}}`, []any{"environment", ""}, core.ReasonOutOfRange, ""},
		// A JSON pointer's token is an index only into an array: an
		// object's key "0" stays the string "0" (it was the number 0).
		{"capture_process_scenario", `{"executable":"/bin/true","environment":{"0":5}}`, []any{"environment", "0"}, core.ReasonInvalidType, ""},
		{"trace_native_calls", `{"procedures":["main",5]}`, []any{"procedures", 1}, core.ReasonInvalidType, ""},
	}
	for _, tc := range cases {
		t.Run(tc.tool+tc.args, func(t *testing.T) {
			is := is.New(t)
			op, ok := c.Lookup(tc.tool)
			is.True(ok)
			_, err := c.Validate(op, json.RawMessage(tc.args))
			ce := core.AsError(tc.tool, err)
			is.Equal(ce.Code, core.CodeInvalidRequest)
			issues := ce.Details["issues"].([]core.Issue)
			found := false
			for _, iss := range issues {
				is.True(!strings.Contains(iss.Message, "at ''")) // no message locates an issue at the root by mistake
				if iss.Reason == tc.reason && equalPath(iss.Path, tc.path) && (tc.message == "" || iss.Message == tc.message) {
					found = true
				}
			}
			if !found {
				t.Fatalf("issues %+v lack %v %s", issues, tc.path, tc.reason)
			}
		})
	}
}

func equalPath(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDefaultsApplied(t *testing.T) {
	is := is.New(t)
	c := catalog(t)
	op, _ := c.Lookup("list_procedures")
	args, err := c.Validate(op, json.RawMessage(`{}`))
	is.NoErr(err)
	is.Equal(args["offset"], json.Number("0"))
	is.Equal(args["limit"], json.Number("100"))
}

// TestIssuesKeepOneOrder: the validator checks an object's properties in
// map order; the same wrong arguments are told their issues in one order.
func TestIssuesKeepOneOrder(t *testing.T) {
	is := is.New(t)
	c := catalog(t)
	op, _ := c.Lookup("list_procedures")
	issues := func() []any {
		_, err := c.Validate(op, json.RawMessage(`{"document":"","limit":0,"offset":-1}`))
		var paths []any
		for _, iss := range core.AsError(op.Name, err).Details["issues"].([]core.Issue) {
			paths = append(paths, iss.Path...)
		}
		return paths
	}
	first := issues()
	is.Equal(first, []any{"document", "limit", "offset"})
	for range 32 {
		is.Equal(issues(), first)
	}
}

func TestAnnotationsFromEffects(t *testing.T) {
	is := is.New(t)
	a := core.Effects{MutatesSession: true, Idempotent: true}.Annotations()
	is.Equal(a, core.Annotations{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: false})
	a = core.Effects{}.Annotations()
	is.True(a.ReadOnly)
	a = core.Effects{ExecutesForeignCode: true}.Annotations()
	is.True(a.Destructive && !a.ReadOnly)
	a = core.Effects{MutatesDevice: true}.Annotations()
	is.True(a.Destructive)
	a = core.Effects{LaunchesProcess: true}.Annotations()
	is.True(a.OpenWorld)
	c := catalog(t)
	cl, _ := c.Lookup("close_binary")
	is.True(cl.Effects.Annotations().Destructive)
	bs, _ := c.Lookup("binary_session")
	is.True(bs.Effects.Annotations().ReadOnly)
}

func TestCatalogRejectsDuplicatesAndBadExamples(t *testing.T) {
	is := is.New(t)
	ops := standard.Operations()
	_, err := core.NewCatalog(append(ops, ops[0]))
	is.True(err != nil)
	bad := standard.Operations()
	bad[0].Examples = append(bad[0].Examples, json.RawMessage(`{"no_such_field":1}`))
	c, err := core.NewCatalog(bad)
	is.NoErr(err)
	is.True(c.Check() != nil)
}

// TestAnyOfReportsTheClosestAlternative: an input that fails every branch
// of an anyOf is told what to fix in the branch it comes closest to, as
// for oneOf. Before, update_unknown's resolution {"disposition":"verified"}
// without evidence_ids got every branch's complaint: "got object, want
// null", the missing evidence_ids, and the disposition the withdrawn and
// out-of-scope branch wants.
func TestAnyOfReportsTheClosestAlternative(t *testing.T) {
	is := is.New(t)
	c := catalog(t)
	op, ok := c.Lookup("update_unknown")
	is.True(ok)
	_, err := c.Validate(op, json.RawMessage(`{"unknown_id":"unk_`+strings.Repeat("0", 64)+`","resolution":{"disposition":"verified","rationale":"seen"}}`))
	issues := core.AsError("update_unknown", err).Details["issues"].([]core.Issue)
	is.Equal(len(issues), 1) // only the verified branch's
	is.Equal(issues[0].Reason, core.ReasonMissingArgument)
	is.Equal(issues[0].Path, []any{"resolution", "evidence_ids"})
	// A resolution of no branch's type is told every type it may take.
	_, err = c.Validate(op, json.RawMessage(`{"unknown_id":"unk_`+strings.Repeat("0", 64)+`","resolution":5}`))
	issues = core.AsError("update_unknown", err).Details["issues"].([]core.Issue)
	is.Equal(len(issues), 2) // got number, want null; got number, want object
	is.Equal(issues[0].Reason, core.ReasonInvalidType)
}

// TestUnionReportsTheBranchOfTheKeys: when an object fails every branch of
// an anyOf or oneOf, the branch that declares its keys says what is wrong,
// however much is wrong inside it. Before, the branch with the fewest
// complaints won: {"before":{"z":1},"after":{...}} was told "x missing",
// "before unknown" and "after unknown" (3 issues) rather than the 4 inside
// before. Keys no branch tells apart keep the fewest-issues choice.
func TestUnionReportsTheBranchOfTheKeys(t *testing.T) {
	for _, kw := range []string{"anyOf", "oneOf"} {
		t.Run(kw, func(t *testing.T) {
			is := is.New(t)
			input := json.RawMessage(`{"type":"object","$defs":{
  "side":{"type":"object","additionalProperties":false,"required":["a","b","c"],"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}}},
  "sides":{"type":"object","additionalProperties":false,"required":["before","after"],"properties":{"before":{"$ref":"#/$defs/side"},"after":{"$ref":"#/$defs/side"}}}},
 "` + kw + `":[{"$ref":"#/$defs/sides"},
  {"type":"object","additionalProperties":false,"required":["x"],"properties":{"x":{"type":"string"},"y":{"type":"string"}}}]}`)
			op := &core.Operation{Name: "union_tool", Title: "Union", Description: "Takes either form.", Kind: core.KindApplication,
				Input: input, Result: json.RawMessage(`{"type":"object"}`), Examples: []json.RawMessage{json.RawMessage(`{"x":"1"}`)},
				Handler: func(context.Context, *core.Call) (any, error) { return nil, nil }}
			cat, err := core.NewCatalog([]*core.Operation{op})
			is.NoErr(err)
			issues := func(args string) (out []string) {
				_, err := cat.Validate(op, json.RawMessage(args))
				for _, iss := range core.AsError(op.Name, err).Details["issues"].([]core.Issue) {
					out = append(out, fmt.Sprint(iss.Path, " ", iss.Reason))
				}
				return out
			}
			is.Equal(issues(`{"before":{"z":1},"after":{"a":"1","b":"2","c":"3"}}`),
				[]string{"[before a] missing_argument", "[before b] missing_argument", "[before c] missing_argument", "[before z] unknown_argument"})
			is.Equal(issues(`{"y":"2","before":{}}`), // y is the other branch's: one key each, and x missing is the fewest
				[]string{"[x] missing_argument", "[before] unknown_argument"})
		})
	}
}

// TestCompareWebCapturesReportsInsideBefore: an invalid passive capture
// is reported inside before, not as the scenario form's missing
// before_scenario and unknown before and after.
func TestCompareWebCapturesReportsInsideBefore(t *testing.T) {
	is := is.New(t)
	c := catalog(t)
	op, ok := c.Lookup("compare_web_captures")
	is.True(ok)
	_, err := c.Validate(op, json.RawMessage(`{"before":{"inspection":{"schema_version":1}},"after":{"inspection":{"kind":"retained-evidence","evidence_id":"ev_`+strings.Repeat("a", 64)+`"}}}`))
	issues := core.AsError(op.Name, err).Details["issues"].([]core.Issue)
	var version bool
	for _, iss := range issues {
		is.True(len(iss.Path) == 3 && iss.Path[0] == "before" && iss.Path[1] == "inspection") // each names what is wrong inside before
		version = version || iss.Path[2] == "schema_version" && iss.Reason == core.ReasonInvalidValue
	}
	is.True(version) // the inline inspection's own complaint: schema_version must be 2
}

// TestUnknownArgumentSuggestsTheName: an unknown argument close to one the
// object advertises (an edit or two, case, - for _) is told that name, in
// the issue (message and expected) and in the remediation; a far one is
// told none. Before, {"adress":"0x1000"} heard only "unknown argument".
func TestUnknownArgumentSuggestsTheName(t *testing.T) {
	c := catalog(t)
	ref := `{"kind":"retained-evidence","evidence_id":"ev_` + strings.Repeat("a", 64) + `"}`
	cases := []struct {
		tool, args string
		path       []any
		want       string // the suggested name, or "" for none
	}{
		{"read_bytes", `{"adress":"0x1000","length":4}`, []any{"adress"}, "address"},
		{"analyze_function", `{"procedure":"main","assembly_ofset":2}`, []any{"assembly_ofset"}, "assembly_offset"},
		{"analyze_function", `{"procedure":"main","Include-Assembly":true}`, []any{"Include-Assembly"}, "include_assembly"},
		{"inspect_analysis_view", `{"source":` + ref + `,"view":{"kind":"page","collection":"symbols","limt":5}}`, []any{"view", "limt"}, "limit"},
		{"read_bytes", `{"address":"0x1000","length":4,"bogus":1}`, []any{"bogus"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.tool+tc.args, func(t *testing.T) {
			is := is.New(t)
			op, ok := c.Lookup(tc.tool)
			is.True(ok)
			_, err := c.Validate(op, json.RawMessage(tc.args))
			ce := core.AsError(tc.tool, err)
			issues := ce.Details["issues"].([]core.Issue)
			var got *core.Issue
			for i := range issues {
				if issues[i].Reason == core.ReasonUnknownArgument && equalPath(issues[i].Path, tc.path) {
					got = &issues[i]
				}
			}
			if got == nil {
				t.Fatalf("issues %+v lack unknown %v", issues, tc.path)
			}
			advice := ce.Envelope().Error.Remediation.Action
			if tc.want == "" {
				is.Equal(got.Expected, nil)
				is.True(!strings.Contains(got.Message, "did you mean"))
				return
			}
			is.Equal(got.Expected, tc.want)
			is.True(strings.Contains(got.Message, `did you mean "`+tc.want+`"`)) // the issue says it
			is.True(strings.Contains(advice, tc.want))                           // and so does the advice
		})
	}
}

// TestDiscriminatorListsEveryBranch: an object whose kind matches no
// branch of a oneOf is told every kind the branches take, not the first
// branch's. Before, inspect_analysis_view's view {"kind":"nope"} heard
// "value must be 'summary'", and source {"kind":"ref"} "must be
// 'retained-evidence'", as if inline were not allowed.
func TestDiscriminatorListsEveryBranch(t *testing.T) {
	c := catalog(t)
	op, ok := c.Lookup("inspect_analysis_view")
	if !ok {
		t.Fatal("no inspect_analysis_view")
	}
	ref := `{"kind":"retained-evidence","evidence_id":"ev_` + strings.Repeat("a", 64) + `"}`
	for _, tc := range []struct {
		args string
		path []any
		want []any
	}{
		{`{"source":` + ref + `,"view":{"kind":"nope"}}`, []any{"view", "kind"}, []any{"summary", "facet", "item", "page", "native"}},
		{`{"source":` + ref + `,"view":{"kind":5,"facet":"linkage"}}`, []any{"view", "kind"}, []any{"summary", "facet", "item", "page", "native"}},
		{`{"source":{"kind":"ref","evidence_id":"x"},"view":{"kind":"summary"}}`, []any{"source", "kind"}, []any{"retained-evidence", "inline"}},
	} {
		t.Run(tc.args, func(t *testing.T) {
			is := is.New(t)
			_, err := c.Validate(op, json.RawMessage(tc.args))
			ce := core.AsError(op.Name, err)
			issues := ce.Details["issues"].([]core.Issue)
			is.Equal(issues[0].Path, tc.path)
			is.Equal(issues[0].Reason, core.ReasonInvalidValue)
			is.Equal(issues[0].Expected, tc.want)
			is.True(strings.Contains(ce.Message, "one of 'summary', 'facet'") || strings.Contains(ce.Message, "one of 'retained-evidence', 'inline'")) // the MCP message lists them too
			for _, iss := range issues[1:] {
				is.True(!equalPath(iss.Path, tc.path)) // and no branch's single const
			}
			for range 32 { // the validator walks properties in map order; the issues keep one order
				_, again := c.Validate(op, json.RawMessage(tc.args))
				is.Equal(core.AsError(op.Name, again).Details["issues"], ce.Details["issues"])
			}
		})
	}
}

// TestRenameComesFirst: a misspelled argument is usually the missing one,
// so its rename is the first issue and the one the message names. Before,
// read_bytes {"adress"} was told "missing required argument address" and
// the "did you mean" hid in the second issue.
func TestRenameComesFirst(t *testing.T) {
	is := is.New(t)
	c := catalog(t)
	op, _ := c.Lookup("read_bytes")
	_, err := c.Validate(op, json.RawMessage(`{"adress":"0x1000","length":4}`))
	ce := core.AsError(op.Name, err)
	issues := ce.Details["issues"].([]core.Issue)
	is.Equal(len(issues), 2)
	is.Equal(issues[0].Expected, "address")
	is.Equal(issues[1].Reason, core.ReasonMissingArgument)
	is.True(strings.Contains(ce.Message, `did you mean "address"?`))
}
