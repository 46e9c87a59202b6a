package binary_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// ifuncFake is the dossier fake whose f is a GNU IFUNC's resolver.
type ifuncFake struct{ dossierFake }

func (f ifuncFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }
func (ifuncFake) Procedures(context.Context) ([]ports.Procedure, error) {
	procs := slices.Clone(dfProcs)
	procs[0].IFunc = true
	return procs, nil
}

// TestIFuncResolverShown: an IFUNC's resolver is marked in
// list_procedures (procedure.ifunc_resolver, absent for other procedures),
// and procedure_info, analyze_function and binary_overview say that the
// code is the resolver, not the implementation chosen at load time.
// Before, the resolver read as an ordinary function of the IFUNC's name.
func TestIFuncResolverShown(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, ifuncFake{})
	call := func(op, args string) (map[string]any, []string) {
		t.Helper()
		res, err := s.Call(context.Background(), op, json.RawMessage(args), nil)
		is.NoErr(err)
		var out map[string]any
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
		return out, res.Evidence.Limitations
	}
	mentions := func(lim []string, what string) bool {
		return slices.ContainsFunc(lim, func(l string) bool { return strings.Contains(l, what) })
	}

	list, _ := call("list_procedures", `{}`)
	items := list["items"].([]any)
	f := items[0].(map[string]any)["procedure"].(map[string]any)
	is.Equal(f["ifunc_resolver"], true)
	g := items[1].(map[string]any)["procedure"].(map[string]any)
	_, has := g["ifunc_resolver"]
	is.True(!has) // omitted when false

	info, lim := call("procedure_info", `{"procedure":"f"}`)
	is.Equal(info["procedure"].(map[string]any)["procedure"].(map[string]any)["ifunc_resolver"], true)
	is.True(mentions(lim, "f is a GNU IFUNC: this code is its resolver"))
	_, lim = call("procedure_info", `{"procedure":"g"}`)
	is.True(!mentions(lim, "IFUNC"))

	_, lim = call("analyze_function", `{"procedure":"f"}`)
	is.True(mentions(lim, "f is a GNU IFUNC"))

	_, lim = call("binary_overview", `{}`)
	is.True(mentions(lim, "1 of the procedures are GNU IFUNC resolvers"))
}

// staticIFuncFake is ifuncFake in a static program.
type staticIFuncFake struct{ ifuncFake }

func (f staticIFuncFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }
func (staticIFuncFake) Documents(context.Context) ([]ports.Document, error) {
	return []ports.Document{{Name: "prog", Format: "elf", Architecture: "x86_64", Entry: 0x1100, HasEntry: true, Static: true}}, nil
}

// TestIFuncResolverWhoRuns: in a static program no dynamic loader runs an
// IFUNC's resolver, the C library's start-up code does, and
// procedure_info and analyze_function say so; in a dynamic one the
// dynamic loader does. Before, both said the dynamic loader.
func TestIFuncResolverWhoRuns(t *testing.T) {
	for _, tc := range []struct {
		name      string
		p         ports.Provider
		says, not string
	}{
		{"dynamic", ifuncFake{}, "which the dynamic loader runs at load time", "start-up code"},
		{"static", staticIFuncFake{}, "the C library's start-up code runs before main", "dynamic loader"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			s := fakeSession(t, tc.p)
			for _, op := range []string{"procedure_info", "analyze_function"} {
				res, err := s.Call(context.Background(), op, json.RawMessage(`{"procedure":"f"}`), nil)
				is.NoErr(err)
				i := slices.IndexFunc(res.Evidence.Limitations, func(l string) bool { return strings.Contains(l, "f is a GNU IFUNC") })
				is.True(i >= 0) // the note
				note := res.Evidence.Limitations[i]
				is.True(strings.Contains(note, tc.says)) // who runs it
				is.True(!strings.Contains(note, tc.not))
			}
		})
	}
}
