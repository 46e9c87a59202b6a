package standard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

// typedPending lists the families whose handlers still build map results;
// TestHandlersReturnTheirTypes skips their operations. Shrink it as
// families are converted.
var typedPending = map[string]string{
	"artifact": "converted on another branch",
	"jsapp":    "converted on another branch",
	"web":      "converted on another branch",
	"browser":  "converted on another branch",
	"process":  "converted on another branch",
	"runtime":  "converted on another branch",
	"kernel":   "not converted yet",
	"annotate": "not converted yet",
	"diff":     "not converted yet",
}

// typedExtraArgs are calls made besides each operation's examples, for
// operations whose examples name addresses or procedures the fake engine
// does not have. The fake's program is main at 0x1030, _start at 0x1010,
// puts@plt at 0x1000 and the string "hello, world" at 0x2000.
var typedExtraArgs = map[string][]string{
	"list_names":                   {`{"address":"0x1030"}`},
	"address_name":                 {`{"address":"0x1030"}`},
	"xrefs":                        {`{"address":"0x1030"}`},
	"resolve_containing_procedure": {`{"address":"0x1038"}`},
	"read_bytes":                   {`{"address":"0x1030","length":8}`},
	"address_to_file_offset":       {`{"address":"0x1030"}`},
	"next_address":                 {`{"address":"0x1030"}`},
	"prev_address":                 {`{"address":"0x1034"}`},
	"find_xrefs_to_name":           {`{"name":"greeting"}`},
	"find_code_for_string":         {`{"query":"hello"}`},
	"trace_feature":                {`{"query":"hello"}`},
	"trace_call_path":              {`{"start":"_start","goal":"puts@plt"}`},
	"get_call_graph":               {`{"address":"main"}`},
	"batch_decompile":              {`{"addresses":["main","0x1010"]}`},
	"inspect_native_api":           {`{"procedure":"main"}`},
	"search_strings":               {`{"pattern":"hello"}`},
}

// TestHandlersReturnTheirTypes runs every operation of the converted
// families on a session over the in-memory code fake and fails when a
// handler's result (an Evidence operation's Observation.Result, a session
// operation's value) is not the operation's Go result type (Types.Result,
// or a pointer to it): the Go types are then what the handlers build, not
// a description checked beside map-building code. Each operation must
// return a result at least once, from its examples or typedExtraArgs.
func TestHandlersReturnTheirTypes(t *testing.T) {
	dir := t.TempDir()
	image := filepath.Join(dir, "fake.bin")
	if err := os.WriteFile(image, portstest.CodeFakeImage(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string][]reflect.Type{}
	var fams []core.Family
	for _, f := range standard.Families() {
		if _, skip := typedPending[f.Name]; !skip {
			for _, op := range f.Operations {
				h, name, session := op.Handler, op.Name, op.RequiresSession
				op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
					out, err := h(ctx, c)
					if err == nil {
						v := out
						if o, ok := out.(*core.Observation); ok && !session {
							v = o.Result
						}
						got[name] = append(got[name], reflect.TypeOf(v))
					}
					return out, err
				}
			}
		}
		fams = append(fams, f)
	}
	cat, err := core.Assemble(fams...)
	if err != nil {
		t.Fatal(err)
	}
	cat.SetCheckOutputs(true)
	reg, err := core.NewRegistry([]ports.Provider{portstest.NewCodeFake()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(cat, reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	ctx := context.Background()
	exe, err := os.Executable() // an ELF file; the fake ignores its bytes
	if err != nil {
		t.Fatal(err)
	}
	open, _ := json.Marshal(map[string]string{"path": exe})
	if _, err := s.Call(ctx, "open_binary", open, nil); err != nil {
		t.Fatal(string(core.AsError("open_binary", err).JSON()))
	}
	for _, f := range fams {
		if _, skip := typedPending[f.Name]; skip {
			continue
		}
		for _, op := range f.Operations {
			if op.Name == "close_binary" {
				continue // run last, it unbinds the target
			}
			calls := slices.Clone(op.Examples)
			for _, a := range typedExtraArgs[op.Name] {
				calls = append(calls, json.RawMessage(a))
			}
			if op.Name == "inspect_binary_layout" {
				calls = []json.RawMessage{must(json.Marshal(map[string]string{"path": image})), must(json.Marshal(map[string]string{"path": exe}))}
			}
			for _, args := range calls {
				if _, err := s.Call(ctx, op.Name, args, nil); err != nil {
					t.Logf("%s %s: %s", op.Name, args, core.AsError(op.Name, err).Message)
				}
			}
		}
	}
	for _, f := range fams {
		if _, skip := typedPending[f.Name]; skip {
			continue
		}
		for _, op := range f.Operations {
			if op.Name == "close_binary" {
				if _, err := s.Call(ctx, op.Name, nil, nil); err != nil {
					t.Errorf("close_binary: %v", err)
				}
			}
			types := got[op.Name]
			if len(types) == 0 {
				t.Errorf("%s (%s): no call returned a result; add arguments to typedExtraArgs", op.Name, f.Name)
				continue
			}
			want := op.Types.Result
			for _, typ := range types {
				if typ != want && typ != reflect.PointerTo(want) {
					t.Errorf("%s (%s): the handler returned %v, not its result type %v", op.Name, f.Name, typ, want)
					break
				}
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
