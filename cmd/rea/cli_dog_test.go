package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"rea/core"
)

// rea compare takes two native binaries or two bundle files. One binary and
// one file of another kind is named as such: before, the pair went to the
// bundle reader, which answered "evidence bundle read: bundle: invalid
// character '\x7f'" (evidence_integrity_mismatch, exit 5) about the binary.
func TestCompareOneBinaryAndOneOther(t *testing.T) {
	bin := needFixture(t)
	other := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(other, []byte("not a binary\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{bin, other}, {other, bin}} {
		_, errOut, code := runCLI(t, "compare", pair[0], pair[1])
		if code != 2 || strings.Contains(errOut, `\x7f`) || !strings.Contains(errOut, "invalid_request") ||
			!strings.Contains(errOut, filepath.Base(other)+" is not") || !strings.Contains(errOut, "two native binaries or two Evidence bundle files") {
			t.Errorf("compare %s %s: exit %d\n%s", pair[0], pair[1], code, errOut)
		}
	}
	out, _, code := runCLI(t, "--format", "json", "compare", bin, other)
	if code != 2 || !strings.Contains(out, `"code":"invalid_request"`) || !strings.Contains(out, `"path":["right"]`) {
		t.Errorf("json: exit %d\n%s", code, out)
	}
}

// An invalid_request in text mode points at the issues printed below it,
// never at details.issues (a field only --format json shows), and an issue
// about the whole arguments is labelled so instead of "[]:". Before:
// rea call binary_overview '{bad' printed "what to do: Correct the
// arguments listed in details.issues and call again." and "[]: invalid_type
// ..."; so did rea disassemble FILE --section .data, whose issue is now
// named after the flag.
func TestTextErrorsPointAtTheIssuesShown(t *testing.T) {
	bin := needFixture(t)
	for _, args := range [][]string{
		{"call", "binary_overview", "{bad", "--target", bin},
		{"call", "binary_overview", "{bad"},
		{"disassemble", bin, "--section", ".data"},
	} {
		_, errOut, code := runCLI(t, args...)
		where := "  arguments: "
		if args[0] == "disassemble" {
			where = "  --section: invalid_value " + bin + ` has no executable section named ".data"`
		}
		if code != 2 || strings.Contains(errOut, "details.issues") || strings.Contains(errOut, "  []:") ||
			!strings.Contains(errOut, "listed below") || !strings.Contains(errOut, where) {
			t.Errorf("rea %q: exit %d\n%s", args, code, errOut)
		}
		if args[0] == "call" && !strings.Contains(errOut, "rea tools binary_overview") {
			t.Errorf("rea %q does not name rea tools binary_overview:\n%s", args, errOut)
		}
	}
}

// The first SIGINT cancels the running operation; a second one ends rea at
// once, for an operation that cannot see the cancellation (here a read of
// @FILE from a FIFO whose writer never writes). Before, rea caught every
// signal after the first too and could only be stopped with SIGKILL.
func TestSecondInterruptEndsRea(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "args")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cmd := exec.Command(reaBin, "call", "list_tools", "@"+fifo)
	dieWithTests(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	// A writer can open the FIFO without blocking once rea has it open to
	// read: rea has started and set up its signal handling by then.
	var w *os.File
	for guard := time.Now().Add(time.Minute); w == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(guard) {
			t.Fatal("rea never opened the FIFO")
		}
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w = f
		}
	}
	defer w.Close()
	// Interrupt until rea ends; a hang guard, not a timing assertion.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	guard := time.After(time.Minute)
	for {
		if err := cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("rea ended with %v", err)
			}
			return
		case <-guard:
			t.Fatal("rea did not end after repeated SIGINT")
		case <-tick.C:
		}
	}
}

// A path that is not UTF-8 cannot travel through the command-line parser
// or the JSON arguments rea's operations take; the CLI says so, naming the
// argument with its bytes escaped. Before, the bytes were replaced with
// U+FFFD on the way and rea analyze answered "stat /dir/bad\ufffdname: no
// such file or directory" for a file that exists.
func TestNonUTF8PathIsNamed(t *testing.T) {
	bin := needFixture(t)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad\xff\xfename")
	if err := os.WriteFile(bad, b, 0o700); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	for _, args := range [][]string{{"analyze", bad}, {"call", "list_procedures", "--target", bad}, {"inventory", bad}} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 || strings.Contains(errOut, "no such file") || !strings.Contains(errOut, "not valid UTF-8") ||
			!strings.Contains(errOut, `bad\xff\xfename`) {
			t.Errorf("rea %q: exit %d\n%s", args, code, errOut)
		}
	}
}

// With --format json an error is the envelope on stdout and one line on
// stderr, so that rea --format json ... > out.json still tells the person
// at the terminal what failed. Before, stderr was empty and the envelope
// went only into the file.
func TestJSONErrorsAlsoSayOneLine(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent")
	out, errOut, code := runCLI(t, "--format", "json", "analyze", missing)
	if code != 3 || !strings.HasPrefix(out, `{"error":{"code":"target_unavailable"`) {
		t.Fatalf("exit %d, stdout %s", code, out)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "rea: ") || !strings.Contains(errOut, missing) ||
		!strings.HasSuffix(errOut, "(target_unavailable)\n") {
		t.Errorf("stderr %q", errOut)
	}
}

// A usage error found by a command (not by the parser) is an invalid_request
// envelope on stdout with --format json, as every other error is. Before,
// rea --format json disassemble FILE printed nothing on stdout.
func TestJSONUsageErrorsHaveTheEnvelope(t *testing.T) {
	bin := needFixture(t)
	out, errOut, code := runCLI(t, "--format", "json", "disassemble", bin)
	if code != 2 || !strings.HasPrefix(out, `{"error":{"code":"invalid_request"`) || !strings.Contains(out, "prints text only") ||
		!strings.Contains(errOut, "prints text only") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, _, code = runCLI(t, "disassemble", bin, "--section", ".text")
	if code != 0 || strings.Contains(out, `"error"`) {
		t.Errorf("text mode: exit %d", code)
	}
}

// The text of analyze-javascript-application lists the endpoints it found,
// not only their number. Before, an app calling fetch on an API printed
// "found 1 endpoints" and the URL was only in --format json.
func TestJSAppTextListsEndpoints(t *testing.T) {
	app := t.TempDir()
	for name, body := range map[string]string{
		"package.json": `{"name":"demo","version":"1.0.0","main":"main.js"}`,
		"main.js":      "fetch('https://api.example.com/v1/items');\nfetch('https://cdn.example.com/list.json');\n",
	} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCLI(t, "analyze-javascript-application", app)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "endpoints") || !strings.Contains(out, "https://api.example.com/v1/items") ||
		!strings.Contains(out, "https://cdn.example.com/list.json") {
		t.Errorf("endpoints not listed:\n%s", out)
	}
}

// An existing output file is reported in the CLI's own terms on both lines.
// Before, rea evidence-export printed "... exists; pass overwrite:true to
// replace it" (the MCP argument) above "what to do: ... pass --overwrite".
func TestExistingOutputNamesTheFlag(t *testing.T) {
	bin := needFixture(t)
	out := filepath.Join(t.TempDir(), "b.bundle")
	if err := os.WriteFile(out, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "evidence-export", out, "--target", bin, "--call", "list_segments")
	if code != 2 || strings.Contains(errOut, "overwrite:true") || strings.Count(errOut, "--overwrite") != 2 {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	// rea call keeps the tool's argument.
	_, errOut, _ = runCLI(t, "call", "export_evidence_bundle", `{"path":"`+out+`"}`)
	if strings.Contains(errOut, "--overwrite") {
		t.Errorf("rea call names the flag:\n%s", errOut)
	}
}

// A --provider that names no provider of this build gets the code
// open_binary's provider_id gets over MCP, as the seed contracts say (the
// same parser and selection policy; an unknown choice is a provider
// selection error: capability_unavailable, category unsupported_provider,
// typed selection details): exit 4, details selection_reason
// unknown_provider, requested_provider_id and candidate_ids, and advice
// naming --provider and rea providers. Before, the CLI answered
// invalid_request (exit 2) with an issue at --provider while MCP answered
// capability_unavailable, so a script saw two codes for one mistake.
func TestUnknownProviderIsOneCodeInBothFrontEnds(t *testing.T) {
	bin := needFixture(t)
	cs := mcpClient(t)
	mcpCode, mcpDetails := errCode(t, call(t, cs, "open_binary", map[string]any{"path": bin, "provider_id": "nope"}))
	if mcpCode != core.CodeCapabilityUnavailable || mcpDetails["selection_reason"] != "unknown_provider" {
		t.Fatalf("MCP: %s %v", mcpCode, mcpDetails)
	}
	_, errOut, code := runCLI(t, "--provider", "nope", "analyze", bin)
	if code != 4 || !strings.Contains(errOut, "(capability_unavailable)") || !strings.Contains(errOut, `unknown provider "nope" given to --provider (known: auto, `) ||
		!strings.Contains(errOut, "rea-native") || !strings.Contains(errOut, "what to do: Run rea providers") || strings.Contains(errOut, "provider_id") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{{"--format", "json", "--provider", "nope", "analyze", bin}, {"--format", "json", "--provider", "nope", "call", "--target", bin, "list_names"}} {
		out, _, code := runCLI(t, args...)
		var env core.Envelope
		if err := json.Unmarshal([]byte(out), &env); err != nil || code != 4 {
			t.Errorf("%v: exit %d, %v\n%s", args, code, err, out)
			continue
		}
		if env.Error.Code != mcpCode || env.Error.Category != core.CategoryUnsupportedProvider || env.Error.Details["selection_reason"] != "unknown_provider" ||
			env.Error.Details["requested_provider_id"] != "nope" || fmt.Sprint(env.Error.Details["candidate_ids"]) != fmt.Sprint(mcpDetails["candidate_ids"]) {
			t.Errorf("%v: %s", args, out)
		}
		var keys, mcpKeys []string
		for k := range env.Error.Details {
			keys = append(keys, k)
		}
		for k := range mcpDetails {
			mcpKeys = append(mcpKeys, k)
		}
		slices.Sort(keys)
		slices.Sort(mcpKeys)
		if fmt.Sprint(keys) != fmt.Sprint(mcpKeys) {
			t.Errorf("%v: details %v; MCP's %v", args, keys, mcpKeys)
		}
	}
	// A known provider still runs.
	if _, errOut, code := runCLI(t, "--provider", "rea-native", "analyze", bin); code != 0 {
		t.Errorf("--provider rea-native: exit %d\n%s", code, errOut)
	}
}

// evidence-export and evidence-import count in English and end no line in
// spaces. Before: "wrote 1 records and 0 unknown revisions", "valid
// canonical bundle, 1 records, 0 unknowns", and each record's row padded
// out to an empty procedure column.
func TestEvidenceTextCountsAndRows(t *testing.T) {
	bin := needFixture(t)
	bundle := filepath.Join(t.TempDir(), "b.bundle")
	out, errOut, code := runCLI(t, "evidence-export", bundle, "--target", bin, "--call", "list_segments")
	if code != 0 || !strings.HasPrefix(out, "wrote 1 record and 0 unknown revisions (") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "evidence-import", bundle)
	if code != 0 || !strings.Contains(out, ": valid canonical bundle, 1 record, 0 unknowns\n") ||
		!strings.Contains(out, "\n1 of 1 records match; 0 unknown revisions\n") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimRight(l, " \t") != l {
			t.Errorf("line %q ends in spaces", l)
		}
	}
}

// The argument parser's own errors (an unknown command or flag, a missing
// argument) are the invalid_request envelope on stdout with --format json,
// wherever --format stands, and still one line on stderr. Before, stdout
// was empty: an agent shelling out had only the stderr text.
func TestParserErrorsHaveTheEnvelope(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
		help string
	}{
		{[]string{"--format", "json", "analyze"}, `expected \"<path>\"`, "rea analyze --help"},
		{[]string{"analyze", "--format=json", "--bogus", "x"}, "unknown flag --bogus", "rea analyze --help"},
		{[]string{"--format", "json", "nosuch"}, "unexpected argument nosuch", "rea --help"},
		{[]string{"--format", "json", "mcp", "doctor", "--nope"}, "unknown flag --nope", "rea mcp doctor --help"},
	} {
		out, errOut, code := runCLI(t, c.args...)
		if code != 2 || !strings.HasPrefix(out, `{"error":{"code":"invalid_request"`) || !strings.Contains(out, c.msg) ||
			!strings.Contains(out, "Correct the command line; "+c.help+" describes it.") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("rea %q: exit %d\nstdout %s\nstderr %s", c.args, code, out, errOut)
		}
	}
	// Text mode: nothing on stdout.
	if out, errOut, code := runCLI(t, "analyze", "--bogus"); code != 2 || out != "" || errOut != "rea: unknown flag --bogus\n" {
		t.Errorf("text: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Bash completion after a command offers the global flags too (kong takes
// them there: rea analyze --format json FILE), and --provider's values.
// Before, rea analyze --<TAB> offered --detail and --limit only, and
// --provider <TAB> offered file names.
func TestBashCompletesGlobalFlagsAfterACommand(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	script, _, code := runCLI(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	f := filepath.Join(t.TempDir(), "rea.bash")
	if err := os.WriteFile(f, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	complete := func(words string, cword int) string {
		out, err := exec.Command(bash, "-c", `source "$1"; COMP_WORDS=(`+words+`); COMP_CWORD=`+fmt.Sprint(cword)+`; _rea; echo "${COMPREPLY[*]}"`, "-", f).Output()
		if err != nil {
			t.Fatalf("%s: %v", words, err)
		}
		return strings.TrimSpace(string(out))
	}
	got := strings.Fields(complete(`rea analyze --`, 2))
	for _, want := range []string{"--detail", "--limit", "--format", "--provider", "--help"} {
		if !slices.Contains(got, want) {
			t.Errorf("rea analyze --<TAB> offers %q, not %s", got, want)
		}
	}
	if got := complete(`rea analyze --provider ""`, 3); !strings.HasPrefix(got, "auto ") || !strings.Contains(got, "rea-native") {
		t.Errorf("--provider <TAB> offers %q", got)
	}
}

// No line of the text tables ends in spaces. Before, rea capabilities
// padded the reason column of every operation with no needs out to an empty
// last column (65 lines).
func TestTextTablesEndNoLineInSpaces(t *testing.T) {
	bin := needFixture(t)
	for _, args := range [][]string{{"capabilities"}, {"providers"}, {"tools"}, {"analyze", bin}, {"tools", "list_procedures"}} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("rea %q: exit %d: %s", args, code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.TrimRight(l, " \t") != l {
				t.Errorf("rea %q: line %q ends in spaces", args, l)
				break
			}
		}
	}
}

// inventory and extract-artifact count in English. Before, a single file
// read "elf, 1 entries (1 files, ...)", "1 nodes", "0 contradiction(s)" and
// "extracted 1 files".
func TestInventoryCountsOneThing(t *testing.T) {
	bin := needFixture(t)
	out, errOut, code := runCLI(t, "inventory", bin)
	if code != 0 || !strings.Contains(out, "elf, 1 entry (1 file, ") || !strings.Contains(out, "graph      1 node, 0 edges,") ||
		!strings.Contains(out, "1 of 1 file verified, 0 contradictions\n") {
		t.Errorf("inventory: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "extract-artifact", bin)
	if code != 0 || !strings.Contains(out, "extracted       1 file, ") {
		t.Errorf("extract-artifact: exit %d\n%s%s", code, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if root, ok := strings.CutPrefix(strings.TrimSpace(l), "output_root"); ok {
			os.RemoveAll(strings.TrimSpace(root))
		}
	}
}

// rea compare of two architectures says once which dimensions are not
// comparable and why. Before, the same sentence was printed for
// instructions, constants and cfg, three lines.
func TestCompareAcrossArchitecturesSaysItOnce(t *testing.T) {
	bin := needFixture(t)
	cc, err := exec.LookPath("aarch64-linux-gnu-gcc")
	if err != nil {
		t.Skip("aarch64-linux-gnu-gcc is not installed")
	}
	arm := filepath.Join(t.TempDir(), "hello-arm64")
	if out, err := exec.Command(cc, "-O1", "-o", arm, "testdata/hello.c").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, errOut, code := runCLI(t, "compare", bin, arm)
	if code != 0 || strings.Count(out, "  not comparable: ") != 1 || !strings.Contains(out, "  not comparable: instructions, constants, cfg (the binaries are of different architectures") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// A malformed binary's advice in text points at what the text shows, and
// names the CLI's command, not details fields and a tool only --format json
// and MCP have. Before: "(details.check says what failed, details.offset
// and file_size where, when known) ...; inspect_artifact still reports its
// format, size and sha256". The JSON envelope keeps core's wording.
func TestMalformedBinaryAdviceInText(t *testing.T) {
	bin := needFixture(t)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut")
	if err := os.WriteFile(cut, b[:100], 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "analyze", cut)
	if code != 4 || !strings.Contains(errOut, "(the line above says what failed and where)") ||
		!strings.Contains(errOut, "rea inventory FILE still reports") || strings.Contains(errOut, "details.") || strings.Contains(errOut, "inspect_artifact") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	out, _, _ := runCLI(t, "--format", "json", "analyze", cut)
	if !strings.Contains(out, "details.check says what failed") {
		t.Errorf("the envelope changed: %s", out)
	}
}

// An unknown tool reads the same in rea tools, rea call and
// evidence-export --call, suggests the near names in each, and names the
// place on the command line the name came from. Before: rea tools said "no
// operation named procedures" (with suggestions), rea call said "unknown
// tool" without them, and its issue was "name:", the MCP argument.
func TestUnknownToolReadsTheSameEverywhere(t *testing.T) {
	for _, c := range []struct {
		args  []string
		where string
	}{
		{[]string{"tools", "procedures"}, ""},
		{[]string{"call", "procedures", "{}"}, "  TOOL: invalid_value "},
		{[]string{"evidence-export", filepath.Join(t.TempDir(), "b"), "--call", "procedures"}, "  --call: invalid_value "},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code != 2 || !strings.HasPrefix(errOut, `rea: unknown tool "procedures" (invalid_request)`) ||
			!strings.Contains(errOut, "Did you mean list_procedures, search_procedures?") || !strings.Contains(errOut, c.where) || strings.Contains(errOut, "  name:") {
			t.Errorf("rea %q: exit %d\n%s", c.args, code, errOut)
		}
	}
}
