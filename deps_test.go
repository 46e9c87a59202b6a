package rea_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// The direction of dependencies (STYLE.md). This is policy: a failure means
// the import is wrong, not the table.
//
//	ports            standard library only
//	ports/portstest  ports + github.com/matryer/is
//	core             ports + its JSON libraries
//	supervisor       ports (owned processes for the engines that launch one)
//	adapters/<eng>   ports + supervisor + that engine's libraries; never core, never another adapter
//	adapters/hosts   ports + go-toml (agent hosts' configuration files)
//	adapters/gdbremote ports + supervisor (native call tracing under gdbserver)
//	adapters/mcp     core + ports + go-sdk
//	adapters/cli     core + ports + kong
//	cmd, examples    anything in rea (the only wiring places)
var policy = []struct {
	prefix  string
	allowed []string // import path prefixes beyond the standard library
}{
	{"rea/ports/portstest", []string{"rea/ports", "github.com/matryer/is"}},
	{"rea/ports", nil},
	{"rea/core", []string{"rea/ports", "github.com/santhosh-tekuri/jsonschema/v6", "github.com/gowebpki/jcs"}},
	{"rea/adapters/mcp", []string{"rea/core", "rea/ports", "github.com/modelcontextprotocol/go-sdk/"}},
	{"rea/adapters/cli", []string{"rea/core", "rea/ports", "github.com/alecthomas/kong"}},
	{"rea/adapters/native", []string{"rea/ports", "rea/adapters/native/", "golang.org/x/arch/"}},
	{"rea/adapters/asar", []string{"rea/ports", "rea/adapters/asar/"}},
	{"rea/adapters/zip", []string{"rea/ports"}},
	{"rea/adapters/js", []string{"rea/ports", "github.com/tdewolff/parse/v2", "github.com/go-sourcemap/sourcemap"}},
	{"rea/adapters/cdp", []string{"rea/ports", "rea/adapters/cdp/", "github.com/chromedp/"}},
	{"rea/adapters/hosts", []string{"rea/ports", "github.com/pelletier/go-toml/v2"}},
	{"rea/adapters/gdbremote", []string{"rea/ports", "rea/supervisor"}},
	{"rea/adapters/", []string{"rea/ports", "rea/supervisor"}}, // any future engine
	{"rea/supervisor", []string{"rea/ports"}},
	{"rea/cmd/", []string{"rea/", "github.com/"}},
	{"rea/examples/", []string{"rea/core", "rea/ports", "rea/adapters/"}},
	{"rea/bench/", []string{"rea/"}},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func TestDependencyDirection(t *testing.T) {
	is := is.New(t)
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	is.NoErr(err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	std := map[string]bool{}
	stdOut, err := exec.Command("go", "list", "std").Output()
	is.NoErr(err)
	for _, p := range strings.Fields(string(stdOut)) {
		std[p] = true
	}
	checked := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			is.NoErr(err)
		}
		if p.ImportPath == "rea" {
			continue
		}
		rule := -1
		for i, r := range policy {
			if p.ImportPath == strings.TrimSuffix(r.prefix, "/") || strings.HasPrefix(p.ImportPath, r.prefix) {
				rule = i
				break
			}
		}
		if rule < 0 {
			t.Errorf("%s: no dependency rule covers this package; add it to the policy in deps_test.go and STYLE.md", p.ImportPath)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if std[imp] || imp == p.ImportPath {
				continue
			}
			ok := false
			for _, a := range policy[rule].allowed {
				if imp == strings.TrimSuffix(a, "/") || strings.HasPrefix(imp, a) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s, against the direction of dependencies", p.ImportPath, imp)
			}
		}
	}
	is.True(checked > 5)
}
