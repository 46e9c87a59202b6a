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

// strippedFake is the dossier fake telling how its file was stripped.
type strippedFake struct {
	dossierFake
	st ports.Stripping
}

func (f strippedFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }
func (f strippedFake) Stripping(context.Context) (ports.Stripping, error)         { return f.st, nil }

// TestOverviewSaysStripped: binary_overview states whether the file is
// stripped (no static symbol table) and keeps debug information, as the
// provider reads them, and says what a stripped file's names then rest
// on; a provider that does not tell leaves both null. Before, an agent
// could not learn from the overview whether the binary was stripped.
func TestOverviewSaysStripped(t *testing.T) {
	type overview struct {
		Stripped  *bool   `json:"stripped"`
		DebugInfo *bool   `json:"debug_info"`
		DebugLink *string `json:"debug_link"`
	}
	call := func(t *testing.T, p ports.Provider) (overview, []string) {
		t.Helper()
		is := is.New(t)
		res, err := fakeSession(t, p).Call(context.Background(), "binary_overview", json.RawMessage(`{}`), nil)
		is.NoErr(err)
		var ov overview
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &ov))
		return ov, res.Evidence.Limitations
	}
	says := func(lim []string) bool {
		return slices.ContainsFunc(lim, func(l string) bool {
			return strings.Contains(l, "The file is stripped (no static symbol table, no debug information)")
		})
	}
	const pdb = `C:\build\app.pdb`
	namesPDB := func(lim []string) bool {
		return slices.ContainsFunc(lim, func(l string) bool {
			return strings.Contains(l, "The file is stripped (no static symbol table; no debug information in the file, which names the separate debug file \""+strings.ReplaceAll(pdb, `\`, `\\`)+"\")")
		})
	}
	for _, c := range []struct {
		name             string
		st               ports.Stripping
		stripped, debug  bool
		saysStrippedNote bool
	}{
		{"stripped", ports.Stripping{}, true, false, true},
		{"strip-debug", ports.Stripping{StaticSymbols: true}, false, false, false},
		{"debug", ports.Stripping{StaticSymbols: true, DebugInfo: true}, false, true, false},
		{"pdb", ports.Stripping{DebugLink: pdb}, true, false, false},
		{"symbols-pdb", ports.Stripping{StaticSymbols: true, DebugLink: pdb}, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			ov, lim := call(t, strippedFake{st: c.st})
			is.True(ov.Stripped != nil && ov.DebugInfo != nil)
			is.Equal(*ov.Stripped, c.stripped)
			is.Equal(*ov.DebugInfo, c.debug)
			is.Equal(says(lim), c.saysStrippedNote)
			// A PE's CodeView PDB (an ELF's .gnu_debuglink) is named as the
			// file names it, and the stripped note says the debug
			// information is there, not that it was read.
			is.Equal(ov.DebugLink != nil, c.st.DebugLink != "")
			if ov.DebugLink != nil {
				is.Equal(*ov.DebugLink, pdb)
			}
			is.Equal(namesPDB(lim), c.st.DebugLink != "" && c.stripped)
		})
	}
	t.Run("untold", func(t *testing.T) {
		is := is.New(t)
		ov, lim := call(t, dossierFake{})
		is.True(ov.Stripped == nil && ov.DebugInfo == nil && ov.DebugLink == nil)
		is.True(!says(lim))
	})
}
