package diff

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestPagedSectionSaysHowToGetItAll: compare_functions on two records of
// a 109-instruction handler made with include_assembly left instructions
// and constants unknown because "the record holds 100 of 109 assembly
// items (a page)", and nothing said which argument records them all. Now
// the reason names analyze_function's limit, or says no limit can.
func TestPagedSectionSaysHowToGetItAll(t *testing.T) {
	is := is.New(t)
	page := func(n, total int) *afColl[int] {
		return &afColl[int]{Items: make([]int, n), Total: &total}
	}
	ok, why := page(100, 109).complete("assembly")
	is.True(!ok)
	is.Equal(why, "the record holds 100 of 109 assembly items (a page; analyze_function with limit 109 or more records them all)")
	ok, why = page(100, 731).complete("assembly")
	is.True(!ok)
	is.Equal(why, "the record holds 100 of 731 assembly items (a page; more than analyze_function's largest limit, 500, records)")
	ok, _ = page(109, 109).complete("assembly")
	is.True(ok)
}

// TestUnnamedCalleesAreNoted: compare_functions on handle_set of a build
// with symbols and sub_1b50 of a stripped build listed calls "removed
// trim.isra.0, added sub" as a change, with nothing saying that the
// stripped record merely leaves its callee unnamed. Now a note says so and
// points at compare_binaries; a named callee against another named one
// gets no note.
func TestUnnamedCalleesAreNoted(t *testing.T) {
	is := is.New(t)
	named := &fnFacts{Name: "handle_set", Calls: []callee{{Addr: 0x1b00, Name: "trim.isra.0"}, {Addr: 0x1030, Name: "memcpy@plt", Import: "memcpy"}}}
	stripped := &fnFacts{Name: "sub_1b50", Calls: []callee{{Addr: 0x1af0, Name: "sub_1af0"}, {Addr: 0x1030, Name: "memcpy@plt", Import: "memcpy"}}}
	d := compareFacts(named, stripped, compareOptions{})
	is.Equal(d.Dimensions["calls"].Status, "changed")
	is.Equal(unnamedCalleeNote(d), "The right record leaves 1 callee(s) unnamed (sub) where the left names 1 not on the right (trim.isra.0): "+
		"a stripped build against one with symbols shows such callees as changed. compare_binaries matches functions across two builds and compares calls through the match.")
	d = compareFacts(stripped, named, compareOptions{})
	is.True(strings.HasPrefix(unnamedCalleeNote(d), "The left record leaves 1 callee(s) unnamed"))
	other := &fnFacts{Name: "handle_set", Calls: []callee{{Addr: 0x1b00, Name: "trim"}, {Addr: 0x1030, Name: "memcpy@plt", Import: "memcpy"}}}
	is.Equal(unnamedCalleeNote(compareFacts(named, other, compareOptions{})), "")
}
