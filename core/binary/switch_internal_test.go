package binary

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// switchFunction has three blocks: 0x1000 ends in a computed jump whose
// jump-table successors are 0x1010 and 0x1020; 0x1010 and 0x1020 have none.
var switchFunction = ports.Function{Blocks: []ports.BasicBlock{
	{Start: 0x1000, End: 0x1010, Successors: []ports.Edge{{Kind: ports.EdgeJumpTable, Target: 0x1010}, {Kind: ports.EdgeJumpTable, Target: 0x1020}}},
	{Start: 0x1010, End: 0x1020, Successors: []ports.Edge{{Kind: ports.EdgeFallthrough, Target: 0x1020}}},
	{Start: 0x1020, End: 0x1030},
}}

// TestJumpTablesWithoutSwitchesAreTheBlocks: a provider that recovers no
// switches (rea-native) gets exactly the block-edge entries, written as
// before (no switch member).
func TestJumpTablesWithoutSwitchesAreTheBlocks(t *testing.T) {
	is := is.New(t)
	got := jumpTables(switchFunction, ports.Signature{Source: "dwarf"})
	b, err := json.Marshal(got)
	is.NoErr(err)
	is.Equal(string(b), `[{"block":"0x1000","targets":["0x1010","0x1020"]}]`)
	b, err = json.Marshal(jumpTables(ports.Function{}, ports.Signature{}))
	is.NoErr(err)
	is.Equal(string(b), `[]`)
}

// TestJumpTablesCarryTheDecompilersSwitches: a switch joins the entry of
// the block holding its jump; one in a block without jump-table successors
// gets an entry for that block with its mappings' targets; one in no block
// gets an entry at its own address; the entries are sorted by block, and
// the lists' totals and truncation are kept.
func TestJumpTablesCarryTheDecompilersSwitches(t *testing.T) {
	is := is.New(t)
	zero, one := int64(0), int64(1)
	sig := ports.Signature{Source: "ghidra-high-function", SwitchesTotal: 3, Switches: []ports.Switch{
		{Address: 0x2000, Cases: []ports.SwitchCase{{Value: &zero, Target: 0x2010}}, CasesTotal: 1},
		{Address: 0x1008, Sources: []ports.SwitchSource{{Address: 0x3000, EntrySize: 4, Entries: 2}}, SourcesTotal: 2,
			Cases: []ports.SwitchCase{{Value: &zero, Target: 0x1010}, {Value: &one, Target: 0x1020}}, CasesTotal: 40},
		{Address: 0x1024, Cases: []ports.SwitchCase{{Target: 0x1010}, {Value: &one, Target: 0x1000}, {Value: &zero, Target: 0x1010}}, CasesTotal: 3},
	}}
	b, err := json.Marshal(jumpTables(switchFunction, sig))
	is.NoErr(err)
	is.Equal(string(b), `[`+
		`{"block":"0x1000","targets":["0x1010","0x1020"],"switch":{"address":"0x1008",`+
		`"data_sources":[{"address":"0x3000","entry_size":4,"entries":2}],"data_sources_total":2,"data_sources_truncated":true,`+
		`"mappings":[{"value":0,"target":"0x1010"},{"value":1,"target":"0x1020"}],"mappings_total":40,"mappings_truncated":true}},`+
		`{"block":"0x1020","targets":["0x1000","0x1010"],"switch":{"address":"0x1024",`+
		`"data_sources":[],"data_sources_total":0,"data_sources_truncated":false,`+
		`"mappings":[{"value":null,"target":"0x1010"},{"value":1,"target":"0x1000"},{"value":0,"target":"0x1010"}],"mappings_total":3,"mappings_truncated":false}},`+
		`{"block":"0x2000","targets":["0x2010"],"switch":{"address":"0x2000",`+
		`"data_sources":[],"data_sources_total":0,"data_sources_truncated":false,`+
		`"mappings":[{"value":0,"target":"0x2010"}],"mappings_total":1,"mappings_truncated":false}}]`)
}
