package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

type echoIn struct {
	Name  string          `json:"name"`
	Limit int             `json:"limit,omitempty"`
	Blob  json.RawMessage `json:"blob,omitempty"`
}

type echoOut struct {
	Name  string `json:"name"`
	Limit int    `json:"limit"`
	Blob  int    `json:"blob_bytes"`
}

// TestInputDecodesValidatedArguments: a handler reads its arguments as its
// Go input type and returns its Go result type; the sealed result is the
// struct's JSON, and a type that does not fit the arguments is a typed error.
func TestInputDecodesValidatedArguments(t *testing.T) {
	is := is.New(t)
	in := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"limit":{"type":"integer","default":3},"blob":{}}}`)
	out := json.RawMessage(`{"type":"object"}`)
	ops := []*core.Operation{
		{Name: "echo_tool", Title: "Echo", Description: "Echoes.", Kind: core.KindApplication, Input: in, Result: out,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				a, err := core.Input[echoIn](c)
				if err != nil {
					return nil, err
				}
				return &core.Observation{Result: echoOut{Name: a.Name, Limit: a.Limit, Blob: len(a.Blob)}, Unbound: true}, nil
			}},
		{Name: "misfit_tool", Title: "Misfit", Description: "Wrong type.", Kind: core.KindApplication, Input: in, Result: out,
			Handler: func(ctx context.Context, c *core.Call) (any, error) {
				_, err := core.Input[struct {
					Name int `json:"name"`
				}](c)
				return nil, err
			}},
	}
	cat, err := core.NewCatalog(ops)
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	ctx := context.Background()
	res, err := s.Call(ctx, "echo_tool", json.RawMessage(`{"name":"x","limit":7,"blob":{"a":[1,2]}}`), nil)
	is.NoErr(err)
	is.Equal(string(res.Evidence.NormalizedResult), `{"blob_bytes":11,"limit":7,"name":"x"}`)
	res, err = s.Call(ctx, "echo_tool", json.RawMessage(`{"name":"y"}`), nil) // an absent argument takes its default
	is.NoErr(err)
	is.Equal(string(res.Evidence.NormalizedResult), `{"blob_bytes":0,"limit":3,"name":"y"}`)
	_, err = s.Call(ctx, "misfit_tool", json.RawMessage(`{"name":"x"}`), nil)
	var ce *core.Error
	is.True(errors.As(err, &ce))
	is.Equal(ce.Code, core.CodeInvalidRequest)
}

// TestValidateDecodesTheArgumentsOnce: the tree the schema validates is the
// arguments map handlers read; the raw arguments are not decoded a second
// time. Validating a large argument object must allocate less than one
// plain decode of it more than the validation itself does (a second decode
// would add a whole decode's allocations), and defaults still apply.
func TestValidateDecodesTheArgumentsOnce(t *testing.T) {
	is := is.New(t)
	in := json.RawMessage(`{"type":"object","properties":{"rows":{"type":"array"},"limit":{"type":"integer","default":3}}}`)
	op := &core.Operation{Name: "rows_tool", Title: "Rows", Description: "Rows.", Kind: core.KindApplication, Input: in, Result: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, *core.Call) (any, error) { return nil, nil }}
	cat, err := core.NewCatalog([]*core.Operation{op})
	is.NoErr(err)
	rows := make([]map[string]any, 4000)
	for i := range rows {
		rows[i] = map[string]any{"n": i, "s": "row"}
	}
	raw, _ := json.Marshal(map[string]any{"rows": rows})
	m, err := cat.Validate(op, raw)
	is.NoErr(err)
	is.Equal(m["limit"], json.Number("3")) // the default applies
	is.Equal(len(m["rows"].([]any)), 4000) // numbers stay json.Number
	is.Equal(m["rows"].([]any)[7].(map[string]any)["n"], json.Number("7"))
	decode := testing.AllocsPerRun(5, func() {
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&v)
	})
	// Validation of an untyped array walks no rows; what it allocates
	// beyond the decode is small against a second decode of 4000 rows.
	validate := testing.AllocsPerRun(5, func() { _, _ = cat.Validate(op, raw) })
	if validate > 1.5*decode {
		t.Fatalf("Validate allocates %.0f times for arguments one decode allocates %.0f times for: the arguments are decoded more than once", validate, decode)
	}
}
