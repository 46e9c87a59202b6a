package binary_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// lazyPLTFake is a program whose main calls close through a lazy-binding
// PLT stub, as gcc links it: close@plt jumps through close's GOT slot and,
// until the loader has bound it, pushes the relocation's index and jumps
// to the PLT header at 0x1020, which is no procedure.
var lazyPLTFake = &tableFake{
	procs: []ports.Procedure{
		{Address: 0x10c0, Name: "close@plt", Size: 0x10, Source: "plt", External: true, Thunk: true, ThunkTarget: "close"},
		{Address: 0x1190, Name: "main", Size: 0x40, Source: "symbol"},
	},
	names: []ports.Name{
		{Address: 0x10c0, Name: "close@plt", Kind: "import"},
		{Address: 0x1190, Name: "main", Kind: "function"},
		{Address: 0x4048, Name: "close", Kind: "import"},
	},
	refs: []ports.Reference{
		{From: 0x10c0, To: 0x4048, Kind: ports.RefJump, Slot: 0x4048},
		{From: 0x10c0, To: 0x4048, Kind: ports.RefRead},
		{From: 0x10cb, To: 0x1020, Kind: ports.RefJump},
		{From: 0x11a0, To: 0x10c0, Kind: ports.RefCall},
	},
}

// TestLazyPLTStubCalleesAreItsImport: a PLT stub calls its import; its
// jump to the PLT header is the loader's lazy binding, not a tail call.
// Before, procedure_callees of close@plt listed sub_1020 (procedure false)
// beside close, and get_call_graph from main added it as a node under
// every stub.
func TestLazyPLTStubCalleesAreItsImport(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, lazyPLTFake)
	p := callPage(t, s, "procedure_callees", "items", `{"procedure":"close@plt"}`)
	is.Equal(p.total, 1)
	is.Equal(p.items[0].(map[string]any)["name"], "close")

	res, err := s.Call(context.Background(), "get_call_graph", json.RawMessage(`{"address":"main","depth":3}`), nil)
	is.NoErr(err)
	var g struct {
		Nodes []struct{ Address string }
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &g))
	for _, n := range g.Nodes {
		is.True(n.Address != "0x1020") // the PLT header is no callee
	}
	is.Equal(len(g.Nodes), 3) // main, close@plt, close
}
