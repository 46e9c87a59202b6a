package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// goBuild builds a one-file Go program for goarch into dir.
func goBuild(t *testing.T, dir, goarch, src string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fixture\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "prog-"+goarch)
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build GOARCH=%s: %v\n%s", goarch, err, b)
	}
	return out
}

func hasPrefixed(lims []string, prefix string) bool {
	return slices.ContainsFunc(lims, func(l string) bool { return strings.HasPrefix(l, prefix) })
}

// TestUnsupportedArchitectureIsALimitation opens an ARM32 Go program, whose
// code rea-native does not decode: the overview and every code result say
// so, and find_code_for_string does not blame tables or computed addresses
// for the procedures it cannot list. A 32-bit x86 build has its value
// flow under Go's stack ABI and, like the x86-64 fixture, says nothing of
// the kind.
func TestUnsupportedArchitectureIsALimitation(t *testing.T) {
	const src = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"rea-arch: a literal main prints\") }\n"
	arm := goBuild(t, t.TempDir(), "arm", src)
	x86 := goBuild(t, t.TempDir(), "386", src)
	const unsupported = "Unsupported architecture:"

	t.Run("arm32", func(t *testing.T) {
		is := is.New(t)
		cs := mcpClient(t)
		is.True(!call(t, cs, "open_binary", map[string]any{"path": arm}).isError)
		for _, c := range []struct {
			name string
			args map[string]any
		}{
			{"binary_overview", map[string]any{}},
			{"get_call_graph", map[string]any{"address": "main.main"}},
			{"find_code_for_string", map[string]any{"query": "a literal main prints"}},
			{"procedure_callers", map[string]any{"procedure": "main.main"}},
			{"list_procedures", map[string]any{"limit": 1}},
		} {
			r := call(t, cs, c.name, c.args)
			if r.isError {
				// A code tool may refuse outright; its error must then name the architecture.
				is.True(strings.Contains(r.text, "architecture_unsupported"))
				continue
			}
			ev, _ := evidence(t, r)
			if !hasPrefixed(ev.Limitations, unsupported) {
				t.Errorf("%s: no architecture limitation in %q", c.name, ev.Limitations)
			}
			if c.name == "find_code_for_string" {
				is.True(!slices.ContainsFunc(ev.Limitations, func(l string) bool { return strings.Contains(l, "tables or computed addresses") }))
			}
		}
		r := call(t, cs, "analyze_function", map[string]any{"procedure": "main.main"})
		is.True(r.isError && strings.Contains(r.text, "architecture_unsupported"))
	})

	t.Run("x86 value flow", func(t *testing.T) {
		is := is.New(t)
		cs := mcpClient(t)
		is.True(!call(t, cs, "open_binary", map[string]any{"path": x86}).isError)
		ev, m := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "main.main"}))
		is.True(!hasPrefixed(ev.Limitations, unsupported))
		vf := m["native_value_flow"].(map[string]any)
		is.Equal(vf["status"], "observed")
		is.Equal(vf["summary"].(map[string]any)["calling_convention"], "go-abi0") // Go's stack ABI on 32-bit x86
	})

	t.Run("x86-64 says nothing", func(t *testing.T) {
		is := is.New(t)
		cs := mcpClient(t)
		is.True(!call(t, cs, "open_binary", map[string]any{"path": needFixture(t)}).isError)
		ev, _ := evidence(t, call(t, cs, "binary_overview", map[string]any{}))
		is.True(!hasPrefixed(ev.Limitations, unsupported))
	})
}
