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

// calleesFake has a procedure, hub (0x20000), that calls
// hubCallees targets (named procedures and, every tenth, an unnamed
// address), some more than once and some by a tail call, and makes
// hubUnresolved indirect calls whose target is unknown: more than a page
// of each.

const (
	hubCallees    = 130
	hubUnresolved = 130
)

var hfProcs, hfRefs = func() ([]ports.Procedure, []ports.Reference) {
	procs := []ports.Procedure{{Address: 0x20000, Name: "hub", Size: 0x10000, Source: "symbol"}} // sorted by address
	for k := range hubCallees {
		if k%10 != 9 {
			procs = append(procs, ports.Procedure{Address: uint64(0x40000 + 0x20*k), Name: fmt.Sprintf("callee%03d", k), Size: 0x20, Source: "symbol"})
		}
	}
	var refs []ports.Reference
	for n := range hubCallees {
		k := n * 37 % hubCallees // a permutation: not address order
		to, from := uint64(0x40000+0x20*k), uint64(0x20000+0x40*k)
		kind := ports.RefCall
		if k%11 == 0 {
			kind = ports.RefJump // a tail call
		}
		refs = append(refs, ports.Reference{From: from, To: to, Kind: kind})
		if k%7 == 0 {
			refs = append(refs, ports.Reference{From: from + 8, To: to, Kind: ports.RefCall}) // a second call site
		}
		if n < hubUnresolved {
			u := ports.Reference{From: from + 0x10, Kind: ports.RefCall, Unresolved: true, Operand: "rax"}
			if k%3 == 0 {
				u.Kind, u.Operand, u.Slot = ports.RefJump, "qword ptr [rip+0x10]", uint64(0x70000+8*k)
			}
			refs = append(refs, u)
		}
	}
	refs = append(refs, ports.Reference{From: 0x20004, To: 0x40000, Kind: ports.RefRead}) // not a call
	return procs, refs
}()

var calleesFake = &tableFake{procs: hfProcs, refs: hfRefs, names: func() []ports.Name {
	var out []ports.Name
	for _, p := range hfProcs {
		out = append(out, ports.Name{Address: p.Address, Name: p.Name, Kind: "function"})
	}
	return out
}()}

// TestProcedureCalleesPage: procedure_callees pages its callees as
// procedure_callers does (TestReferenceListsPage), and every page lists the
// first 100 unresolved calls with their exact total.
func TestProcedureCalleesPage(t *testing.T) {
	s := fakeSession(t, calleesFake)
	const op, args = "procedure_callees", `"procedure":"hub"`
	// The order of the whole list: each target in the order of its first
	// call; the unresolved calls in the order the engine lists them.
	var targets, unresolved []any
	seen := map[uint64]bool{}
	for _, r := range hfRefs {
		switch {
		case r.Unresolved:
			unresolved = append(unresolved, core.Hex(r.From))
		case r.Kind != ports.RefRead && !seen[r.To]:
			seen[r.To] = true
			targets = append(targets, core.Hex(r.To))
		}
	}
	key := func(items []any, k string) []any {
		var out []any
		for _, it := range items {
			out = append(out, it.(map[string]any)[k])
		}
		return out
	}
	is := is.New(t)
	whole := callPage(t, s, op, "items", `{`+args+`,"limit":500}`)
	is.Equal(whole.total, hubCallees)
	is.Equal(len(whole.items), hubCallees)
	is.Equal(whole.nextOffset, nil)
	is.True(!whole.hasMore)
	is.Equal(whole.m["truncated"], false)
	is.Equal(key(whole.items, "address"), targets) // as the list was before it paged
	// an address that is no procedure is named after itself
	for _, it := range whole.items {
		if it := it.(map[string]any); it["address"] == "0x40120" {
			is.Equal(it["name"], "sub_40120")
			is.Equal(it["procedure"], false)
		}
	}
	is.Equal(whole.m["unresolved_total"], float64(hubUnresolved))
	is.Equal(key(whole.m["unresolved"].([]any), "from"), unresolved[:100]) // the first 100, whatever the page

	def := callPage(t, s, op, "items", `{`+args+`}`)
	is.Equal(def.limit, 100) // concise by default
	is.Equal(def.offset, 0)
	is.Equal(def.items, whole.items[:100])
	is.Equal(def.nextOffset, 100.0)
	is.True(def.hasMore)
	is.Equal(def.m["truncated"], true)

	var union []any
	pages := 0
	for off := any(0.0); off != nil; pages++ {
		p := callPage(t, s, op, "items", fmt.Sprintf(`{%s,"offset":%d,"limit":7}`, args, int(off.(float64))))
		is.Equal(p.offset, int(off.(float64)))
		is.Equal(p.limit, 7)
		is.Equal(p.total, hubCallees)
		is.Equal(p.hasMore, p.nextOffset != nil)
		is.Equal(p.m["truncated"], p.hasMore)
		if p.hasMore {
			is.Equal(len(p.items), 7)
			is.Equal(p.nextOffset, float64(p.offset+7))
		}
		is.Equal(p.m["unresolved"], whole.m["unresolved"])
		is.Equal(p.m["unresolved_total"], float64(hubUnresolved))
		union = append(union, p.items...)
		off = p.nextOffset
	}
	is.Equal(pages, (hubCallees+6)/7)
	is.Equal(union, whole.items) // the same items in the same order

	for _, off := range []int{hubCallees, hubCallees + 50} { // at and past the end
		p := callPage(t, s, op, "items", fmt.Sprintf(`{%s,"offset":%d,"limit":7}`, args, off))
		is.Equal(len(p.items), 0)
		is.Equal(p.offset, off)
		is.Equal(p.total, hubCallees)
		is.Equal(p.nextOffset, nil)
		is.True(!p.hasMore)
		is.Equal(p.m["truncated"], false)
		is.Equal(p.m["unresolved_total"], float64(hubUnresolved))
	}

	for _, bad := range []string{`"limit":0`, `"limit":501`, `"limit":1001`, `"offset":-1`} {
		_, err := s.Call(context.Background(), op, json.RawMessage(`{`+args+`,`+bad+`}`), nil)
		is.True(err != nil) // bad is out of bounds
		is.Equal(core.AsError(op, err).Code, core.CodeInvalidRequest)
	}
}
