package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cli"
	"rea/core"
	"rea/core/standard"
)

func runWith(t *testing.T, exe string, args ...string) (string, int) {
	t.Helper()
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := core.NewRegistry(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), args, &cli.Options{Catalog: cat, Registry: reg, Executable: exe,
		Identity: core.ServerIdentity{PackageName: "rea", Version: "9.9.9"}, Stdout: &out, Stderr: &errOut})
	return out.String(), code
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rea")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

type mcpReport struct {
	Healthy bool
	Checks  []struct {
		Name   string
		OK     bool
		Detail string
	}
}

// A server that is not rea, or that never answers, is not healthy; the
// child is stopped at the deadline.
func TestMCPDoctorUnhealthy(t *testing.T) {
	is := is.New(t)
	other := script(t, `read line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"other","version":"1"},"capabilities":{"tools":{}}}}'
cat >/dev/null
`)
	out, code := runWith(t, other, "mcp", "doctor", "--format", "json")
	is.Equal(code, 1)
	var r mcpReport
	is.NoErr(json.Unmarshal([]byte(out), &r))
	is.True(!r.Healthy)
	is.Equal(r.Checks[0].Name, "initialize")
	is.True(!r.Checks[0].OK)
	is.True(strings.Contains(r.Checks[0].Detail, `"other"`))

	silent := script(t, "exec sleep 600\n") // never answers, ignores its input
	out, code = runWith(t, silent, "mcp", "doctor", "--format", "json", "--timeout", "1s")
	is.Equal(code, 1)
	is.NoErr(json.Unmarshal([]byte(out), &r))
	is.True(!r.Healthy)
	last := r.Checks[len(r.Checks)-1]
	is.Equal(last.Name, "shutdown")
	is.True(strings.Contains(last.Detail, "stopped"))

	out, code = runWith(t, "", "mcp", "doctor")
	is.Equal(code, 1)
	is.True(strings.Contains(out, "NOT healthy"))
}
