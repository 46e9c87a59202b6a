package binary

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"rea/ports"

	"rea/core"
	"rea/core/codeloc"
)

// Paging defaults for list operations.
const (
	defaultPageLimit = 100
	maxPageLimit     = 500
)

func nativeOperations() []*core.Operation {
	return []*core.Operation{
		opListDocuments(), opListSegments(), opListProcedures(), opListNames(), opListStrings(),
		opSearchProcedures(), opSearchStrings(), opProcedureAddress(), opAddressName(), opBinaryOverview(),
	}
}

var listEffects = core.Effects{MutatesSession: true, Idempotent: true}

const pageProps = `"offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Index of the first item to return."},
  "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 100, "description": "Maximum number of items to return (1-500)."}`

const documentProp = `"document": {"type": "string", "minLength": 1, "description": "Document name from list_documents; defaults to the current document."}`

// pageRequired and pageResultProps are the paging fields of a result (a
// Page's, beside its items): every paged result schema, pageSchema's and
// those that carry more than a page, spells them the same way.
const (
	pageRequired    = `"offset","limit","total","next_offset","has_more"`
	pageResultProps = `"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1},
  "total":{"type":"integer","minimum":0},"next_offset":{"type":["integer","null"]},"has_more":{"type":"boolean"}`
)

// pageSchema is the result schema of an offset-paginated list.
func pageSchema(item string) json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["items",` + pageRequired + `],
 "properties":{"items":{"type":"array","items":` + item + `},` + pageResultProps + `}}`)
}

// Page is an offset page with an exact total.
type Page[T any] struct {
	Items      []T  `json:"items"`
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Total      int  `json:"total"`
	NextOffset *int `json:"next_offset"`
	HasMore    bool `json:"has_more"`
}

// pageOf pages all like paginate and converts only the page's items.
func pageOf[T, U any](all []T, offset, limit int, conv func(T) U) Page[U] {
	p := paginate(all, offset, limit)
	out := Page[U]{Offset: p.Offset, Limit: p.Limit, Total: p.Total, NextOffset: p.NextOffset, HasMore: p.HasMore, Items: make([]U, len(p.Items))}
	for i, v := range p.Items {
		out.Items[i] = conv(v)
	}
	return out
}

// pastEnd is the limitation of a page whose offset (argument arg) is past
// the last of total items (what), as inventory_artifact's is: how many
// there are and which offset to pass. It is nil for any other page.
func pastEnd(arg string, offset, total, limit int, what string) []string {
	if offset == 0 || offset < total {
		return nil
	}
	if total == 0 {
		return []string{fmt.Sprintf("%s %d is past the end: there are no %s; pass %[1]s 0 (or omit it).", arg, offset, what)}
	}
	return []string{fmt.Sprintf("%[1]s %[2]d is past the end: there are %[3]d %[4]s (offsets 0 to %[5]d); pass %[1]s 0 for the first page, or %[1]s %[6]d for the last page of %[7]d.",
		arg, offset, total, what, total-1, max(total-limit, 0), limit)}
}

func paginate[T any](all []T, offset, limit int) Page[T] {
	p := Page[T]{Offset: offset, Limit: limit, Total: len(all), Items: []T{}}
	if offset < len(all) {
		end := min(len(all), offset+limit)
		p.Items = all[offset:end]
		if end < len(all) {
			n := end
			p.NextOffset, p.HasMore = &n, true
		}
	}
	return p
}

// deref is *p, or def when p is nil.
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// analysisFor returns the bound analysis as the capability T.
func analysisFor[T any](c *core.Call) (T, error) {
	var zero T
	a, _, _ := c.Bound()
	v, ok := a.(T)
	if !ok {
		return zero, &core.Error{Code: core.CodeCapabilityUnavailable, Message: c.Op.Name + ": the bound provider does not offer it",
			Details: map[string]any{"operation": c.Op.Name, "reason": "missing_capability"}}
	}
	return v, nil
}

// checkDocument rejects a document name (the "document" argument, empty
// when absent) the analysis does not have.
func checkDocument(ctx context.Context, c *core.Call, name string) error {
	if name == "" {
		return nil
	}
	docs, err := documents(ctx, c)
	if err != nil {
		return err
	}
	for i, d := range docs {
		if d.Name == name {
			if i != 0 {
				return &core.Error{Code: core.CodeCapabilityUnavailable, Message: fmt.Sprintf("%s: document %q is not the current document; this provider analyzes %q", c.Op.Name, name, docs[0].Name),
					Details: map[string]any{"operation": c.Op.Name, "reason": "document_not_current"}}
			}
			return nil
		}
	}
	return core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"document"}, Reason: core.ReasonInvalidValue, Message: "unknown document " + name})
}

func documents(ctx context.Context, c *core.Call) ([]ports.Document, error) {
	if dl, ok := func() (ports.DocumentLister, bool) {
		a, _, _ := c.Bound()
		v, ok := a.(ports.DocumentLister)
		return v, ok
	}(); ok {
		docs, err := dl.Documents(ctx)
		if err != nil {
			return nil, err
		}
		_, _, t := c.Bound()
		return contentNamed(docs, core.NewSubject(t.Path, "", "", "").Name), nil
	}
	_, _, t := c.Bound()
	return []ports.Document{{Name: t.Format, Format: t.Format, Architecture: t.Architecture}}, nil
}

// contentNamed renames documents an engine named after the file (base, or
// base#slice) by their format instead, so that results naming a document
// are the same for the same bytes at any path (an Evidence ID must not
// depend on where the file was).
func contentNamed(docs []ports.Document, base string) []ports.Document {
	out := make([]ports.Document, len(docs))
	for i, d := range docs {
		switch {
		case base != "" && d.Name == base:
			d.Name = d.Format
		case base != "" && strings.HasPrefix(d.Name, base+"#"):
			d.Name = d.Format + strings.TrimPrefix(d.Name, base)
		}
		out[i] = d
	}
	return out
}

func opListDocuments() *core.Operation {
	return &core.Operation{
		Name: "list_documents", Title: "List Documents", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapDocuments},
		Description: "List the analysable documents of the open target (one for a thin binary, one per slice of a universal Mach-O) with format, architecture and entry point.",
		Input:       core.InputSchema(nil),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["items","total"],"properties":{"total":{"type":"integer"},
 "items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["name","format","architecture","entry","current"],
 "properties":{"name":{"type":"string"},"format":{"type":"string"},"architecture":{"type":["string","null"]},"entry":{"type":["string","null"]},"current":{"type":"boolean"}}}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			docs, err := documents(ctx, c)
			if err != nil {
				return nil, err
			}
			out := &ListDocumentsResult{Items: make([]ListDocumentsResultItem, len(docs)), Total: len(docs)}
			for i, d := range docs {
				out.Items[i] = ListDocumentsResultItem{Name: d.Name, Format: d.Format, Architecture: core.OptString(d.Architecture), Current: i == 0}
				if d.HasEntry {
					h := core.Hex(d.Entry)
					out.Items[i].Entry = &h
				}
			}
			return &core.Observation{Result: out}, nil
		},
	}
}

const segmentItemSchema = `{"type":"object","additionalProperties":false,"required":["name","kind","start","end","length","file_offset","file_size","permissions"],
 "properties":{"name":{"type":"string"},"kind":{"enum":["section","segment"]},"start":{"$ref":"#/$defs/hex"},"end":{"$ref":"#/$defs/hex"},"length":{"$ref":"#/$defs/hex"},
  "file_offset":{"$ref":"#/$defs/hex"},"file_size":{"$ref":"#/$defs/hex"},
  "permissions":{"type":"object","additionalProperties":false,"required":["read","write","execute"],"properties":{"read":{"type":"boolean"},"write":{"type":"boolean"},"execute":{"type":"boolean"}}}}}`

const hexDef = `"$defs":{"hex":{"type":"string","pattern":"^0x(0|[1-9a-f][0-9a-f]{0,15})$"}}`

func segmentItems(segs []ports.Segment) []ListSegmentsResultItem {
	out := make([]ListSegmentsResultItem, len(segs))
	for i, s := range segs {
		out[i] = ListSegmentsResultItem{Name: s.Name, Kind: s.Kind, Start: core.Hex(s.Start), End: core.Hex(s.Start + s.Size), Length: core.Hex(s.Size),
			FileOffset: core.Hex(s.FileOffset), FileSize: core.Hex(s.FileSize), Permissions: ListSegmentsResultItemPermissions{s.Perms.Read, s.Perms.Write, s.Perms.Execute}}
	}
	return out
}

// listedSegments is what list_segments (and binary_overview) lists: the
// sections and, of an analysis that offers them, the load segments, which
// read_bytes and the other address tools name when they map an address no
// section holds (the ELF header at an image's first address). Each load
// segment comes just before the first mapped section at or above its start,
// so that a segment heads the sections it holds, and one that starts above
// every mapped section comes after the last; the sections keep the engine's
// order. A file without sections, whose segment list already holds its load
// segments, lists each once.
func listedSegments(ctx context.Context, c *core.Call) ([]ports.Segment, error) {
	sl, err := analysisFor[ports.SegmentLister](c)
	if err != nil {
		return nil, err
	}
	segs, err := sl.Segments(ctx)
	if err != nil {
		return nil, err
	}
	ll, err := analysisFor[loadSegmentLister](c)
	if err != nil {
		return segs, nil // an engine without load segments lists what it has
	}
	loads, err := ll.LoadSegments(ctx)
	if err != nil {
		return nil, err
	}
	return withLoads(segs, loads), nil
}

// withLoads places loads among segs as listedSegments says; segs is shared
// (ports.SegmentLister) and is not modified.
func withLoads(segs, loads []ports.Segment) []ports.Segment {
	listed := map[ports.Segment]bool{} // the load segments segs already holds (a set: both can be long in a hostile file)
	for _, s := range segs {
		if s.Kind != "section" {
			listed[s] = true
		}
	}
	var extra []ports.Segment
	for _, l := range loads {
		if !listed[l] {
			extra = append(extra, l)
		}
	}
	if len(extra) == 0 {
		return segs
	}
	slices.SortStableFunc(extra, func(a, b ports.Segment) int { return cmp.Compare(a.Start, b.Start) })
	mapped := func(s ports.Segment) bool { return s.Start != 0 || s.Perms.Read || s.Perms.Execute } // as ports.Holding
	last := -1
	for i, s := range segs {
		if mapped(s) {
			last = i
		}
	}
	out := make([]ports.Segment, 0, len(segs)+len(extra))
	for i, s := range segs {
		for mapped(s) && len(extra) > 0 && extra[0].Start <= s.Start {
			out, extra = append(out, extra[0]), extra[1:]
		}
		out = append(out, s)
		if i == last {
			out, extra = append(out, extra...), nil
		}
	}
	return append(out, extra...)
}

func opListSegments() *core.Operation {
	return &core.Operation{
		Name: "list_segments", Title: "List Segments", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapSegments},
		Description: "List every section and load segment (kind segment, before the sections it holds) with start, end, length, file offset, file size and permissions. Addresses are 0x hex.",
		Input:       core.InputSchema(nil, documentProp),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["items","total"],"properties":{"total":{"type":"integer"},
 "items":{"type":"array","items":` + segmentItemSchema + `}},` + hexDef + `}`),
		Examples: []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ListSegmentsInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			segs, err := listedSegments(ctx, c)
			if err != nil {
				return nil, err
			}
			return &core.Observation{Result: &ListSegmentsResult{Items: segmentItems(segs), Total: len(segs)}}, nil
		},
	}
}

const procedureItemSchema = `{"type":"object","additionalProperties":false,"required":["address","value","symbol","size","source","procedure"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"value":{"type":"string","description":"The procedure's name, or sub_<address> when it has none."},
  "symbol":{"type":["string","null"]},"size":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"source":{"type":"string"},
  "procedure":{"type":"object","additionalProperties":false,"required":["external","thunk","thunk_target"],
   "properties":{"external":{"type":"boolean"},"thunk":{"type":"boolean"},"thunk_target":{"type":["string","null"]},
    "ifunc_resolver":{"const":true,"description":"An IFUNC's resolver: the implementation is chosen at load time."}}},
  "demangled":{"type":"string","description":"The C++ or Rust name demangled; absent when the name is not mangled."},` + procedurePartsSchema + `}}`

func procedureItemOf(p ports.Procedure) ProcedureSummary {
	it := plainProcedureItem(p)
	if d, ok := demangled(p.Name); ok {
		it.Demangled = &d
	}
	return it
}

// plainProcedureItem is procedureItemOf without the demangled name, which
// costs microseconds a name: a search over every procedure demangles only
// the page it returns.
func plainProcedureItem(p ports.Procedure) ProcedureSummary {
	it := ProcedureSummary{Address: core.Hex(p.Address), Value: p.Name, Source: p.Source,
		Procedure: ListProceduresResultItemProcedure{External: p.External, Thunk: p.Thunk, ThunkTarget: core.OptString(p.ThunkTarget), IFuncResolver: p.IFunc}}
	if p.Name == "" {
		it.Value = fmt.Sprintf("sub_%x", p.Address)
	} else {
		it.Symbol = core.OptString(p.Name)
	}
	if p.Size > 0 {
		h := core.Hex(p.Size)
		it.Size = &h
	}
	return it
}

func procedures(ctx context.Context, c *core.Call) ([]ports.Procedure, error) {
	pl, err := analysisFor[ports.ProcedureLister](c)
	if err != nil {
		return nil, err
	}
	return pl.Procedures(ctx)
}

func opListProcedures() *core.Operation {
	return &core.Operation{
		Name: "list_procedures", Title: "List Procedures", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures},
		Description: "List known procedures sorted by address, a page at a time with an exact total: symbol-table and dynamic-symbol functions, the entry point, " +
			"synthesized PLT stubs (name@plt) and other discovered starts.",
		Input:    core.InputSchema(nil, documentProp, pageProps),
		Result:   withHexDefs(procedurePageSchema()),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"offset":100,"limit":50}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ListProceduresInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			procs, err := procedures(ctx, c)
			if err != nil {
				return nil, err
			}
			parts, err := procedureParts(ctx, c)
			if err != nil {
				return nil, err
			}
			byProc := partsByProcedure(parts)
			an := namerOf(ctx, c)
			page := pageOf(procs, deref(in.Offset, 0), deref(in.Limit, defaultPageLimit), func(p ports.Procedure) ProcedureSummary {
				return withParts(an.item(procedureItemOf(p), p.Address), byProc[p.Address])
			})
			return &core.Observation{Result: ListProceduresResult{Items: page.Items, Offset: page.Offset, Limit: page.Limit, Total: page.Total,
				NextOffset: page.NextOffset, HasMore: page.HasMore, ProcedureList: listComplete},
				Limitations: pastEnd("offset", page.Offset, page.Total, page.Limit, "procedures")}, nil
		},
	}
}

func withHexDefs(schema json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(schema))
	return json.RawMessage(s[:len(s)-1] + `,` + hexDef + `}`)
}

const nameItemSchema = `{"type":"object","additionalProperties":false,"required":["address","name","kind"],"properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"kind":{"type":"string"},"library":{"type":"string","description":"An import's DLL, dylib or versioned .so, when the binary names it."}}}`

// nameItemOf is a name's list item.
func nameItemOf(n ports.Name) ListNamesResultItem {
	return ListNamesResultItem{core.Hex(n.Address), n.Name, n.Kind, n.Library}
}

func names(ctx context.Context, c *core.Call) ([]ports.Name, error) {
	nl, err := analysisFor[ports.NameLister](c)
	if err != nil {
		return nil, err
	}
	return nl.Names(ctx)
}

func opListNames() *core.Operation {
	return &core.Operation{
		Name: "list_names", Title: "List Names", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapNames},
		Description: "List labels (function, object and import names) sorted by address, a page at a time with an exact total; with address, only the names at that address.",
		Input:       core.InputSchema(nil, documentProp, `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"Only names at this address (0x hex, decimal, or a name).","examples":["0x401000"]}`, pageProps),
		Result:      withHexDefs(pageSchema(nameItemSchema)),
		Examples:    []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"address":"0x401000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ListNamesInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			all, err := names(ctx, c)
			if err != nil {
				return nil, err
			}
			var at uint64
			var loc []core.Location
			if in.Address != "" {
				if at, err = locationArg(ctx, c, "address", in.Address); err != nil {
					return nil, err
				}
				loc = addressLocation(at) // also when no name is there
			}
			items := []ListNamesResultItem{}
			an := withAnalystNames(namerOf(ctx, c), all)
			for _, n := range an {
				if in.Address == "" || n.Address == at {
					items = append(items, nameItemOf(n))
				}
			}
			page := paginate(items, deref(in.Offset, 0), deref(in.Limit, defaultPageLimit))
			return &core.Observation{Result: page, Locations: loc, Limitations: pastEnd("offset", page.Offset, page.Total, page.Limit, "names")}, nil
		},
	}
}

const stringItemSchema = `{"type":"object","additionalProperties":false,"required":["address","value","charset","byte_length","truncated","file_offset","section"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"value":{"type":"string"},"charset":{"enum":["ascii","utf-16le"]},"byte_length":{"type":"integer","minimum":0},
  "truncated":{"type":"boolean","description":"value was cut at the provider's maximum string length; byte_length is the full length."},"file_offset":{"$ref":"#/$defs/hex"},"section":{"type":"string"}}}`

func stringItemOf(s ports.String) StringSummary {
	return StringSummary{core.Hex(s.Address), s.Value, s.Charset, s.ByteLength, s.Truncated, core.Hex(s.FileOffset), s.Section}
}

// stringsPage returns strings [offset, offset+limit) and how many there
// are, through ports.StringPager when the engine offers it (a large binary
// lists millions of strings; only the page is built), else by slicing the
// whole list.
func stringsPage(ctx context.Context, c *core.Call, offset, limit int, minChars *int) ([]ports.String, int, error) {
	sl, err := stringLister(c, minChars)
	if err != nil {
		return nil, 0, err
	}
	if p, ok := sl.(ports.StringPager); ok {
		return p.StringsPage(ctx, offset, limit)
	}
	all, err := sl.Strings(ctx)
	if err != nil {
		return nil, 0, err
	}
	lo := min(max(offset, 0), len(all))
	return all[lo:min(lo+max(limit, 0), len(all))], len(all), nil
}

// pendingStrings is a page of strings being listed by a goroutine of its
// own, or, when the provider does not page strings, listed by wait.
type pendingStrings struct {
	done   chan struct{} // closed when strs, n and err are set; nil: list in wait
	cancel context.CancelFunc
	strs   []ports.String
	n      int
	err    error
	list   func() ([]ports.String, int, error)
}

// startStringsPage starts listing a page of strings as stringsPage would.
func startStringsPage(ctx context.Context, c *core.Call, offset, limit int) *pendingStrings {
	a, _, _ := c.Bound()
	pager, ok := a.(ports.StringPager)
	if _, lists := a.(ports.StringLister); !ok || !lists {
		return &pendingStrings{list: func() ([]ports.String, int, error) { return stringsPage(ctx, c, offset, limit, nil) }}
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &pendingStrings{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		p.strs, p.n, p.err = pager.StringsPage(ctx, offset, limit)
	}()
	return p
}

// wait returns the page.
func (p *pendingStrings) wait() ([]ports.String, int, error) {
	if p.done == nil {
		return p.list()
	}
	<-p.done
	return p.strs, p.n, p.err
}

// stop cancels the listing, if it runs, and waits for it to end.
func (p *pendingStrings) stop() {
	if p.done != nil {
		p.cancel()
		<-p.done
	}
}

func stringsOf(ctx context.Context, c *core.Call, minChars *int) ([]ports.String, error) {
	sl, err := stringLister(c, minChars)
	if err != nil {
		return nil, err
	}
	return sl.Strings(ctx)
}

// minCharsProp is the string tools' argument for the shortest string
// listed or searched: the provider's option of that name (its profile's
// parameter, 4 in rea-native's default), taken for one call.
const minCharsProp = `"min_string_chars": {"type":"integer","minimum":2,"maximum":16,"description":"Shortest string searched (default 4)."}`

// minStringLister is a provider whose strings can be listed at another
// shortest length than its profile's min_string_chars (rea-native's).
type minStringLister interface {
	StringsMinChars(minChars int) ports.StringLister
}

// stringLister is the bound analysis's strings list, of at least minChars
// characters when that is set.
func stringLister(c *core.Call, minChars *int) (ports.StringLister, error) {
	sl, err := analysisFor[ports.StringLister](c)
	if err != nil || minChars == nil {
		return sl, err
	}
	if m, ok := sl.(minStringLister); ok {
		return m.StringsMinChars(*minChars), nil
	}
	return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"min_string_chars"}, Reason: core.ReasonInvalidValue,
		Message: "this provider lists strings of one shortest length only (min_string_chars in analysis_profile.parameters); omit min_string_chars"})
}

// profileMinChars is the bound profile's min_string_chars (0 when it names
// none).
func profileMinChars(a ports.Analysis) int {
	switch v := a.Profile().Parameters["min_string_chars"].(type) {
	case int:
		return v
	case float64: // a profile read back from JSON
		return int(v)
	}
	return 0
}

// ownStrings makes obs honest about strings listed at this call's
// min_string_chars rather than the profile's: the bound analysis_profile
// did not produce them, so the record names the bound profile with this
// min_string_chars, and says so. A call without the argument, or with the
// profile's own value, keeps the profile (and its evidence ID).
func ownStrings(c *core.Call, obs *core.Observation, minChars *int) *core.Observation {
	a, b, _ := c.Bound()
	if minChars == nil || a == nil || b == nil {
		return obs
	}
	least := profileMinChars(a)
	if *minChars == least {
		return obs
	}
	pp, info := a.Profile(), b.Provider.Info()
	params := maps.Clone(pp.Parameters)
	if params == nil {
		params = map[string]any{}
	}
	params["min_string_chars"] = *minChars
	prof, err := core.NewProfile(core.ProfileProvider{ID: info.ID, Name: info.Name, Version: a.Version()}, max(pp.SchemaVersion, 1), params)
	if err != nil { // not expected: the bound profile's own parameters passed the same check
		v := a.Version()
		obs.Provider = &core.ProviderRef{ID: info.ID, Name: info.Name, Version: &v}
		obs.Limitations = append(obs.Limitations, fmt.Sprintf("analysis_profile is null: these strings were listed at min_string_chars %d, not at the bound profile's %d.", *minChars, least))
		return obs
	}
	obs.Profile = prof
	obs.Limitations = append(obs.Limitations, fmt.Sprintf("Listed at min_string_chars %d, not at the bound analysis profile's %d: analysis_profile names the parameters that produced these strings.", *minChars, least))
	return obs
}

func opListStrings() *core.Operation {
	return &core.Operation{
		Name: "list_strings", Title: "List Strings", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapStrings},
		Description: "List ASCII and UTF-16LE strings found in data sections, sorted by address, with charset, byte length and truncation facts; a page at a time with an exact total.",
		Input:       core.InputSchema(nil, documentProp, `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"Only the string starting at this address (0x hex, decimal, or a name)."}`, pageProps, minCharsProp),
		Result:      withHexDefs(pageSchema(stringItemSchema)),
		Examples:    []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"offset":0,"limit":20}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ListStringsInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			offset, limit := deref(in.Offset, 0), deref(in.Limit, defaultPageLimit)
			if in.Address == "" && in.MinStringChars != nil {
				// this call's list, scanned afresh, not the session's
				all, err := stringsOf(ctx, c, in.MinStringChars)
				if err != nil {
					return nil, err
				}
				return ownStrings(c, &core.Observation{Result: pageOf(all, offset, limit, stringItemOf), Limitations: pastEnd("offset", offset, len(all), limit, "strings")}, in.MinStringChars), nil
			}
			if in.Address == "" {
				page, total, err := stringsPage(ctx, c, offset, limit, nil)
				if err != nil {
					return nil, err
				}
				p := Page[StringSummary]{Offset: offset, Limit: limit, Total: total, Items: make([]StringSummary, len(page))}
				for i, s := range page {
					p.Items[i] = stringItemOf(s)
				}
				if end := offset + len(page); offset < total && end < total {
					p.NextOffset, p.HasMore = &end, true
				}
				return &core.Observation{Result: p, Limitations: pastEnd("offset", offset, total, limit, "strings")}, nil
			}
			all, err := stringsOf(ctx, c, in.MinStringChars)
			if err != nil {
				return nil, err
			}
			at, err := locationArg(ctx, c, "address", in.Address)
			if err != nil {
				return nil, err
			}
			// Filter and page the engine's records first and convert only the
			// page: a large binary lists millions of strings.
			var kept []ports.String
			var inside *ports.String // the nearest string starting before at that holds it
			for i, s := range all {
				if s.Address == at {
					kept = append(kept, s)
				} else if s.Address < at && at-s.Address < uint64(s.ByteLength) {
					inside = &all[i]
				}
			}
			lim := pastEnd("offset", offset, len(kept), limit, "strings at "+in.Address)
			switch {
			case len(kept) == 0 && inside != nil:
				lim = append(lim, fmt.Sprintf("No listed string starts at %s (%s): it is %s into the %s string at %s (%s, %d bytes); pass address %s to list that string.",
					core.Hex(at), in.Address, bytesIn(at-inside.Address), inside.Charset, core.Hex(inside.Address), quoteShort(inside.Value), inside.ByteLength, core.Hex(inside.Address)))
			case len(kept) == 0:
				// an address in code, or in no listed string: say so rather than list nothing
				lim = append(lim, fmt.Sprintf("No listed string starts at %s (%s); search_strings finds a string by its text, and min_string_chars lowers the shortest length listed.",
					core.Hex(at), in.Address))
			}
			return ownStrings(c, &core.Observation{Result: pageOf(kept, offset, limit, stringItemOf), Locations: addressLocation(at), Limitations: lim}, in.MinStringChars), nil
		},
	}
}

// bytesIn is "1 byte" or "N bytes".
func bytesIn(n uint64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// quoteShort quotes v for a message, cut to its first 40 characters.
func quoteShort(v string) string {
	if r := []rune(v); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "..."
	}
	return strconv.Quote(v)
}

const searchProps = `"pattern": {"type":"string","minLength":1,"maxLength":4096,"description":"Text to look for; a regular expression (RE2 syntax) when mode is regex.","examples":["main"]},
  "mode": {"enum":["substring","exact","prefix","regex"],"default":"substring","description":"How pattern matches."},
  "case_sensitive": {"type":"boolean","default":false,"description":"Match case exactly."}`

// matcher compiles the search arguments.
func matcher(c *core.Call, in SearchProceduresInput) (func(string) bool, error) {
	pat, mode, cs := in.Pattern, in.Mode, deref(in.CaseSensitive, false)
	if mode == "regex" {
		expr := pat
		if !cs {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"pattern"}, Reason: core.ReasonInvalidFormat, Message: err.Error()})
		}
		return re.MatchString, nil
	}
	norm := func(s string) string { return s }
	if !cs {
		norm = strings.ToLower
	}
	p := norm(pat)
	switch mode {
	case "exact":
		return func(s string) bool { return norm(s) == p }, nil
	case "prefix":
		return func(s string) bool { return strings.HasPrefix(norm(s), p) }, nil
	}
	return func(s string) bool { return strings.Contains(norm(s), p) }, nil
}

func opSearchProcedures() *core.Operation {
	return &core.Operation{
		Name: "search_procedures", Title: "Search Procedures", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapProcedures},
		Description: "Find procedures whose name matches a pattern (substring, exact, prefix or regex; case-insensitive by default), sorted by address, paged with an exact total.",
		Input:       core.InputSchema([]string{"pattern"}, documentProp, searchProps, pageProps),
		Result:      withHexDefs(pageSchema(procedureItemSchema)),
		Examples:    []json.RawMessage{json.RawMessage(`{"pattern":"main"}`), json.RawMessage(`{"pattern":"^str","mode":"regex","case_sensitive":true}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[SearchProceduresInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			match, err := matcher(c, in)
			if err != nil {
				return nil, err
			}
			procs, err := procedures(ctx, c)
			if err != nil {
				return nil, err
			}
			items := []ProcedureSummary{}
			an := namerOf(ctx, c)
			qualified := qualifiedShape(in.Pattern)
			var names []string // the procedures' engine names, parallel to items
			for _, p := range procs {
				it := plainProcedureItem(p)
				if name, ok := an.names[p.Address]; ok && (match(name) || match(it.Value)) {
					it = an.item(it, p.Address) // found by either name, shown by the analyst's
					items, names = append(items, it), append(names, p.Name)
					continue
				}
				if match(it.Value) || qualified && demangledMatches(p.Name, match) {
					items, names = append(items, it), append(names, p.Name)
				}
			}
			page := paginate(items, deref(in.Offset, 0), deref(in.Limit, defaultPageLimit))
			for j := range page.Items {
				if d, ok := demangled(names[page.Offset+j]); ok {
					page.Items[j].Demangled = &d
				}
			}
			return &core.Observation{Result: page, Limitations: pastEnd("offset", page.Offset, page.Total, page.Limit, "matching procedures")}, nil
		},
	}
}

func opSearchStrings() *core.Operation {
	return &core.Operation{
		Name: "search_strings", Title: "Search Strings", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapStrings},
		Description: "Find strings whose value matches a pattern (substring, exact, prefix or regex; case-insensitive by default), sorted by address, paged with an exact total.",
		Input:       core.InputSchema([]string{"pattern"}, documentProp, searchProps, pageProps, minCharsProp),
		Result:      withHexDefs(pageSchema(stringItemSchema)),
		Examples:    []json.RawMessage{json.RawMessage(`{"pattern":"usage"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[SearchStringsInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			match, err := matcher(c, SearchProceduresInput{Pattern: in.Pattern, Mode: in.Mode, CaseSensitive: in.CaseSensitive})
			if err != nil {
				return nil, err
			}
			all, err := stringsOf(ctx, c, in.MinStringChars)
			if err != nil {
				return nil, err
			}
			items := []StringSummary{}
			for _, s := range all {
				// A literal whose value is capped for display (a script
				// embedded as one multi-line string) is searched whole.
				text, err := wholeText(ctx, c, s)
				if err != nil {
					return nil, err
				}
				if match(text) {
					items = append(items, stringItemOf(s))
				}
			}
			page := paginate(items, deref(in.Offset, 0), deref(in.Limit, defaultPageLimit))
			lim := pastEnd("offset", page.Offset, page.Total, page.Limit, "matching strings")
			if page.Total == 0 && in.Mode != "regex" { // a regex's length is not a literal's
				lim = append(lim, shortQueryNote(c, "pattern", in.Pattern, in.MinStringChars)...)
			}
			return ownStrings(c, &core.Observation{Result: page, Limitations: lim}, in.MinStringChars), nil
		},
	}
}

func opProcedureAddress() *core.Operation {
	return &core.Operation{
		Name: "procedure_address", Title: "Procedure Address", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapProcedures},
		Description: "Resolve a procedure name (exact, case-sensitive) to its address. Every procedure with that name is listed in matches. An engine's made-up name (sub_, FUN_ or fcn. and hex) names the procedure starting there.",
		Input:       core.InputSchema([]string{"procedure"}, documentProp, `"procedure": {"type":"string","minLength":1,"description":"Exact procedure name, e.g. main or printf@plt.","examples":["main"]}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["procedure","address","matches"],
 "properties":{"procedure":{"type":"string"},"address":{"$ref":"#/$defs/hex"},"matches":{"type":"array","items":{"$ref":"#/$defs/hex"}},
  "resolved_from":{"type":"string","description":"The made-up name given, when procedure is the name of the procedure starting at its address."}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ProcedureAddressInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			name := in.Procedure
			procs, err := procedures(ctx, c)
			if err != nil {
				return nil, err
			}
			var matches []string
			var shownNames, renames []string // renames: the analyst's names of procedures the engine calls name
			an := namerOf(ctx, c)
			for _, p := range procs {
				engine := procedureItemOf(p).Value
				shown, renamed := an.names[p.Address]
				if !renamed {
					shown = engine
				} else if engine == name {
					renames = append(renames, shown)
				}
				shownNames = append(shownNames, shown)
				if shown == name {
					if renamed {
						an.item(procedureItemOf(p), p.Address) // notes the engine's name
					}
					matches = append(matches, core.Hex(p.Address))
				}
			}
			at, synthetic := codeloc.SyntheticAddress(name)
			if len(matches) == 0 && synthetic { // another engine's name of the procedure at an address
				for i, p := range procs {
					if p.Address == at {
						loc := []core.Location{{Kind: "address", Address: core.Hex(at)}}
						return &core.Observation{Result: &ProcedureAddressResult{Procedure: shownNames[i], Address: core.Hex(at), Matches: []string{core.Hex(at)},
							ResolvedFrom: name}, Locations: loc}, nil
					}
				}
			}
			if len(matches) == 0 {
				// Only names this tool takes are suggested: an import's label
				// (puts, the GOT slot of puts@plt) is no procedure's name.
				sugs := renames
				if p, ok := codeloc.NearestProcedure(procs, at); synthetic && ok {
					for i := range procs {
						if procs[i].Address == p.Address {
							sugs = []string{shownNames[i]} // no procedure starts there: the one nearest
							break
						}
					}
				}
				if len(sugs) == 0 {
					sugs = codeloc.Suggest(shownNames, name)
				}
				return nil, codeloc.UnknownName(c.Op.Name, []any{"procedure"}, name, "procedure", "a procedure's name (list_procedures)", sugs[:min(len(sugs), 3)])
			}
			loc := []core.Location{{Kind: "address", Address: matches[0]}}
			return &core.Observation{Result: &ProcedureAddressResult{Procedure: name, Address: matches[0], Matches: matches}, Locations: loc}, nil
		},
	}
}

func opAddressName() *core.Operation {
	return &core.Operation{
		Name: "address_name", Title: "Address Name", Kind: core.KindOfficialProxy, Effects: listEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapNames},
		Description: "Return the name at an address, or null when the address has no label.",
		Input:       core.InputSchema(nil, documentProp, optionalAddressProp),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["address","name","names"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":["string","null"]},"names":{"type":"array","items":{"type":"string"}}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"main"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[AddressNameInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			at, err := defaultAddress(ctx, c, in.Address, nil)
			if err != nil {
				return nil, err
			}
			all, err := names(ctx, c)
			if err != nil {
				return nil, err
			}
			all = withAnalystNames(namerOf(ctx, c), all)
			i := sort.Search(len(all), func(i int) bool { return all[i].Address >= at })
			found := []string{}
			for ; i < len(all) && all[i].Address == at; i++ {
				found = append(found, all[i].Name)
			}
			out := &AddressNameResult{Address: core.Hex(at), Names: found}
			if len(found) > 0 {
				out.Name = &found[0]
			}
			return &core.Observation{Result: out,
				Locations: []core.Location{{Kind: "address", Address: core.Hex(at)}}}, nil
		},
	}
}

func opBinaryOverview() *core.Operation {
	return &core.Operation{
		Name: "binary_overview", Title: "Binary Overview", Kind: core.KindEnhanced, Effects: listEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapDocuments, core.CapSegments, core.CapProcedures, core.CapStrings},
		Description: "Overview of the open target composed from list_documents, list_segments, list_procedures and list_strings: counts, segments, and (detailed) " +
			"the first procedures and strings. " +
			"It answers at once: on a target with much code the procedures are those known from symbol and unwind tables (procedure_list \"tables\") " +
			"while whole-file discovery runs in the background; list_procedures waits for it. " +
			"stripped: the file keeps no static symbol table (.symtab), only dynamic symbols; debug_info: it keeps DWARF; " +
			"debug_link: the separate debug file it names (.gnu_debuglink, a PE's CodeView PDB), not necessarily read.",
		Input: core.InputSchema(nil, `"detail": {"enum":["concise","detailed"],"default":"concise","description":"concise: counts and the first 64 segments; detailed: also the first procedures and strings."}`,
			`"limit": {"type":"integer","minimum":1,"maximum":50,"default":10,"description":"How many procedures and strings a detailed overview samples (1-50)."}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["detail","document","format","architecture","entry","procedure_count","procedure_list","segment_count","string_count","name_count","stripped","debug_info","debug_link","segments","procedures","strings"],
 "properties":{"detail":{"enum":["concise","detailed"]},"document":{"type":"string"},"format":{"type":"string"},"architecture":{"type":["string","null"]},
  "entry":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},
  "procedure_count":{"type":"integer"},"procedure_list":` + procedureListSchema + `,
  "segment_count":{"type":"integer"},"string_count":{"type":"integer"},"name_count":{"type":["integer","null"]},
  "stripped":{"type":["boolean","null"]},"debug_info":{"type":["boolean","null"]},"debug_link":{"type":["string","null"]},
  "segments":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["name","start","end","length"],
   "properties":{"name":{"type":"string"},"start":{"$ref":"#/$defs/hex"},"end":{"$ref":"#/$defs/hex"},"length":{"$ref":"#/$defs/hex"}}}},
  "procedures":{"type":"array","items":` + procedureItemSchema + `},
  "strings":{"type":"array","items":` + stringItemSchema + `}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"detail":"detailed","limit":5}`)},
		Handler:  handleBinaryOverview,
	}
}

// overviewSegments is how many segments an overview lists: every one of
// an ordinary executable's, while a relocatable object built with
// -ffunction-sections (thousands of .text.* sections) or a hostile file
// does not bury the overview's counts in rows. segment_count counts
// them all; list_segments lists them.
const overviewSegments = 64

func handleBinaryOverview(ctx context.Context, c *core.Call) (any, error) {
	docs, err := documents(ctx, c)
	if err != nil {
		return nil, err
	}
	// A provider that pages strings scans them while the segments and
	// procedures are listed (the scan is the longest part on a big binary).
	strs := startStringsPage(ctx, c, 0, 50) // the most a detailed overview samples
	defer strs.stop()
	c.Observe("listing segments")
	segs, err := listedSegments(ctx, c)
	if err != nil {
		return nil, err
	}
	c.Observe(fmt.Sprintf("%d segments; listing procedures", len(segs)))
	procs, listed, err := earlyProcedures(ctx, c)
	if err != nil {
		return nil, err
	}
	c.Observe(fmt.Sprintf("%d procedures (%s); listing strings", len(procs), listed))
	strList, stringCount, err := strs.wait()
	if err != nil {
		return nil, err
	}
	c.Observe(fmt.Sprintf("%d strings", stringCount))
	var nameCount *int
	var stripped, debugInfo *bool
	var debugLink *string
	var limitations []string
	if a, _, _ := c.Bound(); a != nil {
		if sr, ok := a.(ports.StripReporter); ok {
			st, err := sr.Stripping(ctx)
			switch {
			case err == nil:
				stripped, debugInfo = new(!st.StaticSymbols), new(st.DebugInfo)
				if st.DebugLink != "" {
					debugLink = new(st.DebugLink)
				}
				if !st.StaticSymbols {
					limitations = append(limitations, strippedNote(st))
				}
			case !errors.Is(err, ports.ErrUnsupported):
				return nil, err
			}
		}
		if nl, ok := a.(ports.NameLister); ok {
			ns, err := nl.Names(ctx)
			if err != nil {
				return nil, err
			}
			n := len(ns)
			nameCount = &n
		} else {
			limitations = append(limitations, "The provider does not list names; name_count is null.")
		}
	}
	in, err := core.Input[OverviewInput](c)
	if err != nil {
		return nil, err
	}
	detail, limit := in.Detail, cmp.Or(in.Limit, 10)
	// The segments are address ranges: a section the file holds but never
	// loads (ELF's .symtab, .comment; at 0 granting no access, as
	// ports.Holding reads it) would show over the first load segment.
	segOut := make([]OverviewSegment, 0, len(segs))
	var unmapped []string
	for _, s := range segs {
		if s.Start == 0 && !s.Perms.Read && !s.Perms.Execute {
			unmapped = append(unmapped, s.Name)
			continue
		}
		segOut = append(segOut, OverviewSegment{Name: s.Name, Start: core.Hex(s.Start), End: core.Hex(s.Start + s.Size), Length: core.Hex(s.Size)})
	}
	if n := len(segOut); n > overviewSegments {
		segOut = segOut[:overviewSegments:overviewSegments]
		limitations = append(limitations, fmt.Sprintf("segments holds the first %d of %d loaded segments and sections; list_segments lists every one.", overviewSegments, n))
	}
	if n := len(unmapped); n > 0 {
		named := strings.Join(unmapped[:min(n, 8)], ", ")
		if n > 8 {
			named += fmt.Sprintf(" and %d more", n-8)
		}
		limitations = append(limitations, fmt.Sprintf("%d sections not loaded in memory (%s) are left out of segments (segment_count counts them); list_segments lists them with their file offsets.", n, named))
	}
	procOut, strOut := []ProcedureSummary{}, []StringSummary{}
	if detail == "detailed" {
		an := namerOf(ctx, c)
		for _, p := range procs[:min(limit, len(procs))] {
			procOut = append(procOut, an.item(procedureItemOf(p), p.Address))
		}
		for _, s := range strList[:min(limit, len(strList))] {
			strOut = append(strOut, stringItemOf(s))
		}
	}
	d := docs[0]
	var entry *string
	if d.HasEntry {
		h := core.Hex(d.Entry)
		entry = &h
	}
	if len(docs) > 1 {
		limitations = append(limitations, fmt.Sprintf("The target has %d documents; this overview covers %s.", len(docs), d.Name))
	}
	ifuncs := 0
	for _, p := range procs {
		if p.IFunc {
			ifuncs++
		}
	}
	if ifuncs > 0 {
		limitations = append(limitations, fmt.Sprintf("%d of the procedures are GNU IFUNC resolvers (procedure.ifunc_resolver): each is the code that chooses "+
			"its name's implementation at load time, not that implementation.", ifuncs))
	}
	return &core.Observation{Result: &Overview{
		Detail: detail, Document: d.Name, Format: d.Format, Architecture: core.OptString(d.Architecture), Entry: entry,
		ProcedureCount: len(procs), ProcedureList: listed, SegmentCount: len(segs), StringCount: stringCount, NameCount: nameCount,
		Stripped: stripped, DebugInfo: debugInfo, DebugLink: debugLink, Segments: segOut, Procedures: procOut, Strings: strOut,
	}, Limitations: limitations}, nil
}

// strippedNote says what a stripped file lacks and how its procedures
// are then named.
func strippedNote(st ports.Stripping) string {
	lacks := "no static symbol table, no debug information"
	switch {
	case st.DebugInfo:
		lacks = "no static symbol table, though it keeps debug information"
	case st.DebugLink != "":
		lacks = fmt.Sprintf("no static symbol table; no debug information in the file, which names the separate debug file %q", st.DebugLink)
	}
	return "The file is stripped (" + lacks + "): a procedure without a dynamic symbol or export is named only where the provider inferred " +
		"its name (a separate debug file, a signature library, main from the entry point), else sub_<address>."
}
