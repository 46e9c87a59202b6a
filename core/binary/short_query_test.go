package binary_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// profiledFake is the dossier fake with rea-native's profile: strings of
// at least 4 characters are listed.
type profiledFake struct{ dossierFake }

func (f profiledFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }
func (profiledFake) Profile() ports.Profile {
	return ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"min_string_chars": 4, "max_string_bytes": 4096}}
}

// TestFindCodeForShortString: when nothing matches a query shorter than
// min_string_chars, find_code_for_string says that a literal that short is
// not listed, and names min_string_chars; a query that long or longer, or
// one that matches, gets no such note. Before, the empty answer said
// nothing, as if the literal were not in the binary.
func TestFindCodeForShortString(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, profiledFake{})
	note := func(query string) (int, bool) {
		t.Helper()
		res, err := s.Call(context.Background(), "find_code_for_string", json.RawMessage(`{"query":"`+query+`"}`), nil)
		is.NoErr(err)
		var out struct {
			MatchedStrings int `json:"matched_strings"`
		}
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
		return out.MatchedStrings, slices.ContainsFunc(res.Evidence.Limitations, func(l string) bool {
			return strings.Contains(l, "min_string_chars") && strings.Contains(l, "at least 4")
		})
	}
	n, said := note("xyz")
	is.Equal(n, 0)
	is.True(said) // 3 characters, below the least listed
	n, said = note("zzzz")
	is.Equal(n, 0)
	is.True(!said) // as long as the least listed: the string is not there
	n, said = note("al")
	is.Equal(n, 1)
	is.True(!said) // alpha holds it
}

// A provider that lists strings of one shortest length only refuses
// min_string_chars with an invalid request naming it, and says to omit it;
// one outside 2-16 is refused by the schema.
func TestMinStringCharsUnsupported(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, profiledFake{})
	for _, tc := range []struct{ op, args string }{
		{"find_code_for_string", `{"query":"ok","min_string_chars":2}`},
		{"search_strings", `{"pattern":"ok","min_string_chars":2}`},
		{"find_code_for_string", `{"query":"ok","min_string_chars":1}`},
		{"list_strings", `{"min_string_chars":2}`},
		{"list_strings", `{"address":"0x1000","min_string_chars":2}`},
		{"list_strings", `{"min_string_chars":17}`},
	} {
		_, err := s.Call(context.Background(), tc.op, json.RawMessage(tc.args), nil)
		var ce *core.Error
		is.True(errors.As(err, &ce)) // a typed error
		is.Equal(ce.Code, core.CodeInvalidRequest)
		b, _ := json.Marshal(ce.Details)
		is.True(strings.Contains(ce.Message+ce.Remediation+string(b), "min_string_chars")) // names the argument
	}
}

// TestSearchStringsShortPattern: search_strings says, as
// find_code_for_string does, when nothing matches a pattern shorter than
// min_string_chars, that a literal that short is not listed and what to
// pass; a pattern that long, one that matches, or a regex (whose length is
// no literal's) gets no such note. Before, an exact search for "-a" in
// /usr/bin/ls answered total 0 and nothing else, as if no such literal
// were there.
func TestSearchStringsShortPattern(t *testing.T) {
	is := is.New(t)
	s := fakeSession(t, profiledFake{})
	note := func(args string) (float64, bool) {
		t.Helper()
		res, err := s.Call(context.Background(), "search_strings", json.RawMessage(args), nil)
		is.NoErr(err)
		var out struct {
			Total float64 `json:"total"`
		}
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
		return out.Total, slices.ContainsFunc(res.Evidence.Limitations, func(l string) bool {
			return strings.Contains(l, "the pattern has 2 characters") && strings.Contains(l, "Pass min_string_chars 2")
		})
	}
	n, said := note(`{"pattern":"-a","mode":"exact"}`)
	is.Equal(n, float64(0))
	is.True(said) // 2 characters, below the least listed
	n, said = note(`{"pattern":"zzzz"}`)
	is.Equal(n, float64(0))
	is.True(!said) // as long as the least listed: the string is not there
	n, said = note(`{"pattern":"al"}`)
	is.Equal(n, float64(1))
	is.True(!said) // alpha holds it
	n, said = note(`{"pattern":"x$","mode":"regex"}`)
	is.Equal(n, float64(0))
	is.True(!said) // a regex's length says nothing of a literal's
}
