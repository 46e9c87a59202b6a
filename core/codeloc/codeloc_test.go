package codeloc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/codeloc"
	"rea/ports"
)

// fake is a target with a gap between .text and .data, a load segment
// for the headers, and names: main, a label check, a label sharing the
// procedure name helper, a linker's _end one past .data, and a label
// whose name holds "+0x".
type fake struct {
	analyst map[uint64]string
	listed  bool
}

func (f fake) AnalystNames(context.Context) (map[uint64]string, error) { return f.analyst, nil }

func (f fake) EngineNames(context.Context) ([]ports.Procedure, []ports.Name, error) {
	return []ports.Procedure{{Address: 0x1100, Name: "main"}, {Address: 0x1200, Name: "helper"}},
		[]ports.Name{{Address: 0x3000, Name: "helper"}, {Address: 0x1180, Name: "check"}, {Address: 0x1190, Name: "check"},
			{Address: 0x3010, Name: "_end"}, {Address: 0x1300, Name: "*ABS*+0x9f550@plt"}}, nil
}

func (f fake) Segments(context.Context) ([]ports.Segment, bool, error) {
	return []ports.Segment{
		{Name: "__PAGEZERO", Start: 0, Size: 0x400},
		{Name: ".text", Start: 0x1000, Size: 0x1000, Perms: ports.Permissions{Read: true, Execute: true}},
		{Name: ".data", Start: 0x3000, Size: 0x10, Perms: ports.Permissions{Read: true}},
		{Name: ".empty", Start: 0x2800, Size: 0},
		{Name: "LOAD#0", Start: 0x400, Size: 0x200, Perms: ports.Permissions{Read: true}},
	}, f.listed, nil
}

func resolve(t *testing.T, tg codeloc.Target, s string, opts *codeloc.Options) (uint64, *core.Error) {
	t.Helper()
	a, err := codeloc.Resolve(context.Background(), "op", []any{"address"}, s, tg, opts)
	if err == nil {
		return a, nil
	}
	var ce *core.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%q: %v is no core.Error", s, err)
	}
	return 0, ce
}

func TestResolveForms(t *testing.T) {
	tg := fake{analyst: map[uint64]string{0x1200: "scale", 0x1100: "twin", 0x1180: "twin"}, listed: true}
	for s, want := range map[string]uint64{
		"0x1100": 0x1100, "4352": 0x1100, // hex, decimal
		"scale": 0x1200, "twin": 0x1100, // an analyst's name; of two, the lower address
		"main": 0x1100, "helper": 0x1200, // a procedure's name before a label's
		"check":     0x1180, // a label's, the lower of two
		"sub_1234":  0x1234, // sub_<hex>
		"main+0x10": 0x1110, "main+16": 0x1110, "scale+0x1": 0x1201, "sub_1000+0x8": 0x1008,
		"*ABS*+0x9f550@plt": 0x1300, // a name holding "+0x" is that name
		"_end":              0x3010, // unmapped, but the target names it
	} {
		got, err := resolve(t, tg, s, nil)
		if err != nil || got != want {
			t.Errorf("%q: %#x, %v; want %#x", s, got, err, want)
		}
	}
}

func TestResolveRefusesAnUnknownName(t *testing.T) {
	is := is.New(t)
	_, err := resolve(t, fake{listed: true}, "mian", nil)
	is.True(err != nil)
	is.Equal(err.Code, core.CodeInvalidRequest)
	is.Equal(err.Details["reason"], "unknown_name")
	is.Equal(err.Details["suggestions"], []string{"main"})
	b, _ := json.Marshal(err.Details["issues"])
	is.Equal(string(b), `[{"path":["address"],"reason":"invalid_value","message":"no procedure, label or address is named \"mian\"; did you mean main?","expected":"`+codeloc.ExpectLocation+`"}]`)
	// No suggestion: still the field, empty.
	_, err = resolve(t, fake{listed: true}, "zzzzzzzz", nil)
	is.Equal(err.Details["suggestions"], []string{})
	is.True(!strings.Contains(err.Message, "did you mean"))
	// NAME+OFFSET of an unknown NAME is an unknown name.
	_, err = resolve(t, fake{listed: true}, "nosuch+0x10", nil)
	is.Equal(err.Details["reason"], "unknown_name")
	// An offset past 2^64 is out of range, not wrapped.
	_, err = resolve(t, fake{listed: true}, "sub_ffffffffffffffff+2", nil)
	is.Equal(err.Details["issues"].([]core.Issue)[0].Reason, core.ReasonOutOfRange)
}

func TestResolveRefusesAnUnmappedAddress(t *testing.T) {
	is := is.New(t)
	tg := fake{listed: true}
	for s, near := range map[string][]codeloc.Segment{
		"0x2400":    {{".text", "0x1000", "0x2000"}, {".data", "0x3000", "0x3010"}}, // a gap: one each side
		"0x9000":    {{".data", "0x3000", "0x3010"}},                                // past the last
		"0x10":      {{"LOAD#0", "0x400", "0x600"}},                                 // __PAGEZERO maps nothing
		"main+4096": {{".text", "0x1000", "0x2000"}, {".data", "0x3000", "0x3010"}},
	} {
		_, err := resolve(t, tg, s, nil)
		if err == nil {
			t.Errorf("%q resolved", s)
			continue
		}
		is.Equal(err.Code, core.CodeInvalidRequest)
		is.Equal(err.Details["reason"], "address_unmapped")
		is.Equal(err.Details["nearest_segments"], near)
		issue := err.Details["issues"].([]core.Issue)[0]
		is.Equal(issue.Reason, core.ReasonOutOfRange)
		is.True(strings.Contains(issue.Message, err.Details["address"].(string)+" lies outside every segment"))
		for _, n := range near {
			is.True(strings.Contains(issue.Message, n.Name+" "+n.Start+"-"+n.End))
		}
	}
	// Mapped: a section, a load segment, a label past them.
	for _, s := range []string{"0x1fff", "0x400", "_end"} {
		_, err := resolve(t, tg, s, nil)
		is.True(err == nil)
	}
	// A tool that opts out, and a target that lists no segments, accept it.
	a, err := resolve(t, tg, "0x2400", &codeloc.Options{Unmapped: true})
	is.True(err == nil)
	is.Equal(a, uint64(0x2400))
	_, err = resolve(t, fake{}, "0x9000", nil)
	is.True(err == nil)
}

func TestSuggest(t *testing.T) {
	is := is.New(t)
	names := []string{"check_key", "Check_Key", "helper", "main", "", "main"}
	is.Equal(codeloc.Suggest(names, "CHECK_KEY"), []string{"Check_Key", "check_key"}) // same but for case, only those
	is.Equal(codeloc.Suggest(names, "heper"), []string{"helper"})                     // one edit
	is.Equal(codeloc.Suggest(names, "key"), []string{"Check_Key", "check_key"})       // holding it, in any case
	is.Equal(len(codeloc.Suggest(names, "zzzz")), 0)
	// A name a tool refuses because it names another kind of thing (a
	// label given as a procedure) is never suggested to itself: before,
	// analyze_function "_IO_stdin_used" said "did you mean _IO_stdin_used?".
	is.Equal(codeloc.Suggest(names, "check_key"), []string{"Check_Key"})
	is.Equal(len(codeloc.Suggest(names, "main")), 0)
}

func TestHasOffset(t *testing.T) {
	is := is.New(t)
	for s, want := range map[string]bool{"main+0x10": true, "x+16": true, "a+b": false, "+16": false, "*ABS*+0x9f550@plt": false, "main": false} {
		is.Equal(codeloc.HasOffset(s), want)
	}
}

// TestSyntheticNames: the names engines make up for a procedure at an
// address read as that address, in any engine's form and either case, and
// resolve as sub_<hex> does; a name that only starts like one is no
// address.
func TestSyntheticNames(t *testing.T) {
	for s, want := range map[string]uint64{"sub_113e": 0x113e, "sub_113E": 0x113e, "FUN_0000113e": 0x113e, "fcn.0000113e": 0x113e} {
		if got, ok := codeloc.SyntheticAddress(s); !ok || got != want {
			t.Errorf("SyntheticAddress(%q) = %#x, %v", s, got, ok)
		}
		if got, err := resolve(t, fake{listed: true}, s, &codeloc.Options{Unmapped: true}); err != nil || got != want {
			t.Errorf("Resolve(%q) = %#x, %v", s, got, err)
		}
	}
	for _, s := range []string{"sub_", "FUN_", "fcn.", "FUN_xyz", "fun_113e", "fcn_113e", "sub_0x113e", "sub_+113e"} {
		if got, ok := codeloc.SyntheticAddress(s); ok {
			t.Errorf("SyntheticAddress(%q) = %#x", s, got)
		}
	}
}

// TestNearestProcedure: the procedure holding an address (the inner of
// nested ones), else the one starting nearest, the lower of two as near.
func TestNearestProcedure(t *testing.T) {
	procs := []ports.Procedure{{Address: 0x1200, Name: "c", Size: 0x10}, {Address: 0x1000, Name: "a", Size: 0x100}, {Address: 0x1040, Name: "inner", Size: 0x8},
		{Address: 0x1180, Name: "b"}}
	for at, want := range map[uint64]string{0x1001: "a", 0x1044: "inner", 0x1048: "a", 0x1100: "b", 0x1181: "b", 0x11c0: "b", 0x1208: "c", 0x9000: "c", 0x10: "a"} {
		if p, ok := codeloc.NearestProcedure(procs, at); !ok || p.Name != want {
			t.Errorf("NearestProcedure(%#x) = %q, %v; want %q", at, p.Name, ok, want)
		}
	}
	if _, ok := codeloc.NearestProcedure(nil, 0x1000); ok {
		t.Error("NearestProcedure of none found one")
	}
}
