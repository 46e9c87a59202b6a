package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// engineHost is one rea serve process with a fake decompiling engine (the
// Ghidra or Hopper adapter's fake) installed, its own TMPDIR (where the
// engine's private roots go) and its own cache (where analysis snapshots
// go). newGhidraHost and newHopperHost make one.
type engineHost struct {
	t            *testing.T
	engine       string // the provider id: ghidra or hopper
	fake         string // the fake's environment prefix: FAKE_GHIDRA
	tmp, starts  string
	cache        string
	cs           *sdk.ClientSession
	stderr       *bytes.Buffer
	mu           sync.Mutex
	notes        []*sdk.ProgressNotificationParams
	fixturePath  string
	fixtureBytes []byte
	env          []string // rea serve's environment (the fake installation)
}

// newEngineHost makes the host's directories and its target (a copy of
// ls; the fakes answer from their transcripts whatever the bytes). Unix
// socket paths are short (108 bytes): the directories go directly under
// the test binary's TMPDIR, not under t.TempDir().
func newEngineHost(t *testing.T, engine, fake string) (h *engineHost, dir string) {
	t.Helper()
	dir, err := os.MkdirTemp("", engine[:2])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h = &engineHost{t: t, engine: engine, fake: fake, tmp: filepath.Join(dir, "t"), starts: filepath.Join(dir, "starts"),
		cache: filepath.Join(dir, "cache"), stderr: &bytes.Buffer{}}
	for _, d := range []string{h.tmp, h.cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("/usr/bin/ls")
	if err != nil {
		t.Skip("no /usr/bin/ls to analyse")
	}
	h.fixtureBytes = b
	h.fixturePath = filepath.Join(dir, "target")
	if err := os.WriteFile(h.fixturePath, b, 0o755); err != nil {
		t.Fatal(err)
	}
	// Whatever a test's fake leaves behind that the supervisor could not
	// prove rea's (a stranger in the engine's group) is this test's to end.
	t.Cleanup(func() { h.endStrangers() })
	return h, dir
}

// serve starts rea serve with this process's environment less the
// variables drop names, plus env, and connects to it over MCP stdio.
func (h *engineHost) serve(drop func(name string) bool, env []string) {
	t := h.t
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: h.engine + "-stdio-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.notes = append(h.notes, r.Params)
			h.mu.Unlock()
		},
	})
	cmd := exec.Command(reaBin, "serve")
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMPDIR" || k == "XDG_CACHE_HOME" || strings.HasPrefix(k, h.fake+"_") || drop(k) {
			continue
		}
		base = append(base, kv)
	}
	cmd.Env = append(append(base, "TMPDIR="+h.tmp, "XDG_CACHE_HOME="+h.cache, h.fake+"_STARTS="+h.starts), env...)
	cmd.Stderr = h.stderr
	h.env = cmd.Env
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
}

// call runs a tool; token, when not empty, is the progress token.
func (h *engineHost) call(ctx context.Context, name string, args map[string]any, token string) (*sdk.CallToolResult, error) {
	p := &sdk.CallToolParams{Name: name, Arguments: args}
	if token != "" {
		p.SetProgressToken(token)
	}
	return h.cs.CallTool(ctx, p)
}

func (h *engineHost) mustCall(name string, args map[string]any, token string) (text string, isError bool) {
	h.t.Helper()
	res, err := h.call(context.Background(), name, args, token)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// open opens the target with the host's engine as its provider.
func (h *engineHost) open() {
	h.t.Helper()
	text, isErr := h.mustCall("open_binary", map[string]any{"path": h.fixturePath, "provider_id": h.engine}, "")
	if isErr {
		h.t.Fatalf("open_binary with %s: %s", h.engine, text)
	}
}

// waitNotes returns the notifications for token once the terminal one
// ("<tool>: completed" or "<tool>: failed") arrived: notifications may be
// read after the response they belong to. It gives up after 10 s.
func (h *engineHost) waitNotes(token string) []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := h.notesFor(token)
		if len(n) > 0 && (strings.HasSuffix(n[len(n)-1], ": completed") || strings.HasSuffix(n[len(n)-1], ": failed")) || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// notesFor returns the progress notifications received for token.
func (h *engineHost) notesFor(token string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, n := range h.notes {
		if n.ProgressToken == token {
			out = append(out, n.Message)
		}
	}
	return out
}

// roots lists the engine's private roots left in the host's TMPDIR.
func (h *engineHost) roots() []string {
	entries, _ := os.ReadDir(h.tmp)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "rea-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// startsOf lists the pids the fake recorded on lines "<label><pid>" ("" for
// its launchers, "child " or "stranger " for what it forked), in order.
func (h *engineHost) startsOf(label string) []int {
	b, _ := os.ReadFile(h.starts)
	var out []int
	for _, l := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(l, label)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// launchers lists the fake engine's launcher PIDs, in start order.
func (h *engineHost) launchers() []int { return h.startsOf("") }

// endStrangers kills the strangers this host's fake recorded, each only
// once its environment proves it the fake's child for this host's starts
// file.
func (h *engineHost) endStrangers() {
	for _, pid := range h.startsOf("stranger ") {
		if h.isOurStranger(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func (h *engineHost) isOurStranger(pid int) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	vars := strings.Split(string(env), "\x00")
	has := func(kv string) bool {
		for _, v := range vars {
			if v == kv {
				return true
			}
		}
		return false
	}
	return has(h.fake+"_STRANGER=1") && has(h.fake+"_STARTS="+h.starts)
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// settle waits (bounded) until the engine's roots and processes are gone:
// a cancelled request gets no response, so the test cannot wait for one.
func (h *engineHost) settle() (roots []string, live []int) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		roots, live = h.roots(), nil
		for _, pid := range h.launchers() {
			if alive(pid) {
				live = append(live, pid)
			}
		}
		if (len(roots) == 0 && len(live) == 0) || time.Now().After(deadline) {
			return roots, live
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type buildError struct {
	what string
	err  error
	out  string
}

func (e *buildError) Error() string {
	return "building the fake " + e.what + ": " + e.err.Error() + "\n" + e.out
}
