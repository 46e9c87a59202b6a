package annotate

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"rea/core"
	"rea/core/codeloc"
	"rea/ports"
)

var (
	readEffects     = core.Effects{MutatesSession: true, Idempotent: true}
	moveEffects     = core.Effects{MutatesSession: true, ChangesUIState: true, Idempotent: true}
	annotateEffects = core.Effects{MutatesSession: true, MutatesTarget: true, Idempotent: true}
	discardEffects  = core.Effects{MutatesSession: true, MutatesTarget: true, MayDiscardData: true, Idempotent: true}
)

const (
	documentProp        = `"document": {"type":"string","minLength":1,"maxLength":4096,"description":"Document name from list_documents; defaults to the cursor's document."}`
	addressProp         = codeloc.AddressProp
	optionalAddressProp = codeloc.OptionalAddressProp
	commentProp         = `"comment": {"type":"string","minLength":1,"maxLength":4096,"description":"The comment text (at most 4096 characters; newlines and tabs allowed, no other control characters)."}`
	nameProp            = `"name": {"type":"string","minLength":1,"maxLength":255,"description":"The new name: no white space or control characters, not shaped like an address, and not a name another address has.","examples":["check_license"]}`
)

func operations() []*core.Operation {
	return []*core.Operation{
		opGotoAddress(), opSetCurrentDocument(), opCurrentDocument(), opCurrentAddress(), opCurrentProcedure(),
		opGetNavigationContext(), opInspectAddressContext(),
		opSetAddressName(), opSetAddressesNames(), opSetComment(opSetCommentName, ports.AnnotationComment), opSetComment(opSetInlineCommentName, ports.AnnotationInlineComment),
		opSetBookmark(), opUnsetBookmark(), opListBookmarks(),
		opReadComment("comment", ports.AnnotationComment), opReadComment("inline_comment", ports.AnnotationInlineComment),
	}
}

const (
	opSetCommentName       = "set_comment"
	opSetInlineCommentName = "set_inline_comment"
)

// begin gathers what every handler reads.
func begin(ctx context.Context, c *core.Call) (*view, *store, *cursors, position, error) {
	v, err := viewOf(ctx, c)
	if err != nil {
		return nil, nil, nil, position{}, err
	}
	st := storeOf(c)
	st.v = v
	cs := cursorsOf(c)
	return v, st, cs, cs.current(c, v), nil
}

// documentArg validates the optional document argument against the target.
// atAddress opens a call that works at an address argument (address, in
// document, empty for the cursor's): the view, the store, the cursor
// position, the document and the resolved address.
func atAddress(ctx context.Context, c *core.Call, address, document string) (*view, *store, position, string, uint64, error) {
	v, st, _, cur, err := begin(ctx, c)
	if err != nil {
		return nil, nil, cur, "", 0, err
	}
	doc, err := documentArg(c, v, cur, document)
	if err != nil {
		return nil, nil, cur, "", 0, err
	}
	addr, err := resolveAddress(ctx, c.Op.Name, v, st.ov, address, []any{"address"})
	if err != nil {
		return nil, nil, cur, "", 0, err
	}
	return v, st, cur, doc, addr, nil
}

// documentArg checks the document argument name (empty when absent: the
// cursor's document).
func documentArg(c *core.Call, v *view, cur position, name string) (string, error) {
	return v.document(c.Op.Name, name, name != "", cur.document)
}

// addressArgOrCursor resolves the address argument s, or gives the
// cursor's when s is empty (absent).
func addressArgOrCursor(ctx context.Context, c *core.Call, v *view, st *store, cur position, s string) (uint64, error) {
	if s == "" {
		if cur.address == nil {
			return 0, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"address"}, Reason: core.ReasonMissingArgument,
				Message: "the cursor has no address; pass address or call goto_address first"})
		}
		return *cur.address, nil
	}
	return resolveAddress(ctx, c.Op.Name, v, st.ov, s, []any{"address"})
}

func addrLocation(a uint64) []core.Location {
	return []core.Location{{Kind: "address", Address: core.Hex(a)}}
}

func withDefs(schema string) json.RawMessage {
	return json.RawMessage(schema[:len(schema)-1] + `,` + hexDefs + `}`)
}

const navResultProps = `"document":{"type":"string"},"address":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},
  "procedure":{"anyOf":[{"type":"null"},` + procRefSchema + `],"description":"The procedure containing the address; null outside every procedure."}`

func opGotoAddress() *core.Operation {
	return &core.Operation{
		Name: "goto_address", Title: "Go To Address", Kind: core.KindOfficialProxy, Effects: moveEffects, NeedsTarget: true,
		Description: "Move this session's cursor to an address (0x hex, decimal, or a name) inside a segment of the target; current_address, current_procedure and get_navigation_context read it. " +
			"The cursor is rea's own, kept per target for the connection; close_binary drops it.",
		Input: core.InputSchema([]string{"address"}, addressProp, documentProp),
		Result: withDefs(`{"type":"object","additionalProperties":false,"required":["document","address","procedure","previous_address"],"properties":{` + navResultProps + `,
  "previous_address":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"main"}`), json.RawMessage(`{"address":"0x401000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[AddressInput](c)
			if err != nil {
				return nil, err
			}
			v, st, cs, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur, in.Document)
			if err != nil {
				return nil, err
			}
			addr, err := resolveAddress(ctx, c.Op.Name, v, st.ov, in.Address, []any{"address"})
			if err != nil {
				return nil, err
			}
			cs.move(c, position{document: doc, address: &addr})
			return &core.Observation{Result: &GotoAddressResult{Document: doc, Address: addrOrNull(&addr), Procedure: procedureAt(v, st.ov, addr),
				PreviousAddress: addrOrNull(cur.address)}, Locations: addrLocation(addr)}, nil
		},
	}
}

func opSetCurrentDocument() *core.Operation {
	return &core.Operation{
		Name: "set_current_document", Title: "Set Current Document", Kind: core.KindOfficialProxy, Effects: moveEffects, NeedsTarget: true,
		Description: "Select the document (list_documents) the cursor is in; the cursor moves to that document's entry point. rea-native analyzes one document per target, so only that one can be selected.",
		Input:       core.InputSchema([]string{"document"}, `"document": {"type":"string","minLength":1,"maxLength":4096,"description":"Document name from list_documents.","examples":["elf"]}`),
		Result: withDefs(`{"type":"object","additionalProperties":false,"required":["document","previous_document","address"],"properties":{"document":{"type":"string"},"previous_document":{"type":"string"},
  "address":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"document":"elf"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[SetCurrentDocumentInput](c)
			if err != nil {
				return nil, err
			}
			v, _, cs, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur, in.Document)
			if err != nil {
				return nil, err
			}
			if doc != v.docs[0].Name {
				return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: fmt.Sprintf("%s: document %q is not the one this provider analyzes (%q)", c.Op.Name, doc, v.docs[0].Name),
					Details: map[string]any{"operation": c.Op.Name, "reason": "document_not_current"}}
			}
			p := cur
			if doc != cur.document {
				p = initialPosition(v, doc)
			}
			cs.move(c, p)
			return &core.Observation{Result: &SetCurrentDocumentResult{Document: doc, PreviousDocument: cur.document, Address: addrOrNull(p.address)}}, nil
		},
	}
}

func opCurrentDocument() *core.Operation {
	return &core.Operation{
		Name: "current_document", Title: "Current Document", Kind: core.KindOfficialProxy, Effects: readEffects, NeedsTarget: true,
		Description: "The document the cursor is in (the target's first document until set_current_document).",
		Input:       core.InputSchema(nil),
		Result:      json.RawMessage(`{"type":"object","additionalProperties":false,"required":["document"],"properties":{"document":{"type":"string"}}}`),
		Examples:    []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			_, _, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			return &core.Observation{Result: &CurrentDocumentResult{Document: cur.document}}, nil
		},
	}
}

func opCurrentAddress() *core.Operation {
	return &core.Operation{
		Name: "current_address", Title: "Current Address", Kind: core.KindOfficialProxy, Effects: readEffects, NeedsTarget: true,
		Description: "The cursor's address: where goto_address moved it, else the document's entry point (null when the document has none and no segment).",
		Input:       core.InputSchema(nil, documentProp),
		Result:      withDefs(`{"type":"object","additionalProperties":false,"required":["document","address"],"properties":{"document":{"type":"string"},"address":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]}}}`),
		Examples:    []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[DocumentInput](c)
			if err != nil {
				return nil, err
			}
			v, _, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur, in.Document)
			if err != nil {
				return nil, err
			}
			p := cur
			if doc != cur.document {
				p = initialPosition(v, doc)
			}
			return &core.Observation{Result: &CurrentAddressResult{Document: doc, Address: addrOrNull(p.address)}}, nil
		},
	}
}

func opCurrentProcedure() *core.Operation {
	return &core.Operation{
		Name: "current_procedure", Title: "Current Procedure", Kind: core.KindOfficialProxy, Effects: readEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapProcedures},
		Description: "The procedure containing the cursor's address, with the analyst's name when it has one and the engine's beside it; procedure is null outside every procedure.",
		Input:       core.InputSchema(nil, documentProp),
		Result:      withDefs(`{"type":"object","additionalProperties":false,"required":["document","address","procedure"],"properties":{` + navResultProps + `}}`),
		Examples:    []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[DocumentInput](c)
			if err != nil {
				return nil, err
			}
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur, in.Document)
			if err != nil {
				return nil, err
			}
			var proc *ProcedureRef
			if cur.address != nil {
				proc = procedureAt(v, st.ov, *cur.address)
			}
			return &core.Observation{Result: &CurrentProcedureResult{Document: doc, Address: addrOrNull(cur.address), Procedure: proc}}, nil
		},
	}
}

func opGetNavigationContext() *core.Operation {
	return &core.Operation{
		Name: "get_navigation_context", Title: "Get Navigation Context", Kind: core.KindSession, RequiresSession: true, Effects: readEffects, NeedsTarget: true,
		Description: "The cursor's document, address and containing procedure together (procedure null outside one). Mode current_selection reads the cursor; " +
			"explicit_document (document given) answers for that document even when its cursor was never moved. modes lists which modes this provider supports.",
		Input: core.InputSchema(nil, documentProp),
		Result: withDefs(`{"type":"object","additionalProperties":false,"required":["mode","modes",` + `"document","address","procedure","store"],"properties":{
  "mode":{"enum":["current_selection","explicit_document"]},
  "modes":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["mode","available","reason"],
   "properties":{"mode":{"enum":["current_selection","explicit_document"]},"available":{"type":"boolean"},"reason":{"type":["string","null"]}}}},
  ` + navResultProps + `,"store":{"enum":["rea-overlay","engine"],"description":"Where this target's annotations are kept."}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"document":"elf"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[DocumentInput](c)
			if err != nil {
				return nil, err
			}
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			explicit := in.Document != ""
			doc, err := documentArg(c, v, cur, in.Document)
			if err != nil {
				return nil, err
			}
			mode, p := "current_selection", cur
			if explicit {
				mode = "explicit_document"
				if doc != cur.document {
					p = initialPosition(v, doc)
				}
			}
			var proc *ProcedureRef
			if _, missing := v.err["procedures"]; !missing && p.address != nil {
				proc = procedureAt(v, st.ov, *p.address)
			}
			modes := []NavigationMode{{Mode: "current_selection", Available: true}, {Mode: "explicit_document", Available: true}}
			return &NavigationContextResult{Mode: mode, Modes: modes, Document: doc, Address: addrOrNull(p.address), Procedure: proc, Store: st.name()}, nil
		},
	}
}

// available is a facet with its value (nil: nothing there).
func available[T any](v *T) Facet[T] { return Facet[T]{Status: "available", Value: v} }

// unavailable is a facet the provider cannot answer.
func unavailable[T any](reason string) Facet[T] {
	return Facet[T]{Status: "unavailable", Reason: &reason}
}

const facetSchema = `{"type":"object","additionalProperties":false,"required":["status","value","reason"],"properties":{"status":{"enum":["available","unavailable"]},"value":{},"reason":{"type":["string","null"]}}}`

func opInspectAddressContext() *core.Operation {
	return &core.Operation{
		Name: "inspect_address_context", Title: "Inspect Address Context", Kind: core.KindSession, RequiresSession: true, Effects: readEffects, NeedsTarget: true,
		Description: "Everything known at one address: its name (the analyst's and the engine's), containing procedure, comment, inline comment, bookmark " +
			"and source line (DWARF, inlined calls innermost first). " +
			"A facet the provider cannot answer is reported with status unavailable and a reason, never as an error.",
		Input: core.InputSchema([]string{"address"}, addressProp, documentProp),
		Result: withDefs(`{"type":"object","additionalProperties":false,"required":["document","address","store","facets"],"properties":{"document":{"type":"string"},"address":{"$ref":"#/$defs/hex"},
  "store":{"enum":["rea-overlay","engine"]},
  "facets":{"type":"object","additionalProperties":false,"required":["name","procedure","comment","inline_comment","bookmark","source"],
   "properties":{"name":` + facetSchema + `,"procedure":` + facetSchema + `,"comment":` + facetSchema + `,"inline_comment":` + facetSchema + `,"bookmark":` + facetSchema + `,"source":` + facetSchema + `}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"main"}`), json.RawMessage(`{"address":"0x401000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[AddressInput](c)
			if err != nil {
				return nil, err
			}
			v, st, _, doc, addr, err := atAddress(ctx, c, in.Address, in.Document)
			if err != nil {
				return nil, err
			}
			var facets AddressFacets
			engine := v.engineName(addr)
			analyst, hasAnalyst, nameErr := st.get(ctx, ports.AnnotationName, addr)
			_, noNames := v.err["names"]
			_, noProcs := v.err["procedures"]
			switch {
			case nameErr != nil:
				facets.Name = unavailable[AddressNames](nameErr.Error())
			case noNames && noProcs && !hasAnalyst:
				facets.Name = unavailable[AddressNames]("the provider lists neither names nor procedures")
			default:
				names := &AddressNames{EngineName: core.OptString(engine), AnalystName: orNil(analyst, hasAnalyst)}
				switch {
				case hasAnalyst:
					names.Name = &analyst
				case engine != "":
					names.Name = &engine
				}
				facets.Name = available(names)
			}
			if noProcs {
				facets.Procedure = unavailable[ProcedureRef](v.err["procedures"])
			} else {
				facets.Procedure = available(procedureAt(v, st.ov, addr))
			}
			for _, k := range []ports.AnnotationKind{ports.AnnotationComment, ports.AnnotationInlineComment, ports.AnnotationBookmark} {
				text, ok, err := st.get(ctx, k, addr)
				if k == ports.AnnotationBookmark {
					switch {
					case err != nil:
						facets.Bookmark = unavailable[BookmarkName](err.Error())
					case !ok:
						facets.Bookmark = available[BookmarkName](nil)
					default:
						facets.Bookmark = available(&BookmarkName{Name: text})
					}
					continue
				}
				f := available(orNil(text, ok))
				if err != nil {
					f = unavailable[string](err.Error())
				}
				if k == ports.AnnotationComment {
					facets.Comment = f
				} else {
					facets.InlineComment = f
				}
			}
			if facets.Source, err = sourceFacet(ctx, c, addr); err != nil {
				return nil, err
			}
			return &AddressContextResult{Document: doc, Address: core.Hex(addr), Store: st.name(), Facets: facets}, nil
		},
	}
}

// orNil is &s, or nil when !ok.
func orNil(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// mutation builds the observation of annotation changes.
func mutation(doc string, st *store, changes []AnnotationChange, addrs []uint64) *core.Observation {
	locs := make([]core.Location, 0, len(addrs))
	for _, a := range addrs {
		locs = append(locs, core.Location{Kind: "address", Address: core.Hex(a)})
	}
	lims := []string{"This record documents an analyst's annotation, not an observation of the artifact; the target's bytes are unchanged."}
	name := st.name()
	if len(changes) > 0 {
		name = st.nameOf(changes[0].Kind) // one kind per call
	}
	if name == storeOverlay {
		lim := "rea keeps this annotation in its overlay of the session's mutation records; export a bundle to keep it, and import it to restore it."
		if st.engine != nil {
			lim = "The engine does not keep this kind of annotation: " + lim
		}
		lims = append(lims, lim)
	}
	return &core.Observation{Result: AnnotationMutation{Document: doc, Store: name, Changes: changes},
		Predicate: Predicate, Authority: "analyst-inference", Confidence: core.ConfidenceObserved, Limitations: lims, Locations: locs}
}

func opSetAddressName() *core.Operation {
	return &core.Operation{
		Name: "set_address_name", Title: "Set Address Name", Kind: core.KindOfficialProxy, Effects: annotateEffects, NeedsTarget: true,
		Description: "Name an address (a procedure or any mapped address). Later results (list_procedures, list_names, address_name, call graphs, analyze_function dossiers) show the new name, " +
			"keeping the engine's: list_procedures keeps it in symbol, and a limitation of each result lists the names replaced. Recorded as mutation Evidence (predicate rea.annotation-mutation) that travels in bundles.",
		Input:    core.InputSchema([]string{"address", "name"}, addressProp, nameProp, documentProp),
		Result:   json.RawMessage(mutationResultSchema),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"helper","name":"scale_banner"}`), json.RawMessage(`{"address":"0x401000","name":"check_license"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[SetAddressNameInput](c)
			if err != nil {
				return nil, err
			}
			return setNames(ctx, c, in.Document, []nameChange{{in.Address, in.Name, []any{"address"}, []any{"name"}}})
		},
	}
}

func opSetAddressesNames() *core.Operation {
	return &core.Operation{
		Name: "set_addresses_names", Title: "Set Addresses Names", Kind: core.KindOfficialProxy, Effects: annotateEffects, NeedsTarget: true,
		Description: "Name several addresses at once ({address: name}); all names are checked first (mapped addresses, valid and distinct names, no collision with another address's name) and either all are set or none.",
		Input: core.InputSchema([]string{"names"}, `"names": {"type":"object","minProperties":1,"maxProperties":1000,"propertyNames":{"minLength":1,"maxLength":4096},
  "additionalProperties":{"type":"string","minLength":1,"maxLength":255},"description":"Map of address (0x hex, decimal or a name) to its new name.","examples":[{"0x401000":"check_license"}]}`, documentProp),
		Result:   json.RawMessage(mutationResultSchema),
		Examples: []json.RawMessage{json.RawMessage(`{"names":{"helper":"scale_banner"}}`), json.RawMessage(`{"names":{"0x401000":"check_license","0x401020":"parse_key"}}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[SetAddressesNamesInput](c)
			if err != nil {
				return nil, err
			}
			var ch []nameChange
			for _, k := range slices.Sorted(maps.Keys(in.Names)) {
				ch = append(ch, nameChange{k, in.Names[k], []any{"names", k}, []any{"names", k}})
			}
			return setNames(ctx, c, in.Document, ch)
		},
	}
}

type nameChange struct {
	address, name      string
	addrPath, namePath []any
}

func setNames(ctx context.Context, c *core.Call, document string, req []nameChange) (any, error) {
	v, st, _, cur, err := begin(ctx, c)
	if err != nil {
		return nil, err
	}
	doc, err := documentArg(c, v, cur, document)
	if err != nil {
		return nil, err
	}
	addrs := make([]uint64, len(req))
	taken := map[string]uint64{}
	for i, r := range req {
		if addrs[i], err = resolveAddress(ctx, c.Op.Name, v, st.ov, r.address, r.addrPath); err != nil {
			return nil, err
		}
		if err := checkText(c.Op.Name, ports.AnnotationName, r.name, r.namePath); err != nil {
			return nil, err
		}
		if other, dup := taken[r.name]; dup && other != addrs[i] {
			return nil, collision(c.Op.Name, r.name, other, r.namePath)
		}
		for j := 0; j < i; j++ {
			if addrs[j] == addrs[i] {
				return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: r.addrPath, Reason: core.ReasonInvalidValue, Message: "this address is named twice in one request"})
			}
		}
		taken[r.name] = addrs[i]
	}
	// A name another address has (the engine's or an analyst's, unless
	// this request renames that address too) collides.
	renamed := map[uint64]bool{}
	for _, a := range addrs {
		renamed[a] = true
	}
	for i, r := range req {
		if other, ok := v.byName[r.name]; ok && other != addrs[i] {
			return nil, collision(c.Op.Name, r.name, other, r.namePath) // the engine's name stays resolvable
		}
		if other, ok := codeloc.SyntheticAddress(r.name); ok && other != addrs[i] {
			return nil, collision(c.Op.Name, r.name, other, r.namePath) // sub_<hex> (FUN_, fcn.) keeps naming its address
		}
		for k, e := range st.ov.entries {
			if k.kind == ports.AnnotationName && e.value == r.name && k.addr != addrs[i] && !renamed[k.addr] {
				return nil, collision(c.Op.Name, r.name, k.addr, r.namePath)
			}
		}
	}
	changes := make([]AnnotationChange, 0, len(req))
	for i, r := range req {
		name := r.name
		ch, err := st.set(ctx, ports.AnnotationName, addrs[i], &name, req[i].addrPath)
		if err != nil {
			return nil, err // the engine refused one: earlier ones of this batch stand in the engine, and are not recorded
		}
		changes = append(changes, ch)
	}
	return mutation(doc, st, changes, addrs), nil
}

func collision(op, name string, other uint64, path []any) error {
	return &core.Error{Code: core.CodeInvalidRequest,
		Message:     fmt.Sprintf("%s: the name %q is already the name of %s", op, name, core.Hex(other)),
		Remediation: "Choose a name no other address has (list_names, list_procedures), or rename that address first.",
		Details: map[string]any{"operation": op, "reason": "name_collision", "name": name, "address": core.Hex(other),
			"issues": []core.Issue{{Path: path, Reason: core.ReasonInvalidValue, Message: "the name of " + core.Hex(other)}}}}
}

func opSetComment(name string, kind ports.AnnotationKind) *core.Operation {
	title, where := "Set Comment", "on the line before"
	if kind == ports.AnnotationInlineComment {
		title, where = "Set Inline Comment", "at the end of the line of"
	}
	return &core.Operation{
		Name: name, Title: title, Kind: core.KindOfficialProxy, Effects: annotateEffects, NeedsTarget: true,
		Description: "Set the comment " + where + " an address, replacing any there. Empty or white-space-only comments and comments over 4096 characters are refused. " +
			"Recorded as mutation Evidence (predicate rea.annotation-mutation) that travels in bundles; inspect_address_context and " + string(kind) + " read it back.",
		Input:    core.InputSchema([]string{"address", "comment"}, addressProp, commentProp, documentProp),
		Result:   json.RawMessage(mutationResultSchema),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"main","comment":"prints the banner"}`), json.RawMessage(`{"address":"0x401000","comment":"checks the licence key"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[SetCommentInput](c)
			if err != nil {
				return nil, err
			}
			return setOne(ctx, c, in.Address, in.Document, kind, &in.Comment, "comment")
		},
	}
}

// setOne sets (text non-nil) or removes one annotation at the address
// argument (address, in document).
func setOne(ctx context.Context, c *core.Call, address, document string, kind ports.AnnotationKind, text *string, textArg string) (any, error) {
	_, st, _, doc, addr, err := atAddress(ctx, c, address, document)
	if err != nil {
		return nil, err
	}
	if text != nil {
		if err := checkText(c.Op.Name, kind, *text, []any{textArg}); err != nil {
			return nil, err
		}
	}
	ch, err := st.set(ctx, kind, addr, text, []any{"address"})
	if err != nil {
		return nil, err
	}
	return mutation(doc, st, []AnnotationChange{ch}, []uint64{addr}), nil
}

func opSetBookmark() *core.Operation {
	return &core.Operation{
		Name: "set_bookmark", Title: "Set Bookmark", Kind: core.KindOfficialProxy, Effects: annotateEffects, NeedsTarget: true,
		Description: "Bookmark an address, with an optional name (replacing the name of a bookmark already there). list_bookmarks lists them; unset_bookmark removes one.",
		Input:       core.InputSchema([]string{"address"}, addressProp, `"name": {"type":"string","maxLength":4096,"default":"","description":"The bookmark's name; empty by default."}`, documentProp),
		Result:      json.RawMessage(mutationResultSchema),
		Examples:    []json.RawMessage{json.RawMessage(`{"address":"main","name":"start here"}`), json.RawMessage(`{"address":"0x401000","name":"licence check"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[SetBookmarkInput](c)
			if err != nil {
				return nil, err
			}
			return setOne(ctx, c, in.Address, in.Document, ports.AnnotationBookmark, &in.Name, "name")
		},
	}
}

func opUnsetBookmark() *core.Operation {
	return &core.Operation{
		Name: "unset_bookmark", Title: "Unset Bookmark", Kind: core.KindOfficialProxy, Effects: discardEffects, NeedsTarget: true,
		Description: "Remove the bookmark at an address. Removing a bookmark that is not there (a second removal) is invalid_request with reason annotation_absent and changes nothing.",
		Input:       core.InputSchema([]string{"address"}, addressProp, documentProp),
		Result:      json.RawMessage(mutationResultSchema),
		Examples:    []json.RawMessage{json.RawMessage(`{"address":"main"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[AddressInput](c)
			if err != nil {
				return nil, err
			}
			return setOne(ctx, c, in.Address, in.Document, ports.AnnotationBookmark, nil, "")
		},
	}
}

func opListBookmarks() *core.Operation {
	return &core.Operation{
		Name: "list_bookmarks", Title: "List Bookmarks", Kind: core.KindOfficialProxy, Effects: readEffects, NeedsTarget: true,
		Description: "List the bookmarks of the target sorted by address, each with its name and containing procedure.",
		Input:       core.InputSchema(nil, documentProp),
		Result: withDefs(`{"type":"object","additionalProperties":false,"required":["document","store","items","total"],"properties":{"document":{"type":"string"},"store":{"enum":["rea-overlay","engine"]},"total":{"type":"integer","minimum":0},
  "items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["address","name","procedure"],
   "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"procedure":{"anyOf":[{"type":"null"},` + procRefSchema + `]}}}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[DocumentInput](c)
			if err != nil {
				return nil, err
			}
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur, in.Document)
			if err != nil {
				return nil, err
			}
			l, err := st.list(ctx, ports.AnnotationBookmark)
			if err != nil {
				return nil, err
			}
			items := make([]Bookmark, len(l))
			var lims []string
			for i, b := range l {
				items[i] = Bookmark{Address: core.Hex(b.Address), Name: b.Text, Procedure: procedureAt(v, st.ov, b.Address)}
				if n := st.setAsideNote(ports.AnnotationBookmark, b.Address); n != "" {
					lims = append(lims, n)
				}
			}
			return &core.Observation{Result: &ListBookmarksResult{Document: doc, Store: st.nameOf(ports.AnnotationBookmark), Items: items, Total: len(items)},
				Limitations: lims}, nil
		},
	}
}

func opReadComment(name string, kind ports.AnnotationKind) *core.Operation {
	title := "Comment"
	if kind == ports.AnnotationInlineComment {
		title = "Inline Comment"
	}
	return &core.Operation{
		Name: name, Title: title, Kind: core.KindOfficialProxy, Effects: readEffects, NeedsTarget: true,
		Description: "The " + map[bool]string{true: "inline comment", false: "comment"}[kind == ports.AnnotationInlineComment] + " at an address (the cursor's by default), or null when there is none.",
		Input:       core.InputSchema(nil, optionalAddressProp, documentProp),
		Result: withDefs(`{"type":"object","additionalProperties":false,"required":["document","address","comment","store"],"properties":{"document":{"type":"string"},"address":{"$ref":"#/$defs/hex"},
  "comment":{"type":["string","null"]},"store":{"enum":["rea-overlay","engine"]}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"main"}`), json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[CommentInput](c)
			if err != nil {
				return nil, err
			}
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur, in.Document)
			if err != nil {
				return nil, err
			}
			addr, err := addressArgOrCursor(ctx, c, v, st, cur, in.Address)
			if err != nil {
				return nil, err
			}
			text, ok, err := st.get(ctx, kind, addr)
			if err != nil {
				return nil, err
			}
			var lims []string
			if n := st.setAsideNote(kind, addr); n != "" {
				lims = append(lims, n)
			}
			return &core.Observation{Result: &CommentResult{Document: doc, Address: core.Hex(addr), Comment: orNil(text, ok), Store: st.nameOf(kind)},
				Locations: addrLocation(addr), Limitations: lims}, nil
		},
	}
}
