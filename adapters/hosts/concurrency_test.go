package hosts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/hosts"
)

// Two rea binaries take turns registering; every run locks, so the files
// stay valid, keep everything else, and end up naming one of them.
func concurrentWants(t *testing.T, h *home) []hosts.Entry {
	other := filepath.Join(filepath.Dir(filepath.Dir(h.want.Command)), "bin2", "rea")
	must(t, os.MkdirAll(filepath.Dir(other), 0o755))
	must(t, os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755))
	return []hosts.Entry{h.want, {Command: other}}
}

func checkAfterRace(t *testing.T, h *home, wants []hosts.Entry, originals map[int][]byte) {
	is := is.New(t)
	for i, orig := range originals {
		f := files[i]
		after := h.read(f)
		is.True(keeps(orig, after)) // nothing of the user's was lost
		r := h.inspect(f, nil)
		is.True(r.Status == hosts.StatusAligned || r.Status == hosts.StatusStale) // a valid rea entry
		is.True(r.Command == wants[0].Command || r.Command == wants[1].Command)
		lock := h.path(f) + ".rea.lock"
		_, err := os.Stat(lock)
		is.True(os.IsNotExist(err)) // lock files do not linger
	}
}

func raceFiles(t *testing.T, h *home) map[int][]byte {
	originals := map[int][]byte{}
	for i, f := range files {
		if f.client == "codex" || f.client == "vscode" && f.scope == hosts.ScopeUser || f.client == "claude-code" && f.scope == hosts.ScopeUser {
			originals[i] = fixture(t, f.fixture)
			h.write(f, originals[i])
		}
	}
	return originals
}

func TestConcurrentApplyGoroutines(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	wants := concurrentWants(t, h)
	originals := raceFiles(t, h)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				plan, err := hosts.PlanSetup(h.env, wants[(g+i)%2], nil)
				if err == nil {
					var res hosts.Result
					res, err = hosts.Apply(plan)
					if err == nil && res.Failed {
						b, _ := json.Marshal(res)
						t.Errorf("a run failed: %s", b)
					}
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err)
	}
	checkAfterRace(t, h, wants, originals)
}

// TestHelperSetupProcess is the child of TestConcurrentApplyProcesses.
func TestHelperSetupProcess(t *testing.T) {
	spec := os.Getenv("REA_HOSTS_HELPER")
	if spec == "" {
		t.Skip("runs as a child of TestConcurrentApplyProcesses")
	}
	var in struct {
		Env   hosts.Env
		Wants []hosts.Entry
		First int
	}
	must(t, json.Unmarshal([]byte(spec), &in))
	for i := 0; i < 10; i++ {
		plan, err := hosts.PlanSetup(in.Env, in.Wants[(in.First+i)%2], nil)
		must(t, err)
		res, err := hosts.Apply(plan)
		must(t, err)
		if res.Failed {
			t.Fatalf("failed: %+v", res)
		}
	}
}

func TestConcurrentApplyProcesses(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	wants := concurrentWants(t, h)
	originals := raceFiles(t, h)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for p := 0; p < 2; p++ {
		spec, err := json.Marshal(map[string]any{"Env": h.env, "Wants": wants, "First": p})
		is.NoErr(err)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperSetupProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "REA_HOSTS_HELPER="+string(spec))
		cmd.WaitDelay = 5 * time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		is.NoErr(cmd.Start())
		outs = append(outs, &out)
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v %s", err, outs[i])
		}
	}
	checkAfterRace(t, h, wants, originals)
}
