package binary

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"rea/ports"

	"rea/core"
)

// Function workflows composed from the code primitives: the function
// dossier (analyze_function), the native interface (inspect_native_api) and
// per-function decompilation (batch_decompile). Any provider that answers
// the primitives gets them; what a provider lacks (pseudo-code, signatures)
// is reported per section as unavailable with its reason.

func collect[T any](all []T, offset, limit int) Collection[T] {
	total := len(all)
	c := Collection[T]{Items: []T{}, Total: &total}
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

const commentItemSchema = `{"type":"object","additionalProperties":false,"required":["address","kind","text"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"kind":{"enum":["comment","inline"]},"text":{"type":"string"}}}`

// procedureComments lists the analysts' comments inside the procedure's
// range (its entry alone when the range is empty), from the engine's own
// database or rea's overlay (Call.Annotations), sorted by address with a
// line's comment before its inline comment.
func procedureComments(ctx context.Context, c *core.Call, r ports.FunctionRange) ([]DossierComment, []string) {
	type at struct {
		addr uint64
		c    DossierComment
	}
	var found []at
	var lim []string
	for _, k := range []struct {
		kind ports.AnnotationKind
		name string
	}{{ports.AnnotationComment, "comment"}, {ports.AnnotationInlineComment, "inline"}} {
		l, err := c.Annotations(ctx, k.kind)
		if err != nil {
			lim = append(lim, fmt.Sprintf("Analysts' %s comments could not be read: %v.", k.name, err))
			continue
		}
		for _, a := range l {
			if a.Address == r.Start || (a.Address > r.Start && a.Address < r.End) {
				found = append(found, at{a.Address, DossierComment{Address: core.Hex(a.Address), Kind: k.name, Text: a.Text}})
			}
		}
	}
	slices.SortStableFunc(found, func(x, y at) int { return cmp.Compare(x.addr, y.addr) })
	out := make([]DossierComment, len(found))
	for i, f := range found {
		out[i] = f.c
	}
	if len(out) == 0 && len(lim) == 0 {
		lim = append(lim, "No analyst comments are recorded for this procedure.")
	}
	return out, lim
}

const blockItemSchema = `{"type":"object","additionalProperties":false,"required":["start","end","instructions","successors"],
 "properties":{"start":{"$ref":"#/$defs/hex"},"end":{"$ref":"#/$defs/hex"},"instructions":{"type":"integer","minimum":1},
  "successors":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["kind","target"],
   "properties":{"kind":{"enum":["fallthrough","jump","branch","jump-table","tail-call","unresolved","exception"]},"target":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]}}}},
  "handler":{"enum":["catch","filter","finally","fault"]},"catches":{"type":"string"}}}`

func blockItemOf(b ports.BasicBlock) DossierBlock {
	it := DossierBlock{Start: core.Hex(b.Start), End: core.Hex(b.End), Instructions: b.Instructions, Successors: []DossierEdge{},
		Handler: b.Handler, Catches: b.Catches}
	for _, e := range b.Successors {
		ei := DossierEdge{Kind: e.Kind}
		if e.Kind != ports.EdgeUnresolved {
			t := core.Hex(e.Target)
			ei.Target = &t
		}
		it.Successors = append(it.Successors, ei)
	}
	return it
}

const referencedStringSchema = `{"type":"object","additionalProperties":false,"required":["address","value","charset","truncated","source_address","from"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"value":{"type":"string"},"charset":{"type":"string"},"truncated":{"type":"boolean"},
  "source_address":{"$ref":"#/$defs/hex"},"from":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}`

const referencedNameSchema = `{"type":"object","additionalProperties":false,"required":["address","name","kinds","source_address","from"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"kinds":{"type":"array","items":{"type":"string"}},
  "source_address":{"$ref":"#/$defs/hex"},"from":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}`

const nativeAPISchema = `{"anyOf":[{"type":"null"},
 {"type":"object","additionalProperties":false,"required":["available","reason","residual_unknowns"],
  "properties":{"available":{"const":false},"reason":{"type":"string"},"residual_unknowns":{"type":"array","items":{"type":"string"}}}},
 {"type":"object","additionalProperties":false,"required":["available","calling_convention","parameters","return_type","variadic","jump_tables","signature_source","provenance","pseudocode"],
  "properties":{"available":{"const":true},"calling_convention":{"type":["string","null"]},
   "parameters":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["name","type","location"],
    "properties":{"name":{"type":["string","null"]},"type":{"type":["string","null"]},"location":{"type":["string","null"]},"constant":{"type":"string"}}}},
   "return_type":{"type":["string","null"]},"variadic":{"type":"boolean"},
   "jump_tables":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["block","targets"],
    "properties":{"block":{"$ref":"#/$defs/hex"},"targets":{"type":"array","items":{"$ref":"#/$defs/hex"}},"switch":` + switchSchema + `}}},
   "switches_total":{"type":"integer","minimum":0},"switches_truncated":{"type":"boolean"},
   "signature_source":{"type":"string"},"provenance":{"type":"array","items":{"type":"string"}},"pseudocode":{"type":["string","null"]}}}]}`

// switchSchema is a jump table's switch as a decompiler recovered it.
const switchSchema = `{"type":"object","additionalProperties":false,
 "required":["address","data_sources","data_sources_total","data_sources_truncated","mappings","mappings_total","mappings_truncated"],
 "properties":{"address":{"$ref":"#/$defs/hex"},
  "data_sources":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["address","entry_size","entries"],
   "properties":{"address":{"$ref":"#/$defs/hex"},"entry_size":{"type":"integer","minimum":0},"entries":{"type":"integer","minimum":0}}}},
  "data_sources_total":{"type":"integer","minimum":0},"data_sources_truncated":{"type":"boolean"},
  "mappings":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["value","target"],
   "properties":{"value":{"type":["integer","null"]},"target":{"$ref":"#/$defs/hex"}}}},
  "mappings_total":{"type":"integer","minimum":0},"mappings_truncated":{"type":"boolean"}}}`

// jumpTables lists the blocks of f with jump-table successors, in block
// order, and joins the switches the provider's decompiler recovered (sig's):
// a switch goes on the entry of the block holding its jump, or on a new
// entry for that block (targets from its mappings) when the block has no
// jump-table successors; a switch in no block of f gets an entry of its
// own at its address. With switches the entries are sorted by block.
func jumpTables(f ports.Function, sig ports.Signature) []JumpTable {
	type entry struct {
		at uint64 // the block start
		t  JumpTable
	}
	var es []entry
	for _, b := range f.Blocks {
		var ts []string
		for _, e := range b.Successors {
			if e.Kind == ports.EdgeJumpTable {
				ts = append(ts, core.Hex(e.Target))
			}
		}
		if len(ts) > 0 {
			es = append(es, entry{b.Start, JumpTable{Block: core.Hex(b.Start), Targets: ts}})
		}
	}
	for _, s := range sig.Switches {
		at := s.Address
		for _, b := range f.Blocks {
			if s.Address >= b.Start && s.Address < b.End {
				at = b.Start
				break
			}
		}
		j := slices.IndexFunc(es, func(e entry) bool { return e.at == at && e.t.Switch == nil })
		if j < 0 {
			var ts []uint64
			for _, m := range s.Cases {
				ts = append(ts, m.Target)
			}
			slices.Sort(ts)
			t := JumpTable{Block: core.Hex(at), Targets: []string{}}
			for _, x := range slices.Compact(ts) {
				t.Targets = append(t.Targets, core.Hex(x))
			}
			es, j = append(es, entry{at, t}), len(es)
		}
		es[j].t.Switch = switchOf(s)
	}
	if len(sig.Switches) > 0 {
		slices.SortStableFunc(es, func(x, y entry) int { return cmp.Compare(x.at, y.at) })
	}
	out := make([]JumpTable, len(es))
	for j, e := range es {
		out[j] = e.t
	}
	return out
}

// switchOf is the dossier's form of a recovered switch.
func switchOf(s ports.Switch) *Switch {
	sw := &Switch{Address: core.Hex(s.Address), DataSources: []SwitchSource{}, Mappings: []SwitchCase{},
		DataSourcesTotal: max(s.SourcesTotal, len(s.Sources)), MappingsTotal: max(s.CasesTotal, len(s.Cases))}
	for _, d := range s.Sources {
		sw.DataSources = append(sw.DataSources, SwitchSource{Address: core.Hex(d.Address), EntrySize: d.EntrySize, Entries: d.Entries})
	}
	for _, m := range s.Cases {
		sw.Mappings = append(sw.Mappings, SwitchCase{Value: m.Value, Target: core.Hex(m.Target)})
	}
	sw.DataSourcesTruncated = len(sw.DataSources) < sw.DataSourcesTotal
	sw.MappingsTruncated = len(sw.Mappings) < sw.MappingsTotal
	return sw
}

// nativeAPI derives the interface of procedure i: null when the provider
// derives no signatures, unavailable with a reason when nothing describes
// the procedure.
//
// It returns the available interface, or the unavailable one, or neither.
func (v *codeView) nativeAPI(ctx context.Context, i int, f ports.Function) (*NativeAPI, *NativeAPIUnavailable, []string, error) {
	a, _, _ := v.c.Bound()
	sr, ok := a.(ports.SignatureReader)
	if !ok {
		return nil, nil, []string{"The provider derives no signatures; native_api is null."}, nil
	}
	sig, err := sr.Signature(ctx, v.procs[i].Address)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, &NativeAPIUnavailable{Available: false,
			Reason:           "No debug information (DWARF) describes this procedure, and its parameters cannot be derived from the symbol table alone.",
			ResidualUnknowns: residualUnknowns()}, nil, nil
	}
	if err != nil {
		return nil, nil, nil, codeError(v.c, err)
	}
	params := []NativeParameter{}
	for _, p := range sig.Parameters {
		params = append(params, NativeParameter{Name: core.OptString(p.Name), Type: core.OptString(p.Type), Location: core.OptString(p.Location),
			Constant: core.OptString(p.Constant)})
	}
	prov := []string{"signature:" + sig.Source}
	if sig.CallingConvention != "" {
		prov = append(prov, "calling_convention:abi-of-format-and-architecture")
	}
	api := &NativeAPI{Available: true, CallingConvention: core.OptString(sig.CallingConvention), Parameters: params,
		ReturnType: core.OptString(sig.ReturnType), Variadic: sig.Variadic, JumpTables: jumpTables(f, sig),
		SignatureSource: sig.Source, Provenance: prov}
	if sig.Switches != nil {
		total := max(sig.SwitchesTotal, len(sig.Switches))
		cut := len(sig.Switches) < total
		api.SwitchesTotal, api.SwitchesTruncated = &total, &cut
		api.Provenance = append(api.Provenance, "switches:"+sig.Source)
	}
	return api, nil, nil, nil
}

// inferredAPIInstructions bounds the value flow inspect_native_api runs
// to infer a procedure's parameters: a huge procedure's whole flow costs
// far more than the answer needs (parameters are read near the entry), and
// analyze_function, which the note points to, gives the whole one.
const inferredAPIInstructions = 2000

// inferredAPI points, when no declared signature describes procedure i
// (whose code f gives), to what its code shows instead: the parameters its
// value flow infers (argument registers and stack slots read before any
// write) and the call that gives them with their uses. Nothing when the
// provider computes no value flow for it.
func (v *codeView) inferredAPI(ctx context.Context, i int, f ports.Function) ([]string, error) {
	a, _, _ := v.c.Bound()
	vfa, ok := a.(ports.ValueFlowAnalyzer)
	if !ok {
		return nil, nil
	}
	bound := 0
	if f.InstructionCount > inferredAPIInstructions || f.Truncated {
		bound = inferredAPIInstructions
	}
	vf, whole, err := listsOf(a).valueFlowUpTo(ctx, vfa, v.procs[i].Address, bound)
	if err != nil {
		return nil, ctx.Err() // unsupported or failed: nothing to point to
	}
	read := "reads no argument register or stack slot before writing it (no parameter inferred)"
	if len(vf.Parameters) > 0 {
		locs := make([]string, len(vf.Parameters))
		for k, p := range vf.Parameters {
			locs[k] = p.Location
		}
		read = fmt.Sprintf("reads %s before writing %s (inferred parameters)", strings.Join(locs, ", "), map[bool]string{true: "it", false: "them"}[len(locs) == 1])
	}
	switch {
	case !whole && vf.Truncated:
		of := fmt.Sprintf("%d", f.InstructionCount)
		if f.Truncated {
			of = fmt.Sprintf("at least %d", f.InstructionCount)
		}
		read += fmt.Sprintf(" in its first %d instructions of %s (parameters inferred from the first %d instructions only; "+
			"one read only after them is not listed)", inferredAPIInstructions, of, inferredAPIInstructions)
	case vf.Truncated:
		read += " in the part analysed (the value flow was cut)"
	}
	gives := "gives them"
	if !whole && vf.Truncated {
		gives = "infers them from the whole procedure"
	}
	return []string{fmt.Sprintf("No declared signature; inferred from the code instead: %s %s. "+
		`analyze_function {"procedure":"%s"} %s with each use (native_value_flow.parameters and parameter_uses).`,
		v.value(i), read, core.Hex(v.procs[i].Address), gives)}, nil
}

func residualUnknowns() []string { return []string{"calling_convention", "parameters", "return_type"} }

// nativeAPIJSON encodes native_api: api, else un, else null.
func nativeAPIJSON(api *NativeAPI, un *NativeAPIUnavailable) (json.RawMessage, error) {
	switch {
	case api != nil:
		return core.CanonicalJSON(api)
	case un != nil:
		return core.CanonicalJSON(un)
	}
	return nil, nil
}

// valueFlowJSON encodes native_value_flow: flow, else un.
func valueFlowJSON(flow *ValueFlow, un *ValueFlowUnavailable) (json.RawMessage, error) {
	if flow != nil {
		return core.CanonicalJSON(flow)
	}
	return core.CanonicalJSON(un)
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
			"pseudo-code (unavailable with its reason when the provider does not decompile), and native_value_flow: per-instruction defined and used " +
			"locations, def-use edges, effects (memory writes, calls, returns) and parameters inferred from argument registers and stack slots read " +
			"before any write, up to the provider's cap (or unavailable with its reason). Every collection is paged " +
			"{items, returned, total, truncated, next_offset}. By default the result is concise (each collection's first 8 items) " +
			"and the complete dossier is retained and linked from evidence_links, to read through inspect_analysis_view; detail \"complete\" returns it inline.",
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"required":["procedure"],
 "properties":{` + procedureProp + `,
  "include_assembly":{"type":"boolean","default":false,"description":"Return an assembly page (otherwise only its total)."},
  "max_instructions":{"type":"integer","minimum":1,"maximum":5000,"default":500,"description":"Instructions scanned for the dossier (1-5000)."},
  "max_pseudocode_chars":{"type":"integer","minimum":1,"maximum":100000,"default":20000,"description":"Characters of pseudo-code returned (1-100000)."},
  "pseudocode_offset":{"type":"integer","minimum":0,"default":0,"description":"First pseudo-code character returned."},
  "offset":{"type":"integer","minimum":0,"default":0,"description":"First instruction of the assembly page."},
  "assembly_offset":{"type":"integer","minimum":0,"description":"Alias of offset."},
  "limit":{"type":"integer","minimum":1,"maximum":500,"description":"Items per collection page (1-500); when absent, 8 in the concise dossier and 100 in the complete one."},
  "collection_offset":{"type":"object","additionalProperties":false,"description":"First item of each collection's page (default 0).",
   "properties":{` + collectionOffsetProps() + `}},
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
  "comments":` + collectionSchema(commentItemSchema) + `,
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

// collectionOffsetKeys are the members of analyze_function's
// collection_offset: §1.9's collections, then rea's unresolved_calls and
// native_value_flow (whose lists share one offset).
var collectionOffsetKeys = []string{"comments", "callers", "callees", "incoming_references", "outgoing_references",
	"referenced_strings", "referenced_names", "basic_blocks", "unresolved_calls", "native_value_flow"}

func collectionOffsetProps() string {
	var b strings.Builder
	for k, name := range collectionOffsetKeys {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + name + `":{"type":"integer","minimum":0,"default":0}`)
	}
	return b.String()
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
// and retained, and the result is the same document with every Collection
// cut to its first page, linked to that record, with a limitation naming the
// calls that read the rest.
func handleAnalyzeFunction(ctx context.Context, c *core.Call) (any, error) {
	in, err := core.Input[AnalyzeFunctionInput](c)
	if err != nil {
		return nil, err
	}
	if in.Offset, err = assemblyOffset(c, in); err != nil {
		return nil, err
	}
	// The engine's notes for this call (ports.Note: an answer from an
	// analysis snapshot, ...) are sealed by the session with the result it
	// returns, after this handler; the complete record a concise dossier
	// links to is sealed here, before that. So the notes are collected
	// here, sealed with that record as the session seals them with a
	// "detail":"complete" call, and handed on to the session's own.
	notes := &ports.CallNotes{}
	outer := ctx
	ctx = ports.WithCallNotes(ctx, notes)
	defer func() {
		for _, n := range notes.List() {
			ports.Note(outer, n)
		}
	}()
	obs, flow, err := analyzeFunction(ctx, c, in)
	if err != nil {
		return nil, err
	}
	if in.Detail == "complete" {
		return obs, nil
	}
	result := obs.Result.(*Dossier)
	var concise *Dossier
	var cut bool
	limit := conciseDossierLimit
	if in.Limit != 0 {
		limit = in.Limit
		if concise, cut, err = concisePages(result, flow, limit); err != nil {
			return nil, err
		}
	} else {
		// Halve the page until the document fits its budget: a procedure
		// with long names or many effects gets shorter pages.
		for ; ; limit /= 2 {
			if concise, cut, err = concisePages(result, flow, limit); err != nil {
				return nil, err
			}
			if b, err := json.Marshal(concise); limit == 1 || (err == nil && len(b) <= conciseDossierBytes) {
				break
			}
		}
	}
	if !cut {
		return obs, nil
	}
	withArch(ctx, c, obs) // as the complete call's Evidence has them
	// RetainComplete seals with Seal, not SealAs: the complete record gets
	// the limitation naming the analyst's names this call showed, as the
	// concise one and a "detail":"complete" call do.
	full := *obs
	full.Limitations = slices.Clone(obs.Limitations)
	for _, n := range notes.List() {
		if !slices.Contains(full.Limitations, n) {
			full.Limitations = append(full.Limitations, n)
		}
	}
	parent, err := c.RetainComplete(&full)
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf(`Concise dossier: each collection holds at most its first %d items; the complete dossier is retained as evidence_links[0]: `+
		`read any collection with inspect_analysis_view (view kind "native", facet = the collection or value_flow_*), or call again with "detail":"complete".`, limit)
	lim := append([]string{note}, obs.Limitations...)
	concise.Limitations = lim
	return &core.Observation{Result: concise, Limitations: lim, Locations: obs.Locations, Links: []core.EvidenceID{parent}}, nil
}

// head cuts c to its first n items and reports whether it cut.
func (c Collection[T]) head(n int) (Collection[T], bool) {
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

// cutTo cuts *c to its first n items, setting *cut when it did.
func cutTo[T any](c *Collection[T], n int, cut *bool) {
	var did bool
	*c, did = c.head(n)
	*cut = *cut || did
}

// concisePages copies a dossier with every collection (those of its value
// flow, when observed, included) cut to n items, and reports whether
// anything was cut.
func concisePages(d *Dossier, flow *ValueFlow, n int) (*Dossier, bool, error) {
	out := *d
	cut := false
	cutTo(&out.Assembly, n, &cut)
	cutTo(&out.BasicBlocks, n, &cut)
	cutTo(&out.Comments, n, &cut)
	cutTo(&out.Callers, n, &cut)
	cutTo(&out.Callees, n, &cut)
	cutTo(&out.IncomingReferences, n, &cut)
	cutTo(&out.OutgoingReferences, n, &cut)
	cutTo(&out.ReferencedStrings, n, &cut)
	cutTo(&out.ReferencedNames, n, &cut)
	cutTo(&out.UnresolvedCalls, n, &cut)
	if flow != nil {
		f := *flow
		cutTo(&f.Operations, n, &cut)
		cutTo(&f.DefUse, n, &cut)
		cutTo(&f.Effects, n, &cut)
		cutTo(&f.Parameters, n, &cut)
		cutTo(&f.ParameterUses, n, &cut)
		raw, err := valueFlowJSON(&f, nil)
		if err != nil {
			return nil, false, err
		}
		out.NativeValueFlow = raw
	}
	return &out, cut, nil
}

// assemblyOffset is the first instruction of the assembly page: offset,
// the name disassemble, list_instructions and the other instruction pages
// give it, or assembly_offset, the reference contract's name, accepted as
// its alias so clients written to that contract keep working. Both given
// must agree (else invalid_request at assembly_offset naming offset); an
// offset of 0 is offset's default, which the call's arguments hold whether
// or not it was given.
func assemblyOffset(c *core.Call, in AnalyzeFunctionInput) (int, error) {
	_, hasOld := c.Args["assembly_offset"]
	switch {
	case hasOld && in.Offset != 0 && in.AssemblyOffset != in.Offset:
		return 0, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"assembly_offset"}, Reason: core.ReasonInvalidValue, Expected: "offset",
			Message: fmt.Sprintf("assembly_offset is an alias of offset; they differ (%d, %d): give offset only", in.AssemblyOffset, in.Offset)})
	case hasOld:
		return in.AssemblyOffset, nil
	}
	return in.Offset, nil
}

// analyzeFunction builds the complete dossier, and returns its value flow
// too when observed (concise pages cut it).
func analyzeFunction(ctx context.Context, c *core.Call, in AnalyzeFunctionInput) (*core.Observation, *ValueFlow, error) {
	v, err := codeViewOf(ctx, c, "")
	if err != nil {
		return nil, nil, err
	}
	i, err := v.resolveValue(ctx, in.Procedure, []any{"procedure"})
	if err != nil {
		return nil, nil, err
	}
	limit := cmp.Or(in.Limit, defaultPageLimit)
	var coff CollectionOffsets
	if in.CollectionOffset != nil {
		coff = *in.CollectionOffset
	}
	maxInsns := cmp.Or(in.MaxInstructions, 500)
	c.Observe("decoding the procedure")
	f, err := v.function(ctx, i, maxInsns)
	if err != nil {
		return nil, nil, err
	}
	lim := append(v.partNotes(), v.ifuncNote(ctx, i)...) // the procedure was named by one of its parts; an IFUNC's resolver
	r := v.ranges[i]
	scanEnd := max(r.End, r.Start+1)
	scanTruncated := f.InstructionCount > len(f.Instructions)
	if scanTruncated && len(f.Instructions) > 0 {
		scanEnd = listedEnd(f, r)
		lim = append(lim, fmt.Sprintf("The dossier covers the first %d of %d instructions (max_instructions); blocks, callees, outgoing references, strings and names describe that part.",
			len(f.Instructions), f.InstructionCount))
	}
	if f.Truncated {
		lim = append(lim, "The provider stopped decoding this procedure at its instruction or block cap.")
	}

	// Assembly page.
	asm := []ReadFunctionInstructionsResultItem{}
	for _, in := range f.Instructions {
		asm = append(asm, instructionItemOf(in))
	}
	assembly := collect(asm, in.Offset, limit)
	if !in.IncludeAssembly {
		assembly.Items, assembly.Returned = []ReadFunctionInstructionsResultItem{}, 0
		off := in.Offset
		assembly.Truncated = len(asm) > 0
		if assembly.Truncated {
			assembly.NextOffset = &off
		}
		lim = append(lim, "Assembly omitted (include_assembly is false); assembly.total counts the scanned instructions.")
	}

	// The blocks the scan covered: all of them, or when the listing
	// stopped, those of the range before its end and those of parts whose
	// start was listed (a part's instructions follow the range's).
	listed := map[uint64]bool{}
	if scanTruncated {
		for _, in := range f.Instructions {
			if in.Address < r.Start || in.Address >= r.End {
				listed[in.Address] = true
			}
		}
	}
	blocks := []DossierBlock{}
	for _, b := range f.Blocks {
		if !scanTruncated || b.Start >= r.Start && b.Start < scanEnd || listed[b.Start] {
			blocks = append(blocks, blockItemOf(b))
		}
	}

	c.Observe("collecting references")
	outRefs, err := v.bodyRefsFrom(ctx, i, r.Start, scanEnd)
	if err != nil {
		return nil, nil, err
	}
	inRefs, err := v.refsTo(ctx, r.Start, r.Start+1)
	if err != nil {
		return nil, nil, err
	}
	callers, err := v.callers(ctx, i)
	if err != nil {
		return nil, nil, err
	}
	callees, unresolved, err := v.calleesIn(ctx, i, outRefs)
	if err != nil {
		return nil, nil, err
	}
	outItems, inItems := make([]ProcedureReferencesResultItemReference, len(outRefs)), make([]ProcedureReferencesResultItemReference, len(inRefs))
	for k, x := range outRefs {
		outItems[k] = v.referenceItemOf(x)
	}
	for k, x := range inRefs {
		inItems[k] = v.referenceItemOf(x)
	}

	c.Observe("resolving strings and names")
	strs, names, err := v.referenced(ctx, outRefs)
	if err != nil {
		return nil, nil, err
	}

	var pseudo Pseudocode
	a, _, _ := c.Bound()
	if dc, ok := a.(ports.Decompiler); ok {
		p, err := dc.Decompile(ctx, v.procs[i].Address)
		if err != nil {
			reason := "The decompiler failed: " + err.Error()
			pseudo.Reason = &reason
		} else {
			text, total, next := pageRunes(p.Text, in.PseudocodeOffset, cmp.Or(in.MaxPseudocodeChars, 20000))
			pseudo.Available, pseudo.Text, pseudo.ReturnedChars, pseudo.TotalChars = true, &text, utf8.RuneCountInString(text), &total
			pseudo.Truncated, pseudo.NextOffset = next != nil, next
		}
	} else {
		// Evidence does not depend on which other engines are registered:
		// the advice points to where that is reported.
		reason := pseudocodeUnavailable(ctx, c).Message + ". This dossier's assembly and basic blocks are this provider's view;" +
			" binary_session's tool_availability for procedure_pseudo_code names any registered engine that decompiles."
		pseudo.Reason = &reason
		lim = append(lim, "Pseudo-code is unavailable: the bound provider does not decompile.")
	}

	api, noAPI, apiLim, err := v.nativeAPI(ctx, i, f)
	if err != nil {
		return nil, nil, err
	}
	lim = append(lim, apiLim...)
	var signature *string
	if api != nil {
		sig := signatureText(v.value(i), api)
		signature = &sig
	}
	apiJSON, err := nativeAPIJSON(api, noAPI)
	if err != nil {
		return nil, nil, err
	}
	c.Observe("computing value flow")
	flow, noFlow, flowLim, err := v.nativeValueFlow(ctx, i, coff.NativeValueFlow, limit)
	if err != nil {
		return nil, nil, err
	}
	flowJSON, err := valueFlowJSON(flow, noFlow)
	if err != nil {
		return nil, nil, err
	}
	lim = append(lim, flowLim...)
	if len(unresolved) > 0 {
		lim = append(lim, fmt.Sprintf("%d indirect calls or jumps have unknown targets (unresolved_calls).", len(unresolved)))
	}
	comments, commentLim := procedureComments(ctx, c, r)
	lim = append(lim, commentLim...)

	lim = append(lim, collectionsPastEnd(in, coff, flow, map[string]int{"assembly": len(asm), "basic_blocks": len(blocks), "comments": len(comments),
		"callers": len(callers), "callees": len(callees), "incoming_references": len(inItems), "outgoing_references": len(outItems),
		"referenced_strings": len(strs), "referenced_names": len(names), "unresolved_calls": len(unresolved)})...)

	p := v.procs[i]
	class := v.classification(i)
	result := &Dossier{
		Procedure: DossierProcedure{Address: core.Hex(p.Address), Name: v.value(i), Signature: signature, Classification: &class,
			End: core.Hex(r.End), EndSource: r.EndSource, Source: p.Source},
		Pseudocode:         pseudo,
		Assembly:           assembly,
		BasicBlocks:        collect(blocks, coff.BasicBlocks, limit),
		Comments:           collect(comments, coff.Comments, limit),
		Callers:            collect(core.NonNil(callers), coff.Callers, limit),
		Callees:            collect(core.NonNil(callees), coff.Callees, limit),
		IncomingReferences: collect(inItems, coff.IncomingReferences, limit),
		OutgoingReferences: collect(outItems, coff.OutgoingReferences, limit),
		ReferencedStrings:  collect(strs, coff.ReferencedStrings, limit),
		ReferencedNames:    collect(names, coff.ReferencedNames, limit),
		UnresolvedCalls:    collect(core.NonNil(unresolved), coff.UnresolvedCalls, limit),
		InstructionScan:    InstructionScan{Scanned: len(f.Instructions), Truncated: scanTruncated},
		NativeAPI:          apiJSON,
		NativeValueFlow:    flowJSON,
		Limitations:        core.NonNil(lim),
	}
	return &core.Observation{Result: result, Limitations: lim, Locations: rangeLocation(r)}, flow, nil
}

// spanOf is how many items a collection has, and their offsets.
func spanOf(n int, items string) string {
	switch n {
	case 0:
		return "no " + items
	case 1:
		return "1 " + strings.TrimSuffix(items, "s") + " (offset 0)"
	}
	return fmt.Sprintf("%d %s (offsets 0 to %d)", n, items, n-1)
}

// collectionsPastEnd says which of the dossier's pages start past their
// collection's end (an empty page with no other word): the assembly's
// offset, each collection_offset, and native_value_flow's, past the end
// of every one of its lists. totals are the collections' sizes.
func collectionsPastEnd(in AnalyzeFunctionInput, coff CollectionOffsets, flow *ValueFlow, totals map[string]int) []string {
	var out []string
	if in.IncludeAssembly && in.Offset >= totals["assembly"] && in.Offset > 0 {
		out = append(out, fmt.Sprintf("offset %d is past the end of the assembly: the scan has %s.", in.Offset, spanOf(totals["assembly"], "instructions")))
	}
	for _, c := range []struct {
		name   string
		offset int
	}{{"basic_blocks", coff.BasicBlocks}, {"comments", coff.Comments}, {"callers", coff.Callers}, {"callees", coff.Callees},
		{"incoming_references", coff.IncomingReferences}, {"outgoing_references", coff.OutgoingReferences},
		{"referenced_strings", coff.ReferencedStrings}, {"referenced_names", coff.ReferencedNames}, {"unresolved_calls", coff.UnresolvedCalls}} {
		if n := totals[c.name]; c.offset > 0 && c.offset >= n {
			out = append(out, fmt.Sprintf("collection_offset.%s %d is past the end: %s has %s.", c.name, c.offset, c.name, spanOf(n, "items")))
		}
	}
	if off := coff.NativeValueFlow; off > 0 && flow != nil {
		longest := 0
		for _, t := range []*int{flow.Operations.Total, flow.DefUse.Total, flow.Effects.Total, flow.Parameters.Total, flow.ParameterUses.Total} {
			if t != nil {
				longest = max(longest, *t)
			}
		}
		if off >= longest {
			out = append(out, fmt.Sprintf("collection_offset.native_value_flow %d is past the end of every value-flow list: the longest has %s.", off, spanOf(longest, "items")))
		}
	}
	return out
}

// calleesIn lists callees from already fetched outgoing references.
func (v *codeView) calleesIn(ctx context.Context, i int, refs []ports.Reference) ([]ProcedureCalleesResultItem, []ProcedureCalleesResultUnresolvedItem, error) {
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
func (v *codeView) referenced(ctx context.Context, refs []ports.Reference) ([]ReferencedString, []ReferencedName, error) {
	if _, err := v.stringsList(ctx); err != nil {
		return nil, nil, err
	}
	strs, names := []ReferencedString{}, []ReferencedName{}
	sIdx, nIdx := map[uint64]int{}, map[uint64]int{}
	sSrc, nSrc := []uint64{}, []uint64{} // the lowest referencing instruction of each item
	addName := func(x ports.Reference, n string) {
		k, seen := nIdx[x.To]
		if !seen {
			k = len(names)
			nIdx[x.To] = k
			names = append(names, ReferencedName{Address: core.Hex(x.To), Name: n, Kinds: []string{}, From: []string{}})
			nSrc = append(nSrc, x.From)
		}
		names[k].Kinds = appendUnique(names[k].Kinds, x.Kind)
		names[k].From = appendUnique(names[k].From, core.Hex(x.From))
		nSrc[k] = min(nSrc[k], x.From)
	}
	for _, x := range refs {
		if x.Unresolved || x.Kind == ports.RefCall || x.Kind == ports.RefJump {
			continue
		}
		if s, ok := v.stringAt(x.To); ok {
			k, seen := sIdx[s.Address]
			if !seen {
				k = len(strs)
				sIdx[s.Address] = k
				strs = append(strs, ReferencedString{Address: core.Hex(s.Address), Value: s.Value, Charset: s.Charset, Truncated: s.Truncated, From: []string{}})
				sSrc = append(sSrc, x.From)
			}
			strs[k].From = appendUnique(strs[k].From, core.Hex(x.From))
			sSrc[k] = min(sSrc[k], x.From)
			continue
		}
		if n := v.nameAt(x.To); n != "" {
			addName(x, n)
		}
	}
	for _, x := range refs { // calls and jumps to named targets count as names too
		if x.Unresolved || (x.Kind != ports.RefCall && x.Kind != ports.RefJump) {
			continue
		}
		if n := v.nameAt(x.To); n != "" {
			addName(x, n)
		}
	}
	for k := range strs {
		strs[k].SourceAddress = core.Hex(sSrc[k])
	}
	for k := range names {
		names[k].SourceAddress = core.Hex(nSrc[k])
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
func signatureText(name string, api *NativeAPI) string {
	ret := deref(api.ReturnType, "")
	if ret == "" {
		ret = "?"
	}
	s := ret + " " + name + "("
	for k, p := range api.Parameters {
		if k > 0 {
			s += ", "
		}
		s += deref(p.Type, "")
		if n := deref(p.Name, ""); n != "" {
			s += " " + n
		}
		if p.Constant != nil {
			s += " = " + *p.Constant // a specialized copy's constant, passed nowhere
		}
	}
	if api.Variadic {
		if len(api.Parameters) > 0 {
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
			"locations), return type and jump tables, from debug information (DWARF); otherwise native_api is unavailable with its reason and the residual unknowns, and a limitation names the parameters analyze_function infers from the code.",
		Input: core.InputSchema([]string{"procedure"}, procedureProp,
			`"max_instructions": {"type":"integer","minimum":1,"maximum":5000,"default":500,"description":"Instructions scanned for jump tables (1-5000)."}`,
			`"max_pseudocode_chars": {"type":"integer","minimum":1,"maximum":100000,"default":20000,"description":"Characters of pseudo-code returned when a decompiler is bound."}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["procedure","classification","signature","native_api"],
 "properties":{"procedure":` + procRefSchema + `,"classification":{"type":"string"},"signature":{"type":["string","null"]},"native_api":` + nativeAPISchema + `}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`), json.RawMessage(`{"procedure":"0x401000","max_instructions":100}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[InspectNativeAPIInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, "", in.Procedure)
			if err != nil {
				return nil, err
			}
			f, err := v.function(ctx, i, deref(in.MaxInstructions, 500))
			if err != nil {
				return nil, err
			}
			api, noAPI, lim, err := v.nativeAPI(ctx, i, f)
			if err != nil {
				return nil, err
			}
			if api == nil && noAPI == nil {
				noAPI = &NativeAPIUnavailable{Available: false, Reason: "The bound provider derives no signatures.", ResidualUnknowns: residualUnknowns()}
			}
			if api == nil {
				more, err := v.inferredAPI(ctx, i, f)
				if err != nil {
					return nil, err
				}
				lim = append(lim, more...)
			}
			var sig *string
			if api != nil {
				s := signatureText(v.value(i), api)
				sig = &s
				if dc, ok := func() (ports.Decompiler, bool) {
					a, _, _ := c.Bound()
					d, ok := a.(ports.Decompiler)
					return d, ok
				}(); ok {
					if p, err := dc.Decompile(ctx, v.procs[i].Address); err == nil {
						text, _, _ := pageRunes(p.Text, 0, deref(in.MaxPseudocodeChars, 20000))
						api.Pseudocode = &text
					}
				}
			}
			raw, err := nativeAPIJSON(api, noAPI)
			if err != nil {
				return nil, err
			}
			return &core.Observation{Result: &InspectNativeAPIResult{Procedure: v.ref(i), Classification: v.classification(i), Signature: sig, NativeAPI: raw},
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
			in, err := core.Input[BatchDecompileInput](c)
			if err != nil {
				return nil, err
			}
			v, err := codeViewOf(ctx, c, "")
			if err != nil {
				return nil, err
			}
			a, _, _ := c.Bound()
			dc, canDecompile := a.(ports.Decompiler)
			unavailable := ""
			if !canDecompile {
				unavailable = pseudocodeUnavailable(ctx, c).Message
			}
			out := &BatchDecompileResult{Items: []BatchDecompileResultItem{}}
			for k, s := range in.Addresses {
				c.Observe(fmt.Sprintf("%d of %d procedures", k+1, len(in.Addresses)))
				it := BatchDecompileResultItem{Request: s, Status: "error"}
				i, err := v.resolveValue(ctx, s, []any{"addresses", k})
				if err != nil {
					reason := core.AsError(c.Op.Name, err).Message
					it.Reason = &reason
					out.Summary.Error++
					out.Items = append(out.Items, it)
					continue
				}
				ref := v.ref(i)
				it.Procedure = &ref
				if f, err := v.function(ctx, i, 1); err == nil {
					it.InstructionCount = &f.InstructionCount
				} else if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				switch {
				case !canDecompile:
					it.Status, it.Reason = "unavailable", &unavailable
					out.Summary.Unavailable++
				default:
					p, err := dc.Decompile(ctx, v.procs[i].Address)
					if err != nil {
						reason := err.Error()
						it.Reason = &reason
						out.Summary.Error++
						break
					}
					it.Status, it.Pseudocode = "decompiled", &p.Text
					out.Summary.Decompiled++
				}
				out.Items = append(out.Items, it)
			}
			var lim []string
			if !canDecompile {
				lim = append(lim, "The bound provider does not decompile; every item is unavailable. binary_session's tool_availability for procedure_pseudo_code names any registered engine that decompiles.")
			}
			return &core.Observation{Result: out, Limitations: lim}, nil
		},
	}
}
