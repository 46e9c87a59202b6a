package binary

import (
	"context"
	"errors"
	"strings"

	"rea/ports"

	"rea/core"
)

// The native value flow of analyze_function: what the bound provider's
// ports.ValueFlowAnalyzer observes of one procedure (operations with their
// defined and used locations, def-use edges, effects, inferred parameters and
// their uses), each list paged like the dossier's other collections. A
// provider without the capability, or one that cannot model the target's
// architecture, gives {status:"unavailable", reason}; analyze_function never
// fails for the value flow, except on cancellation.

// Value-flow collections of native_value_flow, in their recorded order.
var valueFlowCollections = []string{"operations", "def_use", "effects", "parameters", "parameter_uses"}

// ValueFlow is native_value_flow when the provider observed it.
type ValueFlow struct {
	Status                      string                            `json:"status"` // "observed"
	Truncated                   bool                              `json:"truncated"`
	OmittedOperationsLowerBound *int                              `json:"omitted_operations_lower_bound"`
	KnownOmittedInputs          *int                              `json:"known_omitted_inputs"`
	KnownOmittedEdges           *int                              `json:"known_omitted_edges"`
	Summary                     ValueFlowSummary                  `json:"summary"`
	Operations                  Collection[ValueFlowOperation]    `json:"operations"`
	DefUse                      Collection[ValueFlowDefUse]       `json:"def_use"`
	Effects                     Collection[ValueFlowEffect]       `json:"effects"`
	Parameters                  Collection[ValueFlowParameter]    `json:"parameters"`
	ParameterUses               Collection[ValueFlowParameterUse] `json:"parameter_uses"`
}

// ValueFlowUnavailable is native_value_flow when the provider gives none.
type ValueFlowUnavailable struct {
	Status string `json:"status"` // "unavailable"
	Reason string `json:"reason"`
}

// ValueFlowSummary counts a ValueFlow's observations.
type ValueFlowSummary struct {
	CallingConvention *string  `json:"calling_convention"`
	Operations        int      `json:"operations"`
	DefUse            int      `json:"def_use"`
	Effects           int      `json:"effects"`
	MemoryWrites      int      `json:"memory_writes"`
	Calls             int      `json:"calls"`
	Returns           int      `json:"returns"`
	Parameters        []string `json:"parameters"`
	ParameterUses     int      `json:"parameter_uses"`
}

// ValueFlowOperation is one analysed instruction of a ValueFlow.
type ValueFlowOperation struct {
	Address  string   `json:"address"`
	Mnemonic string   `json:"mnemonic"`
	Defs     []string `json:"defs"`
	Uses     []string `json:"uses"`
}

type ValueFlowDefUse struct {
	Def      string `json:"def"`
	Use      string `json:"use"`
	Location string `json:"location"`
}

type ValueFlowEffect struct {
	Kind        string   `json:"kind"`
	Address     string   `json:"address"`
	Location    *string  `json:"location"`
	Target      *string  `json:"target"`
	Indirect    bool     `json:"indirect"`
	Value       *string  `json:"value"`
	Definitions []string `json:"definitions"`
	// ArgumentsSource: where a call's arguments come from (dwarf,
	// libc-prototype, format, inferred, al, winapi); null when unknown.
	ArgumentsSource *string `json:"arguments_source"`
}

type ValueFlowParameter struct {
	Location string `json:"location"`
	Position int    `json:"position"`
	Uses     int    `json:"uses"`
}

type ValueFlowParameterUse struct {
	Location string `json:"location"`
	Address  string `json:"address"`
}

const (
	vfLocations           = `{"type":"array","items":{"type":"string","minLength":1}}`
	vfOperationItemSchema = `{"type":"object","additionalProperties":false,"required":["address","mnemonic","defs","uses"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"mnemonic":{"type":"string"},"defs":` + vfLocations + `,"uses":` + vfLocations + `}}`
	vfDefUseItemSchema = `{"type":"object","additionalProperties":false,"required":["def","use","location"],
 "properties":{"def":{"$ref":"#/$defs/hex"},"use":{"$ref":"#/$defs/hex"},"location":{"type":"string","minLength":1}}}`
	vfEffectItemSchema = `{"type":"object","additionalProperties":false,"required":["kind","address","location","target","indirect","value","definitions","arguments_source"],
 "properties":{"kind":{"enum":["memory-write","call","return"]},"address":{"$ref":"#/$defs/hex"},"location":{"type":["string","null"]},
  "target":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"indirect":{"type":"boolean"},"value":{"type":["string","null"]},
  "definitions":{"type":"array","items":{"$ref":"#/$defs/hex"}},
  "arguments_source":{"anyOf":[{"type":"null"},{"enum":["dwarf","libc-prototype","format","inferred","al","winapi"]}],"description":"A call's: where the arguments it passes (its operation's uses) come from; format: the constant printf format it passes, exact."}}}`
	vfParameterItemSchema = `{"type":"object","additionalProperties":false,"required":["location","position","uses"],
 "properties":{"location":{"type":"string","minLength":1},"position":{"type":"integer","minimum":0},"uses":{"type":"integer","minimum":1}}}`
	vfParameterUseItemSchema = `{"type":"object","additionalProperties":false,"required":["location","address"],
 "properties":{"location":{"type":"string","minLength":1},"address":{"$ref":"#/$defs/hex"}}}`
	vfCount = `{"type":"integer","minimum":0}`
	// nativeValueFlowSchema: observed (with paged collections) or
	// unavailable with its reason.
	nativeValueFlowSchema = `{"anyOf":[
 {"type":"object","additionalProperties":false,"required":["status","reason"],
  "properties":{"status":{"const":"unavailable"},"reason":{"type":"string","minLength":1}}},
 {"type":"object","additionalProperties":false,
  "required":["status","truncated","omitted_operations_lower_bound","known_omitted_inputs","known_omitted_edges","summary","operations","def_use","effects","parameters","parameter_uses"],
  "properties":{"status":{"const":"observed"},
   "truncated":{"type":"boolean","description":"The provider stopped at its instruction, block or work bound; omitted observations remain unknown."},
   "omitted_operations_lower_bound":{"type":["integer","null"],"minimum":0,"description":"At least this many instructions of the procedure were not analysed; null when unknown."},
   "known_omitted_inputs":{"type":["integer","null"],"minimum":0,"description":"Instructions whose inputs the provider does not model; null when unknown."},
   "known_omitted_edges":{"type":["integer","null"],"minimum":0,"description":"Control-flow edges the analysis could not follow (indirect jumps with unknown targets); null when unknown."},
   "summary":{"type":"object","additionalProperties":false,
    "required":["calling_convention","operations","def_use","effects","memory_writes","calls","returns","parameters","parameter_uses"],
    "properties":{"calling_convention":{"type":["string","null"]},"operations":` + vfCount + `,"def_use":` + vfCount + `,"effects":` + vfCount + `,
     "memory_writes":` + vfCount + `,"calls":` + vfCount + `,"returns":` + vfCount + `,
     "parameters":{"type":"array","items":{"type":"string"}},"parameter_uses":` + vfCount + `}},
   "operations":__OPS__,"def_use":__DU__,"effects":__EF__,"parameters":__PA__,"parameter_uses":__PU__}}]}`
)

// nativeValueFlowResultSchema is nativeValueFlowSchema with its collections.
func nativeValueFlowResultSchema() string {
	return strings.NewReplacer("__OPS__", collectionSchema(vfOperationItemSchema), "__DU__", collectionSchema(vfDefUseItemSchema),
		"__EF__", collectionSchema(vfEffectItemSchema), "__PA__", collectionSchema(vfParameterItemSchema),
		"__PU__", collectionSchema(vfParameterUseItemSchema)).Replace(nativeValueFlowSchema)
}

// nativeValueFlow asks the bound provider for procedure i's value flow and
// pages its lists: the observed flow, or why there is none; the limitations
// it returns belong to the dossier.
func (v *codeView) nativeValueFlow(ctx context.Context, i, offset, limit int) (*ValueFlow, *ValueFlowUnavailable, []string, error) {
	a, _, _ := v.c.Bound()
	vfa, ok := a.(ports.ValueFlowAnalyzer)
	if !ok {
		reason := "The bound provider does not compute value flow."
		return nil, &ValueFlowUnavailable{"unavailable", reason}, []string{"native_value_flow is unavailable: " + reason}, nil
	}
	vf, err := listsOf(a).valueFlow(ctx, vfa, v.procs[i].Address)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		reason := "The value-flow analysis failed: " + err.Error()
		if errors.Is(err, ports.ErrUnsupported) {
			reason = "The provider does not model this target's architecture for value flow: " + err.Error()
		}
		return nil, &ValueFlowUnavailable{"unavailable", reason}, []string{"native_value_flow is unavailable: " + reason}, nil
	}
	ops := make([]ValueFlowOperation, len(vf.Operations))
	for k, o := range vf.Operations {
		ops[k] = ValueFlowOperation{Address: core.Hex(o.Address), Mnemonic: o.Mnemonic, Defs: core.NonNil(o.Defs), Uses: core.NonNil(o.Uses)}
	}
	du := make([]ValueFlowDefUse, len(vf.DefUses))
	for k, e := range vf.DefUses {
		du[k] = ValueFlowDefUse{Def: core.Hex(e.Def), Use: core.Hex(e.Use), Location: e.Location}
	}
	counts := map[string]int{}
	effects := make([]ValueFlowEffect, len(vf.Effects))
	for k, e := range vf.Effects {
		counts[e.Kind]++
		it := ValueFlowEffect{Kind: e.Kind, Address: core.Hex(e.Address), Indirect: e.Indirect, Definitions: []string{}}
		if e.Location != "" {
			it.Location = &e.Location
		}
		if e.HasTarget {
			t := core.Hex(e.Target)
			it.Target = &t
		}
		if e.Value != "" {
			it.Value = &e.Value
		}
		it.ArgumentsSource = core.OptString(e.ArgumentsSource)
		for _, d := range e.Definitions {
			it.Definitions = append(it.Definitions, core.Hex(d))
		}
		effects[k] = it
	}
	params := make([]ValueFlowParameter, len(vf.Parameters))
	names := []string{}
	for k, p := range vf.Parameters {
		params[k] = ValueFlowParameter{Location: p.Location, Position: p.Position, Uses: p.Uses}
		names = append(names, p.Location)
	}
	uses := make([]ValueFlowParameterUse, len(vf.ParameterUses))
	for k, u := range vf.ParameterUses {
		uses[k] = ValueFlowParameterUse{Location: u.Location, Address: core.Hex(u.Address)}
	}
	summary := ValueFlowSummary{CallingConvention: core.OptString(vf.CallingConvention), Operations: len(ops), DefUse: len(du),
		Effects: len(effects), MemoryWrites: counts[ports.EffectMemoryWrite], Calls: counts[ports.EffectCall],
		Returns: counts[ports.EffectReturn], Parameters: names, ParameterUses: len(uses)}
	var lim []string
	for _, l := range vf.Limitations {
		lim = append(lim, "Value flow: "+l)
	}
	if vf.Truncated {
		lim = append(lim, "native_value_flow is truncated; omitted observations remain unknown.")
	}
	omittedOps, omittedIn, omittedEdges := max(vf.OmittedOperations, 0), max(vf.OmittedInputs, 0), max(vf.OmittedEdges, 0)
	return &ValueFlow{Status: "observed", Truncated: vf.Truncated,
		OmittedOperationsLowerBound: &omittedOps, KnownOmittedInputs: &omittedIn, KnownOmittedEdges: &omittedEdges, Summary: summary,
		Operations: collect(ops, offset, limit), DefUse: collect(du, offset, limit), Effects: collect(effects, offset, limit),
		Parameters: collect(params, offset, limit), ParameterUses: collect(uses, offset, limit)}, nil, lim, nil
}
