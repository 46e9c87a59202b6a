package core_test

import (
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
