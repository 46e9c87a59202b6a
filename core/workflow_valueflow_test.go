package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// flowFake is codeFake whose analyses also compute value flow: every
// procedure gets n operations, n-1 def-use edges, a return and one
// parameter (rdi) used by its first two instructions. handle_request fails
// with ErrUnsupported.
type flowFake struct {
	codeFake
	opened *flowCode
}

func (f *flowFake) Open(context.Context, ports.Target) (ports.Analysis, error) {
	f.opened = &flowCode{}
	return f.opened, nil
}

type flowCode struct {
	fakeCode
	calls atomic.Int32
}

func (f *flowCode) ValueFlow(_ context.Context, req ports.FunctionRequest) (ports.ValueFlow, error) {
	f.calls.Add(1)
	if req.Address == 0x1070 {
		return ports.ValueFlow{}, fmt.Errorf("fake: no model: %w", ports.ErrUnsupported)
	}
	vf := ports.ValueFlow{CallingConvention: "sysv-amd64", OmittedEdges: 1, Limitations: []string{"flags are not modelled"}}
	for a := req.Address; a < req.Address+0x28; a += 4 {
		vf.Operations = append(vf.Operations, ports.ValueFlowOperation{Address: a, Mnemonic: "add", Defs: []string{"rax"}, Uses: []string{"rax", "rdi"}})
		if a > req.Address {
			vf.DefUses = append(vf.DefUses, ports.DefUse{Def: a - 4, Use: a, Location: "rax"})
		}
	}
	vf.Effects = []ports.ValueFlowEffect{
		{Kind: ports.EffectMemoryWrite, Address: req.Address, Location: "[rdi]", Value: "rax", Definitions: []uint64{req.Address}},
		{Kind: ports.EffectCall, Address: req.Address + 4, Target: 0x1090, HasTarget: true},
		{Kind: ports.EffectReturn, Address: req.Address + 0x24, Location: "rax", Definitions: []uint64{req.Address + 0x20}},
	}
	vf.Parameters = []ports.InferredParameter{{Location: "rdi", Position: 0, Uses: 2}}
	vf.ParameterUses = []ports.ParameterUse{{Location: "rdi", Address: req.Address}, {Location: "rdi", Address: req.Address + 4}}
	return vf, nil
}

func flowSession(t *testing.T, p ports.Provider) *core.Session {
	t.Helper()
	target := "/usr/bin/ls"
	if _, err := os.Stat(target); err != nil {
		t.Skip("no /usr/bin/ls to open")
	}
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry([]ports.Provider{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	if _, err := s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"`+target+`"}`), nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAnalyzeFunctionValueFlow(t *testing.T) {
	t.Run("observed", func(t *testing.T) {
		is := is.New(t)
		fake := &flowFake{}
		s := flowSession(t, fake)
		d := callResult(t, s, "analyze_function", `{"procedure":"main","limit":4,"collection_offset":{"native_value_flow":2}}`)
		vf := d["native_value_flow"].(map[string]any)
		is.Equal(vf["status"], "observed")
		is.Equal(vf["truncated"], false)
		is.Equal(vf["known_omitted_edges"], 1.0)
		is.Equal(vf["omitted_operations_lower_bound"], 0.0)
		sum := vf["summary"].(map[string]any)
		is.Equal(sum["operations"], 10.0)
		is.Equal(sum["def_use"], 9.0)
		is.Equal(sum["memory_writes"], 1.0)
		is.Equal(sum["calls"], 1.0)
		is.Equal(sum["returns"], 1.0)
		is.Equal(sum["parameters"], []any{"rdi"})
		ops := vf["operations"].(map[string]any)
		is.Equal(ops["returned"], 4.0) // items 2..5 of 10
		is.Equal(ops["total"], 10.0)
		is.Equal(ops["next_offset"], 6.0)
		is.Equal(ops["items"].([]any)[0].(map[string]any)["address"], "0x1038")
		is.Equal(len(vf["parameters"].(map[string]any)["items"].([]any)), 0) // one parameter, offset 2
		is.Equal(vf["parameter_uses"].(map[string]any)["total"], 2.0)
		is.Equal(vf["effects"].(map[string]any)["items"].([]any)[0].(map[string]any)["kind"], "return")
		found := false
		for _, l := range d["limitations"].([]any) {
			found = found || l == "Value flow: flags are not modelled"
		}
		is.True(found)

		// Paging the same procedure reuses the flow; another procedure
		// computes its own.
		calls := fake.opened.calls.Load()
		d = callResult(t, s, "analyze_function", `{"procedure":"main","limit":4,"collection_offset":{"native_value_flow":6}}`)
		is.Equal(d["native_value_flow"].(map[string]any)["operations"].(map[string]any)["items"].([]any)[0].(map[string]any)["address"], "0x1048")
		is.Equal(fake.opened.calls.Load(), calls)
		callResult(t, s, "analyze_function", `{"procedure":"logger"}`)
		is.Equal(fake.opened.calls.Load(), calls+1)

		// The bundle summary reads the real record.
		_, b := bndCall(t, s, "get_evidence_bundle", map[string]any{"detail": "summary", "filters": map[string]any{"operation": "analyze_function"}})
		rec := b["records"].([]any)[0].(map[string]any)
		is.Equal(rec["native_dossier"].(map[string]any)["value_flow"], map[string]any{"status": "observed", "truncated": false,
			"omitted_operations_lower_bound": 0.0, "known_omitted_inputs": 0.0, "known_omitted_edges": 1.0})
	})
	t.Run("unsupported architecture", func(t *testing.T) {
		is := is.New(t)
		s := flowSession(t, &flowFake{})
		d := callResult(t, s, "analyze_function", `{"procedure":"handle_request"}`)
		vf := d["native_value_flow"].(map[string]any)
		is.Equal(vf["status"], "unavailable")
		is.True(len(vf["reason"].(string)) > 0)
		is.Equal(len(vf), 2)
	})
	t.Run("no capability", func(t *testing.T) {
		is := is.New(t)
		s := codeSession(t, false)
		d := callResult(t, s, "analyze_function", `{"procedure":"main"}`)
		is.Equal(d["native_value_flow"], map[string]any{"status": "unavailable", "reason": "The bound provider does not compute value flow."})
		_, b := bndCall(t, s, "get_evidence_bundle", map[string]any{"detail": "summary"})
		var statuses []any
		for _, r := range b["records"].([]any) {
			if nd := r.(map[string]any)["native_dossier"].(map[string]any); nd["available"] == true {
				statuses = append(statuses, nd["value_flow"])
			}
		}
		is.Equal(statuses, []any{map[string]any{"status": "unavailable", "reason": "The bound provider does not compute value flow."}})
	})
}

// TestValueFlowViews: the value-flow facets page the rows the parent
// recorded; an unavailable flow gives an empty page that says why.
func TestValueFlowViews(t *testing.T) {
	is := is.New(t)
	s := flowSession(t, &flowFake{})
	res, err := s.Call(context.Background(), "analyze_function", json.RawMessage(`{"procedure":"main","limit":500}`), nil)
	is.NoErr(err)
	src := map[string]any{"kind": "retained-evidence", "evidence_id": res.Evidence.EvidenceID}
	view := func(facet string, off, lim int) map[string]any {
		_, v := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": facet, "offset": off, "limit": lim}})
		return v
	}
	var addrs []any
	for off := 0; ; {
		v := view("value_flow_operations", off, 3)
		item := v["item"].(map[string]any)
		is.Equal(item["facet"], "value_flow_operations")
		for _, it := range item["items"].([]any) {
			addrs = append(addrs, it.(map[string]any)["address"])
		}
		cov := v["coverage"].(map[string]any)
		is.Equal(cov["total"], 10.0)
		if cov["next_offset"] == nil {
			break
		}
		off = int(cov["next_offset"].(float64))
	}
	is.Equal(len(addrs), 10)
	is.Equal(addrs[9], "0x1054")
	is.Equal(len(view("value_flow_def_use", 8, 5)["item"].(map[string]any)["items"].([]any)), 1)
	is.Equal(view("value_flow_parameters", 0, 64)["item"].(map[string]any)["items"].([]any)[0].(map[string]any)["location"], "rdi")
	is.Equal(len(view("value_flow_parameter_uses", 0, 64)["item"].(map[string]any)["items"].([]any)), 2)
	is.Equal(len(view("value_flow_effects", 0, 64)["item"].(map[string]any)["items"].([]any)), 3)
	sum := view("value_flow_summary", 0, 64)["item"].(map[string]any)["value"].(map[string]any)
	is.Equal(sum["status"], "observed")
	is.Equal(sum["operations"], nil) // collections are summarised, not copied
	is.Equal(sum["collections"].(map[string]any)["operations"].(map[string]any)["total"], 10.0)
	is.Equal(sum["summary"].(map[string]any)["parameters"], []any{"rdi"})
	_, v := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "summary"}})
	is.Equal(v["summary"].(map[string]any)["value_flow"].(map[string]any)["status"], "observed")

	// Unavailable in the parent: an empty page, a limitation and an unknown.
	res, err = s.Call(context.Background(), "analyze_function", json.RawMessage(`{"procedure":"handle_request"}`), nil)
	is.NoErr(err)
	src = map[string]any{"kind": "retained-evidence", "evidence_id": res.Evidence.EvidenceID}
	v = view("value_flow_def_use", 0, 64)
	is.Equal(v["coverage"].(map[string]any)["status"], "empty")
	is.Equal(v["unknowns"].([]any)[0].(map[string]any)["kind"], "unavailable-facet")
	is.Equal(view("value_flow_summary", 0, 64)["item"].(map[string]any)["value"].(map[string]any)["status"], "unavailable")
}

// TestValueFlowViewsUnrecorded: a dossier whose native_value_flow records
// only its status (no collections) gives empty value-flow pages that say
// the rows were not recorded and the flow is truncated.
func TestValueFlowViewsUnrecorded(t *testing.T) {
	is := is.New(t)
	s := bndSession(t)
	af := bndAnalyzeFunction(t, "x", 3)
	src := map[string]any{"kind": "inline", "evidence": af}
	_, v := bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "value_flow_operations"}})
	is.Equal(v["coverage"].(map[string]any)["status"], "empty")
	var kinds []any
	for _, u := range v["unknowns"].([]any) {
		kinds = append(kinds, u.(map[string]any)["kind"])
	}
	is.Equal(kinds, []any{"truncated-value-flow", "unrecorded-facet"})
	_, v = bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "native", "facet": "value_flow_summary"}})
	sum := v["item"].(map[string]any)["value"].(map[string]any)
	is.Equal(sum["status"], "observed")
	is.Equal(sum["collections"].(map[string]any)["operations"], nil)
	_, v = bndCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "summary"}})
	is.Equal(v["summary"].(map[string]any)["value_flow"].(map[string]any)["truncated"], true)
}
