package portstest

import (
	"math"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// The checks are tested from inside the package: Run reports through
// *testing.T, which a test cannot fake, so this is where the suite's ability
// to reject broken results is shown.

func TestCheckInfo(t *testing.T) {
	tests := []struct {
		id   string
		ok   bool
		name string
	}{
		{"rea-native", true, "n"},
		{"ghidra2", true, "n"},
		{"auto", false, "n"},
		{"Native", false, "n"},
		{"1abc", false, "n"},
		{"", false, "n"},
		{"a_b", false, "n"},
		{strings.Repeat("a", 64), true, "n"},
		{strings.Repeat("a", 65), false, "n"},
		{"fine", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			is := is.New(t)
			err := checkInfo(ports.ProviderInfo{ID: tt.id, Name: tt.name})
			is.Equal(err == nil, tt.ok)
		})
	}
}

func TestCheckProfile(t *testing.T) {
	tests := []struct {
		name string
		p    ports.Profile
		ok   bool
	}{
		{"ok", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"n": 3, "s": "x", "l": []any{1.5, true, nil}, "m": map[string]any{"k": "v"}}}, true},
		{"no parameters", ports.Profile{SchemaVersion: 2}, true},
		{"schema 0", ports.Profile{}, false},
		{"struct", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"x": struct{}{}}}, false},
		{"nan", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"x": math.NaN()}}, false},
		{"nested func", ports.Profile{SchemaVersion: 1, Parameters: map[string]any{"x": []any{func() {}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(checkProfile(tt.p) == nil, tt.ok)
		})
	}
}

func TestCheckLists(t *testing.T) {
	tests := []struct {
		name  string
		check func() error
		ok    bool
	}{
		{"documents ok", func() error { return checkDocuments([]ports.Document{{Name: "a", Format: "elf"}}) }, true},
		{"documents none", func() error { return checkDocuments(nil) }, false},
		{"documents unnamed", func() error { return checkDocuments([]ports.Document{{Format: "elf"}}) }, false},
		{"documents entry without HasEntry", func() error {
			return checkDocuments([]ports.Document{{Name: "a", Format: "elf", Entry: 4}})
		}, false},

		{"segments ok", func() error {
			return checkSegments([]ports.Segment{{Name: ".bss", Kind: "section", Start: 1, Size: 10}, {Kind: "segment", FileOffset: 10, FileSize: 90}}, 100)
		}, true},
		{"segments kind", func() error { return checkSegments([]ports.Segment{{Kind: "region"}}, 0) }, false},
		{"segments overflow", func() error {
			return checkSegments([]ports.Segment{{Kind: "section", Start: math.MaxUint64, Size: 2}}, 0)
		}, false},
		{"segments beyond file", func() error {
			return checkSegments([]ports.Segment{{Kind: "section", FileOffset: 10, FileSize: 91}}, 100)
		}, false},

		{"procedures ok", func() error {
			return checkProcedures([]ports.Procedure{{Address: 1}, {Address: 2, Thunk: true, ThunkTarget: "x"}})
		}, true},
		{"procedures unsorted", func() error { return checkProcedures([]ports.Procedure{{Address: 2}, {Address: 1}}) }, false},
		{"procedures repeated address", func() error { return checkProcedures([]ports.Procedure{{Address: 2}, {Address: 2}}) }, false},
		{"procedures target without thunk", func() error { return checkProcedures([]ports.Procedure{{Address: 2, ThunkTarget: "x"}}) }, false},

		{"names ok", func() error {
			return checkNames([]ports.Name{{Address: 1, Name: "b", Kind: "function"}, {Address: 1, Name: "c", Kind: "label"}, {Address: 2, Name: "a", Kind: "import"}})
		}, true},
		{"names unsorted by name", func() error {
			return checkNames([]ports.Name{{Address: 1, Name: "c", Kind: "function"}, {Address: 1, Name: "b", Kind: "function"}})
		}, false},
		{"names duplicate", func() error {
			return checkNames([]ports.Name{{Address: 1, Name: "b", Kind: "function"}, {Address: 1, Name: "b", Kind: "object"}})
		}, false},
		{"names kind", func() error { return checkNames([]ports.Name{{Address: 1, Name: "b", Kind: "thing"}}) }, false},
		{"names empty", func() error { return checkNames([]ports.Name{{Address: 1, Kind: "label"}}) }, false},

		{"strings ok", func() error {
			return checkStrings([]ports.String{
				{Address: 1, Value: "abcd", Charset: "ascii", ByteLength: 4},
				{Address: 1, Value: "été", Charset: "utf-16le", ByteLength: 6},
				{Address: 9, Value: "ab", Charset: "ascii", ByteLength: 400, Truncated: true},
			})
		}, true},
		{"strings unsorted", func() error {
			return checkStrings([]ports.String{{Address: 2, Value: "abcd", Charset: "ascii", ByteLength: 4}, {Address: 1, Value: "abcd", Charset: "ascii", ByteLength: 4}})
		}, false},
		{"strings empty value", func() error { return checkStrings([]ports.String{{Charset: "ascii", ByteLength: 4}}) }, false},
		{"strings charset", func() error { return checkStrings([]ports.String{{Value: "abcd", Charset: "latin1", ByteLength: 4}}) }, false},
		{"strings length", func() error { return checkStrings([]ports.String{{Value: "abcd", Charset: "utf-16le", ByteLength: 4}}) }, false},
		{"strings invalid utf-8", func() error { return checkStrings([]ports.String{{Value: "\xff", Charset: "ascii", ByteLength: 1}}) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := tt.check()
			is.Equal(err == nil, tt.ok) // check result
		})
	}
}
