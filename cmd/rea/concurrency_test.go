package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A thousand mixed calls on one connection while open_binary switches the
// target between two binaries: every call is answered exactly once and
// none fails with execution_failure; each call keeps the analysis it
// started with (issue 14: in-flight calls used to fail "analysis closed").
func TestConcurrentCallsSurviveTargetSwitches(t *testing.T) {
	hello := needFixture(t)
	// The second target is rea itself, a Go binary large enough that calls
	// on it overlap the switches.
	other := filepath.Join(t.TempDir(), "rea-copy")
	b, err := os.ReadFile(reaBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": hello}); r.isError {
		t.Fatal(r.text)
	}
	// Procedures named main exist in the C fixture only: on rea's own binary
	// those calls are answered with a typed invalid_request, as they should.
	type req struct {
		name string
		args map[string]any
	}
	mix := []req{
		{"binary_overview", map[string]any{}},
		{"analyze_function", map[string]any{"procedure": "main", "include_assembly": true}},
		{"get_call_graph", map[string]any{"procedure": "main", "depth": 2}},
		{"procedure_assembly", map[string]any{"procedure": "main"}},
		{"list_procedures", map[string]any{"query": "main", "limit": 5}},
		{"list_procedures", map[string]any{"limit": 20}},
		{"list_strings", map[string]any{"limit": 20}},
		{"list_segments", map[string]any{}},
		{"search_strings", map[string]any{"pattern": "a", "limit": 5}},
		{"binary_session", map[string]any{}},
		{"get_evidence_bundle", map[string]any{"detail": "summary"}},
	}
	const calls = 1000
	var answered, execFailures, switches atomic.Int64
	codes := sync.Map{}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 16; w++ {
		wg.Go(func() {
			for i := range next {
				var name string
				var args map[string]any
				if i%50 == 0 {
					name, args = "open_binary", map[string]any{"path": []string{hello, other}[i/50%2]}
					switches.Add(1)
				} else {
					r := mix[i%len(mix)]
					name, args = r.name, r.args
				}
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
				if err != nil {
					t.Errorf("%s: protocol error %v", name, err)
					continue
				}
				answered.Add(1)
				if !res.IsError {
					continue
				}
				var env struct {
					Error struct {
						Code    string `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				_ = json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &env)
				n, _ := codes.LoadOrStore(env.Error.Code, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
				if env.Error.Code == "execution_failure" {
					execFailures.Add(1)
					t.Errorf("%s: execution_failure: %s", name, env.Error.Message)
				}
			}
		})
	}
	for i := 0; i < calls; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if answered.Load() != calls {
		t.Fatalf("%d of %d calls answered", answered.Load(), calls)
	}
	var summary string
	codes.Range(func(k, v any) bool {
		summary += fmt.Sprintf(" %s=%d", k, v.(*atomic.Int64).Load())
		return true
	})
	t.Logf("%d calls, %d target switches, error codes:%s", calls, switches.Load(), summary)
	if execFailures.Load() != 0 {
		t.Fatalf("%d execution failures", execFailures.Load())
	}
}
