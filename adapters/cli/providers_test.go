package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cli"
	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// TestProvidersOneLinePerEngine: an engine that is a registered provider
// is listed once, as the provider, and an external engine shows what rea
// uses it for instead of a count of 0 operations. Before, rea providers
// listed Ghidra and Hopper twice (once per kind, in two wordings) and
// Chromium and Node with 0 operations, though the browser and runtime
// tools drive them.
func TestProvidersOneLinePerEngine(t *testing.T) {
	is := is.New(t)
	cat, err := standard.Catalog()
	is.NoErr(err)
	reg, err := core.NewRegistry([]ports.Provider{engineProvider{"builtin"}, engineProvider{"ghidra"}}, nil)
	is.NoErr(err)
	ghidra := ports.Installation{Engine: "ghidra", Name: "Ghidra", Role: "decompiling analysis provider (headless)", Detail: "GHIDRA_INSTALL_DIR is not set"}
	chromium := ports.Installation{Engine: "chromium", Name: "Chromium", Role: "browser tools (Chrome DevTools Protocol)", Available: true,
		Path: "/usr/bin/chromium", Detail: "Chromium 1 at /usr/bin/chromium"}
	run := func(args ...string) string {
		var out, errOut bytes.Buffer
		o := cli.Options{Catalog: cat, Registry: reg, Stdout: &out, Stderr: &errOut,
			Engines: func(context.Context) []ports.Installation { return []ports.Installation{chromium, ghidra} }}
		is.Equal(cli.Run(context.Background(), args, &o), 0)
		return out.String()
	}
	text := run("providers")
	is.Equal(strings.Count(text, "\nghidra "), 1) // once, as the provider
	var chromiumLine string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "chromium ") {
			chromiumLine = l
		}
	}
	is.True(!strings.Contains(chromiumLine, " 0 "))                               // no count of operations it does not track
	is.True(strings.Contains(chromiumLine, "for browser tools (Chrome DevTools")) // what it is for

	var js struct {
		Engines []struct {
			ID         string   `json:"id"`
			Kind       string   `json:"kind"`
			Role       string   `json:"role"`
			Operations []string `json:"operations"`
		} `json:"engines"`
	}
	is.NoErr(json.Unmarshal([]byte(run("--format", "json", "providers")), &js))
	ids := map[string]int{}
	for _, e := range js.Engines {
		ids[e.ID]++
		if e.ID == "chromium" {
			is.Equal(e.Role, chromium.Role)
			is.Equal(e.Operations, nil) // not tracked per engine: left out, not []
		}
	}
	is.Equal(ids["ghidra"], 1)
}

// bareProvider declares capabilities that cover no operation.
type bareProvider struct{ engineProvider }

func (bareProvider) Capabilities() []ports.Capability { return nil }

// A provider that covers no operation lists "operations": [] in
// rea providers --format json, as its text line says 0. Before, the field
// was left out, as it is for an external engine, whose operations are not
// tracked.
func TestProvidersJSONListsZeroOperations(t *testing.T) {
	is := is.New(t)
	cat, err := standard.Catalog()
	is.NoErr(err)
	reg, err := core.NewRegistry([]ports.Provider{engineProvider{"builtin"}, bareProvider{engineProvider{"bare"}}}, nil)
	is.NoErr(err)
	var out, errOut bytes.Buffer
	o := cli.Options{Catalog: cat, Registry: reg, Stdout: &out, Stderr: &errOut}
	is.Equal(cli.Run(context.Background(), []string{"--format", "json", "providers"}, &o), 0)
	var js struct {
		Engines []map[string]json.RawMessage `json:"engines"`
	}
	is.NoErr(json.Unmarshal(out.Bytes(), &js))
	found := false
	for _, e := range js.Engines {
		if string(e["id"]) == `"bare"` {
			found = true
			is.Equal(string(e["operations"]), "[]")
		}
	}
	is.True(found)
}
