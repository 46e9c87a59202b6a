package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// largeTarget is a binary with more than 4 MiB of code, on which
// binary_overview does not wait for whole-file discovery: node when
// installed (99 MB, seconds of discovery), else the go command.
func largeTarget(t *testing.T) string {
	if _, err := os.Stat("/usr/bin/node"); err == nil {
		return "/usr/bin/node"
	}
	path, err := exec.LookPath("go")
	if err != nil {
		t.Skip("neither /usr/bin/node nor the go command is here")
	}
	return path
}

// discoveryHost is `rea serve` over stdio, without the warm cache, so that
// each open discovers again.
type discoveryHost struct {
	cs     *sdk.ClientSession
	mu     sync.Mutex
	notes  []*sdk.ProgressNotificationParams
	stderr bytes.Buffer
}

func startDiscoveryHost(t *testing.T, env ...string) *discoveryHost {
	t.Helper()
	h := &discoveryHost{}
	client := sdk.NewClient(&sdk.Implementation{Name: "discovery-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.notes = append(h.notes, r.Params)
			h.mu.Unlock()
		},
	})
	cmd := exec.Command(reaBin, "serve")
	cmd.Env = append(append(os.Environ(), "REA_NATIVE_CACHE_DIR=off"), env...)
	cmd.Stderr = &h.stderr
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.cs = cs
	t.Cleanup(func() {
		cs.Close()
		if strings.Contains(h.stderr.String(), "panic") {
			t.Errorf("rea panicked:\n%s", h.stderr.String())
		}
	})
	return h
}

// noted reports whether a progress notification arrived for token.
func (h *discoveryHost) noted(token string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.notes {
		if n.ProgressToken == token {
			return true
		}
	}
	return false
}

// TestOverviewDoesNotWaitForDiscovery: over MCP stdio with the built rea,
// on a binary with much code, binary_overview answers from the tables
// (procedure_list "tables") while whole-file discovery runs in the
// background; a list_procedures that waits for discovery can be cancelled
// without harm; the next one waits and answers complete, with more
// procedures; a second overview, after discovery completed, has the same
// Evidence ID as the first; and both IDs are the same with GOMAXPROCS=1.
func TestOverviewDoesNotWaitForDiscovery(t *testing.T) {
	target := largeTarget(t)
	type ids struct{ overview, list string }
	got := map[string]ids{}
	for _, procs := range []string{"default", "1"} {
		t.Run("GOMAXPROCS="+procs, func(t *testing.T) {
			is := is.New(t)
			var env []string
			if procs != "default" {
				env = append(env, "GOMAXPROCS="+procs)
			}
			h := startDiscoveryHost(t, env...)
			open := call(t, h.cs, "open_binary", map[string]any{"path": target})
			is.True(!open.isError)

			ev, first := evidence(t, call(t, h.cs, "binary_overview", map[string]any{"detail": "detailed"}))
			is.Equal(first["procedure_list"], "tables") // answered from the tables, without waiting
			early := first["procedure_count"].(float64)
			is.True(early > 0)

			// A waiting list_procedures, cancelled once it runs (its
			// "started" notification arrived) on a fresh open, whose
			// discovery has just started: the call ends and the server goes
			// on.
			is.True(!call(t, h.cs, "open_binary", map[string]any{"path": target}).isError)
			ctx, cancel := context.WithCancel(context.Background())
			p := &sdk.CallToolParams{Name: "list_procedures", Arguments: map[string]any{"limit": 1}}
			p.SetProgressToken("cancelled")
			done := make(chan error, 1)
			go func() {
				_, err := h.cs.CallTool(ctx, p)
				done <- err
			}()
			var err error
		wait:
			for {
				select {
				case err = <-done:
					break wait
				default:
				}
				if h.noted("cancelled") {
					cancel()
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			if err != nil {
				is.True(errors.Is(err, context.Canceled))
			} else {
				t.Log("discovery completed before the cancellation reached it")
			}

			_, list := evidence(t, call(t, h.cs, "list_procedures", map[string]any{"limit": 1}))
			is.Equal(list["procedure_list"], "complete") // waited for discovery
			is.True(list["total"].(float64) >= early)
			listEv, _ := evidence(t, call(t, h.cs, "list_procedures", map[string]any{"limit": 1}))

			again, second := evidence(t, call(t, h.cs, "binary_overview", map[string]any{"detail": "detailed"}))
			is.Equal(second["procedure_list"], "tables")
			is.Equal(again.EvidenceID, ev.EvidenceID) // the overview does not depend on how far discovery got
			got[procs] = ids{string(ev.EvidenceID), string(listEv.EvidenceID)}
		})
	}
	if len(got) == 2 && got["default"] != got["1"] {
		t.Errorf("Evidence IDs differ with GOMAXPROCS=1: %v", got)
	}
}
