package binary_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestPagesPastTheEnd: a list_procedures or analyze_function page whose
// offset is past the end says how many items there are and which offset
// to pass, as inventory_artifact's does; a page inside says nothing of
// it. Before, the empty page came with no word.
func TestPagesPastTheEnd(t *testing.T) {
	is := is.New(t)
	s := dossierSession(t)
	lims := func(op, args string) []string {
		t.Helper()
		res, err := s.Call(context.Background(), op, json.RawMessage(args), nil)
		is.NoErr(err)
		return res.Evidence.Limitations
	}
	is.True(slices.Contains(lims("list_procedures", `{"offset":5,"limit":1}`),
		"offset 5 is past the end: there are 2 procedures (offsets 0 to 1); pass offset 0 for the first page, or offset 1 for the last page of 1."))
	is.Equal(len(lims("list_procedures", `{"offset":1,"limit":1}`)), 0)

	// f has 8 instructions, 2 blocks, no callee, one caller (g).
	lim := lims("analyze_function", `{"procedure":"f","include_assembly":true,"offset":8,"detail":"complete",
		"collection_offset":{"basic_blocks":1,"callers":3,"callees":2}}`)
	is.True(slices.Contains(lim, "offset 8 is past the end of the assembly: the scan has 8 instructions (offsets 0 to 7)."))
	is.True(slices.Contains(lim, "collection_offset.callers 3 is past the end: callers has 1 item (offset 0)."))
	is.True(slices.Contains(lim, "collection_offset.callees 2 is past the end: callees has no items."))
	for _, l := range lim {
		is.True(l != "collection_offset.basic_blocks 1 is past the end: basic_blocks has 2 items (offsets 0 to 1).") // inside
	}

	// Every other paged list says the same past its end, and nothing inside.
	pastEnd := func(op, args, what string) {
		t.Helper()
		found := false
		for _, l := range lims(op, args) {
			found = found || strings.HasPrefix(l, "offset 999 is past the end: there are ") && strings.Contains(l, " "+what+" ") ||
				l == "offset 999 is past the end: there are no "+what+"; pass offset 0 (or omit it)."
		}
		if !found {
			t.Errorf("%s %s: no past-the-end note naming %s in %q", op, args, what, lims(op, args))
		}
	}
	pastEnd("list_names", `{"offset":999}`, "names")
	pastEnd("list_strings", `{"offset":999}`, "strings")
	pastEnd("search_procedures", `{"pattern":"f","offset":999}`, "matching procedures")
	pastEnd("procedure_callers", `{"procedure":"f","offset":999}`, "callers")
	pastEnd("procedure_callees", `{"procedure":"f","offset":999}`, "callees")
	pastEnd("read_function_instructions", `{"procedure":"f","offset":999}`, "instructions")
	is.Equal(len(lims("list_names", `{"offset":0}`)), 0)
}

// list_strings at an address where no listed string starts (a procedure's
// entry) says so and names the tools that find one. Before, the empty page
// came with no word, as if the address were wrong.
func TestListStringsAtNoString(t *testing.T) {
	is := is.New(t)
	s := dossierSession(t)
	res, err := s.Call(context.Background(), "list_strings", json.RawMessage(`{"address":"f"}`), nil)
	is.NoErr(err)
	is.True(slices.ContainsFunc(res.Evidence.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "No listed string starts at 0x") && strings.Contains(l, "(f)") && strings.Contains(l, "search_strings")
	}))
}

// list_strings at an address inside a listed string names that string, its
// start and how far in the address is, so the caller can pass the start.
// Before, it said only that no string starts there.
func TestListStringsInsideAString(t *testing.T) {
	is := is.New(t)
	s := dossierSession(t)
	res, err := s.Call(context.Background(), "list_strings", json.RawMessage(`{"address":"0x2002"}`), nil)
	is.NoErr(err)
	is.True(slices.Contains(res.Evidence.Limitations,
		`No listed string starts at 0x2002 (0x2002): it is 2 bytes into the ascii string at 0x2000 ("alpha", 5 bytes); pass address 0x2000 to list that string.`))
	// the byte after a string's last is in none
	res, err = s.Call(context.Background(), "list_strings", json.RawMessage(`{"address":"0x2005"}`), nil)
	is.NoErr(err)
	is.True(slices.ContainsFunc(res.Evidence.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "No listed string starts at 0x2005 (0x2005); search_strings")
	}))
}

// one byte in, the note says "1 byte"
func TestListStringsOneByteIn(t *testing.T) {
	is := is.New(t)
	s := dossierSession(t)
	res, err := s.Call(context.Background(), "list_strings", json.RawMessage(`{"address":"0x2009"}`), nil)
	is.NoErr(err)
	is.True(slices.Contains(res.Evidence.Limitations,
		`No listed string starts at 0x2009 (0x2009): it is 1 byte into the ascii string at 0x2008 ("beta", 4 bytes); pass address 0x2008 to list that string.`))
}
