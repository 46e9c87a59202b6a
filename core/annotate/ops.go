package annotate

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"rea/core"
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
	addressProp         = `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"Address as 0x hex or decimal, or a name (an analyst's, a procedure's, a label's, or sub_<hex>); it must lie in a segment.","examples":["0x401000"]}`
	optionalAddressProp = `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"Address as 0x hex or decimal, or a name; defaults to the cursor's address.","examples":["0x401000"]}`
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
	cs := cursorsOf(c)
	return v, st, cs, cs.current(c, v), nil
}

// documentArg validates the optional document argument against the target.
// atAddress opens a call that works at the "address" argument: the view,
// the store, the cursor position, the document and the resolved address.
func atAddress(ctx context.Context, c *core.Call) (*view, *store, position, string, uint64, error) {
	v, st, _, cur, err := begin(ctx, c)
	if err != nil {
		return nil, nil, cur, "", 0, err
	}
	doc, err := documentArg(c, v, cur)
	if err != nil {
		return nil, nil, cur, "", 0, err
	}
	s, _ := core.StringArg(c.Args, "address")
	addr, err := resolveAddress(c.Op.Name, v, st.ov, s, []any{"address"})
	if err != nil {
		return nil, nil, cur, "", 0, err
	}
	return v, st, cur, doc, addr, nil
}

func documentArg(c *core.Call, v *view, cur position) (string, error) {
	name, ok := core.StringArg(c.Args, "document")
	return v.document(c.Op.Name, name, ok, cur.document)
}

// addressArgOrCursor reads the address argument, or the cursor's.
func addressArgOrCursor(c *core.Call, v *view, st *store, cur position) (uint64, error) {
	s, ok := core.StringArg(c.Args, "address")
	if !ok {
		if cur.address == nil {
			return 0, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"address"}, Reason: core.ReasonMissingArgument,
				Message: "the cursor has no address; pass address or call goto_address first"})
		}
		return *cur.address, nil
	}
	return resolveAddress(c.Op.Name, v, st.ov, s, []any{"address"})
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
			v, st, cs, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur)
			if err != nil {
				return nil, err
			}
			s, _ := core.StringArg(c.Args, "address")
			addr, err := resolveAddress(c.Op.Name, v, st.ov, s, []any{"address"})
			if err != nil {
				return nil, err
			}
			cs.move(c, position{document: doc, address: &addr})
			return &core.Observation{Result: map[string]any{"document": doc, "address": core.Hex(addr), "procedure": nullable(procedureAt(v, st.ov, addr)),
				"previous_address": addrOrNull(cur.address)}, Locations: addrLocation(addr)}, nil
		},
	}
}

func nullable(p *ProcedureRef) any {
	if p == nil {
		return nil
	}
	return p
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
			v, _, cs, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur)
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
			return &core.Observation{Result: map[string]any{"document": doc, "previous_document": cur.document, "address": addrOrNull(p.address)}}, nil
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
			return &core.Observation{Result: map[string]any{"document": cur.document}}, nil
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
			v, _, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur)
			if err != nil {
				return nil, err
			}
			p := cur
			if doc != cur.document {
				p = initialPosition(v, doc)
			}
			return &core.Observation{Result: map[string]any{"document": doc, "address": addrOrNull(p.address)}}, nil
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
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur)
			if err != nil {
				return nil, err
			}
			var proc any
			if cur.address != nil {
				proc = nullable(procedureAt(v, st.ov, *cur.address))
			}
			return &core.Observation{Result: map[string]any{"document": doc, "address": addrOrNull(cur.address), "procedure": proc}}, nil
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
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			name, explicit := core.StringArg(c.Args, "document")
			doc, err := v.document(c.Op.Name, name, explicit, cur.document)
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
			var proc any
			if _, missing := v.err["procedures"]; !missing && p.address != nil {
				proc = nullable(procedureAt(v, st.ov, *p.address))
			}
			modes := []map[string]any{{"mode": "current_selection", "available": true, "reason": nil}, {"mode": "explicit_document", "available": true, "reason": nil}}
			return map[string]any{"mode": mode, "modes": modes, "document": doc, "address": addrOrNull(p.address), "procedure": proc, "store": st.name()}, nil
		},
	}
}

// facet is one inspect_address_context outcome.
func available(v any) map[string]any {
	return map[string]any{"status": "available", "value": v, "reason": nil}
}
func unavailable(reason string) map[string]any {
	return map[string]any{"status": "unavailable", "value": nil, "reason": reason}
}

const facetSchema = `{"type":"object","additionalProperties":false,"required":["status","value","reason"],"properties":{"status":{"enum":["available","unavailable"]},"value":{},"reason":{"type":["string","null"]}}}`

func opInspectAddressContext() *core.Operation {
	return &core.Operation{
		Name: "inspect_address_context", Title: "Inspect Address Context", Kind: core.KindSession, RequiresSession: true, Effects: readEffects, NeedsTarget: true,
		Description: "Everything known at one address: its name (the analyst's and the engine's), containing procedure, comment, inline comment and bookmark. " +
			"A facet the provider cannot answer is reported with status unavailable and a reason, never as an error.",
		Input: core.InputSchema([]string{"address"}, addressProp, documentProp),
		Result: withDefs(`{"type":"object","additionalProperties":false,"required":["document","address","store","facets"],"properties":{"document":{"type":"string"},"address":{"$ref":"#/$defs/hex"},
  "store":{"enum":["rea-overlay","engine"]},
  "facets":{"type":"object","additionalProperties":false,"required":["name","procedure","comment","inline_comment","bookmark"],
   "properties":{"name":` + facetSchema + `,"procedure":` + facetSchema + `,"comment":` + facetSchema + `,"inline_comment":` + facetSchema + `,"bookmark":` + facetSchema + `}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"main"}`), json.RawMessage(`{"address":"0x401000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			v, st, _, doc, addr, err := atAddress(ctx, c)
			if err != nil {
				return nil, err
			}
			facets := map[string]any{}
			engine := v.engineName(addr)
			analyst, hasAnalyst, nameErr := st.get(ctx, ports.AnnotationName, addr)
			_, noNames := v.err["names"]
			_, noProcs := v.err["procedures"]
			switch {
			case nameErr != nil:
				facets["name"] = unavailable(nameErr.Error())
			case noNames && noProcs && !hasAnalyst:
				facets["name"] = unavailable("the provider lists neither names nor procedures")
			default:
				var name any
				switch {
				case hasAnalyst:
					name = analyst
				case engine != "":
					name = engine
				}
				facets["name"] = available(map[string]any{"name": name, "engine_name": core.OrNull(engine), "analyst_name": orNil(analyst, hasAnalyst)})
			}
			if noProcs {
				facets["procedure"] = unavailable(v.err["procedures"])
			} else {
				facets["procedure"] = available(nullable(procedureAt(v, st.ov, addr)))
			}
			for _, k := range []ports.AnnotationKind{ports.AnnotationComment, ports.AnnotationInlineComment, ports.AnnotationBookmark} {
				text, ok, err := st.get(ctx, k, addr)
				switch {
				case err != nil:
					facets[string(k)] = unavailable(err.Error())
				case !ok:
					facets[string(k)] = available(nil)
				case k == ports.AnnotationBookmark:
					facets[string(k)] = available(map[string]any{"name": text})
				default:
					facets[string(k)] = available(text)
				}
			}
			return map[string]any{"document": doc, "address": core.Hex(addr), "store": st.name(), "facets": facets}, nil
		},
	}
}

func orNil(s string, ok bool) any {
	if !ok {
		return nil
	}
	return s
}

// mutation builds the observation of annotation changes.
func mutation(doc string, st *store, changes []AnnotationChange, addrs []uint64) *core.Observation {
	locs := make([]core.Location, 0, len(addrs))
	for _, a := range addrs {
		locs = append(locs, core.Location{Kind: "address", Address: core.Hex(a)})
	}
	lims := []string{"This record documents an analyst's annotation, not an observation of the artifact; the target's bytes are unchanged."}
	if st.engine == nil {
		lims = append(lims, "rea keeps this annotation in its overlay of the session's mutation records; export a bundle to keep it, and import it to restore it.")
	}
	return &core.Observation{Result: AnnotationMutation{Document: doc, Store: st.name(), Changes: changes},
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
			name, _ := core.StringArg(c.Args, "name")
			addrArg, _ := core.StringArg(c.Args, "address")
			return setNames(ctx, c, []nameChange{{addrArg, name, []any{"address"}, []any{"name"}}})
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
			m, _ := c.Args["names"].(map[string]any)
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var ch []nameChange
			for _, k := range keys {
				n, _ := m[k].(string)
				ch = append(ch, nameChange{k, n, []any{"names", k}, []any{"names", k}})
			}
			return setNames(ctx, c, ch)
		},
	}
}

type nameChange struct {
	address, name      string
	addrPath, namePath []any
}

func setNames(ctx context.Context, c *core.Call, req []nameChange) (any, error) {
	v, st, _, cur, err := begin(ctx, c)
	if err != nil {
		return nil, err
	}
	doc, err := documentArg(c, v, cur)
	if err != nil {
		return nil, err
	}
	addrs := make([]uint64, len(req))
	taken := map[string]uint64{}
	for i, r := range req {
		if addrs[i], err = resolveAddress(c.Op.Name, v, st.ov, r.address, r.addrPath); err != nil {
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
		for k, e := range st.ov.entries {
			if k.kind == ports.AnnotationName && e.value == r.name && k.addr != addrs[i] && !renamed[k.addr] {
				return nil, collision(c.Op.Name, r.name, k.addr, r.namePath)
			}
		}
	}
	changes := make([]AnnotationChange, 0, len(req))
	for i, r := range req {
		name := r.name
		ch, err := st.set(ctx, ports.AnnotationName, addrs[i], &name)
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
			text, _ := core.StringArg(c.Args, "comment")
			return setOne(ctx, c, kind, &text, "comment")
		},
	}
}

// setOne sets (text non-nil) or removes one annotation at the address
// argument.
func setOne(ctx context.Context, c *core.Call, kind ports.AnnotationKind, text *string, textArg string) (any, error) {
	_, st, _, doc, addr, err := atAddress(ctx, c)
	if err != nil {
		return nil, err
	}
	if text != nil {
		if err := checkText(c.Op.Name, kind, *text, []any{textArg}); err != nil {
			return nil, err
		}
	}
	ch, err := st.set(ctx, kind, addr, text)
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
			name, _ := core.StringArg(c.Args, "name")
			return setOne(ctx, c, ports.AnnotationBookmark, &name, "name")
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
			return setOne(ctx, c, ports.AnnotationBookmark, nil, "")
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
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur)
			if err != nil {
				return nil, err
			}
			l, err := st.list(ctx, ports.AnnotationBookmark)
			if err != nil {
				return nil, err
			}
			items := make([]map[string]any, len(l))
			for i, b := range l {
				items[i] = map[string]any{"address": core.Hex(b.Address), "name": b.Text, "procedure": nullable(procedureAt(v, st.ov, b.Address))}
			}
			return &core.Observation{Result: map[string]any{"document": doc, "store": st.name(), "items": items, "total": len(items)}}, nil
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
			v, st, _, cur, err := begin(ctx, c)
			if err != nil {
				return nil, err
			}
			doc, err := documentArg(c, v, cur)
			if err != nil {
				return nil, err
			}
			addr, err := addressArgOrCursor(c, v, st, cur)
			if err != nil {
				return nil, err
			}
			text, ok, err := st.get(ctx, kind, addr)
			if err != nil {
				return nil, err
			}
			return &core.Observation{Result: map[string]any{"document": doc, "address": core.Hex(addr), "comment": orNil(text, ok), "store": st.name()},
				Locations: addrLocation(addr)}, nil
		},
	}
}
