package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	fakeHopperOnce sync.Once
	fakeHopperBin  string
	fakeHopperErr  error
)

// fakeHopper builds the Hopper adapter's fake launcher once per test binary.
func fakeHopper(t *testing.T) string {
	t.Helper()
	fakeHopperOnce.Do(func() {
		dir := filepath.Join(filepath.Dir(reaBin), "fakehopper")
		if err := os.Mkdir(dir, 0o755); err != nil {
			fakeHopperErr = err
			return
		}
		fakeHopperBin = filepath.Join(dir, "Hopper")
		if out, err := exec.Command("go", "build", "-o", fakeHopperBin, "rea/adapters/hopper/testdata/fakehopper").CombinedOutput(); err != nil {
			fakeHopperErr = &buildError{err: err, out: string(out)}
		}
	})
	if fakeHopperErr != nil {
		t.Fatal(fakeHopperErr)
	}
	return fakeHopperBin
}

// TestHopperOverStdio: with HOPPER_LAUNCHER_PATH naming the adapter's fake
// launcher, the built rea lists Hopper as available, open_binary with
// provider_id hopper binds it without starting it, the first query starts
// it, decompilation answers through it, and close_binary leaves no root or
// process.
func TestHopperOverStdio(t *testing.T) {
	is := is.New(t)
	fake := fakeHopper(t)
	dir, err := os.MkdirTemp("", "hp") // short: the socket path lives under it
	is.NoErr(err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	tmp, starts := filepath.Join(dir, "t"), filepath.Join(dir, "starts")
	is.NoErr(os.Mkdir(tmp, 0o700))
	launcher := filepath.Join(dir, "Hopper")
	is.NoErr(os.Symlink(fake, launcher))
	b, err := os.ReadFile("/usr/bin/ls")
	if err != nil {
		t.Skip("no /usr/bin/ls to analyse")
	}
	target := filepath.Join(dir, "target")
	is.NoErr(os.WriteFile(target, b, 0o755))
	transcript, err := filepath.Abs("../../adapters/hopper/testdata/fixture.jsonl")
	is.NoErr(err)

	cmd := exec.Command(reaBin, "serve")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMPDIR" || strings.HasPrefix(k, "HOPPER_") || strings.HasPrefix(k, "FAKE_HOPPER_") {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "TMPDIR="+tmp, "HOPPER_LAUNCHER_PATH="+launcher, "FAKE_HOPPER_TRANSCRIPT="+transcript, "FAKE_HOPPER_STARTS="+starts)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "hopper-stdio-test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	is.NoErr(err)
	defer cs.Close()
	callText := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*sdk.TextContent).Text, res.IsError
	}
	text, isErr := callText("open_binary", map[string]any{"path": target, "provider_id": "hopper"})
	is.True(!isErr) // text
	_, statErr := os.Stat(starts)
	is.True(os.IsNotExist(statErr)) // open_binary does not start Hopper

	text, isErr = callText("binary_overview", map[string]any{})
	is.True(!isErr) // text
	p, n := overviewProvider(t, text)
	is.Equal(p, "hopper")
	is.Equal(n, float64(3))
	text, isErr = callText("procedure_pseudo_code", map[string]any{"procedure": "helper"})
	if isErr {
		t.Fatalf("procedure_pseudo_code through Hopper: %s", text)
	}
	is.True(strings.Contains(text, `j_puts(\"hello, hopper\")`)) // text

	text, isErr = callText("close_binary", map[string]any{})
	is.True(!isErr) // text
	left, _ := os.ReadDir(tmp)
	is.Equal(len(left), 0) // no root, socket or bootstrap left
	pids, _ := os.ReadFile(starts)
	for _, f := range strings.Fields(string(pids)) {
		var pid int
		for _, c := range f {
			pid = pid*10 + int(c-'0')
		}
		is.True(!alive(pid)) // the launcher is gone
	}
	is.True(!strings.Contains(stderr.String(), "panic"))
}
