package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"rea/adapters/mcp"
	"rea/core"
	"rea/core/standard"
)

var emptyInput = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{"steps":{"type":"integer","minimum":0,"maximum":1000}}}`)

// testOperations adds operations that exercise the front end: a panic, slow
// work with progress, and an Evidence result.
func testOperations() []*core.Operation {
	return append(standard.Operations(),
		&core.Operation{Name: "test_panic", Title: "Panic", Description: "panics", Kind: core.KindSession, RequiresSession: true,
			Input: emptyInput, Result: json.RawMessage(`{}`), Examples: []json.RawMessage{json.RawMessage(`{}`)},
			Handler: func(ctx context.Context, c *core.Call) (any, error) { panic("deliberate") }},
		&core.Operation{Name: "test_slow", Title: "Slow", Description: "observes progress every 15 ms", Kind: core.KindEnhanced,
			Effects: core.Effects{MutatesSession: true, Idempotent: true},
			Input:   emptyInput, Result: json.RawMessage(`{"type":"object","required":["steps"],"properties":{"steps":{"type":"integer"}}}`),
			Examples: []json.RawMessage{json.RawMessage(`{"steps":3}`)},
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				n := 20
				if v, ok := c.Args["steps"].(json.Number); ok {
					i, _ := v.Int64()
					n = int(i)
				}
				for i := 0; i < n; i++ {
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(15 * time.Millisecond):
					}
					c.Observe("step")
				}
				return &core.Observation{Result: map[string]any{"steps": n}, Unbound: true}, nil
			}},
	)
}

type harness struct {
	client   *sdk.ClientSession
	mu       sync.Mutex
	progress []*sdk.ProgressNotificationParams
	changed  atomic.Int32
}

// newTestServer serves testOperations with opts (nil for none), under the
// test identity.
func newTestServer(t *testing.T, opts *mcp.Options) *mcp.Server {
	t.Helper()
	cat, err := core.NewCatalog(testOperations())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := mcp.Options{}
	if opts != nil {
		o = *opts
	}
	o.Identity = core.ServerIdentity{PackageName: "rea", Version: "test"}
	return mcp.New(cat, reg, &o)
}

func start(t *testing.T) *harness {
	t.Helper()
	srv := newTestServer(t, nil)
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	h := &harness{}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.progress = append(h.progress, r.Params)
			h.mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { h.changed.Add(1) },
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	h.client = cs
	return h
}

func (h *harness) call(t *testing.T, name string, args any, token any) *sdk.CallToolResult {
	t.Helper()
	p := &sdk.CallToolParams{Name: name, Arguments: args}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := h.client.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

func text(t *testing.T, r *sdk.CallToolResult) string {
	t.Helper()
	if len(r.Content) != 1 {
		t.Fatalf("want one content item, got %d", len(r.Content))
	}
	tc, ok := r.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("content is %T", r.Content[0])
	}
	return tc.Text
}

func errorOf(t *testing.T, r *sdk.CallToolResult) core.EnvelopeBody {
	t.Helper()
	if !r.IsError || r.StructuredContent != nil {
		t.Fatalf("want isError without structuredContent, got isError=%v structured=%v", r.IsError, r.StructuredContent)
	}
	var env core.Envelope
	dec := json.NewDecoder(strings.NewReader(text(t, r)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatal(err)
	}
	return env.Error
}

func TestToolsListIsTheWholeCatalog(t *testing.T) {
	is := is.New(t)
	h := start(t)
	is.True(h.client.InitializeResult().Capabilities.Tools != nil)
	is.True(!h.client.InitializeResult().Capabilities.Tools.ListChanged)
	res, err := h.client.ListTools(context.Background(), nil)
	is.NoErr(err)
	is.Equal(len(res.Tools), len(testOperations()))
	for _, tool := range res.Tools {
		is.True(tool.OutputSchema != nil)
		is.True(tool.Annotations != nil)
		is.True(tool.Description != "")
	}
	// Opening or failing to open a target never changes the list.
	_ = h.call(t, "open_binary", map[string]any{"path": "/nonexistent"}, nil)
	_ = h.call(t, "close_binary", map[string]any{}, nil)
	time.Sleep(20 * time.Millisecond)
	is.Equal(h.changed.Load(), int32(0))
}

func TestSuccessStructuredEqualsTextAndMatchesSchema(t *testing.T) {
	is := is.New(t)
	h := start(t)
	res := h.call(t, "binary_session", map[string]any{}, nil)
	is.True(!res.IsError)
	structured, err := json.Marshal(res.StructuredContent)
	is.NoErr(err)
	var a, b any
	is.NoErr(json.Unmarshal(structured, &a))
	is.NoErr(json.Unmarshal([]byte(text(t, res)), &b))
	is.Equal(a, b)
	validateOutput(t, h, "binary_session", structured)

	ev := h.call(t, "test_slow", map[string]any{"steps": 1}, nil)
	is.True(!ev.IsError)
	raw, _ := json.Marshal(ev.StructuredContent)
	validateOutput(t, h, "test_slow", raw)
	parsed, err := core.ParseEvidence(raw)
	is.NoErr(err)
	is.Equal(parsed.Operation, "test_slow")
}

func validateOutput(t *testing.T, h *harness, tool string, instance []byte) {
	t.Helper()
	res, err := h.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != tool {
			continue
		}
		schema, _ := json.Marshal(tl.OutputSchema)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("urn:test", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("urn:test")
		if err != nil {
			t.Fatal(err)
		}
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
		if err := s.Validate(v); err != nil {
			t.Fatalf("%s output does not match its schema: %v", tool, err)
		}
		return
	}
	t.Fatalf("tool %s not listed", tool)
}

func TestFailuresAreToolErrors(t *testing.T) {
	h := start(t)
	cases := []struct {
		tool string
		args any
		code core.Code
	}{
		{"open_binary", map[string]any{}, core.CodeInvalidRequest},
		{"open_binary", map[string]any{"path": 7}, core.CodeInvalidRequest},
		{"open_binary", map[string]any{"path": "/x", "extra": true}, core.CodeInvalidRequest},
		{"open_binary", map[string]any{"path": "/nonexistent/file"}, core.CodeTargetUnavailable},
		{"open_binary", map[string]any{"path": "/tmp"}, core.CodeTargetUnavailable},
		{"open_binary", map[string]any{"path": "/etc/hostname", "provider_id": "no-such-provider"}, core.CodeUnsupportedTarget},
		{"list_procedures", map[string]any{}, core.CodeTargetUnavailable},
		{"test_panic", map[string]any{}, core.CodeExecutionFailure},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			is := is.New(t)
			env := errorOf(t, h.call(t, c.tool, c.args, nil))
			is.Equal(env.Code, c.code)
			is.True(env.Message != "")
			is.True(env.Remediation.Action != "")
		})
	}
	// The server keeps serving after a panic.
	is := is.New(t)
	is.True(!h.call(t, "binary_session", map[string]any{}, nil).IsError)
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	is := is.New(t)
	h := start(t)
	_, err := h.client.CallTool(context.Background(), &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	is.True(err != nil)
}

func TestProgressOnlyWithToken(t *testing.T) {
	is := is.New(t)
	h := start(t)
	without := h.call(t, "test_slow", map[string]any{"steps": 12}, nil)
	time.Sleep(50 * time.Millisecond)
	h.mu.Lock()
	is.Equal(len(h.progress), 0)
	h.mu.Unlock()

	with := h.call(t, "test_slow", map[string]any{"steps": 12}, "tok-1")
	is.Equal(text(t, with), text(t, without)) // identical result either way
	deadline := time.Now().Add(2 * time.Second)
	var got []*sdk.ProgressNotificationParams
	for time.Now().Before(deadline) {
		h.mu.Lock()
		got = append([]*sdk.ProgressNotificationParams(nil), h.progress...)
		h.mu.Unlock()
		if len(got) > 0 && strings.Contains(got[len(got)-1].Message, "completed") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	is.True(len(got) >= 2)
	// 12 steps of 15 ms with a 100 ms bound: far fewer notifications than
	// observations, strictly increasing, no total, terminal last.
	is.True(len(got) < 12)
	for i, p := range got {
		is.Equal(p.ProgressToken, "tok-1")
		is.Equal(p.Total, float64(0))
		if i > 0 {
			is.True(p.Progress > got[i-1].Progress)
		}
		is.True(strings.HasPrefix(p.Message, "test_slow: "))
	}
	is.Equal(got[len(got)-1].Message, "test_slow: completed")
}

func TestCancellationIsCancelled(t *testing.T) {
	is := is.New(t)
	h := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(60 * time.Millisecond); cancel() }()
	_, err := h.client.CallTool(ctx, &sdk.CallToolParams{Name: "test_slow", Arguments: map[string]any{"steps": 1000}})
	is.True(errors.Is(err, context.Canceled))
	// The connection keeps serving, and the cancelled call recorded nothing.
	res := h.call(t, "get_evidence_bundle", map[string]any{}, nil)
	is.True(!res.IsError)
	var b struct {
		Result struct{ Records []any } `json:"result"`
	}
	is.NoErr(json.Unmarshal([]byte(text(t, res)), &b))
	is.Equal(len(b.Result.Records), 0)
}
