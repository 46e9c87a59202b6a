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
// a tools/call registers the tools without presenting them; the first
// tools/list presents every tool, and lists each with its whole schemas.
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
	if s.registered != 0 || s.tools != nil {
		t.Fatalf("after initialize: %d tools registered, %d presented; want none", s.registered, len(s.tools))
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "binary_session", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if s.registered != len(cat.Operations()) || s.tools != nil {
		t.Fatalf("after tools/call: %d tools registered, %d presented; want %d and none", s.registered, len(s.tools), len(cat.Operations()))
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.tools) != len(cat.Operations()) || len(res.Tools) != len(cat.Operations()) {
		t.Fatalf("after tools/list: %d presented, %d listed; want %d", len(s.tools), len(res.Tools), len(cat.Operations()))
	}
	for _, tool := range res.Tools {
		if tool.OutputSchema == nil || tool.Description == "" {
			t.Fatalf("%s is listed as its stand-in", tool.Name)
		}
	}
}
