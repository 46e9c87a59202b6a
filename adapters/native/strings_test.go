package native_test

import (
	"context"
	"debug/elf"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

const (
	asciiMarker = "rea-fixture-ascii-marker"
	utf16Marker = "rea UTF-16 marker été" // u"..." in testdata/hello.c: 21 UTF-16 code units
)

// symbolString returns the string a fixture's symbol should be found as.
func symbolString(t *testing.T, path, symbol, value, charset string, byteLength int) ports.String {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name != symbol {
			continue
		}
		sec := f.Sections[s.Section]
		return ports.String{
			Address:    s.Value,
			FileOffset: s.Value - sec.Addr + sec.Offset,
			Value:      value,
			Charset:    charset,
			ByteLength: byteLength,
			Section:    sec.Name,
		}
	}
	t.Fatalf("%s has no symbol %s", path, symbol)
	return ports.String{}
}

func stringsOf(t *testing.T, opts *native.Options, path string) []ports.String {
	t.Helper()
	ctx := context.Background()
	a, err := native.New(opts).Open(ctx, ports.Target{Path: path, Format: "elf"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	strs, err := a.(ports.StringLister).Strings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return strs
}

func at(strs []ports.String, addr uint64, charset string) (ports.String, bool) {
	for _, s := range strs {
		if s.Address == addr && s.Charset == charset {
			return s, true
		}
	}
	return ports.String{}, false
}

func TestStringMarkers(t *testing.T) {
	tests := []struct {
		fixture string
		symbols string // the fixture whose symbols locate the markers
	}{
		{"c", "c"},
		{"c-O2", "c-O2"},
		{"c-g", "c-g"},
		{"c-stripped", "c"}, // strip moves no section
		{"clang-c", "clang-c"},
		{"clang-c-O2-g", "clang-c-O2-g"},
		{"clang-c-lld", "clang-c-lld"},
		{"clang-c-arm64", "clang-c-arm64"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			is := is.New(t)
			path, symbols := fixturePath(t, tt.fixture), fixturePath(t, tt.symbols)
			strs := stringsOf(t, nil, path)
			for _, want := range []ports.String{
				symbolString(t, symbols, "ascii_marker", asciiMarker, "ascii", len(asciiMarker)),
				symbolString(t, symbols, "utf16_marker", utf16Marker, "utf-16le", 2*utf8.RuneCountInString(utf16Marker)),
			} {
				got, ok := at(strs, want.Address, want.Charset)
				is.True(ok) // marker found at its symbol's address
				is.Equal(got, want)
			}
			// The format string keeps its newline; "world" is long enough.
			var values []string
			for _, s := range strs {
				values = append(values, s.Value)
			}
			is.True(contains(values, "hello, %s (%zu)\n"))
			is.True(contains(values, "world"))
			is.True(!contains(values, "rea")) // no run shorter than four characters
		})
	}
}

func contains(values []string, v string) bool {
	for _, s := range values {
		if s == v {
			return true
		}
	}
	return false
}

func TestStringOptions(t *testing.T) {
	path := fixturePath(t, "c")
	ascii := symbolString(t, path, "ascii_marker", asciiMarker, "ascii", len(asciiMarker))
	wide := symbolString(t, path, "utf16_marker", utf16Marker, "utf-16le", 42)
	tests := []struct {
		name              string
		opts              native.Options
		asciiV, wideV     string // "" when the string must not be found
		asciiCut, wideCut bool
		present           string // another value that must be found
	}{
		{"defaults", native.Options{}, asciiMarker, utf16Marker, false, false, ""},
		{"cap 8", native.Options{MaxStringBytes: 8}, "rea-fixt", "rea UTF-", true, true, ""},
		// é takes two UTF-8 bytes: the value stops before a character that would not fit.
		{"cap 19", native.Options{MaxStringBytes: 19}, "rea-fixture-ascii-m", "rea UTF-16 marker ", true, true, ""},
		{"cap exact", native.Options{MaxStringBytes: 24}, asciiMarker, utf16Marker, false, false, ""},
		{"min 22", native.Options{MinStringChars: 22}, asciiMarker, "", false, false, ""},
		{"min 25", native.Options{MinStringChars: 25}, "", "", false, false, "/lib64/ld-linux-x86-64.so.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			strs := stringsOf(t, &tt.opts, path)
			for _, c := range []struct {
				want  ports.String
				value string
				cut   bool
			}{{ascii, tt.asciiV, tt.asciiCut}, {wide, tt.wideV, tt.wideCut}} {
				got, ok := at(strs, c.want.Address, c.want.Charset)
				is.Equal(ok, c.value != "")
				if !ok {
					continue
				}
				c.want.Value, c.want.Truncated = c.value, c.cut
				is.Equal(got, c.want) // ByteLength stays the full run
			}
			if tt.present != "" {
				is.True(contains(valuesOf(strs), tt.present))
			}
		})
	}
}

func valuesOf(strs []ports.String) []string {
	var out []string
	for _, s := range strs {
		out = append(out, s.Value)
	}
	return out
}
