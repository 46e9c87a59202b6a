package probe_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/probe"
	"rea/ports"
)

func byID(insts []ports.Installation) map[string]ports.Installation {
	m := map[string]ports.Installation{}
	for _, i := range insts {
		m[i.Engine] = i
	}
	return m
}

func TestAllOnAnEmptyHost(t *testing.T) {
	is := is.New(t)
	env := &probe.Env{Getenv: func(string) string { return "" }, Home: t.TempDir(), GOOS: "linux",
		LookPath: func(string) (string, error) { return "", errors.New("not found") },
		Version: func(context.Context, string, ...string) (string, error) {
			t.Fatal("nothing to run")
			return "", nil
		}}
	got := probe.All(context.Background(), env)
	is.Equal(len(got), 6)
	for _, i := range got {
		is.True(!i.Available)
		is.True(!i.Configured)
		is.Equal(i.Classification, "missing_analysis_engine")
		is.True(i.Remediation != "")
	}
}

func TestAllFindsEngines(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	ghidra := filepath.Join(dir, "ghidra_11.2")
	is.NoErr(os.MkdirAll(filepath.Join(ghidra, "support"), 0o755))
	is.NoErr(os.MkdirAll(filepath.Join(ghidra, "Ghidra"), 0o755))
	is.NoErr(os.WriteFile(filepath.Join(ghidra, "support", "analyzeHeadless"), []byte("#!/bin/sh\nexit 9\n"), 0o755))
	is.NoErr(os.WriteFile(filepath.Join(ghidra, "Ghidra", "application.properties"), []byte("application.name=Ghidra\napplication.version=11.2.1\n"), 0o644))
	hopper := filepath.Join(dir, "Hopper")
	is.NoErr(os.WriteFile(hopper, []byte("#!/bin/sh\nexit 9\n"), 0o755))
	vars := map[string]string{"GHIDRA_INSTALL_DIR": ghidra, "HOPPER_LAUNCHER_PATH": hopper}
	var ran []string
	env := &probe.Env{Getenv: func(k string) string { return vars[k] }, Home: dir, GOOS: "linux",
		LookPath: func(n string) (string, error) {
			if n == "chromium" || n == "node" {
				return "/usr/bin/" + n, nil
			}
			return "", errors.New("not found")
		},
		Version: func(_ context.Context, p string, args ...string) (string, error) {
			ran = append(ran, p)
			is.Equal(args, []string{"--version"}) // only ever --version
			if p == "/usr/bin/node" {
				return "v22.19.0", nil
			}
			return "", errors.New("exit status 1")
		}}
	m := byID(probe.All(context.Background(), env))
	is.Equal(ran, []string{"/usr/bin/chromium", "/usr/bin/node"}) // Ghidra and Hopper are never run
	is.True(m["node"].Available)
	is.Equal(m["node"].Version, "v22.19.0")
	is.True(!m["chromium"].Available)
	is.Equal(m["chromium"].Classification, "missing_dependency")
	is.True(m["ghidra"].Available && m["ghidra"].Configured)
	is.Equal(m["ghidra"].Version, "11.2.1")
	is.True(m["hopper"].Available && m["hopper"].Configured)

	// A configured engine that is not there is drift, not a missing engine.
	vars["GHIDRA_INSTALL_DIR"] = filepath.Join(dir, "nowhere")
	vars["HOPPER_LAUNCHER_PATH"] = ghidra // a directory
	m = byID(probe.All(context.Background(), env))
	is.True(!m["ghidra"].Available)
	is.Equal(m["ghidra"].Classification, "config_drift")
	is.Equal(m["hopper"].Classification, "config_drift")
}

func TestRunVersion(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	is := is.New(t)
	script := filepath.Join(t.TempDir(), "engine")
	is.NoErr(os.WriteFile(script, []byte("#!/bin/sh\necho 'engine: 9: [: 1: unexpected operator' >&2\necho 'launcher warning'\necho \"Engine 1.2.3\"\necho second line 4.5\n"), 0o755))
	v, err := probe.RunVersion(context.Background(), script, "--version")
	is.NoErr(err)
	is.Equal(v, "Engine 1.2.3")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = probe.RunVersion(ctx, script, "--version")
	is.True(err != nil) // a cancelled context starts nothing
}
