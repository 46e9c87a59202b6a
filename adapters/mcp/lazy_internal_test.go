package mcp

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
	"rea/core/standard"
)

// TestStartupRegistersAndPresentsNothing: a server that has only been
// initialized has registered no tool with the SDK and presented no schema;
// a tools/call registers the tool it names and presents nothing; the first
// tools/list presents every tool and lists each with its whole schemas,
// registering none; a listing with a cursor gets the SDK's answer about
// every tool.
func TestStartupRegistersAndPresentsNothing(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(cat, reg, nil)
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	state := func() (int, int) {
		s.regMu.Lock()
		defer s.regMu.Unlock()
		return len(s.registered), len(s.tools)
	}
	if r, p := state(); r != 0 || p != 0 {
		t.Fatalf("after initialize: %d tools registered, %d presented; want none", r, p)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "binary_session", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("an unknown tool was called")
	}
	if r, p := state(); r != 1 || !s.registered["binary_session"] || p != 0 {
		t.Fatalf("after tools/call: %d tools registered, %d presented; want binary_session alone and none", r, p)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(cat.Operations())
	if r, p := state(); r != 1 || p != n || len(res.Tools) != n {
		t.Fatalf("after tools/list: %d registered, %d presented, %d listed; want 1, %d, %d", r, p, len(res.Tools), n, n)
	}
	for i, tool := range res.Tools {
		if tool.OutputSchema == nil || tool.Description == "" || tool.Name != cat.Operations()[i].Name {
			t.Fatalf("listed %d: %s, its stand-in or out of order", i, tool.Name)
		}
	}
	res, err = cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: res.Tools[0].Name})
	if r, _ := state(); err == nil && (r != n || len(res.Tools) == 0 || res.Tools[0].OutputSchema == nil) {
		t.Fatalf("a listing with a cursor: %d registered, %v", r, res.Tools)
	}
}
