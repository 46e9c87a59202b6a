package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/adapters/mcp"
	"rea/core"
	"rea/core/standard"
)

var bigInput = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{"mib":{"type":"integer","minimum":1,"maximum":64}}}`)

func mibArg(c *core.Call) int {
	n, _ := c.Args["mib"].(json.Number).Int64()
	return int(n)
}

// bigOperations produce results and errors of a chosen size, and look up
// retained records.
func bigOperations() []*core.Operation {
	return append(standard.Operations(),
		&core.Operation{Name: "test_big", Title: "Big", Description: "a large Evidence result", Kind: core.KindEnhanced,
			Effects: core.Effects{MutatesSession: true, Idempotent: true}, Input: bigInput,
			Result: json.RawMessage(`{"type":"object"}`), Examples: []json.RawMessage{json.RawMessage(`{"mib":1}`)},
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return &core.Observation{Result: map[string]any{"blob": strings.Repeat("abcd", mibArg(c)<<18) + "<\"é&"}, Unbound: true}, nil
			}},
		&core.Operation{Name: "test_big_error", Title: "Big error", Description: "fails with large details", Kind: core.KindEnhanced,
			Effects: core.Effects{MutatesSession: true, Idempotent: true}, Input: bigInput,
			Result: json.RawMessage(`{"type":"object"}`), Examples: []json.RawMessage{json.RawMessage(`{"mib":1}`)},
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return nil, &core.Error{Code: core.CodeExecutionFailure, Message: "test_big_error: failed",
					Details: map[string]any{"partial_observation": strings.Repeat("x", mibArg(c)<<20)}}
			}},
		&core.Operation{Name: "test_room", Title: "Room", Description: "reports the room the call was given", Kind: core.KindEnhanced,
			Effects: core.Effects{MutatesSession: true, Idempotent: true},
			Input:   json.RawMessage(`{"type":"object"}`), Result: json.RawMessage(`{"type":"object"}`), Examples: []json.RawMessage{json.RawMessage(`{}`)},
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				return &core.Observation{Result: map[string]any{"result_bytes": c.ResultBytes}, Unbound: true}, nil
			}},
		&core.Operation{Name: "test_lookup", Title: "Lookup", Description: "resolves a retained evidence id", Kind: core.KindSession,
			RequiresSession: true, Result: json.RawMessage(`{"type":"object"}`),
			Input:    json.RawMessage(`{"type":"object","required":["evidence_id"],"properties":{"evidence_id":{"type":"string"}}}`),
			Examples: []json.RawMessage{json.RawMessage(`{"evidence_id":"ev_0000000000000000000000000000000000000000000000000000000000000000"}`)},
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				ev, err := c.Session.Ledger().Resolve(core.EvidenceID(c.Args["evidence_id"].(string)))
				if err != nil {
					return nil, err
				}
				return map[string]any{"operation": ev.Operation, "predicate": ev.PredicateType, "bytes": len(ev.NormalizedResult)}, nil
			}},
	)
}

func startBudget(t *testing.T, max int64) *sdk.ClientSession {
	t.Helper()
	cat, _ := core.NewCatalog(bigOperations())
	reg, _ := core.NewRegistry(nil, nil)
	srv := mcp.New(cat, reg, &mcp.Options{Budget: core.ResponseBudget{MaxResponseBytes: max}})
	// Pipes stand in for stdio; the client's receive buffer matches the
	// server's budget, as REA_MCP_MAX_RESPONSE_BYTES requires.
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	st := &sdk.IOTransport{Reader: sr, Writer: sw}
	ct := &sdk.IOTransport{Reader: cr, Writer: cw, MaxLineLength: int(max)}
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "budget", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callRaw(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestOversizedResultIsRetainedNotTruncated(t *testing.T) {
	is := is.New(t)
	cs := startBudget(t, core.DefaultMaxResponseBytes)
	res := callRaw(t, cs, "test_big", map[string]any{"mib": 11})
	is.True(res.IsError)
	is.Equal(res.StructuredContent, nil)
	text := res.Content[0].(*sdk.TextContent).Text
	is.True(len(text) < 4096) // a bounded diagnostic
	var env core.Envelope
	is.NoErr(json.Unmarshal([]byte(text), &env))
	is.Equal(env.Error.Code, core.CodeResourceConstraint)
	is.Equal(env.Error.Details["resource"], "transport")
	limits := env.Error.Details["reported_limits"].(map[string]any)
	is.Equal(limits["result_budget_bytes"], float64(core.DefaultMaxResponseBytes-core.ResponseEnvelopeReserve))
	id := limits["evidence_id"].(string)
	ref := limits["evidence_reference"].(map[string]any)
	is.Equal(ref["kind"], "retained-evidence")
	is.Equal(ref["evidence_id"], id)
	is.True(strings.Contains(env.Error.Message, "not truncated") || strings.Contains(env.Error.Message, "nothing was truncated"))

	// Complete in the ledger, and the connection stays usable.
	got := callRaw(t, cs, "test_lookup", map[string]any{"evidence_id": id})
	is.True(!got.IsError)
	var look struct{ Result struct{ Bytes int } }
	is.NoErr(json.Unmarshal([]byte(got.Content[0].(*sdk.TextContent).Text), &look))
	is.True(look.Result.Bytes > 11<<20)

	// A smaller result fits.
	is.True(!callRaw(t, cs, "test_big", map[string]any{"mib": 1}).IsError)
}

func TestRaisedBudgetDeliversInline(t *testing.T) {
	is := is.New(t)
	cs := startBudget(t, 32<<20)
	res := callRaw(t, cs, "test_big", map[string]any{"mib": 11})
	is.True(!res.IsError)
	raw, _ := json.Marshal(res.StructuredContent)
	ev, err := core.ParseEvidence(raw)
	is.NoErr(err)
	is.True(len(ev.NormalizedResult) > 11<<20)
}

// TestHandlersSeeTheServersBudget: a handler that fits its own result
// (inspect_web_page's script sources) is given the room of the budget the
// server runs with, not the default's.
func TestHandlersSeeTheServersBudget(t *testing.T) {
	is := is.New(t)
	for _, max := range []int64{core.DefaultMaxResponseBytes, 32 << 20} {
		var got struct {
			Result struct {
				ResultBytes int64 `json:"result_bytes"`
			} `json:"normalized_result"`
		}
		res := callRaw(t, startBudget(t, max), "test_room", map[string]any{})
		if res.IsError {
			t.Fatal(res.Content[0].(*sdk.TextContent).Text)
		}
		is.NoErr(json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &got))
		is.Equal(got.Result.ResultBytes, max-core.ResponseEnvelopeReserve)
	}
}

func TestOversizedErrorIsRetained(t *testing.T) {
	is := is.New(t)
	cs := startBudget(t, core.DefaultMaxResponseBytes)
	res := callRaw(t, cs, "test_big_error", map[string]any{"mib": 11})
	is.True(res.IsError)
	text := res.Content[0].(*sdk.TextContent).Text
	is.True(len(text) < 4096)
	var env core.Envelope
	is.NoErr(json.Unmarshal([]byte(text), &env))
	is.Equal(env.Error.Code, core.CodeResourceConstraint)
	id := env.Error.Details["reported_limits"].(map[string]any)["evidence_id"].(string)
	got := callRaw(t, cs, "test_lookup", map[string]any{"evidence_id": id})
	var look struct {
		Result struct {
			Operation, Predicate string
			Bytes                int
		}
	}
	is.NoErr(json.Unmarshal([]byte(got.Content[0].(*sdk.TextContent).Text), &look))
	is.Equal(look.Result.Operation, "test_big_error")
	is.Equal(look.Result.Predicate, "rea.error")
	is.True(look.Result.Bytes > 11<<20)
	// Small errors are delivered as they are.
	small := callRaw(t, cs, "test_big_error", map[string]any{"mib": 1})
	is.NoErr(json.Unmarshal([]byte(small.Content[0].(*sdk.TextContent).Text), &env))
	is.Equal(env.Error.Code, core.CodeExecutionFailure)
}
