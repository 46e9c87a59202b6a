package binary_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// ownStubFake is a shared library, as libc.so.6 is built: malloc is its
// own function, and its code calls it through its own PLT stub malloc@plt
// (interposable), but for one direct call; f also calls malloc_thunk, a
// local jump thunk to it.
var ownStubFake = &tableFake{
	procs: []ports.Procedure{
		{Address: 0x1010, Name: "malloc_thunk", Size: 0x5, Source: "symbol", Thunk: true, ThunkTarget: "malloc"},
		{Address: 0x1030, Name: "malloc@plt", Size: 0x10, Source: "plt", External: true, Thunk: true, ThunkTarget: "malloc"},
		{Address: 0x1100, Name: "f", Size: 0x40, Source: "symbol"},
		{Address: 0x1190, Name: "g", Size: 0x40, Source: "symbol"},
		{Address: 0x1200, Name: "malloc", Size: 0x40, Source: "dynamic-symbol"},
	},
	names: []ports.Name{
		{Address: 0x1010, Name: "malloc_thunk", Kind: "function"},
		{Address: 0x1030, Name: "malloc@plt", Kind: "import"},
		{Address: 0x1100, Name: "f", Kind: "function"},
		{Address: 0x1190, Name: "g", Kind: "function"},
		{Address: 0x1200, Name: "malloc", Kind: "function"},
		{Address: 0x4048, Name: "malloc", Kind: "import"},
	},
	refs: []ports.Reference{
		{From: 0x1030, To: 0x4048, Kind: ports.RefJump, Slot: 0x4048},
		{From: 0x1110, To: 0x1030, Kind: ports.RefCall},
		{From: 0x1120, To: 0x1010, Kind: ports.RefCall},
		{From: 0x11a0, To: 0x1200, Kind: ports.RefCall},
	},
}

// TestCallersOfAFunctionCalledThroughItsOwnStub: procedure_callers of
// libc's malloc listed the 2 functions that call it directly, and said
// nothing of the 252 that call malloc@plt, this library's own stub for it.
// A limitation now names the stub and how many call through it.
func TestCallersOfAFunctionCalledThroughItsOwnStub(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, ownStubFake)
	res, err := s.Call(context.Background(), "procedure_callers", json.RawMessage(`{"procedure":"malloc"}`), nil)
	is.NoErr(err)
	var out struct{ Total int }
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
	is.Equal(out.Total, 1) // g, directly
	said := ""
	for _, l := range res.Evidence.Limitations {
		if strings.Contains(l, "malloc@plt") {
			said = l
		}
	}
	is.True(strings.Contains(said, "malloc@plt (0x1030)")) // the stub, by name and address
	is.True(strings.Contains(said, "1 caller"))            // f, through the stub
	for _, l := range res.Evidence.Limitations {
		is.True(!strings.Contains(l, "malloc_thunk")) // a local jump thunk (crt's frame_dummy) is no stub an object could interpose
	}
	// The stub's own callers say nothing of it.
	res, err = s.Call(context.Background(), "procedure_callers", json.RawMessage(`{"procedure":"malloc@plt"}`), nil)
	is.NoErr(err)
	for _, l := range res.Evidence.Limitations {
		is.True(!strings.Contains(l, "own stub"))
	}
}

// TestCallersOfAFunctionWhoseAddressIsTaken: procedure_callers of ls's main
// (or of a qsort comparator) found none and said nothing, though _start
// takes main's address (lea rdi, [rip+main]) to pass it to
// __libc_start_main. A limitation now names where code takes the address.
func TestCallersOfAFunctionWhoseAddressIsTaken(t *testing.T) {
	is := is.New(t)
	fake := &tableFake{
		procs: []ports.Procedure{{Address: 0x1100, Name: "_start", Size: 0x40, Source: "entry"}, {Address: 0x1190, Name: "main", Size: 0x40, Source: "symbol"}},
		names: []ports.Name{{Address: 0x1100, Name: "_start", Kind: "function"}, {Address: 0x1190, Name: "main", Kind: "function"}},
		refs:  []ports.Reference{{From: 0x1118, To: 0x1190, Kind: ports.RefAddress}},
	}
	s := fakeSession(t, fake)
	res, err := s.Call(context.Background(), "procedure_callers", json.RawMessage(`{"procedure":"main"}`), nil)
	is.NoErr(err)
	var out struct{ Total int }
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
	is.Equal(out.Total, 0)
	said := false
	for _, l := range res.Evidence.Limitations {
		said = said || strings.Contains(l, "main's address is taken in code at 0x1118")
	}
	is.True(said)
}
