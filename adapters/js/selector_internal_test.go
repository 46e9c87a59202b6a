package js

import (
	"testing"

	"rea/ports"
)

// The sets made for one selector are reused for the next request with the
// same names, and never handed to a selector with other names.
func TestSelectorSetsFollowTheNames(t *testing.T) {
	a := &ports.JSCallSelector{LastNames: []string{"handle", "on"}, Roots: []string{"window"}}
	b := &ports.JSCallSelector{LastNames: []string{"send"}, Roots: []string{"self"}}
	same := &ports.JSCallSelector{LastNames: []string{"handle", "on"}, Roots: []string{"window"}}
	for range 3 {
		for _, c := range []struct {
			sel        *ports.JSCallSelector
			last, root string
			notLast    string
		}{{a, "on", "window", "send"}, {b, "send", "self", "on"}, {same, "handle", "window", "send"}} {
			ln, rs := selectorSets(c.sel)
			if !ln[c.last] || !rs[c.root] || ln[c.notLast] || rs["globalThis"] || len(ln) != len(c.sel.LastNames) || len(rs) != len(c.sel.Roots) {
				t.Fatalf("%+v: sets %v %v", *c.sel, ln, rs)
			}
		}
	}
	x, _ := selectorSets(a)
	y, _ := selectorSets(same)
	x["probe"] = true // the same map: made once for the same names
	defer delete(x, "probe")
	if !y["probe"] {
		t.Error("the same names made a second set")
	}
	// A selector changed in place gets new sets.
	c := &ports.JSCallSelector{LastNames: []string{"invoke"}}
	selectorSets(c)
	c.LastNames[0] = "emit"
	if ln, _ := selectorSets(c); !ln["emit"] || ln["invoke"] {
		t.Errorf("changed selector: %v", ln)
	}
}
