package process_test

import (
	"context"
	"encoding/json"
	"testing"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// caller assembles fams into a session over a fake provider and opts'
// engines, closed with the test, and returns a call that fails the test on
// an error.
func caller(t *testing.T, fams []core.Family, opts *core.RegistryOptions) func(op string, args any) *core.Result {
	t.Helper()
	cat, err := core.Assemble(fams...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewFake()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	return func(op string, args any) *core.Result {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(context.Background(), op, raw, nil)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res
	}
}
