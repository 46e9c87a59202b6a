package binary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"unicode/utf8"

	"rea/ports"

	"rea/core"
)

// Function workflows composed from the code primitives: the function
// dossier (analyze_function), the native interface (inspect_native_api) and
// per-function decompilation (batch_decompile). Any provider that answers
// the primitives gets them; what a provider lacks (pseudo-code, signatures)
// is reported per section as unavailable with its reason.

// collection is a paged collection of the dossier.
type collection[T any] struct {
	Items      []T  `json:"items"`
	Returned   int  `json:"returned"`
	Total      *int `json:"total"`
	Truncated  bool `json:"truncated"`
	NextOffset *int `json:"next_offset"`
}

func collect[T any](all []T, offset, limit int) collection[T] {
	total := len(all)
	c := collection[T]{Items: []T{}, Total: &total}
	if offset < total {
		end := min(total, offset+limit)
		c.Items = all[offset:end]
		if end < total {
			c.NextOffset, c.Truncated = &end, true
		}
	}
	c.Returned = len(c.Items)
	return c
}

func collectionSchema(item string) string {
	return `{"type":"object","additionalProperties":false,"required":["items","returned","total","truncated","next_offset"],
 "properties":{"items":{"type":"array","items":` + item + `},"returned":{"type":"integer","minimum":0},"total":{"type":["integer","null"],"minimum":0},
  "truncated":{"type":"boolean"},"next_offset":{"type":["integer","null"],"minimum":0}}}`
}

type blockItem struct {
	Start        string     `json:"start"`
	End          string     `json:"end"`
	Instructions int        `json:"instructions"`
	Successors   []edgeItem `json:"successors"`
}

type edgeItem struct {
	Kind   string  `json:"kind"`
	Target *string `json:"target"`
}

const blockItemSchema = `{"type":"object","additionalProperties":false,"required":["start","end","instructions","successors"],
 "properties":{"start":{"$ref":"#/$defs/hex"},"end":{"$ref":"#/$defs/hex"},"instructions":{"type":"integer","minimum":1},
  "successors":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["kind","target"],
   "properties":{"kind":{"enum":["fallthrough","jump","branch","jump-table","tail-call","unresolved"]},"target":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]}}}}}}`

func blockItemOf(b ports.BasicBlock) blockItem {
	it := blockItem{Start: core.Hex(b.Start), End: core.Hex(b.End), Instructions: b.Instructions, Successors: []edgeItem{}}
	for _, e := range b.Successors {
		ei := edgeItem{Kind: e.Kind}
		if e.Kind != ports.EdgeUnresolved {
			t := core.Hex(e.Target)
			ei.Target = &t
		}
		it.Successors = append(it.Successors, ei)
	}
	return it
}

type referencedString struct {
	Address   string   `json:"address"`
	Value     string   `json:"value"`
	Charset   string   `json:"charset"`
	Truncated bool     `json:"truncated"`
	From      []string `json:"from"`
}

const referencedStringSchema = `{"type":"object","additionalProperties":false,"required":["address","value","charset","truncated","from"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"value":{"type":"string"},"charset":{"type":"string"},"truncated":{"type":"boolean"},
  "from":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}`

type referencedName struct {
	Address string   `json:"address"`
	Name    string   `json:"name"`
	Kinds   []string `json:"kinds"`
	From    []string `json:"from"`
}

const referencedNameSchema = `{"type":"object","additionalProperties":false,"required":["address","name","kinds","from"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"kinds":{"type":"array","items":{"type":"string"}},
  "from":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}`

const nativeAPISchema = `{"anyOf":[{"type":"null"},
 {"type":"object","additionalProperties":false,"required":["available","reason","residual_unknowns"],
  "properties":{"available":{"const":false},"reason":{"type":"string"},"residual_unknowns":{"type":"array","items":{"type":"string"}}}},
 {"type":"object","additionalProperties":false,"required":["available","calling_convention","parameters","return_type","variadic","jump_tables","signature_source","provenance","pseudocode"],
  "properties":{"available":{"const":true},"calling_convention":{"type":["string","null"]},
   "parameters":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["name","type","location"],
    "properties":{"name":{"type":["string","null"]},"type":{"type":["string","null"]},"location":{"type":["string","null"]}}}},
   "return_type":{"type":["string","null"]},"variadic":{"type":"boolean"},
   "jump_tables":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["block","targets"],
    "properties":{"block":{"$ref":"#/$defs/hex"},"targets":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}},
   "signature_source":{"type":"string"},"provenance":{"type":"array","items":{"type":"string"}},"pseudocode":{"type":["string","null"]}}}]}`

type jumpTable struct {
	Block   string   `json:"block"`
	Targets []string `json:"targets"`
}

func jumpTables(f ports.Function) []jumpTable {
	out := []jumpTable{}
	for _, b := range f.Blocks {
		var ts []string
		for _, e := range b.Successors {
			if e.Kind == ports.EdgeJumpTable {
				ts = append(ts, core.Hex(e.Target))
			}
		}
		if len(ts) > 0 {
			out = append(out, jumpTable{Block: core.Hex(b.Start), Targets: ts})
		}
	}
	return out
}

// nativeAPI derives the interface of procedure i: null when the provider
// derives no signatures, unavailable with a reason when nothing describes
// the procedure.
func (v *codeView) nativeAPI(ctx context.Context, i int, f ports.Function) (any, []string, error) {
	a, _, _ := v.c.Bound()
	sr, ok := a.(ports.SignatureReader)
	if !ok {
		return nil, []string{"The provider derives no signatures; native_api is null."}, nil
	}
	sig, err := sr.Signature(ctx, v.procs[i].Address)
	if errors.Is(err, ports.ErrNotFound) {
		return map[string]any{"available": false,
			"reason":            "No debug information (DWARF) describes this procedure, and its parameters cannot be derived from the symbol table alone.",
			"residual_unknowns": []string{"calling_convention", "parameters", "return_type"}}, nil, nil
	}
	if err != nil {
		return nil, nil, codeError(v.c, err)
	}
	params := []map[string]any{}
	for _, p := range sig.Parameters {
		params = append(params, map[string]any{"name": core.OrNull(p.Name), "type": core.OrNull(p.Type), "location": core.OrNull(p.Location)})
	}
	prov := []string{"signature:" + sig.Source}
	if sig.CallingConvention != "" {
		prov = append(prov, "calling_convention:abi-of-format-and-architecture")
	}
	return map[string]any{"available": true, "calling_convention": core.OrNull(sig.CallingConvention), "parameters": params,
		"return_type": core.OrNull(sig.ReturnType), "variadic": sig.Variadic, "jump_tables": jumpTables(f),
		"signature_source": sig.Source, "provenance": prov, "pseudocode": nil}, nil, nil
}

// classification names what kind of procedure i is.
func (v *codeView) classification(i int) string {
	p := v.procs[i]
	switch {
	case p.Source == "plt" || (p.External && p.Thunk):
		return "import-stub"
	case p.Thunk:
		return "thunk"
	case p.External:
		return "external"
	}
	return "function"
}

func opAnalyzeFunction() *core.Operation {
	return &core.Operation{
		Name: "analyze_function", Title: "Analyze Function", Kind: core.KindEnhanced, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "One function's dossier in one call: the procedure (signature when debug info gives one), an assembly page, basic blocks with successors, " +
			"callers, callees, incoming and outgoing references, referenced strings and names, unresolved indirect calls, the native interface, the " +
			"pseudo-code section (unavailable with its reason when the provider does not decompile), and native_value_flow: per-instruction defined and used " +
			"locations, def-use edges, effects (memory writes, calls, returns) and parameters inferred from argument registers read before any write " +
			"over the whole procedure up to the provider's own cap (status observed, or unavailable with its reason when the provider does not compute " +
			"value flow). Every collection is paged " +
			"{items, returned, total, truncated, next_offset}; the instruction scan is bounded by max_instructions. By default the result is concise (each collection's first items, at most 8) " +
			"and the complete dossier is retained in the session and linked from evidence_links, to read through inspect_analysis_view; detail \"complete\" returns it inline.",
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"required":["procedure"],
 "properties":{` + procedureProp + `,
  "include_assembly":{"type":"boolean","default":false,"description":"Return an assembly page (otherwise only its total)."},
  "max_instructions":{"type":"integer","minimum":1,"maximum":5000,"default":500,"description":"Instructions scanned for the dossier (1-5000)."},
  "max_pseudocode_chars":{"type":"integer","minimum":1,"maximum":100000,"default":20000,"description":"Characters of pseudo-code returned (1-100000)."},
  "pseudocode_offset":{"type":"integer","minimum":0,"default":0,"description":"First pseudo-code character returned."},
  "assembly_offset":{"type":"integer","minimum":0,"default":0,"description":"First instruction of the assembly page."},
  "limit":{"type":"integer","minimum":1,"maximum":500,"description":"Items per collection page (1-500); when absent, 8 in the concise dossier and 100 in the complete one."},
  "collection_offset":{"type":"integer","minimum":0,"default":0,"description":"First item of every other collection page."},
  "detail":{"enum":["concise","complete"],"default":"concise","description":"concise: every collection is cut to its first page (at most 8 items, fewer when the document would exceed 9 KB, unless limit is given) and the complete dossier is retained and linked; complete: the whole dossier inline."}}}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["procedure","pseudocode","assembly","basic_blocks","comments","callers","callees","incoming_references","outgoing_references",
  "referenced_strings","referenced_names","unresolved_calls","instruction_scan","native_api","native_value_flow","limitations"],
 "properties":{
  "procedure":{"type":"object","additionalProperties":false,"required":["address","name","signature","classification","locals","end","end_source","source"],
   "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"signature":{"type":["string","null"]},
    "classification":{"enum":["function","thunk","import-stub","external",null]},"locals":{"type":["array","null"],"items":{"type":"string"}},
    "end":{"$ref":"#/$defs/hex"},"end_source":{"type":"string"},"source":{"type":"string"}}},
  "pseudocode":{"type":"object","additionalProperties":false,"required":["available","reason","text","returned_chars","total_chars","truncated","next_offset"],
   "properties":{"available":{"type":"boolean"},"reason":{"type":["string","null"]},"text":{"type":["string","null"]},"returned_chars":{"type":"integer","minimum":0},
    "total_chars":{"type":["integer","null"],"minimum":0},"truncated":{"type":"boolean"},"next_offset":{"type":["integer","null"],"minimum":0}}},
  "assembly":` + collectionSchema(instructionItemSchema) + `,
  "basic_blocks":` + collectionSchema(blockItemSchema) + `,
  "comments":` + collectionSchema(`{"type":"object"}`) + `,
  "callers":` + collectionSchema(callerItemSchema) + `,
  "callees":` + collectionSchema(calleeItemSchema) + `,
  "incoming_references":` + collectionSchema(referenceItemSchema) + `,
  "outgoing_references":` + collectionSchema(referenceItemSchema) + `,
  "referenced_strings":` + collectionSchema(referencedStringSchema) + `,
  "referenced_names":` + collectionSchema(referencedNameSchema) + `,
  "unresolved_calls":` + collectionSchema(unresolvedItemSchema) + `,
  "instruction_scan":{"type":"object","additionalProperties":false,"required":["scanned","truncated"],"properties":{"scanned":{"type":"integer","minimum":0},"truncated":{"type":"boolean"}}},
  "native_api":` + nativeAPISchema + `,
  "native_value_flow":` + nativeValueFlowResultSchema() + `,
  "limitations":{"type":"array","items":{"type":"string"}}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`),
			json.RawMessage(`{"procedure":"0x401000","include_assembly":true,"max_instructions":200,"limit":50}`)},
		Handler: handleAnalyzeFunction,
	}
}

// conciseDossierLimit is the largest page of every collection in the default
// (concise) dossier when the caller names no limit, and conciseDossierBytes
// the size its result document aims at (halving the page until it fits), so
// the Evidence of a hundred-instruction function stays under 12 KB while the
// complete dossier stays in the ledger.
const (
	conciseDossierLimit = 8
	conciseDossierBytes = 9 * 1024
)

// handleAnalyzeFunction returns the concise dossier by default: the complete
// dossier (what detail "complete" returns for the same arguments) is sealed
// and retained, and the result is the same document with every collection
// cut to its first page, linked to that record, with a limitation naming the
// calls that read the rest.
func handleAnalyzeFunction(ctx context.Context, c *core.Call) (any, error) {
	obs, err := analyzeFunction(ctx, c)
	if err != nil {
		return nil, err
	}
	if d, _ := c.Args["detail"].(string); d == "complete" {
		return obs, nil
	}
	result := obs.Result.(map[string]any)
	var concise map[string]any
	var cut bool
	limit := conciseDossierLimit
	if _, ok := c.Args["limit"]; ok {
		limit = core.IntArg(c.Args, "limit", defaultPageLimit)
		concise, cut = concisePages(result, limit)
	} else {
		// Halve the page until the document fits its budget: a procedure
		// with long names or many effects gets shorter pages.
		for ; ; limit /= 2 {
			concise, cut = concisePages(result, limit)
			if b, err := json.Marshal(concise); limit == 1 || (err == nil && len(b) <= conciseDossierBytes) {
				break
			}
		}
	}
	if !cut {
		return obs, nil
	}
	withArch(ctx, c, obs) // as the complete call's Evidence has them
	params := maps.Clone(c.Args)
	params["detail"] = "complete"
	parent, err := c.SealAs("analyze_function", params, obs)
	if err != nil {
		return nil, err
	}
	if _, err := c.Retain(parent); err != nil {
		return nil, err
	}
	note := fmt.Sprintf(`Concise dossier: each collection holds at most its first %d items; the complete dossier is retained as evidence_links[0]: `+
		`read any collection with inspect_analysis_view (view kind "native", facet = the collection or value_flow_*), or call again with "detail":"complete".`, limit)
	lim := append([]string{note}, obs.Limitations...)
	concise["limitations"] = lim
	return &core.Observation{Result: concise, Limitations: lim, Locations: obs.Locations, Links: []core.EvidenceID{parent.EvidenceID}}, nil
}

// headPager is a collection that can be cut to its first n items.
type headPager interface{ head(n int) (any, bool) }

func (c collection[T]) head(n int) (any, bool) {
	if len(c.Items) <= n {
		return c, false
	}
	start := 0
	if c.NextOffset != nil {
		start = *c.NextOffset - len(c.Items)
	} else if c.Total != nil {
		start = *c.Total - len(c.Items)
	}
	next := start + n
	c.Items, c.Returned, c.Truncated, c.NextOffset = c.Items[:n], n, true, &next
	return c, true
}

// concisePages copies a dossier with every collection (native_value_flow's
// included) cut to n items, and reports whether anything was cut.
func concisePages(result map[string]any, n int) (map[string]any, bool) {
	out := maps.Clone(result)
	cut := false
	for k, val := range out {
		switch x := val.(type) {
		case headPager:
			var c bool
			out[k], c = x.head(n)
			cut = cut || c
		case map[string]any:
			if k == "native_value_flow" {
				var c bool
				out[k], c = concisePages(x, n)
				cut = cut || c
			}
		}
	}
	return out, cut
}

func analyzeFunction(ctx context.Context, c *core.Call) (*core.Observation, error) {
	v, err := codeViewOf(ctx, c)
	if err != nil {
		return nil, err
	}
	i, err := v.resolve("procedure")
	if err != nil {
		return nil, err
	}
	limit, coff := core.IntArg(c.Args, "limit", defaultPageLimit), core.IntArg(c.Args, "collection_offset", 0)
	maxInsns := core.IntArg(c.Args, "max_instructions", 500)
	c.Observe("decoding the procedure")
	f, err := v.function(ctx, i, maxInsns)
	if err != nil {
		return nil, err
	}
	var lim []string
	r := v.ranges[i]
	scanEnd := max(r.End, r.Start+1)
	scanTruncated := f.InstructionCount > len(f.Instructions)
	if scanTruncated && len(f.Instructions) > 0 {
		last := f.Instructions[len(f.Instructions)-1]
		scanEnd = last.Address + uint64(max(len(last.Bytes), 1))
		lim = append(lim, fmt.Sprintf("The dossier covers the first %d of %d instructions (max_instructions); blocks, callees, outgoing references, strings and names describe that part.",
			len(f.Instructions), f.InstructionCount))
	}
	if f.Truncated {
		lim = append(lim, "The provider stopped decoding this procedure at its instruction or block cap.")
	}

	// Assembly page.
	asm := []instructionItem{}
	for _, in := range f.Instructions {
		asm = append(asm, instructionItemOf(in))
	}
	assembly := collect(asm, core.IntArg(c.Args, "assembly_offset", 0), limit)
	if !boolArg(c.Args, "include_assembly") {
		assembly.Items, assembly.Returned = []instructionItem{}, 0
		off := core.IntArg(c.Args, "assembly_offset", 0)
		assembly.Truncated = len(asm) > 0
		if assembly.Truncated {
			assembly.NextOffset = &off
		}
		lim = append(lim, "Assembly omitted (include_assembly is false); assembly.total counts the scanned instructions.")
	}

	blocks := []blockItem{}
	for _, b := range f.Blocks {
		if b.Start < scanEnd {
			blocks = append(blocks, blockItemOf(b))
		}
	}

	c.Observe("collecting references")
	outRefs, err := v.refsFrom(ctx, r.Start, scanEnd)
	if err != nil {
		return nil, err
	}
	inRefs, err := v.refsTo(ctx, r.Start, r.Start+1)
	if err != nil {
		return nil, err
	}
	callers, err := v.callers(ctx, i)
	if err != nil {
		return nil, err
	}
	callees, unresolved, err := v.calleesIn(ctx, i, outRefs)
	if err != nil {
		return nil, err
	}
	outItems, inItems := make([]referenceItem, len(outRefs)), make([]referenceItem, len(inRefs))
	for k, x := range outRefs {
		outItems[k] = v.referenceItemOf(x)
	}
	for k, x := range inRefs {
		inItems[k] = v.referenceItemOf(x)
	}

	c.Observe("resolving strings and names")
	strs, names, err := v.referenced(ctx, outRefs)
	if err != nil {
		return nil, err
	}

	pseudo := map[string]any{"available": false, "reason": nil, "text": nil, "returned_chars": 0, "total_chars": nil, "truncated": false, "next_offset": nil}
	a, _, _ := c.Bound()
	if dc, ok := a.(ports.Decompiler); ok {
		p, err := dc.Decompile(ctx, v.procs[i].Address)
		if err != nil {
			pseudo["reason"] = "The decompiler failed: " + err.Error()
		} else {
			text, total, next := pageRunes(p.Text, core.IntArg(c.Args, "pseudocode_offset", 0), core.IntArg(c.Args, "max_pseudocode_chars", 20000))
			pseudo["available"], pseudo["text"], pseudo["returned_chars"], pseudo["total_chars"] = true, text, utf8.RuneCountInString(text), total
			pseudo["truncated"], pseudo["next_offset"] = next != nil, next
		}
	} else {
		// Evidence does not depend on which other engines are registered:
		// the advice points to where that is reported.
		pseudo["reason"] = pseudocodeUnavailable(ctx, c).Message + ". " + noDecompilerAdvice +
			" binary_session's tool_availability for procedure_pseudo_code names any registered engine that decompiles."
		lim = append(lim, "Pseudo-code is unavailable: the bound provider does not decompile.")
	}

	api, apiLim, err := v.nativeAPI(ctx, i, f)
	if err != nil {
		return nil, err
	}
	lim = append(lim, apiLim...)
	var signature any
	if m, ok := api.(map[string]any); ok && m["available"] == true {
		signature = signatureText(v.value(i), m)
	}
	c.Observe("computing value flow")
	flow, flowLim, err := v.nativeValueFlow(ctx, i, coff, limit)
	if err != nil {
		return nil, err
	}
	lim = append(lim, flowLim...)
	if len(unresolved) > 0 {
		lim = append(lim, fmt.Sprintf("%d indirect calls or jumps have unknown targets (unresolved_calls).", len(unresolved)))
	}
	lim = append(lim, "No analyst comments are recorded for this procedure.")

	p := v.procs[i]
	result := map[string]any{
		"procedure": map[string]any{"address": core.Hex(p.Address), "name": v.value(i), "signature": signature, "classification": v.classification(i),
			"locals": nil, "end": core.Hex(r.End), "end_source": r.EndSource, "source": p.Source},
		"pseudocode":          pseudo,
		"assembly":            assembly,
		"basic_blocks":        collect(blocks, coff, limit),
		"comments":            collect([]map[string]any{}, coff, limit),
		"callers":             collect(core.NonNil(callers), coff, limit),
		"callees":             collect(core.NonNil(callees), coff, limit),
		"incoming_references": collect(inItems, coff, limit),
		"outgoing_references": collect(outItems, coff, limit),
		"referenced_strings":  collect(strs, coff, limit),
		"referenced_names":    collect(names, coff, limit),
		"unresolved_calls":    collect(core.NonNil(unresolved), coff, limit),
		"instruction_scan":    map[string]any{"scanned": len(f.Instructions), "truncated": scanTruncated},
		"native_api":          api,
		"native_value_flow":   flow,
		"limitations":         core.NonNil(lim),
	}
	return &core.Observation{Result: result, Limitations: lim, Locations: rangeLocation(r)}, nil
}

// calleesIn lists callees from already fetched outgoing references.
func (v *codeView) calleesIn(ctx context.Context, i int, refs []ports.Reference) ([]calleeItem, []unresolvedItem, error) {
	saved := v.xr
	v.xr = fixedRefs(refs)
	defer func() { v.xr = saved }()
	return v.callees(ctx, i)
}

// fixedRefs answers ReferencesFrom from a list already fetched.
type fixedRefs []ports.Reference

func (f fixedRefs) ReferencesFrom(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range f {
		if r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f fixedRefs) ReferencesTo(context.Context, uint64, uint64) ([]ports.Reference, error) {
	return nil, nil
}

// referenced groups the resolved outgoing references that land in strings,
// and those that land on names.
func (v *codeView) referenced(ctx context.Context, refs []ports.Reference) ([]referencedString, []referencedName, error) {
	if _, err := v.stringsList(ctx); err != nil {
		return nil, nil, err
	}
	strs, names := []referencedString{}, []referencedName{}
	sIdx, nIdx := map[uint64]int{}, map[uint64]int{}
	for _, x := range refs {
		if x.Unresolved || x.Kind == ports.RefCall || x.Kind == ports.RefJump {
			continue
		}
		if s, ok := v.stringAt(x.To); ok {
			k, seen := sIdx[s.Address]
			if !seen {
				k = len(strs)
				sIdx[s.Address] = k
				strs = append(strs, referencedString{Address: core.Hex(s.Address), Value: s.Value, Charset: s.Charset, Truncated: s.Truncated, From: []string{}})
			}
			strs[k].From = appendUnique(strs[k].From, core.Hex(x.From))
			continue
		}
		if n := v.nameAt(x.To); n != "" {
			k, seen := nIdx[x.To]
			if !seen {
				k = len(names)
				nIdx[x.To] = k
				names = append(names, referencedName{Address: core.Hex(x.To), Name: n, Kinds: []string{}, From: []string{}})
			}
			names[k].Kinds = appendUnique(names[k].Kinds, x.Kind)
			names[k].From = appendUnique(names[k].From, core.Hex(x.From))
		}
	}
	for _, x := range refs { // calls and jumps to named targets count as names too
		if x.Unresolved || (x.Kind != ports.RefCall && x.Kind != ports.RefJump) {
			continue
		}
		n := v.nameAt(x.To)
		if n == "" {
			continue
		}
		k, seen := nIdx[x.To]
		if !seen {
			k = len(names)
			nIdx[x.To] = k
			names = append(names, referencedName{Address: core.Hex(x.To), Name: n, Kinds: []string{}, From: []string{}})
		}
		names[k].Kinds = appendUnique(names[k].Kinds, x.Kind)
		names[k].From = appendUnique(names[k].From, core.Hex(x.From))
	}
	return strs, names, nil
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// pageRunes returns count characters of s from offset, the total, and the
// next offset when more remain.
func pageRunes(s string, offset, count int) (string, int, *int) {
	r := []rune(s)
	total := len(r)
	if offset >= total {
		return "", total, nil
	}
	end := min(total, offset+count)
	var next *int
	if end < total {
		next = &end
	}
	return string(r[offset:end]), total, next
}

// signatureText renders a derived signature in C-like notation.
func signatureText(name string, api map[string]any) string {
	ret, _ := api["return_type"].(string)
	if ret == "" {
		ret = "?"
	}
	s := ret + " " + name + "("
	params, _ := api["parameters"].([]map[string]any)
	for k, p := range params {
		if k > 0 {
			s += ", "
		}
		t, _ := p["type"].(string)
		n, _ := p["name"].(string)
		s += t
		if n != "" {
			s += " " + n
		}
	}
	if v, _ := api["variadic"].(bool); v {
		if len(params) > 0 {
			s += ", "
		}
		s += "..."
	}
	return s + ")"
}

func opInspectNativeAPI() *core.Operation {
	return &core.Operation{
		Name: "inspect_native_api", Title: "Inspect Native API", Kind: core.KindEnhanced, Effects: traceEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions},
		Description: "The native interface of one procedure where it can be derived: calling convention, parameters (names, types and register or stack " +
			"locations), return type and jump tables, from debug information (DWARF); otherwise native_api is unavailable with its reason and the residual unknowns.",
		Input: core.InputSchema([]string{"procedure"}, procedureProp,
			`"max_instructions": {"type":"integer","minimum":1,"maximum":5000,"default":500,"description":"Instructions scanned for jump tables (1-5000)."}`,
			`"max_pseudocode_chars": {"type":"integer","minimum":1,"maximum":100000,"default":20000,"description":"Characters of pseudo-code returned when a decompiler is bound."}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["procedure","classification","signature","native_api"],
 "properties":{"procedure":` + procRefSchema + `,"classification":{"type":"string"},"signature":{"type":["string","null"]},"native_api":` + nativeAPISchema + `}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`), json.RawMessage(`{"procedure":"0x401000","max_instructions":100}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			v, i, err := procedureArg(ctx, c)
			if err != nil {
				return nil, err
			}
			f, err := v.function(ctx, i, core.IntArg(c.Args, "max_instructions", 500))
			if err != nil {
				return nil, err
			}
			api, lim, err := v.nativeAPI(ctx, i, f)
			if err != nil {
				return nil, err
			}
			if api == nil {
				api = map[string]any{"available": false, "reason": "The bound provider derives no signatures.",
					"residual_unknowns": []string{"calling_convention", "parameters", "return_type"}}
			}
			var sig any
			if m, ok := api.(map[string]any); ok && m["available"] == true {
				sig = signatureText(v.value(i), m)
				if dc, ok := func() (ports.Decompiler, bool) {
					a, _, _ := c.Bound()
					d, ok := a.(ports.Decompiler)
					return d, ok
				}(); ok {
					if p, err := dc.Decompile(ctx, v.procs[i].Address); err == nil {
						text, _, _ := pageRunes(p.Text, 0, core.IntArg(c.Args, "max_pseudocode_chars", 20000))
						m["pseudocode"] = text
					}
				}
			}
			return &core.Observation{Result: map[string]any{"procedure": v.ref(i), "classification": v.classification(i), "signature": sig, "native_api": api},
				Limitations: lim, Locations: rangeLocation(v.ranges[i])}, nil
		},
	}
}

func opBatchDecompile() *core.Operation {
	return &core.Operation{
		Name: "batch_decompile", Title: "Batch Decompile", Kind: core.KindEnhanced, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions},
		// Callable without a decompiler (every item says unavailable), but
		// not reported available then.
		Wants:              []ports.Capability{core.CapDecompile},
		MissingRemediation: noDecompilerAdvice,
		Description: "Decompile up to 50 procedures (names or addresses), one item each. With a provider that does not decompile (rea-native) every item " +
			"is reported unavailable with its reason, and carries the procedure's size and instruction count; an unknown procedure is an item error, not a call failure.",
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"required":["addresses"],
 "properties":{"addresses":{"type":"array","minItems":1,"maxItems":50,"items":{"type":"string","minLength":1,"maxLength":4096},
  "description":"Procedures to decompile: names or addresses (0x hex or decimal).","examples":[["main","0x401000"]]}}}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["items","summary"],
 "properties":{"items":{"type":"array","items":{"type":"object","additionalProperties":false,
   "required":["request","procedure","status","pseudocode","reason","instruction_count"],
   "properties":{"request":{"type":"string"},"procedure":{"anyOf":[{"type":"null"},` + procRefSchema + `]},"status":{"enum":["decompiled","unavailable","error"]},
    "pseudocode":{"type":["string","null"]},"reason":{"type":["string","null"]},"instruction_count":{"type":["integer","null"],"minimum":0}}}},
  "summary":{"type":"object","additionalProperties":false,"required":["decompiled","unavailable","error"],
   "properties":{"decompiled":{"type":"integer"},"unavailable":{"type":"integer"},"error":{"type":"integer"}}}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"addresses":["main"]}`), json.RawMessage(`{"addresses":["main","0x401000"]}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			v, err := codeViewOf(ctx, c)
			if err != nil {
				return nil, err
			}
			a, _, _ := c.Bound()
			dc, canDecompile := a.(ports.Decompiler)
			unavailable := ""
			if !canDecompile {
				unavailable = pseudocodeUnavailable(ctx, c).Message
			}
			reqs, _ := c.Args["addresses"].([]any)
			items := []map[string]any{}
			summary := map[string]int{"decompiled": 0, "unavailable": 0, "error": 0}
			for k, x := range reqs {
				s, _ := x.(string)
				c.Observe(fmt.Sprintf("%d of %d procedures", k+1, len(reqs)))
				it := map[string]any{"request": s, "procedure": nil, "status": "error", "pseudocode": nil, "reason": nil, "instruction_count": nil}
				i, err := v.resolveValue(s, []any{"addresses", k})
				if err != nil {
					it["reason"] = core.AsError(c.Op.Name, err).Message
					summary["error"]++
					items = append(items, it)
					continue
				}
				it["procedure"] = v.ref(i)
				if f, err := v.function(ctx, i, 1); err == nil {
					it["instruction_count"] = f.InstructionCount
				} else if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				switch {
				case !canDecompile:
					it["status"], it["reason"] = "unavailable", unavailable
					summary["unavailable"]++
				default:
					p, err := dc.Decompile(ctx, v.procs[i].Address)
					if err != nil {
						it["reason"] = err.Error()
						summary["error"]++
						break
					}
					it["status"], it["pseudocode"] = "decompiled", p.Text
					summary["decompiled"]++
				}
				items = append(items, it)
			}
			var lim []string
			if !canDecompile {
				lim = append(lim, "The bound provider does not decompile; every item is unavailable. binary_session's tool_availability for procedure_pseudo_code names any registered engine that decompiles.")
			}
			return &core.Observation{Result: map[string]any{"items": items, "summary": summary}, Limitations: lim}, nil
		},
	}
}
