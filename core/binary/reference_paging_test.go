package binary_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// tableFake is dossierFake answering procedures, names, function ranges
// and references from its tables, as an engine whose references are not
// in address order may list them.
type tableFake struct {
	dossierFake
	procs []ports.Procedure
	names []ports.Name
	refs  []ports.Reference
}

func (f *tableFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }
func (f *tableFake) Procedures(context.Context) ([]ports.Procedure, error)      { return f.procs, nil }
func (f *tableFake) Names(context.Context) ([]ports.Name, error)                { return f.names, nil }
func (f *tableFake) FunctionRanges(context.Context) ([]ports.FunctionRange, error) {
	var out []ports.FunctionRange
	for _, p := range f.procs {
		out = append(out, ports.FunctionRange{Start: p.Address, End: p.Address + p.Size, EndSource: "symbol"})
	}
	return out, nil
}
func (f *tableFake) ReferencesFrom(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range f.refs {
		if r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, nil
}
func (f *tableFake) ReferencesTo(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range f.refs {
		if !r.Unresolved && r.To >= start && r.To < end {
			out = append(out, r)
		}
	}
	return out, nil
}

// callersFake has a procedure, sink (0x3000), called from sinkCallers
// procedures and from one address in none, and an import, sink@plt
// (0x3100), called from five of them.
const sinkCallers = 120

var cfProcs, cfRefs = func() ([]ports.Procedure, []ports.Reference) {
	procs := []ports.Procedure{{Address: 0x3000, Name: "sink", Size: 0x10, Source: "symbol"}} // sorted by address
	for k := range sinkCallers {
		procs = append(procs, ports.Procedure{Address: uint64(0x10000 + 0x20*k), Name: fmt.Sprintf("caller%03d", k), Size: 0x20, Source: "symbol"})
	}
	var refs []ports.Reference
	for n := range sinkCallers {
		k := n * 37 % sinkCallers // a permutation: not address order
		a := uint64(0x10000 + 0x20*k)
		kind := ports.RefCall
		if k%11 == 0 {
			kind = ports.RefJump // a tail call
		}
		refs = append(refs, ports.Reference{From: a + 4, To: 0x3000, Kind: kind})
		if k%7 == 0 {
			refs = append(refs, ports.Reference{From: a + 8, To: 0x3000, Kind: ports.RefCall})
		}
		if k < 5 {
			refs = append(refs, ports.Reference{From: a + 0xc, To: 0x3100, Kind: ports.RefCall})
		}
	}
	refs = append(refs, ports.Reference{From: 0x9000, To: 0x3000, Kind: ports.RefRead}, // not a call
		ports.Reference{From: 0x9004, To: 0x3000, Kind: ports.RefCall}) // a call from no known procedure
	return procs, refs
}()

var callersFake = &tableFake{procs: cfProcs, refs: cfRefs,
	names: []ports.Name{{Address: 0x3000, Name: "sink", Kind: "function"}, {Address: 0x3100, Name: "sink@plt", Kind: "import"}}}

// referencePage is the paging part of a result and its list.
type referencePage struct {
	items      []any
	offset     int
	limit      int
	total      int
	nextOffset any
	hasMore    bool
	m          map[string]any
}

func callPage(t *testing.T, s *core.Session, op, list, args string) referencePage {
	t.Helper()
	res, err := s.Call(context.Background(), op, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", op, args, err)
	}
	var m map[string]any
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &m); err != nil {
		t.Fatal(err)
	}
	return referencePage{items: m[list].([]any), offset: int(m["offset"].(float64)), limit: int(m["limit"].(float64)),
		total: int(m["total"].(float64)), nextOffset: m["next_offset"], hasMore: m["has_more"].(bool), m: m}
}

// TestReferenceListsPage: find_xrefs_to_name's references and
// procedure_callers' callers page as the list tools do: a concise default
// page, pages that add up to the whole list in its order, an exact total,
// next_offset and has_more at and past the end, and bounds on the input.
func TestReferenceListsPage(t *testing.T) {
	s := fakeSession(t, callersFake)
	// The order of the whole list: sink's references as the engine lists
	// them, then sink@plt's; the callers in the order of their first call.
	var froms, callers []any
	seen := map[any]bool{}
	for _, to := range []uint64{0x3000, 0x3100} {
		for _, r := range cfRefs {
			if r.To != to {
				continue
			}
			froms = append(froms, core.Hex(r.From))
			caller := any(nil)
			if r.From >= 0x10000 { // 0x9000 and 0x9004 lie in no procedure
				caller = fmt.Sprintf("caller%03d", (r.From-0x10000)/0x20)
			}
			if to == 0x3000 && r.Kind != ports.RefRead && !seen[caller] {
				seen[caller] = true
				callers = append(callers, caller)
			}
		}
	}
	for _, tc := range []struct {
		op, list, args string // args without the braces
		total          int
		key            func(item map[string]any) any
		order          []any
	}{
		// every reference to sink and sink@plt: one per caller, a second
		// from every seventh (18), the two from no procedure, five to sink@plt
		{"find_xrefs_to_name", "references", `"name":"sink"`, sinkCallers + 18 + 2 + 5,
			func(it map[string]any) any { return it["from"] }, froms},
		// one item per calling procedure, and one for the call from none
		{"procedure_callers", "items", `"procedure":"sink"`, sinkCallers + 1,
			func(it map[string]any) any {
				if p, ok := it["procedure"].(map[string]any); ok {
					return p["name"]
				}
				return nil
			}, callers},
	} {
		t.Run(tc.op, func(t *testing.T) {
			is := is.New(t)
			whole := callPage(t, s, tc.op, tc.list, `{`+tc.args+`,"limit":500}`)
			is.Equal(whole.total, tc.total)
			is.Equal(len(whole.items), tc.total)
			is.Equal(whole.nextOffset, nil)
			is.True(!whole.hasMore)
			var order []any
			for _, it := range whole.items {
				order = append(order, tc.key(it.(map[string]any)))
			}
			is.Equal(order, tc.order) // as the list was before it paged

			def := callPage(t, s, tc.op, tc.list, `{`+tc.args+`}`)
			is.Equal(def.limit, 100) // concise by default
			is.Equal(def.offset, 0)
			is.Equal(len(def.items), 100)
			is.Equal(def.nextOffset, 100.0)
			is.True(def.hasMore)
			is.Equal(def.items, whole.items[:100])

			var union []any
			pages := 0
			for off := any(0.0); off != nil; pages++ {
				p := callPage(t, s, tc.op, tc.list, fmt.Sprintf(`{%s,"offset":%d,"limit":7}`, tc.args, int(off.(float64))))
				is.Equal(p.offset, int(off.(float64)))
				is.Equal(p.limit, 7)
				is.Equal(p.total, tc.total)
				is.Equal(p.hasMore, p.nextOffset != nil)
				if p.hasMore {
					is.Equal(len(p.items), 7)
					is.Equal(p.nextOffset, float64(p.offset+7))
				}
				if tr, ok := p.m["truncated"]; ok { // procedure_callers keeps it, as has_more
					is.Equal(tr, p.hasMore)
				}
				union = append(union, p.items...)
				off = p.nextOffset
			}
			is.Equal(pages, (tc.total+6)/7)
			is.Equal(union, whole.items) // the same items in the same order

			for _, off := range []int{tc.total, tc.total + 50} { // at and past the end
				p := callPage(t, s, tc.op, tc.list, fmt.Sprintf(`{%s,"offset":%d,"limit":7}`, tc.args, off))
				is.Equal(len(p.items), 0)
				is.Equal(p.offset, off)
				is.Equal(p.total, tc.total)
				is.Equal(p.nextOffset, nil)
				is.True(!p.hasMore)
			}

			for _, bad := range []string{`"limit":0`, `"limit":501`, `"limit":1001`, `"offset":-1`} {
				_, err := s.Call(context.Background(), tc.op, json.RawMessage(`{`+tc.args+`,`+bad+`}`), nil)
				is.True(err != nil) // bad is out of bounds
				is.Equal(core.AsError(tc.op, err).Code, core.CodeInvalidRequest)
			}
		})
	}
}
