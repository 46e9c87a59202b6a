package diff

import (
	"cmp"
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"rea/core"
	"rea/core/codeloc"
	"rea/ports"
)

// build_call_path finds call paths from one function to another over the
// call edges recorded in analyze_function Evidence (each record gives its
// function's callees). A callee with no record of its own is a frontier:
// paths cannot continue through it, and the result lists it.

func opBuildCallPath() *core.Operation {
	return &core.Operation{
		Name:  "build_call_path",
		Title: "Build Call Path",
		Description: "Find call paths from start to goal over analyze_function records of one binary (functions: inline Evidence or " +
			"retained references; each record contributes its function's callees). Paths are simple, shortest first, at most " +
			"max_depth calls long; each step names the function, its address and the record it comes from. Callees reached " +
			"without a record of their own are listed as frontier: supply their records to search through them.",
		Kind:    core.KindApplication,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["functions","start","goal"],"properties":{
  "functions":{"type":"array","minItems":1,"maxItems":500,"items":` + functionEvidenceInput + `},
  "start":{"type":"string","minLength":1,"maxLength":4096,"description":"The procedure to start from: a name or an address."},
  "goal":{"type":"string","minLength":1,"maxLength":4096,"description":"The procedure to reach: a name or an address."},
  "max_depth":{"type":"integer","minimum":1,"maximum":32,"default":8,"description":"Calls per path at most."},
  "max_paths":{"type":"integer","minimum":1,"maximum":1000,"default":100,"description":"Paths enumerated at most."},
  "limit":{"type":"integer","minimum":1,"maximum":200,"default":20,"description":"Paths returned."},
  "offset":{"type":"integer","minimum":0,"default":0,"description":"First path returned."}}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["start","goal","paths","total","next_offset","truncated","frontier","notes"],
 "properties":{"start":` + fnRefSchema + `,"goal":` + fnRefSchema + `,
  "paths":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["length","steps"],
   "properties":{"length":{"type":"integer","minimum":0},"steps":{"type":"array","items":{"type":"object","additionalProperties":false,
    "required":["name","address","evidence_id"],"properties":{"name":{"type":"string"},"address":{"type":"string"},"evidence_id":{"type":["string","null"]}}}}}}},
  "total":{"type":"integer","minimum":0},"next_offset":{"type":["integer","null"]},"truncated":{"type":"boolean"},
  "frontier":{"type":"array","items":` + fnRefSchema + `},"notes":{"type":"array","items":{"type":"string"}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"functions":[` + retainedExample + `],"start":"main","goal":"puts@plt"}`)},
		Handler:  handleBuildCallPath,
	}
}

type cpNode struct {
	name     string
	addr     uint64
	ev       string // "" when no record covers it
	end      uint64 // one past the function's last byte, from its record (0 without)
	callees  []uint64
	indirect []uint64 // unresolved indirect call sites its record lists
}

func handleBuildCallPath(ctx context.Context, c *core.Call) (any, error) {
	in, err := core.Input[BuildCallPathInput](c)
	if err != nil {
		return nil, err
	}
	raw, _ := c.Args["functions"].([]any) // Evidence, resolved one by one below
	nodes := map[uint64]*cpNode{}
	var links []core.EvidenceID
	sha := ""
	var notes []string
	aliases := map[string]uint64{} // the engine's names of functions the records show renamed
	for k, x := range raw {
		name := "functions"
		c.Args["__fn"] = x
		ev, err := evidenceInput(c, "__fn", "analyze_function")
		if err != nil {
			delete(c.Args, "__fn")
			if ce, ok := err.(*core.Error); ok {
				if iss, ok := ce.Details["issues"].([]core.Issue); ok && len(iss) > 0 {
					iss[0].Path = []any{name, k}
				}
			}
			return nil, err
		}
		raw[k] = c.Args["__fn"]
		delete(c.Args, "__fn")
		if ev.Subject != nil {
			if sha != "" && ev.Subject.Digest.SHA256 != sha {
				return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{name, k}, Reason: core.ReasonInvalidValue,
					Message: "the records describe different binaries; a call path runs inside one"})
			}
			sha = ev.Subject.Digest.SHA256
		}
		f, err := factsOfEvidence(ev)
		if err != nil {
			return nil, err
		}
		for name, a := range engineNames(ev.Limitations) {
			aliases[name] = a
		}
		n := nodes[f.Address]
		if n == nil {
			n = &cpNode{addr: f.Address}
			nodes[f.Address] = n
		}
		n.name, n.ev, n.indirect, n.end = f.Name, string(ev.EvidenceID), f.Indirect, f.End
		links = append(links, ev.EvidenceID)
		if f.Calls == nil {
			notes = append(notes, f.Name+": its record lists no complete callees ("+f.CallsReason+")")
			continue
		}
		n.callees = n.callees[:0]
		for _, cl := range f.Calls {
			n.callees = append(n.callees, cl.Addr)
			if nodes[cl.Addr] == nil {
				nodes[cl.Addr] = &cpNode{name: cl.Name, addr: cl.Addr}
			}
		}
	}
	var find func(arg, s string) (*cpNode, error)
	find = func(arg, s string) (*cpNode, error) {
		at, given := uint64(0), false
		if a, err := core.ParseHex(s); err == nil {
			if n := nodes[a]; n != nil {
				return n, nil
			}
			at, given = a, true
		}
		if a, ok := locationAlias(ctx, c, sha, aliases, s); ok {
			if nodes[a] != nil {
				return nodes[a], nil
			}
			at, given = a, true
		}
		var hit *cpNode
		for _, n := range nodes {
			if n.name == s && (hit == nil || n.addr < hit.addr) {
				hit = n
			}
		}
		if hit == nil && !strings.Contains(s, "@") {
			// An import's own name (printf) names its stub (printf@plt),
			// as trace_call_path's goal and get_call_graph's address do.
			for _, n := range nodes {
				if strings.Contains(n.name, "@") && importID(n.name) == s && (hit == nil || n.addr < hit.addr) {
					hit = n
				}
			}
		}
		if hit == nil {
			isProc := false
			if given {
				_, _, isProc = procedureAt(ctx, c, sha, at)
			}
			if !isProc && !strings.Contains(s, "@") {
				// An import's own name names its stub in the open binary too
				// (read is read@plt's, not the label of its GOT slot).
				if a, ok := stubNamed(ctx, c, sha, s); ok {
					at, given = a, true
				}
			}
			if given {
				// A function no record analyzes or calls directly (a handler
				// called only through a dispatch table): no path reaches it
				// over the records, and the notes say which records make
				// indirect calls. With the binary open it must be a procedure
				// there; otherwise an address or sub_<hex> is taken as given.
				if name, open, ok := procedureAt(ctx, c, sha, at); ok || !open {
					if n := nodes[at]; n != nil {
						return n, nil
					}
					n := &cpNode{name: cmp.Or(name, displayName("", at)), addr: at}
					nodes[at] = n
					return n, nil
				}
			}
			if base, off, ok := strings.Cut(s, "+"); ok {
				// NAME+OFFSET inside a recorded function is that function,
				// as trace_call_path reads a location.
				if v, err := strconv.ParseUint(off, 0, 64); err == nil {
					if n, err := find(arg, base); err == nil && n.end > n.addr && v < n.end-n.addr {
						return n, nil
					}
				}
			}
			names := make([]string, 0, len(nodes))
			for _, n := range nodes {
				names = append(names, n.name)
			}
			return nil, codeloc.UnknownName(c.Op.Name, []any{arg}, s, "supplied function or callee", "the name or address of a function in functions or one of their callees", codeloc.Suggest(names, s))
		}
		return hit, nil
	}
	start, err := find("start", in.Start)
	if err != nil {
		return nil, err
	}
	goal, err := find("goal", in.Goal)
	if err != nil {
		return nil, err
	}
	maxDepth, maxPaths := intOr(in.MaxDepth, 8), intOr(in.MaxPaths, 100)
	var paths [][]*cpNode
	frontier := map[uint64]*cpNode{}
	expanded := map[uint64]*cpNode{}
	truncated := false
	// Breadth-first over simple paths, so shorter paths come first.
	queue := [][]*cpNode{{start}}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := queue[0]
		queue = queue[1:]
		last := p[len(p)-1]
		if last == goal {
			if len(paths) == maxPaths {
				truncated = true
				break
			}
			paths = append(paths, p)
			continue
		}
		if len(p)-1 == maxDepth {
			continue
		}
		if last.ev == "" {
			frontier[last.addr] = last
			continue
		}
		expanded[last.addr] = last
		for _, a := range last.callees {
			n := nodes[a]
			if onPath(p, n) {
				continue
			}
			if len(queue) > 100_000 {
				truncated = true
				break
			}
			queue = append(queue, append(append([]*cpNode{}, p...), n))
		}
	}
	out := []BuildCallPathResultPath{}
	for _, p := range paths {
		steps := []BuildCallPathResultPathStep{}
		for _, n := range p {
			steps = append(steps, BuildCallPathResultPathStep{Name: n.name, Address: core.Hex(n.addr), EvidenceID: core.OptString(n.ev)})
		}
		out = append(out, BuildCallPathResultPath{Length: len(p) - 1, Steps: steps})
	}
	offset, limit := intOr(in.Offset, 0), intOr(in.Limit, 20)
	page := []BuildCallPathResultPath{}
	var next *int
	if offset < len(out) {
		end := min(len(out), offset+limit)
		page = out[offset:end]
		if end < len(out) {
			next = &end
		}
	}
	fr := []CompareBinariesResultChangedItemLeft{}
	var fa []uint64
	for a := range frontier {
		fa = append(fa, a)
	}
	sort.Slice(fa, func(i, j int) bool { return fa[i] < fa[j] })
	for _, a := range fa {
		fr = append(fr, CompareBinariesResultChangedItemLeft{Name: displayName(frontier[a].name, a), Address: core.Hex(a)})
	}
	if len(paths) == 0 {
		notes = append(notes, "No path from "+start.name+" to "+goal.name+" within max_depth over the supplied records.")
		if n := indirectNote(expanded); n != "" {
			notes = append(notes, n)
		}
	}
	sort.Slice(links, func(i, j int) bool { return links[i] < links[j] })
	links = dedupe(links)
	res := &BuildCallPathResult{Start: CompareBinariesResultChangedItemLeft{Name: start.name, Address: core.Hex(start.addr)},
		Goal:  CompareBinariesResultChangedItemLeft{Name: goal.name, Address: core.Hex(goal.addr)},
		Paths: page, Total: len(out), NextOffset: next, Truncated: truncated, Frontier: fr, Notes: core.NonNil(notes)}
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: links}, nil
}

// indirectNote says which searched functions make indirect calls that
// their records leave unresolved (through a register or a table, as a
// dispatch table's handlers are called), since the goal may be reached
// through one; "" when none does.
func indirectNote(expanded map[uint64]*cpNode) string {
	var with []*cpNode
	for _, n := range expanded {
		if len(n.indirect) > 0 {
			with = append(with, n)
		}
	}
	if len(with) == 0 {
		return ""
	}
	sort.Slice(with, func(i, j int) bool { return with[i].addr < with[j].addr })
	var parts []string
	for _, n := range with {
		sites := make([]string, 0, len(n.indirect))
		for _, a := range n.indirect {
			sites = append(sites, core.Hex(a))
		}
		parts = append(parts, displayName(n.name, n.addr)+" (at "+strings.Join(sites, ", ")+")")
	}
	return "Unresolved indirect calls or jumps (through a register or a table) were not followed, and the goal may be reached " +
		"through one: " + strings.Join(parts, "; ") + ". xrefs on the goal lists the data slots that hold its address."
}

func onPath(p []*cpNode, n *cpNode) bool {
	for _, x := range p {
		if x == n {
			return true
		}
	}
	return false
}

func dedupe(s []core.EvidenceID) []core.EvidenceID {
	var out []core.EvidenceID
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// intOr is *p, or def when p is nil.
func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// locationAlias resolves s, a start or goal that no record names, as the
// code tools would read that location: the engine's name of a function
// the records show under an analyst's name (aliases, from their renamed
// limitations), else, when the session has the records' binary open, an
// analyst's name given since or the engine's name of a procedure or label
// there, else sub_<hex>.
func locationAlias(ctx context.Context, c *core.Call, sha string, aliases map[string]uint64, s string) (uint64, bool) {
	if a, ok := aliases[s]; ok {
		return a, true
	}
	if an, _, t := c.Bound(); t != nil && sha != "" && t.SHA256 == sha {
		for a, n := range c.AnalystNames(ctx) {
			if n == s {
				return a, true
			}
		}
		if pl, ok := an.(ports.ProcedureLister); ok {
			if procs, err := pl.Procedures(ctx); err == nil {
				for _, p := range procs {
					if p.Name == s {
						return p.Address, true
					}
				}
			}
		}
		if nl, ok := an.(ports.NameLister); ok {
			if ns, err := nl.Names(ctx); err == nil {
				for _, n := range ns {
					if n.Name == s {
						return n.Address, true
					}
				}
			}
		}
	}
	if h, ok := strings.CutPrefix(s, "sub_"); ok {
		if a, err := strconv.ParseUint(h, 16, 64); err == nil {
			return a, true
		}
	}
	return 0, false
}

// stubNamed finds, in the session's open binary when it is the records'
// (sha), the lowest import stub whose import is named s (read@plt for
// read).
func stubNamed(ctx context.Context, c *core.Call, sha, s string) (uint64, bool) {
	an, _, t := c.Bound()
	if t == nil || sha == "" || t.SHA256 != sha {
		return 0, false
	}
	pl, ok := an.(ports.ProcedureLister)
	if !ok {
		return 0, false
	}
	procs, err := pl.Procedures(ctx)
	if err != nil {
		return 0, false
	}
	for _, p := range procs { // sorted by address
		if strings.Contains(p.Name, "@") && importID(p.Name) == s {
			return p.Address, true
		}
	}
	return 0, false
}

// procedureAt names the procedure that starts at a in the session's open
// binary when it is the records' (sha): open says it is, ok that a
// procedure starts there.
func procedureAt(ctx context.Context, c *core.Call, sha string, a uint64) (name string, open, ok bool) {
	an, _, t := c.Bound()
	if t == nil || sha == "" || t.SHA256 != sha {
		return "", false, false
	}
	pl, isPL := an.(ports.ProcedureLister)
	if !isPL {
		return "", false, false
	}
	procs, err := pl.Procedures(ctx)
	if err != nil {
		return "", false, false
	}
	for _, p := range procs {
		if p.Address == a {
			return p.Name, true, true
		}
	}
	return "", true, false
}

// renamedRe reads one entry of the limitation a record gets when it shows
// an analyst's name in place of the engine's (core's renamedLimitation):
// 0x1159 "scale_banner" (engine: "helper").
var renamedRe = regexp.MustCompile(`(0x[0-9a-f]+) ("(?:[^"\\]|\\.)*") \(engine: ("(?:[^"\\]|\\.)*")\)`)

// engineNames maps the engine's names that a record's limitations say it
// replaced with analysts' names to their addresses.
func engineNames(limitations []string) map[string]uint64 {
	out := map[string]uint64{}
	for _, l := range limitations {
		if !strings.HasPrefix(l, "Names set by the analyst (set_address_name) replace the engine's names") {
			continue
		}
		for _, m := range renamedRe.FindAllStringSubmatch(l, -1) {
			a, err := core.ParseHex(m[1])
			name, uerr := strconv.Unquote(m[3])
			if err == nil && uerr == nil {
				out[name] = a
			}
		}
	}
	return out
}
