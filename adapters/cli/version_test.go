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
)

// rea version names the commit when the build has one, and otherwise says
// what is known (the module version) and why there is no commit. Before, a
// build with GOFLAGS=-buildvcs=false said only "commit unknown".
func TestVersionSaysWhyThereIsNoCommit(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(o cli.Options, args ...string) string {
		var out, errOut bytes.Buffer
		o.Catalog, o.Registry, o.Stdout, o.Stderr = cat, reg, &out, &errOut
		o.Identity.Version = "9.9.9"
		if code := cli.Run(context.Background(), args, &o); code != 0 {
			t.Fatalf("rea %q: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	t.Run("no stamp", func(t *testing.T) {
		is := is.New(t)
		o := cli.Options{ModuleVersion: "(devel)"}
		for _, args := range [][]string{{"version"}, {"--version"}} {
			is.True(strings.HasPrefix(run(o, args...),
				"rea 9.9.9 (module (devel), no commit: built with -buildvcs=false or outside a git checkout, catalog "))
		}
		var v map[string]any
		is.NoErr(json.Unmarshal([]byte(run(o, "--format", "json", "version")), &v))
		is.Equal(v["commit"], nil)
		is.Equal(v["module_version"], "(devel)")
		is.Equal(v["vcs_stamp"], false)
	})
	t.Run("stamped", func(t *testing.T) {
		is := is.New(t)
		o := cli.Options{ModuleVersion: "v0.0.0-20261206152441-fd92a50abcde", VCSStamp: true}
		o.Identity.BuildCommit = "fd92a50abcdef"
		is.True(strings.HasPrefix(run(o, "version"), "rea 9.9.9 (commit fd92a50abcdef, catalog "))
		var v map[string]any
		is.NoErr(json.Unmarshal([]byte(run(o, "--format", "json", "version")), &v))
		is.Equal(v["commit"], "fd92a50abcdef")
		is.Equal(v["vcs_stamp"], true)
	})
}
