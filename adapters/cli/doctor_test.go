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

// engineProvider is a registered provider: available, or one whose engine
// is not configured here, as Ghidra is on a machine without
// GHIDRA_INSTALL_DIR.
type engineProvider struct{ id string }

func (p engineProvider) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: p.id, Name: p.id}
}

func (p engineProvider) Availability(context.Context) ports.Availability {
	if p.id != "ghidra" {
		return ports.Availability{Available: true}
	}
	return ports.Availability{Code: "not_configured", Reason: "GHIDRA_INSTALL_DIR is not set"}
}

func (engineProvider) Support(context.Context, ports.Target) ports.Support { return ports.Support{} }

func (engineProvider) Open(context.Context, ports.Target) (ports.Analysis, error) {
	return nil, ports.ErrUnavailable
}

// TestDoctorOneLinePerEngine: an engine that is both a registered provider
// and an installation the probe looks for is one check, the provider's,
// carrying the installation. Before, a new user read Ghidra twice, in two
// wordings: "provider:ghidra optional, not configured: GHIDRA_INSTALL_DIR
// is not set" and "engine:ghidra optional, for decompiling analysis
// provider (headless): GHIDRA_INSTALL_DIR is not set" (Hopper likewise).
func TestDoctorOneLinePerEngine(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry([]ports.Provider{engineProvider{"builtin"}, engineProvider{"ghidra"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ghidra := ports.Installation{Engine: "ghidra", Name: "Ghidra", Role: "decompiling analysis provider (headless)",
		Detail: "GHIDRA_INSTALL_DIR is not set", Remediation: "set GHIDRA_INSTALL_DIR to a Ghidra 11 or later installation"}
	node := ports.Installation{Engine: "node", Name: "Node.js", Available: true, Path: "/usr/bin/node", Detail: "v20 at /usr/bin/node"}
	doctor := func(args ...string) (text string, checks []cli.Check, code int) {
		t.Helper()
		run := func(args ...string) (string, int) {
			var out, errOut bytes.Buffer
			o := cli.Options{Catalog: cat, Registry: reg, Stdout: &out, Stderr: &errOut,
				Engines: func(context.Context) []ports.Installation { return []ports.Installation{node, ghidra} }}
			o.Identity.Version = "9.9.9"
			code := cli.Run(context.Background(), args, &o)
			if errOut.Len() > 0 {
				t.Logf("rea %q: %s", args, errOut.String())
			}
			return out.String(), code
		}
		text, code = run(append([]string{"doctor"}, args...)...)
		js, _ := run(append([]string{"--format", "json", "doctor"}, args...)...)
		var rep struct{ Checks []cli.Check }
		if err := json.Unmarshal([]byte(js), &rep); err != nil {
			t.Fatalf("doctor --format json: %v\n%s", err, js)
		}
		return text, rep.Checks, code
	}
	named := func(checks []cli.Check, sub string) []cli.Check {
		var out []cli.Check
		for _, c := range checks {
			if strings.Contains(c.Name, sub) {
				out = append(out, c)
			}
		}
		return out
	}

	t.Run("optional", func(t *testing.T) {
		is := is.New(t)
		text, checks, code := doctor()
		is.Equal(code, 0)
		g := named(checks, "ghidra")
		is.Equal(len(g), 1) // one check for Ghidra
		is.Equal(g[0].Name, "provider:ghidra")
		is.True(g[0].OK)
		is.Equal(g[0].Detail, "optional, not configured: GHIDRA_INSTALL_DIR is not set")
		is.Equal(strings.Count(text, "ghidra"), 1)     // one line for Ghidra
		is.Equal(len(named(checks, "engine:node")), 1) // an engine that is no provider keeps its line
	})
	t.Run("asked for", func(t *testing.T) {
		is := is.New(t)
		text, checks, code := doctor("--provider", "ghidra")
		is.Equal(code, 1)
		g := named(checks, "ghidra")
		is.Equal(len(g), 1)
		is.True(!g[0].OK)
		is.Equal(g[0].Remediation, ghidra.Remediation) // the installation's advice, not "see ghidra's requirements"
		is.Equal(strings.Count(text, "set GHIDRA_INSTALL_DIR to"), 1)
	})
}
