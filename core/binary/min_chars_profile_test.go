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

// minCharsFake is profiledFake (min_string_chars 4) whose strings can also
// be listed at another shortest length: at 2 the list holds "ok" too.
type minCharsFake struct{ profiledFake }

func (f minCharsFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }
func (f minCharsFake) StringsMinChars(n int) ports.StringLister {
	if n >= 4 {
		return f
	}
	return shortStrings{f}
}

type shortStrings struct{ minCharsFake }

func (s shortStrings) Strings(ctx context.Context) ([]ports.String, error) {
	out, err := s.minCharsFake.Strings(ctx)
	return append(out, ports.String{Address: 0x2020, FileOffset: 0x2020, Value: "ok", Charset: "ascii", ByteLength: 2, Section: ".data"}), err
}

// TestMinStringCharsProfile: a string tool's record names the analysis
// profile that produced it. Called with min_string_chars 2, list_strings,
// search_strings and find_code_for_string list strings the bound profile
// (min_string_chars 4) does not, so the record names the bound profile
// with min_string_chars 2 and says so; without the argument, or with the
// profile's own 4, it names the bound profile as before. Before, every
// record named the profile's min_string_chars 4 whatever was passed.
func TestMinStringCharsProfile(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, minCharsFake{})
	profileOf := func(op, args string) (minChars any, lim []string) {
		t.Helper()
		res, err := s.Call(context.Background(), op, json.RawMessage(args), nil)
		is.NoErr(err)
		ev := res.Evidence
		if ev.AnalysisProfile == nil {
			return nil, ev.Limitations
		}
		var p map[string]any
		is.NoErr(json.Unmarshal(ev.AnalysisProfile.Parameters, &p))
		return p["min_string_chars"], ev.Limitations
	}
	said := func(lim []string) bool {
		return slices.ContainsFunc(lim, func(l string) bool {
			return strings.Contains(l, "Listed at min_string_chars 2") && strings.Contains(l, "profile's 4")
		})
	}
	for _, tc := range []struct{ op, args string }{
		{"list_strings", `"limit":10`},
		{"list_strings", `"address":"0x2020"`},
		{"search_strings", `"pattern":"ok"`},
		{"find_code_for_string", `"query":"ok"`},
	} {
		m, lim := profileOf(tc.op, "{"+tc.args+"}")
		is.Equal(m, float64(4)) // the bound profile produced it
		is.True(!said(lim))
		with := func(n string) string { return "{" + tc.args + `,"min_string_chars":` + n + "}" }
		m, lim = profileOf(tc.op, with("2"))
		is.Equal(m, float64(2)) // the profile that listed at 2
		is.True(said(lim))      // says the length that was used
		m, lim = profileOf(tc.op, with("4"))
		is.Equal(m, float64(4)) // the profile's own length: its profile
		is.True(!said(lim))
	}
}
