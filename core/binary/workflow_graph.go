package binary

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"rea/core"
	"rea/core/codeloc"
	"rea/ports"
)

// Graph workflows composed from the code primitives: call graphs, call
// paths, and the searches that lead from a string or a name to code. Every
// walk is bounded (depth, nodes, operations) and says when it was cut. The
// advertised results are flat lists of nodes and edges, never recursive
// trees.

const graphNodeSchema = `{"type":"object","additionalProperties":false,"required":["address","name","depth","procedure","external","thunk","unresolved_calls","expanded"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"depth":{"type":"integer","minimum":0},"procedure":{"type":"boolean"},
  "external":{"type":"boolean"},"thunk":{"type":"boolean"},"unresolved_calls":{"type":"integer","minimum":0},
  "expanded":{"type":"boolean","description":"The node's own calls (or callers) were followed."}}}`

const graphEdgeSchema = `{"type":"object","additionalProperties":false,"required":["from","to","kind","call_sites"],
 "properties":{"from":{"$ref":"#/$defs/hex"},"to":{"$ref":"#/$defs/hex"},"kind":{"enum":["call","tail-call"]},"call_sites":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}`

// graph is a bounded call graph under construction.
type graph struct {
	v        *codeView
	nodes    []CallGraphNode
	edges    []CallGraphEdge
	index    map[uint64]int
	edgeKey  map[[2]uint64]int
	maxNodes int
	cut      bool
}

func newGraph(v *codeView, maxNodes int) *graph {
	return &graph{v: v, index: map[uint64]int{}, edgeKey: map[[2]uint64]int{}, maxNodes: maxNodes}
}

// node adds (or finds) the node at addr; false when the node cap is reached.
func (g *graph) node(addr uint64, depth int) (int, bool) {
	if k, ok := g.index[addr]; ok {
		return k, true
	}
	if len(g.nodes) >= g.maxNodes {
		g.cut = true
		return -1, false
	}
	n := CallGraphNode{Address: core.Hex(addr), Name: g.v.nameAt(addr), Depth: depth}
	if i, ok := g.v.startIndex(addr); ok {
		n.Procedure, n.External, n.Thunk, n.Name = true, g.v.procs[i].External, g.v.procs[i].Thunk, g.v.value(i)
	} else if imp := g.v.importAt(addr); imp != "" {
		n.External, n.Name = true, g.v.analyst.name(addr, imp)
	}
	if n.Name == "" {
		n.Name = fmt.Sprintf("sub_%x", addr)
	}
	g.index[addr] = len(g.nodes)
	g.nodes = append(g.nodes, n)
	return len(g.nodes) - 1, true
}

func (g *graph) edge(from, to uint64, kind string, sites []string) {
	key := [2]uint64{from, to}
	if k, ok := g.edgeKey[key]; ok {
		if kind == "call" {
			g.edges[k].Kind = "call"
		}
		for _, s := range sites {
			g.edges[k].CallSites = appendUnique(g.edges[k].CallSites, s)
		}
		return
	}
	g.edgeKey[key] = len(g.edges)
	g.edges = append(g.edges, CallGraphEdge{From: core.Hex(from), To: core.Hex(to), Kind: kind, CallSites: append([]string{}, sites...)})
}

// callStep is one neighbour of a procedure in a walk.
type callStep struct {
	addr  uint64
	kind  string
	sites []string
}

// neighbours lists the callees (forward) or callers (backward) of the
// procedure at addr, and how many of its transfers are unresolved.
func (v *codeView) neighbours(ctx context.Context, addr uint64, forward bool) ([]callStep, int, error) {
	i, ok := v.startIndex(addr)
	if !ok && (forward || v.importAt(addr) == "") {
		return nil, 0, nil // a target that is not a procedure start: a leaf
	}
	if !ok {
		i = -1 // an import's slot: its callers are the calls through it
	}
	var out []callStep
	if forward {
		cs, un, err := v.callees(ctx, i)
		if err != nil {
			return nil, 0, err
		}
		for _, c := range cs {
			a, _ := core.ParseHex(c.Address)
			out = append(out, callStep{a, c.Kind, c.CallSites})
		}
		return out, len(un), nil
	}
	cs, err := v.callersOf(ctx, addr, i)
	if err != nil {
		return nil, 0, err
	}
	for _, c := range cs {
		if c.Procedure == nil {
			continue
		}
		a, _ := core.ParseHex(c.Procedure.Address)
		out = append(out, callStep{a, c.Kind, c.CallSites})
	}
	return out, 0, nil
}

// walk expands the graph breadth-first from root to depth, within the
// operations budget (one per expanded node). It returns the parent of each
// node reached, for path reconstruction.
func (g *graph) walk(ctx context.Context, root uint64, depth int, forward bool, ops *int, stop func(uint64) bool) (map[uint64]uint64, bool, error) {
	parent := map[uint64]uint64{}
	if _, ok := g.node(root, 0); !ok {
		return parent, false, nil
	}
	frontier := []uint64{root}
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []uint64
		for _, addr := range frontier {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
			if *ops <= 0 {
				g.cut = true
				return parent, false, nil
			}
			*ops--
			steps, unresolved, err := g.v.neighbours(ctx, addr, forward)
			if err != nil {
				return nil, false, err
			}
			k := g.index[addr]
			g.nodes[k].Expanded, g.nodes[k].UnresolvedCalls = true, unresolved
			for _, s := range steps {
				_, seen := g.index[s.addr]
				if _, ok := g.node(s.addr, d+1); !ok {
					continue
				}
				if forward {
					g.edge(addr, s.addr, s.kind, s.sites)
				} else {
					g.edge(s.addr, addr, s.kind, s.sites)
				}
				if !seen {
					parent[s.addr] = addr
					if stop != nil && stop(s.addr) {
						return parent, true, nil
					}
					next = append(next, s.addr)
				}
			}
		}
		frontier = next
	}
	return parent, false, nil
}

func opGetCallGraph() *core.Operation {
	return &core.Operation{
		Name: "get_call_graph", Title: "Get Call Graph", Kind: core.KindEnhanced, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "The call graph around one procedure: forward follows calls and tail calls, backward follows callers. " +
			"Returned as flat node and edge lists, breadth-first, at most max_nodes nodes; nodes count their unresolved indirect calls.",
		Input: core.InputSchema([]string{"address"}, `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"The root procedure: an address (0x hex or decimal) or a name.","examples":["0x401000"]}`,
			`"depth": {"type":"integer","minimum":1,"maximum":5,"default":2,"description":"Levels to follow (1-5)."}`,
			`"direction": {"enum":["forward","backward"],"default":"forward","description":"forward: callees; backward: callers."}`,
			`"max_nodes": {"type":"integer","minimum":1,"maximum":500,"default":`+strconv.Itoa(defaultGraphNodes)+`,"description":"Nodes returned, nearest levels first (1-500); truncated says when the walk reached more."}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["root","direction","depth","nodes","edges","truncated"],
 "properties":{"root":` + procRefSchema + `,"direction":{"enum":["forward","backward"]},"depth":{"type":"integer"},
  "nodes":{"type":"array","items":` + graphNodeSchema + `},"edges":{"type":"array","items":` + graphEdgeSchema + `},"truncated":{"type":"boolean"}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"main"}`), json.RawMessage(`{"address":"0x401000","depth":3,"direction":"backward"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[CallGraphInput](c)
			if err != nil {
				return nil, err
			}
			v, err := codeViewOf(ctx, c, "")
			if err != nil {
				return nil, err
			}
			i, err := v.resolveValue(ctx, in.Address, []any{"address"})
			root, ref, loc := uint64(0), ProcedureRef{}, []core.Location(nil)
			if slot, ok := v.importArg(in.Address, err); ok {
				root, ref = slot, ProcedureRef{Address: core.Hex(slot), Name: v.analyst.name(slot, v.importAt(slot))}
			} else if err != nil {
				return nil, err
			} else {
				root, ref, loc = v.procs[i].Address, v.ref(i), rangeLocation(v.ranges[i])
			}
			dir, depth, maxNodes := in.Direction, cmp.Or(in.Depth, 2), cmp.Or(in.MaxNodes, defaultGraphNodes)
			g := newGraph(v, maxNodes)
			ops := 5000
			if _, _, err := g.walk(ctx, root, depth, dir != "backward", &ops, nil); err != nil {
				return nil, err
			}
			out := &CallGraph{Root: ref, Direction: dir, Depth: depth, Nodes: core.NonNil(g.nodes), Edges: core.NonNil(g.edges), Truncated: g.cut}
			var lim []string
			if dir == "backward" {
				if slots := v.pointerSlots(ctx, root); slots != "" {
					lim = append(lim, "The root's address is stored in data at "+slots+" (a function pointer, table or vtable slot): callers through it are not edges; xrefs on the root lists the slots.")
				}
			}
			if g.cut {
				next := "call again with a larger max_nodes (up to 500), a smaller depth, or get_call_graph rooted at an unexpanded node"
				if maxNodes >= 500 {
					next = "call get_call_graph rooted at an unexpanded node (expanded false), or with a smaller depth"
				}
				lim = append(lim, fmt.Sprintf("Truncated: the walk reached more than %d procedures (max_nodes) or 5000 expansions; nodes with expanded false were not followed. To see more, %s.", maxNodes, next))
			}
			return &core.Observation{Result: out, Limitations: lim, Locations: loc}, nil
		},
	}
}

// pointerSlots lists (at most eight of) the data slots that hold addr, or
// "" when none does or the provider finds no references.
func (v *codeView) pointerSlots(ctx context.Context, addr uint64) string {
	if v.xr == nil {
		return ""
	}
	refs, err := v.refsTo(ctx, addr, addr+1)
	if err != nil {
		return ""
	}
	var slots []string
	for _, r := range refs {
		if r.Kind == ports.RefPointer && len(slots) < 8 {
			slots = append(slots, core.Hex(r.From))
		}
	}
	return strings.Join(slots, ", ")
}

// storedInData says which of a backward walk's procedures (the first 32,
// at most 3 of them) have their address stored in data, where calls through
// a function pointer, table or vtable slot come from that are no edges.
func (v *codeView) storedInData(ctx context.Context, nodes []CallGraphNode) []string {
	var lim []string
	for i, n := range nodes {
		if i >= 32 || len(lim) >= 3 {
			break
		}
		addr, err := core.ParseHex(n.Address)
		if n.External || !n.Procedure || err != nil {
			continue
		}
		if slots := v.pointerSlots(ctx, addr); slots != "" {
			lim = append(lim, n.Name+"'s address is stored in data at "+slots+" (a function pointer, table or vtable slot): callers through it are not edges; xrefs on "+n.Name+" lists the slots.")
		}
	}
	return lim
}

// defaultGraphNodes bounds get_call_graph's default answer: 48 nodes and
// their edges stay near 20 KB.
const defaultGraphNodes = 48

func opFindXrefsToName() *core.Operation {
	return &core.Operation{
		Name: "find_xrefs_to_name", Title: "Find Cross-References To A Name", Kind: core.KindEnhanced, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "Every address carrying a name (a procedure, label or import; \"puts\" also matches puts@plt and versioned names) and every " +
			"reference to those addresses, with the referencing procedure. Every match is listed; the references, in the order of the address they reach, " +
			"a page at a time with an exact total.",
		Input: core.InputSchema([]string{"name"}, `"name": {"type":"string","minLength":1,"maxLength":4096,"description":"The exact name, e.g. printf, printf@plt or main.","examples":["printf"]}`,
			pageProps),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["name","matches","references",` + pageRequired + `],
 "properties":{"name":{"type":"string"},"matches":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["address","name","kind"],
   "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"kind":{"type":"string"},"library":{"type":"string"}}}},
  "references":{"type":"array","items":` + referenceItemSchema + `},` + pageResultProps + `}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"name":"printf"}`), json.RawMessage(`{"name":"printf","offset":100,"limit":100}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[FindXrefsToNameInput](c)
			if err != nil {
				return nil, err
			}
			v, err := codeViewOf(ctx, c, "")
			if err != nil {
				return nil, err
			}
			want := in.Name
			matches := []ListNamesResultItem{}
			addrs := map[uint64]bool{}
			same := func(n string) bool {
				base, _, _ := strings.Cut(n, "@")
				return n == want || (!strings.Contains(want, "@") && base == want)
			}
			for _, p := range v.procs {
				if p.Name != "" && same(p.Name) && !addrs[p.Address] {
					addrs[p.Address] = true
					matches = append(matches, ListNamesResultItem{Address: core.Hex(p.Address), Name: p.Name, Kind: "procedure"})
				}
			}
			for _, n := range v.names {
				if same(n.Name) && !addrs[n.Address] {
					addrs[n.Address] = true
					matches = append(matches, nameItemOf(n))
				}
			}
			// An analyst's name (set_address_name) names its address too.
			var named []uint64
			for a, n := range v.analyst.names {
				if n == want && !addrs[a] {
					named = append(named, a)
				}
			}
			slices.Sort(named)
			for _, a := range named {
				addrs[a] = true
				matches = append(matches, ListNamesResultItem{Address: core.Hex(a), Name: want, Kind: "analyst"})
			}
			if len(matches) == 0 {
				return nil, codeloc.UnknownName(c.Op.Name, []any{"name"}, want, "procedure, label or import", "a name from list_names or list_procedures", v.suggest(want))
			}
			var refs []ports.Reference
			keys := make([]uint64, 0, len(addrs))
			for a := range addrs {
				keys = append(keys, a)
			}
			sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
			for _, a := range keys {
				rs, err := v.refsTo(ctx, a, a+1)
				if err != nil {
					return nil, err
				}
				refs = append(refs, rs...)
			}
			page := pageOf(refs, deref(in.Offset, 0), deref(in.Limit, defaultPageLimit), v.referenceItemOf)
			return &core.Observation{Result: &FindXrefsToNameResult{Name: want, Matches: matches, References: page.Items, Offset: page.Offset,
				Limit: page.Limit, Total: page.Total, NextOffset: page.NextOffset, HasMore: page.HasMore},
				Limitations: pastEnd("offset", page.Offset, page.Total, page.Limit, "references")}, nil
		},
	}
}

const stringSearchProps = `"query": {"type":"string","minLength":1,"maxLength":4096,"description":"Text to look for inside string literals (substring).","examples":["usage"]},
  "case_sensitive": {"type":"boolean","default":false,"description":"Match case exactly."},
  "limit": {"type":"integer","minimum":1,"maximum":200,"default":20,"description":"Matching strings (or seeds) followed (1-200)."},
  "max_operations": {"type":"integer","minimum":1,"maximum":100000,"default":5000,"description":"Reference lookups and procedure expansions allowed (1-100000)."}`

const stringHitSchema = `{"type":"object","additionalProperties":false,"required":["string","references"],
 "properties":{"string":` + stringItemSchema + `,"references":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["from","kind","procedure"],
  "properties":{"from":{"$ref":"#/$defs/hex"},"kind":{"type":"string"},"procedure":{"anyOf":[{"type":"null"},` + procRefSchema + `]}}}}}}`

const codeUserSchema = `{"type":"object","additionalProperties":false,"required":["address","name","seeds","sites"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"seeds":{"type":"array","items":{"$ref":"#/$defs/hex"}},
  "sites":{"type":"array","items":{"$ref":"#/$defs/hex"}},"reference":{"enum":["direct","inside","via-data"]}}}`

// referenceRanks orders FindCodeForStringResultProcedure.Reference, most direct first.
var referenceRanks = map[string]int{"direct": 0, "inside": 1, "via-data": 2}

// maxWholeString bounds the bytes read to search a literal whose value the
// engine capped for display.
const maxWholeString = 64 << 20

// wholeMatch searches the whole bytes of a literal whose displayed value was
// capped (ports.String.Truncated): the display may be capped, the search may
// not.
func (v *codeView) wholeMatch(ctx context.Context, s ports.String, q string, norm func(string) string) (bool, error) {
	if !s.Truncated {
		return false, nil
	}
	text, err := wholeText(ctx, v.c, s)
	return err == nil && strings.Contains(norm(text), q), err
}

// wholeText is the whole text of a literal: its value, or, when the engine
// capped the value for display, its bytes read through the provider's
// ByteReader and decoded with its charset (the value again when they cannot
// be read). Only a cancelled context is an error.
func wholeText(ctx context.Context, c *core.Call, s ports.String) (string, error) {
	if !s.Truncated || s.ByteLength <= 0 {
		return s.Value, nil
	}
	a, _, _ := c.Bound()
	br, ok := a.(ports.ByteReader)
	if !ok {
		return s.Value, nil
	}
	b, err := br.ReadBytes(ctx, s.Address, min(s.ByteLength, maxWholeString))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return s.Value, nil // unreadable bytes: only the displayed value is searched
	}
	if s.Charset == "utf-16le" {
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		return string(utf16.Decode(u)), nil
	}
	return string(b), nil
}

// procsFor reports whether some user was found for seed.
func procsFor(byProc map[int]int, users []FindCodeForStringResultProcedure, seed string) bool {
	for _, u := range users {
		for _, sd := range u.Seeds {
			if sd == seed {
				return true
			}
		}
	}
	return false
}

// maxDataPointers bounds the data words dataPointers returns.
const maxDataPointers = 64

// dataPointers finds the aligned data words (outside executable sections)
// holding target as a little-endian pointer of the target's width. The
// section bytes are read once per call and kept in the view.
func (v *codeView) dataPointers(ctx context.Context, target uint64, ops *int) ([]uint64, error) {
	a, _, t := v.c.Bound()
	br, ok := a.(ports.ByteReader)
	sl, ok2 := a.(ports.SegmentLister)
	if !ok || !ok2 || t == nil {
		return nil, nil
	}
	width := 8
	switch t.Architecture {
	case "x86", "arm", "386", "i386":
		width = 4
	}
	if v.data == nil {
		segs, err := sl.Segments(ctx)
		if err != nil {
			return nil, nil
		}
		v.data = []dataSection{}
		for _, sg := range segs {
			if sg.Kind != "section" || sg.Perms.Execute || sg.FileSize == 0 {
				continue
			}
			if *ops <= 0 {
				break
			}
			*ops--
			b, err := br.ReadBytes(ctx, sg.Start, int(min(sg.FileSize, maxWholeString)))
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			v.data = append(v.data, dataSection{sg.Start, b})
		}
	}
	var out []uint64
	for _, d := range v.data {
		for off := (width - int(d.start%uint64(width))) % width; off+width <= len(d.bytes); off += width {
			var w uint64
			for k := width - 1; k >= 0; k-- {
				w = w<<8 | uint64(d.bytes[off+k])
			}
			if w == target {
				out = append(out, d.start+uint64(off))
				if len(out) >= maxDataPointers {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// dataSection is one non-executable section's file bytes.
type dataSection struct {
	start uint64
	bytes []byte
}

// searchStrings runs the string half of find_code_for_string and
// trace_feature: every literal containing the query (its whole bytes when
// its displayed value is capped), the code referencing each one, and the
// procedures holding that code, most direct first (see FindCodeForStringResultProcedure.Reference).
func (v *codeView) searchStrings(ctx context.Context, query string, cs bool, limit int, ops *int) ([]FindCodeForStringResultString, []FindCodeForStringResultProcedure, int, bool, error) {
	strs, err := v.stringsList(ctx)
	if err != nil {
		return nil, nil, 0, false, err
	}
	norm := strings.ToLower
	if cs {
		norm = func(s string) string { return s }
	}
	q := norm(query)
	hits := []FindCodeForStringResultString{}
	users := []FindCodeForStringResultProcedure{}
	byProc := map[int]int{}
	matched, cut := 0, false
	use := func(i int, seed, site, how string) {
		ref := v.ref(i)
		k, seen := byProc[i]
		if !seen {
			k = len(users)
			byProc[i] = k
			users = append(users, FindCodeForStringResultProcedure{Address: ref.Address, Name: ref.Name, Seeds: []string{}, Sites: []string{}, Reference: how})
		}
		if referenceRanks[how] < referenceRanks[users[k].Reference] {
			users[k].Reference = how
		}
		users[k].Seeds = appendUnique(users[k].Seeds, seed)
		users[k].Sites = appendUnique(users[k].Sites, site)
	}
	for _, s := range strs {
		if !strings.Contains(norm(s.Value), q) {
			ok, err := v.wholeMatch(ctx, s, q, norm)
			if err != nil {
				return nil, nil, 0, false, err
			}
			if !ok {
				continue
			}
		}
		matched++
		if len(hits) >= limit {
			cut = true
			continue
		}
		if *ops <= 0 {
			cut = true
			continue
		}
		*ops--
		refs, err := v.refsTo(ctx, s.Address, s.Address+uint64(max(s.ByteLength, 1)))
		if err != nil {
			return nil, nil, 0, false, err
		}
		seed := core.Hex(s.Address)
		h := FindCodeForStringResultString{String: stringItemOf(s), References: []FindCodeForStringResultStringReference{}}
		for _, r := range refs {
			site := FindCodeForStringResultStringReference{From: core.Hex(r.From), Kind: r.Kind}
			how := "inside"
			if r.To == s.Address {
				how = "direct"
			}
			if i, ok := v.containing(r.From); ok {
				ref := v.ref(i)
				site.Procedure = &ref
				use(i, seed, core.Hex(r.From), how)
			}
			h.References = append(h.References, site)
		}
		if len(users) == 0 || !procsFor(byProc, users, seed) {
			// No code loads the literal's address: look for data words
			// that hold it (a Go string header {pointer, length}), and the
			// code that loads those.
			// Two levels: a header in a table that a slice header or
			// pointer in data points at is still found.
			targets := []uint64{s.Address}
			for level := 0; level < 2 && len(targets) > 0 && !procsFor(byProc, users, seed); level++ {
				var next []uint64
				for _, tg := range targets {
					words, err := v.dataPointers(ctx, tg, ops)
					if err != nil {
						return nil, nil, 0, false, err
					}
					for _, at := range words {
						if *ops <= 0 {
							cut = true
							break
						}
						*ops--
						via, err := v.refsTo(ctx, at, at+1)
						if err != nil {
							return nil, nil, 0, false, err
						}
						for _, w := range via {
							if i, ok := v.containing(w.From); ok {
								use(i, seed, core.Hex(w.From), "via-data")
							}
						}
						next = append(next, at)
					}
				}
				targets = next
			}
		}
		hits = append(hits, h)
	}
	sort.SliceStable(users, func(i, j int) bool {
		return referenceRanks[users[i].Reference] < referenceRanks[users[j].Reference]
	})
	return hits, users, matched, cut, nil
}

func opFindCodeForString() *core.Operation {
	return &core.Operation{
		Name: "find_code_for_string", Title: "Find Code For String", Kind: core.KindEnhanced, Effects: traceEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences, core.CapStrings},
		Description: "From text to code: the string literals containing the query (their whole bytes, even where the displayed value is capped), " +
			"the instructions that reference each one, and the procedures holding those instructions (the place to continue with analyze_function), " +
			"most direct first: reference \"direct\" loads the literal's address, \"inside\" an address inside it, \"via-data\" a data word pointing at it.",
		Input: core.InputSchema([]string{"query"}, stringSearchProps, minCharsProp),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["query","case_sensitive","strings","procedures","matched_strings","truncated","operations"],
 "properties":{"query":{"type":"string"},"case_sensitive":{"type":"boolean"},"strings":{"type":"array","items":` + stringHitSchema + `},
  "procedures":{"type":"array","items":` + codeUserSchema + `},"matched_strings":{"type":"integer","minimum":0},"truncated":{"type":"boolean"},"operations":{"type":"integer","minimum":0}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"query":"usage"}`), json.RawMessage(`{"query":"Usage:","case_sensitive":true,"limit":5}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[FindCodeForStringInput](c)
			if err != nil {
				return nil, err
			}
			v, err := codeViewOf(ctx, c, "")
			if err != nil {
				return nil, err
			}
			if in.MinStringChars != nil { // this call's list, not the session's
				if v.strs, err = stringsOf(ctx, c, in.MinStringChars); err != nil {
					return nil, err
				}
				v.loaded = true
			}
			q, cs := in.Query, deref(in.CaseSensitive, false)
			budget := deref(in.MaxOperations, 5000)
			ops := budget
			hits, users, matched, cut, err := v.searchStrings(ctx, q, cs, deref(in.Limit, 20), &ops)
			if err != nil {
				return nil, err
			}
			var lim []string
			if cut {
				lim = append(lim, fmt.Sprintf("%d strings match; %d were followed (limit or max_operations).", matched, len(hits)))
			}
			if matched == 0 {
				lim = append(lim, shortQueryNote(c, "query", q, in.MinStringChars)...)
			}
			if len(hits) > 0 && len(users) == 0 {
				if len(archLimitations(ctx, c)) > 0 && !decodes(ctx, c) {
					lim = append(lim, "No procedure is listed for the matching strings because no instruction was decoded (see the unsupported architecture limitation), not because none uses them.")
				} else {
					lim = append(lim, "No instruction references the matching strings directly (they may be reached through tables or computed addresses).")
				}
			}
			return ownStrings(c, &core.Observation{Result: &FindCodeForStringResult{Query: q, CaseSensitive: cs, Strings: hits, Procedures: users,
				MatchedStrings: matched, Truncated: cut, Operations: budget - ops}, Limitations: lim}, in.MinStringChars), nil
		},
	}
}

// shortQueryNote says, when nothing matched a query shorter than the
// shortest string listed (minChars when set, else the profile's
// min_string_chars), that a literal of the query's length alone is not
// among the strings, and how to list it.
func shortQueryNote(c *core.Call, arg, q string, minChars *int) []string {
	a, _, _ := c.Bound()
	if a == nil {
		return nil
	}
	least := profileMinChars(a)
	if minChars != nil {
		least = *minChars
	}
	n := utf8.RuneCountInString(q)
	if n >= least {
		return nil
	}
	how := fmt.Sprintf("Pass min_string_chars %d to list it too (or, if the literal's address is known, xrefs on it finds the code).", n)
	if n < 2 {
		how = "Strings of one character are never listed (min_string_chars is at least 2); if the literal's address is known, xrefs on it finds the code."
	}
	return []string{fmt.Sprintf("No string matched, and the %s has %d characters: only strings of at least %d are listed "+
		"(min_string_chars), so a literal of %q alone is not searched, only longer strings holding it. ", arg, n, least, q) + how}
}

func opTraceCallPath() *core.Operation {
	return &core.Operation{
		Name: "trace_call_path", Title: "Trace Call Path", Kind: core.KindEnhanced, Effects: traceEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "A shortest call path from one procedure to another, breadth-first over callees (forward) or callers (backward), bounded by depth, " +
			"nodes and operations; without goal, the reachable call graph. found is false when none was found within the bounds (truncated: they cut the search).",
		Input: core.InputSchema([]string{"start"},
			`"start": {"type":"string","minLength":1,"maxLength":4096,"description":"The procedure to start from: a name or an address.","examples":["main"]}`,
			`"goal": {"type":"string","minLength":1,"maxLength":4096,"description":"The procedure to reach: a name or an address."}`,
			`"direction": {"enum":["forward","backward"],"default":"forward","description":"forward: follow calls; backward: follow callers."}`,
			`"max_depth": {"type":"integer","minimum":1,"maximum":12,"default":6,"description":"Longest path followed (1-12)."}`,
			`"max_nodes": {"type":"integer","minimum":1,"maximum":5000,"default":500,"description":"Procedures visited at most (1-5000)."}`,
			`"max_operations": {"type":"integer","minimum":1,"maximum":100000,"default":10000,"description":"Procedure expansions allowed (1-100000)."}`,
			`"detail": {"enum":["concise","complete"],"default":"concise","description":"concise: the path (or without goal the 40 nearest); complete: all explored."}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["start","goal","direction","found","path","nodes","edges","explored","truncated"],
 "properties":{"start":` + procRefSchema + `,"goal":{"anyOf":[{"type":"null"},` + procRefSchema + `]},"direction":{"enum":["forward","backward"]},
  "found":{"type":["boolean","null"]},"path":{"type":"array","items":` + procRefSchema + `},
  "nodes":{"type":"array","items":` + graphNodeSchema + `},"edges":{"type":"array","items":` + graphEdgeSchema + `},
  "explored":{"type":"integer","minimum":0},"truncated":{"type":"boolean"}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"start":"main","goal":"puts@plt"}`), json.RawMessage(`{"start":"main","max_depth":3}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[TraceCallPathInput](c)
			if err != nil {
				return nil, err
			}
			v, err := codeViewOf(ctx, c, "")
			if err != nil {
				return nil, err
			}
			si, err := v.resolveValue(ctx, in.Start, []any{"start"})
			if err != nil {
				return nil, err
			}
			var goal *ProcedureRef
			gi := -1
			goals := map[uint64]bool{} // the goal, and the slot of the import it names or stubs
			if in.Goal != "" {
				gi, err = v.resolveValue(ctx, in.Goal, []any{"goal"})
				if slot, ok := v.importArg(in.Goal, err); ok {
					goals[slot], gi, err = true, -2, nil
					goal = &ProcedureRef{Address: core.Hex(slot), Name: v.analyst.name(slot, v.importAt(slot))}
				} else if err != nil {
					return nil, err
				} else {
					ref := v.ref(gi)
					goal, goals[v.procs[gi].Address] = &ref, true
					if p := v.procs[gi]; p.External && p.Thunk && p.ThunkTarget != "" {
						if slot, ok := v.importSlot(p.ThunkTarget); ok {
							goals[slot] = true
						}
					}
				}
			}
			dir := in.Direction
			forward := dir != "backward"
			budget := deref(in.MaxOperations, 10000)
			ops := budget
			g := newGraph(v, deref(in.MaxNodes, 500))
			start := v.procs[si].Address
			var stop func(uint64) bool
			target := uint64(0) // the goal address the walk reached
			if len(goals) > 0 {
				stop = func(a uint64) bool { target = a; return goals[a] }
			}
			parent, reached, err := g.walk(ctx, start, deref(in.MaxDepth, 6), forward, &ops, stop)
			if err != nil {
				return nil, err
			}
			path := []ProcedureRef{}
			var found *bool
			if len(goals) > 0 {
				if goals[start] {
					target, reached = start, true
				}
				found = &reached
				if reached {
					for a := target; ; a = parent[a] {
						n := g.nodes[g.index[a]]
						path = append(path, ProcedureRef{Address: n.Address, Name: n.Name})
						if a == start {
							break
						}
					}
					if forward {
						for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
							path[l], path[r] = path[r], path[l]
						}
					}
				}
			}
			var lim []string
			complete := in.Detail == "complete"
			nodes, edges := core.NonNil(g.nodes), core.NonNil(g.edges)
			said := false // which bound cut the search
			if found != nil && !complete {
				// With a goal the answer is the path; the explored graph
				// (hundreds of nodes) only on request.
				if *found {
					nodes, edges = g.pathGraph(path)
				} else {
					nodes, edges = []CallGraphNode{}, []CallGraphEdge{}
					lim = append(lim, g.notFound(v.ref(si).Name, goal.Name, deref(in.MaxDepth, 6), deref(in.MaxNodes, 500), budget, ops))
					said = true
				}
			} else if found == nil && !complete {
				// Without a goal the nearest procedures; the rest (97 KB
				// on ls's main) only on request.
				nodes, edges = g.nearest(conciseTraceNodes)
				if l := g.leftOut(nodes, edges, "the procedures nearest "+v.ref(si).Name+" (breadth-first) and the calls between them"); l != "" {
					lim = append(lim, l)
				}
			}
			if g.cut && !said {
				if found == nil {
					lim = append(lim, "The walk stopped at max_nodes or max_operations; more procedures are reachable beyond it (raise them to see further).")
				} else {
					lim = append(lim, "The search stopped at max_nodes or max_operations; a path may exist beyond it.")
				}
			}
			if found != nil && !*found && forward {
				// A call through a register or a table was not followed: the
				// goal may be reached through one.
				// An import stub's jump through its GOT slot is no unknown.
				n, calls := 0, 0
				var which []string
				for _, x := range g.nodes {
					if x.UnresolvedCalls > 0 && !x.Thunk && !x.External {
						n, calls = n+1, calls+x.UnresolvedCalls
						if len(which) < 5 {
							which = append(which, x.Name)
						}
					}
				}
				if n > 0 {
					where := "nodes[].unresolved_calls names them"
					if !complete {
						where = "they are in " + strings.Join(which, ", ")
						if n > len(which) {
							where += fmt.Sprintf(" and %d more (detail \"complete\" lists them in nodes[].unresolved_calls)", n-len(which))
						}
					}
					lim = append(lim, fmt.Sprintf("%d of the procedures searched make %d unresolved indirect call(s) or jump(s) (through a register, a table or a vtable), which were not followed: the goal may be reached through one; %s.", n, calls, where))
				}
				// The goal's address stored in data is how such a call
				// would reach it.
				slots := "" // an import's slot (gi -2) is no procedure's address
				if gi >= 0 {
					slots = v.pointerSlots(ctx, v.procs[gi].Address)
				}
				if slots != "" {
					lim = append(lim, "The goal's address is stored in data at "+slots+" (a function pointer, table or vtable slot): it can be called indirectly; xrefs on the goal lists them.")
				}
			}
			if !forward && (found == nil || !*found) {
				// Callers through a function pointer are no edges: a
				// handler reached only through its dispatch table has none.
				lim = append(lim, v.storedInData(ctx, g.nodes)...)
			}
			out := &TraceCallPathResult{Start: v.ref(si), Goal: goal, Direction: dir, Found: found, Path: path,
				Nodes: nodes, Edges: edges, Explored: budget - ops, Truncated: g.cut}
			return &core.Observation{Result: out, Limitations: lim}, nil
		},
	}
}

// pathGraph is the nodes of path and the edges between consecutive ones,
// as the walk recorded them (each edge runs from caller to callee, and
// path lists a caller before its callee in both directions).
func (g *graph) pathGraph(path []ProcedureRef) ([]CallGraphNode, []CallGraphEdge) {
	nodes, edges := []CallGraphNode{}, []CallGraphEdge{}
	var prev uint64
	for i, p := range path {
		a, err := core.ParseHex(p.Address)
		if err != nil {
			continue
		}
		if k, ok := g.index[a]; ok {
			nodes = append(nodes, g.nodes[k])
		}
		if k, ok := g.edgeKey[[2]uint64{prev, a}]; ok && i > 0 {
			edges = append(edges, g.edges[k])
		}
		prev = a
	}
	return nodes, edges
}

// notFound says a search from start found no path to goal: how far it
// looked, which bound stopped it, and how to get what it explored.
func (g *graph) notFound(start, goal string, maxDepth, maxNodes, budget, ops int) string {
	deepest, atLimit := 0, 0
	for _, n := range g.nodes {
		deepest = max(deepest, n.Depth)
		if n.Depth == maxDepth && !n.Expanded && n.Procedure && !n.External && !n.Thunk {
			atLimit++
		}
	}
	var bounds []string
	if len(g.nodes) >= maxNodes && g.cut {
		bounds = append(bounds, fmt.Sprintf("max_nodes %d", maxNodes))
	}
	if ops <= 0 {
		bounds = append(bounds, fmt.Sprintf("max_operations %d", budget))
	}
	if atLimit > 0 {
		bounds = append(bounds, fmt.Sprintf("max_depth %d (%d procedures there not followed)", maxDepth, atLimit))
	}
	how := "it searched the whole reachable call graph"
	if len(bounds) > 0 {
		how = "it stopped at " + strings.Join(bounds, " and ") + ": a path may exist beyond"
	}
	return fmt.Sprintf("No path from %s to %s: %d procedures and %d calls explored (%d expanded, to depth %d); %s. "+
		"The explored graph is left out: detail \"complete\" returns it as nodes and edges.", start, goal, len(g.nodes), len(g.edges), budget-ops, deepest, how)
}

func opTraceFeature() *core.Operation {
	return &core.Operation{
		Name: "trace_feature", Title: "Trace Feature", Kind: core.KindEnhanced, Effects: traceEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences, core.CapStrings},
		Description: "Follow a feature from a seed text to code: the strings and names containing the query, the procedures that reference them or bear " +
			"them, and the call-graph neighbourhood of those procedures (their callers and callees), as flat node and edge lists.",
		Input: core.InputSchema([]string{"query"}, stringSearchProps,
			`"detail": {"enum":["concise","complete"],"default":"concise","description":"concise: 10 callees and 10 callers of each procedure; complete: all."}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["query","seeds","procedures","nodes","edges","truncated","operations"],
 "properties":{"query":{"type":"string"},
  "seeds":{"type":"object","additionalProperties":false,"required":["strings","names"],"properties":{"strings":{"type":"array","items":` + stringHitSchema + `},
   "names":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["address","name","kind"],
    "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"kind":{"type":"string"},"library":{"type":"string"}}}}}},
  "procedures":{"type":"array","items":` + codeUserSchema + `},
  "nodes":{"type":"array","items":` + graphNodeSchema + `},"edges":{"type":"array","items":` + graphEdgeSchema + `},
  "truncated":{"type":"boolean"},"operations":{"type":"integer","minimum":0}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"query":"password"}`), json.RawMessage(`{"query":"config","limit":5,"max_operations":500}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[TraceFeatureInput](c)
			if err != nil {
				return nil, err
			}
			v, err := codeViewOf(ctx, c, "")
			if err != nil {
				return nil, err
			}
			q, cs := in.Query, deref(in.CaseSensitive, false)
			limit, budget := deref(in.Limit, 20), deref(in.MaxOperations, 5000)
			ops := budget
			c.Observe("searching strings")
			hits, users, _, cut, err := v.searchStrings(ctx, q, cs, limit, &ops)
			if err != nil {
				return nil, err
			}
			// Names containing the query: procedures bear them, other
			// labels are referenced.
			norm := strings.ToLower
			if cs {
				norm = func(s string) string { return s }
			}
			nq := norm(q)
			names := []ListNamesResultItem{}
			byProc := map[string]int{}
			for k, u := range users {
				byProc[u.Address] = k
			}
			addUser := func(i int, seed, site string) {
				ref := v.ref(i)
				k, ok := byProc[ref.Address]
				if !ok {
					k = len(users)
					byProc[ref.Address] = k
					users = append(users, FindCodeForStringResultProcedure{Address: ref.Address, Name: ref.Name, Seeds: []string{}, Sites: []string{}})
				}
				users[k].Seeds = appendUnique(users[k].Seeds, seed)
				if site != "" {
					users[k].Sites = appendUnique(users[k].Sites, site)
				}
			}
			for _, n := range v.names {
				if !strings.Contains(norm(n.Name), nq) {
					continue
				}
				if len(names) >= limit || ops <= 0 {
					cut = true
					break
				}
				names = append(names, nameItemOf(n))
				if i, ok := v.startIndex(n.Address); ok && n.Kind == "function" {
					addUser(i, core.Hex(n.Address), "")
					continue
				}
				ops--
				rs, err := v.refsTo(ctx, n.Address, n.Address+1)
				if err != nil {
					return nil, err
				}
				for _, r := range rs {
					if i, ok := v.containing(r.From); ok {
						addUser(i, core.Hex(n.Address), core.Hex(r.From))
					}
				}
			}
			c.Observe(fmt.Sprintf("%d procedures use the seeds; expanding their neighbourhood", len(users)))
			seedCut, opsAfterSeeds := cut, ops
			g := newGraph(v, 500)
			for _, u := range users {
				a, _ := core.ParseHex(u.Address)
				for _, forward := range []bool{true, false} {
					if _, _, err := g.walk(ctx, a, 1, forward, &ops, nil); err != nil {
						return nil, err
					}
				}
			}
			cut = cut || g.cut
			var lim []string
			if cut {
				// Name the bound that stopped it, so the agent raises the
				// right one.
				var by []string
				if seedCut && opsAfterSeeds > 0 {
					by = append(by, fmt.Sprintf("limit (%d) cut the seeds", limit))
				}
				if ops <= 0 {
					by = append(by, fmt.Sprintf("max_operations (%d) ran out", budget))
				}
				if len(g.nodes) >= g.maxNodes {
					by = append(by, fmt.Sprintf("the graph reached its %d nodes", g.maxNodes))
				}
				lim = append(lim, "The trace stopped: "+strings.Join(by, "; ")+"; more code may use the seeds.")
			}
			nodes, edges := core.NonNil(g.nodes), core.NonNil(g.edges)
			if in.Detail != "complete" {
				// Each procedure's whole neighbourhood (ls's main alone
				// has 66 callees) only on request.
				roots := make([]string, len(users))
				for k, u := range users {
					roots[k] = u.Address
				}
				nodes, edges = g.around(roots, conciseNeighbours)
				if l := g.leftOut(nodes, edges, fmt.Sprintf("the procedures using the seeds, with their first %d callees and %d callers,", conciseNeighbours, conciseNeighbours)); l != "" {
					lim = append(lim, l)
				}
			}
			out := &TraceFeatureResult{Query: q, Seeds: TraceFeatureResultSeeds{Strings: hits, Names: names}, Procedures: users,
				Nodes: nodes, Edges: edges, Truncated: cut, Operations: budget - ops}
			return &core.Observation{Result: out, Limitations: lim}, nil
		},
	}
}
