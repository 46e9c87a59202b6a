package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
)

const webOpName = "compare_web_captures"

// Examples of compare_web_captures, by position in op.Examples.
const (
	webExRetained       = 0 // two retained inspect_web_page references with placeholder IDs (the one advertised)
	webExBrief          = 1 // two small scenario captures whose click leads elsewhere
	webExPassivePlain   = 2 // identical inspections, no webmcp
	webExScenario       = 3 // build id differs, normalized by a rule
	webExPassiveChanged = 4 // before/after differ by a vendor script; both with webmcp
)

var (
	webCatalogOnce sync.Once
	webCatalog     *core.Catalog
	webCatalogErr  error
)

// webOp returns the operation from one checked default catalog shared by
// these tests, so schemas compile once.
func webOp(t *testing.T) (*core.Catalog, *core.Operation) {
	t.Helper()
	webCatalogOnce.Do(func() {
		if webCatalog, webCatalogErr = standard.Catalog(); webCatalogErr == nil {
			webCatalog.SetCheckOutputs(true)
			webCatalogErr = webCatalog.Check()
		}
	})
	if webCatalogErr != nil {
		t.Fatal(webCatalogErr)
	}
	c := webCatalog
	op, ok := c.Lookup(webOpName)
	if !ok {
		t.Fatal("compare_web_captures is not in the default catalog")
	}
	return c, op
}

// webExample decodes one advertised example so a test can edit it.
func webExample(t *testing.T, i int) map[string]any {
	t.Helper()
	_, op := webOp(t)
	var m map[string]any
	if err := json.Unmarshal(op.Examples[i], &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func webClone(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// webAt walks maps (string keys) and slices (int keys).
func webAt(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no element %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

func webMap(t *testing.T, v any, path ...any) map[string]any {
	t.Helper()
	m, ok := webAt(t, v, path...).(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", path)
	}
	return m
}

func webList(t *testing.T, v any, path ...any) []any {
	t.Helper()
	l, ok := webAt(t, v, path...).([]any)
	if !ok {
		t.Fatalf("%v is not an array", path)
	}
	return l
}

// webCall runs compare_web_captures through a fresh session.
func webCall(ctx context.Context, t *testing.T, args any) (*core.Result, error) {
	t.Helper()
	cat, _ := webOp(t)
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return core.NewSession(cat, reg, nil).Call(ctx, webOpName, raw, nil)
}

// webCompare calls the operation, checks the Evidence against the output
// schema and returns normalized_result.
func webCompare(t *testing.T, args any) map[string]any {
	t.Helper()
	res, err := webCall(context.Background(), t, args)
	if err != nil {
		t.Fatalf("compare_web_captures: %v %v", err, core.AsError(webOpName, err).Details)
	}
	raw, err := res.StructuredJSON()
	if err != nil {
		t.Fatal(err)
	}
	webValidateOutput(t, raw)
	var ev struct {
		NormalizedResult map[string]any `json:"normalized_result"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	return ev.NormalizedResult
}

func webValidateOutput(t *testing.T, evidence []byte) {
	t.Helper()
	_, op := webOp(t)
	if err := op.CheckOutput(evidence); err != nil {
		t.Fatal(err)
	}
}

// webCompareErr calls the operation expecting a canonical error.
func webCompareErr(t *testing.T, args any) *core.Error {
	t.Helper()
	_, err := webCall(context.Background(), t, args)
	if err == nil {
		t.Fatal("compare_web_captures succeeded; want an error")
	}
	var ce *core.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %T is not a *core.Error", err)
	}
	return ce
}

func webIssues(t *testing.T, e *core.Error) []core.Issue {
	t.Helper()
	issues, ok := e.Details["issues"].([]core.Issue)
	if !ok || len(issues) == 0 {
		t.Fatalf("details.issues missing: %#v", e.Details)
	}
	return issues
}

// webHasIssue reports whether an issue's path starts with prefix and has
// the reason (any reason when empty).
func webHasIssue(issues []core.Issue, reason string, prefix ...any) bool {
	for _, is := range issues {
		if reason != "" && is.Reason != reason || len(is.Path) < len(prefix) {
			continue
		}
		if fmt.Sprintf("%v", is.Path[:len(prefix)]) == fmt.Sprintf("%v", prefix) {
			return true
		}
	}
	return false
}

func TestCompareWebCapturesDeclaration(t *testing.T) {
	is := is.New(t)
	_, op := webOp(t)
	is.Equal(op.Kind, core.KindApplication)
	is.Equal(op.Effects, core.Effects{MutatesSession: true, Idempotent: true})
	is.True(op.ProducesEvidence())
	is.True(!op.NeedsTarget && len(op.Needs) == 0)
	a := op.Effects.Annotations()
	is.True(!a.OpenWorld && !a.Destructive && a.Idempotent)
	is.Equal(op.Presentation(core.ProfileCompact), core.PresentInline) // the captures are advertised shallowly (Produced)
	is.True(!strings.Contains(string(op.Input), `"$ref":"#"`))         // no recursion through the root

	var in map[string]any
	is.NoErr(json.Unmarshal(op.Input, &in))
	is.Equal(len(webList(t, in, "anyOf")), 2)
	for _, b := range webList(t, in, "anyOf") {
		is.Equal(webAt(t, b, "additionalProperties"), false)
	}
	full := op.AdvertisedInput(core.ProfileFull)
	for _, name := range []string{"before", "after", "before_scenario", "after_scenario", "normalization", "max_changes"} {
		is.True(strings.Contains(string(full), `"`+name+`"`))
	}
	// The captures are advertised shallowly, naming their producers' output
	// schemas (53 KB with its example before, under 9 KB now).
	c, _ := webOp(t)
	for _, producer := range []string{"inspect_web_page", "discover_webmcp_tools", "capture_browser_scenario"} {
		p, ok := c.Lookup(producer)
		is.True(ok)
		var out struct {
			ID string `json:"$id"`
		}
		is.NoErr(json.Unmarshal(p.OutputSchema(), &out))
		is.True(strings.Contains(string(full), out.ID))
	}
	is.True(!strings.Contains(string(full), `"web_completeness"`))
	is.True(len(full) < 9<<10)
	ex := op.AdvertisedExamples(c)
	is.Equal(len(ex), 1)
	is.Equal(string(ex[0]), string(op.Examples[webExRetained]))
}

func TestCompareWebCapturesExamplesValidate(t *testing.T) {
	c, op := webOp(t)
	is := is.New(t)
	is.True(len(op.Examples) >= 3)
	for i := range op.Examples {
		_, err := c.Validate(op, op.Examples[i])
		is.NoErr(err)
	}
}

func TestCompareWebCapturesCanonicalValidationRejects(t *testing.T) {
	passive := func(t *testing.T) map[string]any { return webExample(t, webExPassiveChanged) }
	scenario := func(t *testing.T) map[string]any { return webExample(t, webExScenario) }
	cases := []struct {
		name   string
		args   func(t *testing.T) map[string]any
		reason string
		path   []any
	}{
		{"mixed groups", func(t *testing.T) map[string]any {
			a := passive(t)
			s := scenario(t)
			a["before_scenario"], a["after_scenario"] = s["before_scenario"], s["after_scenario"]
			return a
		}, core.ReasonUnknownArgument, []any{"before_scenario"}},
		{"before without after", func(t *testing.T) map[string]any {
			a := passive(t)
			delete(a, "after")
			return a
		}, core.ReasonMissingArgument, []any{"after"}},
		{"before_scenario without after_scenario", func(t *testing.T) map[string]any {
			a := scenario(t)
			delete(a, "after_scenario")
			return a
		}, core.ReasonMissingArgument, []any{"after_scenario"}},
		{"half of each group", func(t *testing.T) map[string]any {
			a, s := passive(t), scenario(t)
			delete(a, "after")
			a["after_scenario"] = s["after_scenario"]
			return a
		}, core.ReasonMissingArgument, nil},
		{"incomplete inspection", func(t *testing.T) map[string]any {
			a := passive(t)
			delete(webMap(t, a, "before", "inspection"), "dom")
			return a
		}, core.ReasonMissingArgument, []any{"before", "inspection", "dom"}},
		{"incomplete nested script", func(t *testing.T) map[string]any {
			a := passive(t)
			delete(webMap(t, a, "after", "inspection", "scripts", "items", 0), "cdp_hash")
			return a
		}, core.ReasonMissingArgument, []any{"after", "inspection", "scripts", "items", 0, "cdp_hash"}},
		{"incomplete scenario step", func(t *testing.T) map[string]any {
			a := scenario(t)
			delete(webMap(t, a, "before_scenario", "steps", 1), "artifacts")
			return a
		}, core.ReasonMissingArgument, []any{"before_scenario", "steps", 1, "artifacts"}},
		{"unknown root property", func(t *testing.T) map[string]any {
			a := passive(t)
			a["verbose"] = true
			return a
		}, core.ReasonUnknownArgument, []any{"verbose"}},
		{"unknown nested property", func(t *testing.T) map[string]any {
			a := passive(t)
			webMap(t, a, "before", "inspection", "target")["cookie"] = "x"
			return a
		}, core.ReasonUnknownArgument, []any{"before", "inspection", "target", "cookie"}},
		{"max_changes out of range", func(t *testing.T) map[string]any {
			a := passive(t)
			a["max_changes"] = 20001
			return a
		}, core.ReasonOutOfRange, []any{"max_changes"}},
		{"normalization targets screenshots", func(t *testing.T) map[string]any {
			a := scenario(t)
			webMap(t, a, "normalization", "rules", 0)["artifacts"] = []any{"screenshot"}
			return a
		}, core.ReasonInvalidValue, []any{"normalization", "rules", 0, "artifacts", 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			e := webCompareErr(t, tc.args(t))
			is.Equal(e.Code, core.CodeInvalidRequest)
			issues := webIssues(t, e)
			if tc.path != nil && !webHasIssue(issues, tc.reason, tc.path...) {
				t.Fatalf("no %s issue at %v in %+v", tc.reason, tc.path, issues)
			}
			if tc.path == nil && !webHasIssue(issues, tc.reason) {
				t.Fatalf("no %s issue in %+v", tc.reason, issues)
			}
		})
	}
}

func TestCompareWebCapturesDomainValidation(t *testing.T) {
	cases := []struct {
		name string
		ex   int
		edit func(t *testing.T, a map[string]any)
		path []any
	}{
		{"retained event count", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before_scenario", "events")["retained"] = 3
		}, []any{"before_scenario", "events", "retained"}},
		{"event references no step", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "after_scenario", "events", "items", 3)["step_index"] = 2
		}, []any{"after_scenario", "events", "items", 3, "step_index"}},
		{"events out of receipt order", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "after_scenario", "events", "items", 1)["sequence"] = 1
		}, []any{"after_scenario", "events", "items", 1, "sequence"}},
		{"step sequence points past the events", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before_scenario", "steps", 1)["event_sequence_end"] = 9
		}, []any{"before_scenario", "steps", 1, "event_sequence_end"}},
		{"step sequence range reversed", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before_scenario", "steps", 1)["event_sequence_end"] = 1
		}, []any{"before_scenario", "steps", 1, "event_sequence_end"}},
		{"steps do not match actions", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before_scenario", "scenario")["action_count"] = 2
		}, []any{"before_scenario", "steps"}},
		{"step index gap", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before_scenario", "steps", 1)["step_index"] = 2
		}, []any{"before_scenario", "steps", 1, "step_index"}},
		{"failed step without error", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before_scenario", "steps", 1)["status"] = "failed"
		}, []any{"before_scenario", "steps", 1, "error"}},
		{"text artifact digest", webExScenario, func(t *testing.T, a map[string]any) {
			webMap(t, a, "after_scenario", "steps", 1, "artifacts", "dom", "value")["text"] = "<html></html>"
		}, []any{"after_scenario", "steps", 1, "artifacts", "dom", "value"}},
		{"screenshot digest", webExScenario, func(t *testing.T, a map[string]any) {
			h := strings.Repeat("ab", 32)
			webMap(t, a, "before_scenario", "steps", 1, "artifacts")["screenshot"] = map[string]any{"state": "captured", "value": map[string]any{
				"uri": "rea://web-screenshot/sha256/" + h, "sha256": h, "bytes": 4, "media_type": "image/png", "data_base64": "iVBORw=="}}
		}, []any{"before_scenario", "steps", 1, "artifacts", "screenshot", "value"}},
		{"duplicate rule ids", webExScenario, func(t *testing.T, a map[string]any) {
			rules := webList(t, a, "normalization", "rules")
			webMap(t, a, "normalization")["rules"] = append(rules, webClone(t, rules[0]))
		}, []any{"normalization", "rules", 1, "rule_id"}},
		{"script total below retained", webExPassiveChanged, func(t *testing.T, a map[string]any) {
			webMap(t, a, "after", "inspection", "scripts")["total"] = 1
		}, []any{"after", "inspection", "scripts", "total"}},
		{"duplicate resource keys", webExPassiveChanged, func(t *testing.T, a map[string]any) {
			ins := webMap(t, a, "before", "inspection")
			res := webList(t, ins, "resources")
			ins["resources"] = append(res, webClone(t, res[0]))
		}, []any{"before", "inspection", "resources", 2, "resource_key"}},
		{"dropped total", webExPassiveChanged, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before", "inspection", "completeness", "dropped_events")["total"] = 4
		}, []any{"before", "inspection", "completeness", "dropped_events", "total"}},
		{"ledger status contradicts conditions", webExPassiveChanged, func(t *testing.T, a map[string]any) {
			webMap(t, a, "before", "webmcp", "completeness")["status"] = "truncated"
		}, []any{"before", "webmcp", "completeness", "status"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			a := webExample(t, tc.ex)
			tc.edit(t, a)
			e := webCompareErr(t, a)
			is.Equal(e.Code, core.CodeInvalidRequest)
			if !webHasIssue(webIssues(t, e), core.ReasonInvalidValue, tc.path...) {
				t.Fatalf("no issue at %v in %+v", tc.path, webIssues(t, e))
			}
		})
	}
}

func TestCompareWebCapturesThroughSession(t *testing.T) {
	_, op := webOp(t)
	for i := range op.Examples {
		t.Run(fmt.Sprint("example", i), func(t *testing.T) {
			is := is.New(t)
			res, err := webCall(context.Background(), t, json.RawMessage(op.Examples[i]))
			if i == webExRetained { // its placeholder IDs name nothing in a new session
				is.Equal(core.AsError(webOpName, err).Code, core.CodeEvidenceIntegrityMismatch)
				return
			}
			is.NoErr(err)
			raw, err := res.StructuredJSON()
			is.NoErr(err)
			webValidateOutput(t, raw)
			ev, err := core.ParseEvidence(raw)
			is.NoErr(err)
			is.Equal(ev.Operation, webOpName)
			is.Equal(ev.Provider.ID, "rea")
			is.True(ev.Subject == nil)
			is.Equal(ev.Confidence, "derived")
			is.True(len(ev.Limitations) > 0)
			var params map[string]any
			is.NoErr(json.Unmarshal(ev.Parameters, &params))
			_, hasMax := params["max_changes"]
			is.True(hasMax) // the effective default is recorded
			if i == webExPassivePlain {
				is.Equal(params["max_changes"], 2000.0)
			}
			if i == webExScenario {
				_, hasNorm := params["normalization"]
				is.True(hasNorm)
			}
		})
	}
}

func TestCompareWebCapturesDefaultNormalizationRecorded(t *testing.T) {
	is := is.New(t)
	a := webExample(t, webExScenario)
	delete(a, "normalization")
	res, err := webCall(context.Background(), t, a)
	is.NoErr(err)
	var params map[string]any
	is.NoErr(json.Unmarshal(res.Evidence.Parameters, &params))
	is.Equal(fmt.Sprint(params["normalization"]), "map[rules:[]]")
}

func TestCompareWebCapturesCancelled(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := webCall(ctx, t, webExample(t, webExPassiveChanged))
	is.Equal(core.AsError(webOpName, err).Code, core.CodeCancelled)
}

// FuzzCompareWebCaptures feeds arbitrary arguments: every outcome is a
// schema-valid Evidence record or invalid_request, never an internal
// failure. The seeds are ~20 KB, so run it with -fuzzminimizetime=0:
// minimizing a new input that large stalls the fuzzer for a minute.
func FuzzCompareWebCaptures(f *testing.F) {
	cat, err := standard.Catalog()
	if err != nil {
		f.Fatal(err)
	}
	op, _ := cat.Lookup(webOpName)
	for _, ex := range op.Examples {
		f.Add([]byte(ex))
	}
	f.Add([]byte(`{"before":{},"after":{}}`))
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := core.NewSession(cat, reg, nil).Call(context.Background(), webOpName, data, nil)
		if err != nil {
			if c := core.AsError(webOpName, err).Code; c != core.CodeInvalidRequest && c != core.CodeEvidenceIntegrityMismatch {
				t.Fatalf("code %s: %v", c, err)
			}
			return
		}
		raw, err := res.StructuredJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := op.CheckOutput(raw); err != nil {
			t.Fatal(err)
		}
	})
}
