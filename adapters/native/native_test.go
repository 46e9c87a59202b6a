package native_test

import (
	"context"
	"debug/pe"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
	"rea/ports/portstest"
)

func TestProvider(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	p := native.New(nil)
	is.Equal(p.Info(), ports.ProviderInfo{ID: "rea-native", Name: "rea built-in native analyzer", Version: native.Version})
	is.True(p.Availability(ctx).Available)

	tests := []struct {
		format string
		ok     bool
	}{
		{"elf", true}, {"pe", true}, {"mach-o", true}, {"mach-o-universal", true},
		{"asar", false}, {"javascript", false}, {"", false},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			is := is.New(t)
			s := p.Support(ctx, ports.Target{Format: tt.format})
			is.Equal(s.Supported, tt.ok)
			if !tt.ok {
				is.Equal(s.Code, "target_format_unsupported")
				is.True(s.Reason != "")
			}
		})
	}
}

func TestProfile(t *testing.T) {
	tests := []struct {
		name string
		opts *native.Options
		want map[string]any
	}{
		{"defaults", nil, map[string]any{"max_string_bytes": 4096, "min_string_chars": 4}},
		{"zero", &native.Options{}, map[string]any{"max_string_bytes": 4096, "min_string_chars": 4}},
		{"set", &native.Options{MaxStringBytes: 100, MinStringChars: 6}, map[string]any{"max_string_bytes": 100, "min_string_chars": 6}},
		{"tiny cap", &native.Options{MaxStringBytes: 1}, map[string]any{"max_string_bytes": 4, "min_string_chars": 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			a, err := native.New(tt.opts).Open(ctx, ports.Target{Path: fixturePath(t, "c"), Format: "elf"})
			is.NoErr(err)
			defer a.Close(ctx)
			is.Equal(a.Version(), native.Version)
			is.Equal(a.Profile(), ports.Profile{SchemaVersion: 1, Parameters: tt.want})
		})
	}
}

func TestOptionsCopiedOnEntry(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	opts := &native.Options{MinStringChars: 5}
	p := native.New(opts)
	opts.MinStringChars = 50
	a, err := p.Open(ctx, ports.Target{Path: fixturePath(t, "c"), Format: "elf"})
	is.NoErr(err)
	defer a.Close(ctx)
	is.Equal(a.Profile().Parameters["min_string_chars"], 5)
}

func target(t testing.TB, path, format string) ports.Target {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return ports.Target{Path: path, Format: format, Size: st.Size()}
}

func TestConformance(t *testing.T) {
	t.Run("gcc", func(t *testing.T) {
		portstest.Run(t, native.New(nil), target(t, fixturePath(t, "c"), "elf"))
	})
	t.Run("ls", func(t *testing.T) {
		if _, err := os.Stat("/usr/bin/ls"); err != nil {
			t.Skip("/usr/bin/ls is missing")
		}
		portstest.Run(t, native.New(nil), target(t, "/usr/bin/ls", "elf"))
	})
}

// The provider declares, through typed capabilities, exactly what its
// analyses and it implement (Run checks it too, on every fixture).
func TestCapabilities(t *testing.T) {
	is := is.New(t)
	p := native.New(nil)
	a, err := p.Open(t.Context(), target(t, fixturePath(t, "c"), "elf"))
	is.NoErr(err)
	defer a.Close(t.Context())
	portstest.CheckCapabilities(t, p, a)
	caps, unknown, ok := ports.DeclaredCapabilities(p)
	is.True(ok)
	is.Equal(len(unknown), 0)
	is.True(!slices.Contains(caps, ports.CapDecompile)) // native does not decompile
	is.Equal(ports.ProviderCapabilitiesOf(p), []ports.Capability{ports.CapLayout})
}

func TestDocuments(t *testing.T) {
	tests := []struct {
		fixture string
		want    ports.Document
	}{
		{"c", ports.Document{Name: "c", Format: "elf", Architecture: "x86_64", HasEntry: true}},
		{"c-stripped", ports.Document{Name: "c-stripped", Format: "elf", Architecture: "x86_64", HasEntry: true}},
		{"go-linux-arm64", ports.Document{Name: "go-linux-arm64", Format: "elf", Architecture: "arm64", HasEntry: true, Static: true}}, // no PT_INTERP, no DT_NEEDED
		{"go-windows-amd64", ports.Document{Name: "go-windows-amd64", Format: "pe", Architecture: "x86_64", HasEntry: true}},
		{"go-darwin-arm64", ports.Document{Name: "go-darwin-arm64", Format: "mach-o", Architecture: "arm64", HasEntry: true}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			ctx := context.Background()
			a, err := native.OpenFile(ctx, fixturePath(t, tt.fixture))
			is.NoErr(err)
			defer a.Close(ctx)
			docs, err := a.Documents(ctx)
			is.NoErr(err)
			is.Equal(len(docs), 1)
			is.True(docs[0].Entry != 0)
			tt.want.Entry = docs[0].Entry
			is.Equal(docs[0], tt.want)

			// The entry point is a procedure.
			procs, err := a.Procedures(ctx)
			is.NoErr(err)
			i, found := slices.BinarySearchFunc(procs, docs[0].Entry, func(p ports.Procedure, a uint64) int {
				return compare(p.Address, a)
			})
			is.True(found) // entry point among procedures
			is.Equal(procs[i].Source, "entry")
		})
	}
}

func compare(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestGoFixtures checks the cross-compiled Go program in each format:
// main.main and main.add are procedures named by the symbol table, and the
// format-specific sources show up.
func TestGoFixtures(t *testing.T) {
	tests := []struct {
		fixture string
		sources []string // procedure sources expected besides symbol and entry
		imports bool     // names of kind import expected
	}{
		{"go-linux-arm64", nil, false},
		{"go-windows-amd64", nil, true}, // .pdata starts coincide with symbols
		{"go-darwin-arm64", []string{"plt"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			ctx := context.Background()
			a, err := native.OpenFile(ctx, fixturePath(t, tt.fixture))
			is.NoErr(err)
			defer a.Close(ctx)
			procs, err := a.Procedures(ctx)
			is.NoErr(err)
			byName := map[string]ports.Procedure{}
			sources := map[string]int{}
			for _, p := range procs {
				byName[p.Name] = p
				sources[p.Source]++
			}
			for _, name := range []string{"main.main", "main.add"} {
				p, ok := byName[name]
				is.True(ok) // Go function among procedures
				is.Equal(p.Source, "symbol")
			}
			for _, s := range append([]string{"symbol", "entry"}, tt.sources...) {
				is.True(sources[s] > 0) // procedure source present
			}
			names, err := a.Names(ctx)
			is.NoErr(err)
			kinds := map[string]int{}
			for _, n := range names {
				kinds[n.Kind]++
			}
			is.True(kinds["function"] > 1000)
			is.True(kinds["object"] > 0)
			is.Equal(kinds["import"] > 0, tt.imports)

			strs, err := a.Strings(ctx)
			is.NoErr(err)
			is.True(slices.ContainsFunc(strs, func(s ports.String) bool {
				return s.Charset == "ascii" && strings.Contains(s.Value, "rea-go-fixture-marker")
			})) // the Go string literal is found
			portstest.Run(t, native.New(nil), target(t, fixturePath(t, tt.fixture), docFormat(tt.fixture)))
		})
	}
}

func docFormat(fixture string) string {
	switch fixture {
	case "go-windows-amd64":
		return "pe"
	case "go-darwin-arm64":
		return "mach-o"
	}
	return "elf"
}

func TestPDataWithoutSymbols(t *testing.T) {
	// With the COFF symbols stripped (-ldflags=-s), function starts come
	// from the x64 exception directory only: without a build ID, and with
	// the build information blob that begins .data overwritten, the
	// pclntab is not searched for (entry_gope.go, whose test covers it).
	is := is.New(t)
	if testing.Short() {
		t.Skip("Go cross-compile skipped with -short")
	}
	needTool(t, "go")
	out := t.TempDir() + "/stripped.exe"
	_, err := run(t.Context(), "testdata/goprog", []string{"CGO_ENABLED=0", "GOOS=windows", "GOARCH=amd64"},
		"go", "build", "-ldflags=-s -buildid=", "-o", out, "main.go")
	is.NoErr(err)
	f, err := pe.Open(out)
	is.NoErr(err)
	data := f.Section(".data")
	is.True(data != nil)
	off := int64(data.Offset)
	f.Close()
	w, err := os.OpenFile(out, os.O_WRONLY, 0)
	is.NoErr(err)
	_, err = w.WriteAt(make([]byte, 16), off) // "\xff Go buildinf:"
	is.NoErr(err)
	is.NoErr(w.Close())
	ctx := context.Background()
	a, err := native.OpenFile(ctx, out)
	is.NoErr(err)
	defer a.Close(ctx)
	procs, err := a.Procedures(ctx)
	is.NoErr(err)
	pdata := 0
	for _, p := range procs {
		if p.Source == "pdata" {
			pdata++
			is.Equal(p.Name, "")
			is.True(p.Size > 0)
		}
	}
	is.True(pdata > 1000)
}

func TestDecodeFunctionStarts(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []uint64
	}{
		{"empty", nil, nil},
		{"terminator", []byte{0}, nil},
		{"deltas", []byte{0x80, 0x20, 0x10, 0x84, 0x01, 0}, []uint64{0x1000 + 0x1000, 0x2000 + 0x10, 0x2010 + 0x84}},
		{"unterminated", []byte{0x10, 0x80}, []uint64{0x1010}},
		{"overlong", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, []uint64{0xfff}}, // wraps,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(native.DecodeFunctionStarts(tt.data, 0x1000), tt.want)
		})
	}
}
