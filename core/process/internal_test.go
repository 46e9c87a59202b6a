package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

func TestScenarioDefaults(t *testing.T) {
	got, err := ScenarioFromInput(CaptureProcessScenarioInput{Executable: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	want := ports.NewCaptureScenario("/bin/true")
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) { // nil and empty lists alike
		t.Fatalf("defaults:\n got %+v\nwant %+v", got, want)
	}
	var in CaptureProcessScenarioInput
	if err := json.Unmarshal([]byte(`{"executable":"x","terminal":{"rows":40},"limits":{"files":0},"normalization":{"pids":false},
		"events":[{"type":"input","at_ms":5,"data":"pw\n","sensitive":true}]}`), &in); err != nil {
		t.Fatal(err)
	}
	got, err = ScenarioFromInput(in)
	if err != nil {
		t.Fatal(err)
	}
	if got.Terminal.Rows != 40 || got.Terminal.Columns != 80 || got.Limits.Files != 0 || got.Limits.FileBytes != want.Limits.FileBytes ||
		got.Normalization.PIDs || !got.Normalization.Ports || len(got.Events) != 1 || !got.Events[0].Sensitive {
		t.Fatalf("explicit values: %+v", got)
	}
	args := map[string]any{"events": []any{map[string]any{"type": "input", "data": "pw\n", "sensitive": true}}}
	redactArgs(args)
	if d := args["events"].([]any)[0].(map[string]any)["data"]; d != "<redacted-input:3-bytes>" {
		t.Fatalf("sensitive input kept in parameters: %v", d)
	}
}

func TestCaptureErrorMapping(t *testing.T) {
	code := func(err error) core.Code {
		var ce *core.Error
		if !errors.As(captureError("op", err), &ce) {
			t.Fatalf("not a core.Error: %v", err)
		}
		return ce.Code
	}
	partial := &ports.ProcessCapture{SignalAttempts: []ports.SignalAttempt{{Target: "process", ID: 9, Signal: "SIGKILL", Result: ports.SignalDelivered}}}
	if c := code(&ports.ScenarioError{Path: []any{"events", 0}, Reason: ports.IssueOutOfRange, Message: "late"}); c != core.CodeInvalidRequest {
		t.Errorf("scenario error: %s", c)
	}
	if c := code(&ports.CaptureError{Disposition: ports.DispositionCancelled, Cause: context.Canceled, Partial: partial}); c != core.CodeCancelled {
		t.Errorf("cancelled: %s", c)
	}
	if c := code(&ports.CaptureError{Disposition: ports.DispositionFailed, Cause: errors.New("boom"), Partial: partial}); c != core.CodeProcessCaptureFailed {
		t.Errorf("failed: %s", c)
	}
	withLeft := *partial
	withLeft.Cleanup.Err = &ports.CleanupError{Resources: []ports.OwnedResource{{Kind: ports.ResourceTemporaryRoot, ID: "/tmp/x"}}}
	err := captureError("op", &ports.CaptureError{Disposition: ports.DispositionCancelled, Cause: context.Canceled, Partial: &withLeft})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeCleanupIncomplete {
		t.Fatalf("cleanup: %v", err)
	}
	if r, _ := ce.Details["resources"].([]string); len(r) != 1 || r[0] != ports.ResourceTemporaryRoot {
		t.Errorf("resources: %v", ce.Details["resources"])
	}
	po := ce.Details["partial_observation"].(map[string]any)
	if sa := po["signal_attempts"].([]any); len(sa) != 1 {
		t.Errorf("signal attempts: %v", sa)
	}
	if ex := po["capture"].(*CaptureProcessScenarioResult).Exit; ex.ExitCode != nil || ex.ElapsedMS != nil {
		t.Errorf("exit without an exit seen: %v", ex)
	}
}

func TestTraceErrorMapping(t *testing.T) {
	for _, c := range []struct {
		err  error
		want core.Code
	}{
		{ports.ErrTraceRequest, core.CodeInvalidRequest},
		{ports.ErrDebuggerMissing, core.CodeProviderUnavailable},
		{ports.ErrDebuggerDied, core.CodeProviderUnavailable},
		{ports.ErrTargetNotFound, core.CodeTargetUnavailable},
		{ports.ErrTargetNotExecutable, core.CodeUnsupportedTarget},
		{context.Canceled, core.CodeCancelled},
		{context.DeadlineExceeded, core.CodeProviderTimeout},
		{&ports.CleanupError{Resources: []ports.OwnedResource{{Kind: ports.ResourceProcess, ID: "1"}}}, core.CodeCleanupIncomplete},
	} {
		err := traceError("op", &ports.TraceError{Op: "trace", Err: c.err, Partial: &ports.TraceResult{}}, nil)
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != c.want {
			t.Errorf("%v: got %v, want %s", c.err, err, c.want)
			continue
		}
		if ce.Details["partial_observation"] == nil {
			t.Errorf("%v: no partial_observation", c.err)
		}
	}
	// A missing emulator is a missing engine too, and the advice names it.
	err0 := traceError("op", &ports.TraceError{Op: "launch", Err: fmt.Errorf("qemu-aarch64: %w", ports.ErrEmulatorMissing), Partial: &ports.TraceResult{}}, nil)
	var ce0 *core.Error
	if !errors.As(err0, &ce0) || ce0.Code != core.CodeProviderUnavailable || !strings.Contains(ce0.Envelope().Error.Remediation.Action, "qemu-user") {
		t.Errorf("a missing emulator: got %v", err0)
	}
	// A program the tracer cannot run: the advice names what it runs, not
	// the default's details.issues.
	errX := traceError("op", &ports.TraceError{Op: "launch", Err: fmt.Errorf("/bin/mips: machine EM_MIPS: %w", ports.ErrTargetNotExecutable), Partial: &ports.TraceResult{}}, nil)
	var ceX *core.Error
	if !errors.As(errX, &ceX) || ceX.Code != core.CodeUnsupportedTarget || !strings.Contains(ceX.Envelope().Error.Remediation.Action, "32-bit x86 or AArch64") {
		t.Errorf("an unsupported machine: got %v", errX)
	}
	// An unknown procedure: invalid_request with advice on what to name,
	// not the default's details.issues, which this error has none of.
	err := traceError("op", &ports.TraceError{Op: "trace", Err: fmt.Errorf("breakpoint 0: nosuchfn: %w", ports.ErrAddressNotMapped)}, nil)
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeInvalidRequest || !strings.Contains(ce.Envelope().Error.Remediation.Action, "list_procedures") {
		t.Errorf("an unknown procedure: got %v", err)
	}
}

// A trace that failed before the tracer looked at its processes (an
// unknown procedure, refused when the breakpoints are placed) says its
// lineage was not observed, as binary_session's process_lineage does.
// Before, it said status "" with pid and group 0.
func TestTracePartialLineageNotObserved(t *testing.T) {
	err := traceError("op", &ports.TraceError{Op: "breakpoint", Err: fmt.Errorf("breakpoint 0: nosuchfn: %w", ports.ErrAddressNotMapped),
		Partial: &ports.TraceResult{}}, nil)
	var ce *core.Error
	if !errors.As(err, &ce) {
		t.Fatalf("got %v", err)
	}
	po := ce.Details["partial_observation"].(map[string]any)
	want := map[string]any{"status": "not_observed"}
	if got := po["lineage"]; !reflect.DeepEqual(got, want) {
		t.Errorf("partial_observation.lineage = %v, want %v", got, want)
	}
	if got := po["raw"].(map[string]any)["lineage"]; !reflect.DeepEqual(got, want) {
		t.Errorf("partial_observation.raw.lineage = %v, want %v", got, want)
	}
}

// A Go parameter of several registers names each (s, s.len; b, b.len,
// b.cap; e, e.1) and a string or []byte is read by its pointer and length
// registers; a C char pointer is read up to its NUL.
func TestTraceSigGoParts(t *testing.T) {
	sig := &traceSig{source: "dwarf", placed: true, params: []ports.Parameter{
		{Name: "s", Type: "string", Location: "rax,rbx"}, {Name: "n", Type: "int", Location: "rcx"},
		{Name: "b", Type: "[]uint8", Location: "rdi,rsi,r8"}, {Name: "e", Type: "interface {}", Location: "r9,r10"},
		{Name: "w", Type: "[]int", Location: "stack"}, {Name: "c", Type: "char *", Location: "r11"}, {Name: "z", Type: "struct {}", Location: "none"}}}
	want := map[string]string{"rax": "s", "rbx": "s.len", "rcx": "n", "rdi": "b", "rsi": "b.len", "r8": "b.cap", "r9": "e", "r10": "e.1", "r11": "c"}
	if got := sig.byRegister(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("byRegister: %v, want %v", got, want)
	}
	if got := sig.spans(); fmt.Sprint(got) != "[{rax rbx} {rdi rsi}]" {
		t.Errorf("spans: %v", got)
	}
	if got := sig.strings(); fmt.Sprint(got) != "[r11]" {
		t.Errorf("strings: %v", got)
	}
}

// A C library prototype's char pointer without const is a buffer the
// function fills: read at the return, not at the entry (sprintf's str,
// strcpy's dest, mkstemp's template); a const one is read at the entry. A
// procedure's own char pointer (debug information, where const is often
// left out) is read at both.
func TestTraceSigBuffers(t *testing.T) {
	for _, tc := range []struct {
		fn, entry, ret string
	}{
		{"sprintf", "[rsi]", "[rdi]"},
		{"strcpy", "[rsi]", "[rdi]"},
		{"mkstemp", "[]", "[rdi]"},
		{"strcmp", "[rdi rsi]", "[]"},
		{"realpath", "[rdi]", "[rsi]"},
	} {
		sig := prototypeSig(tc.fn, ports.ConventionSysV)
		if got := fmt.Sprint(sig.strings()); got != tc.entry {
			t.Errorf("%s: read at the entry %s, want %s", tc.fn, got, tc.entry)
		}
		if got := fmt.Sprint(sig.returnStrings()); got != tc.ret {
			t.Errorf("%s: read at the return %s, want %s", tc.fn, got, tc.ret)
		}
	}
	own := &traceSig{source: "dwarf", placed: true, params: []ports.Parameter{
		{Name: "name", Type: "char *", Location: "rdi"}, {Name: "path", Type: "const char *", Location: "rsi"}}}
	if got, ret := fmt.Sprint(own.strings()), fmt.Sprint(own.returnStrings()); got != "[rdi rsi]" || ret != "[rdi]" {
		t.Errorf("debug information: entry %s, return %s", got, ret)
	}
}

// A sample names each process by the id the tree gives it, whatever the
// engine's numbering: here an engine that numbered the launcher's parent
// (outside the capture) 2 and the child 3. Before, the samples numbered
// the capture's pids on their own, so the child was 2 in the samples and
// 3 in the tree, and the launcher's parent 0 in one and 2 in the other.
func TestSamplesUseTheTreesIDs(t *testing.T) {
	pc := &ports.ProcessCapture{
		Processes: []ports.CapturedProcess{{PID: 500, ParentPID: 40, ProcessGroupID: 500, SessionID: 500},
			{PID: 501, ParentPID: 500, ProcessGroupID: 500, SessionID: 500}},
		NormalizedProcesses: []ports.NormalizedProcess{{ID: 1, ParentID: 2, GroupID: 1, SessionID: 1},
			{ID: 3, ParentID: 1, GroupID: 1, SessionID: 1}},
		ProcessSamples: []ports.ProcessSample{{PID: 500, ParentPID: 40, ProcessGroupID: 500, SessionID: 500},
			{AtMS: 50, PID: 501, ParentPID: 500, ProcessGroupID: 500, SessionID: 500}},
	}
	got := normalizedSamples(pc)
	want := []CaptureProcessSample{{ID: 1, ParentID: 2, GroupID: 1, SessionID: 1},
		{AtMS: 50, ID: 3, ParentID: 1, GroupID: 1, SessionID: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples %+v, want %+v", got, want)
	}
}

// A sample carries its command, normalized: a process that execs is
// sampled again with the same ids, and only the command shows what it
// became. Temporary names are written as the comparison writes them, so a
// compiler's drawn names do not differ between runs. Before, samples had
// no command at all.
func TestSamplesCarryTheNormalizedCommand(t *testing.T) {
	pc := &ports.ProcessCapture{
		Processes:           []ports.CapturedProcess{{PID: 500, ParentPID: 40, ProcessGroupID: 500, SessionID: 500}},
		NormalizedProcesses: []ports.NormalizedProcess{{ID: 1, GroupID: 1, SessionID: 1, Command: "cc1 -o <temporary-root>/ccA1b2C3.s"}},
		ProcessSamples: []ports.ProcessSample{
			{PID: 500, ParentPID: 40, ProcessGroupID: 500, SessionID: 500, Command: "/home/u/build/gcc x.c", NormalizedCommand: "<executable> x.c"},
			{AtMS: 50, PID: 500, ParentPID: 40, ProcessGroupID: 500, SessionID: 500,
				Command: "cc1 -o /tmp/rea-1/ccA1b2C3.s", NormalizedCommand: "cc1 -o <temporary-root>/ccA1b2C3.s"}},
	}
	got := normalizedSamples(pc)
	want := []CaptureProcessSample{{ID: 1, GroupID: 1, SessionID: 1, Command: "<executable> x.c"},
		{AtMS: 50, ID: 1, GroupID: 1, SessionID: 1, Command: "cc1 -o <temporary-root>/ccXXXXXX.s"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples %+v, want %+v", got, want)
	}
	// The tree names the process as its samples do.
	if tree := captureResultOf(pc).Processes.Tree; len(tree) != 1 || tree[0].Command != want[1].Command {
		t.Errorf("tree %+v names the process otherwise than its sample %q", tree, want[1].Command)
	}
}

// A name the tracer found nowhere may be a static function the compiler
// inlined: the advice says what to trace then. Before, it said only to
// name a procedure of the program, which such a function never is.
func TestUnmappedNameAdviceCoversInlinedFunctions(t *testing.T) {
	err := traceError("op", &ports.TraceError{Op: "breakpoint", Err: fmt.Errorf("breakpoint 0: scale is neither a procedure of the program "+
		"nor a function exported by the libraries loaded at its entry point: the compiler inlined it: %w", ports.ErrAddressNotMapped),
		Partial: &ports.TraceResult{}}, nil)
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeInvalidRequest {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(ce.Remediation, "inlined") || !strings.Contains(ce.Remediation, "-fno-inline") {
		t.Errorf("the advice does not say what to trace for an inlined function: %s", ce.Remediation)
	}
}

// A request the tracer refuses (a working directory that is no directory)
// has no details.issues: its advice must not send the agent to them.
// Before, it said "Correct the arguments listed in details.issues".
func TestTraceRequestErrorAdviceNamesNoMissingIssues(t *testing.T) {
	err := traceError("op", &ports.TraceError{Op: "launch", Err: fmt.Errorf("%w: working directory /nonexistent is not a directory", ports.ErrTraceRequest),
		Partial: &ports.TraceResult{}}, nil)
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeInvalidRequest {
		t.Fatalf("got %v", err)
	}
	if _, ok := ce.Details["issues"]; ok {
		return // issues to correct: the default advice fits
	}
	if a := ce.Envelope().Error.Remediation.Action; strings.Contains(a, "details.issues") {
		t.Errorf("advice %q names details.issues, which the error does not have", a)
	}
}

// An IFUNC implementation takes its public function's prototype: a static
// program's __strcmp_avx2 is strcmp, with s1 and s2 read as text. Before,
// it had no prototype and no parameters. A name whose words after the
// function are not all CPU variants (a checking or locale variant, the
// resolver itself) gets none, since its parameters may differ.
func TestIFUNCImplementationsTakeTheirFunctionsPrototype(t *testing.T) {
	for _, tc := range []struct{ name, of, entry string }{
		{"__strcmp_avx2", "strcmp", "[rdi rsi]"},
		{"__strcmp_sse4_2", "strcmp", "[rdi rsi]"},
		{"__strlen_sse2_bsf", "strlen", "[rdi]"},
		{"__memmove_avx_unaligned_erms", "memmove", "[]"},
		{"__strchr_evex", "strchr", "[rdi]"},
		{"__memcpy_thunderx2", "memcpy", "[]"},
	} {
		sig := prototypeSig(tc.name, ports.ConventionSysV)
		if sig == nil {
			t.Errorf("%s: no prototype", tc.name)
			continue
		}
		if sig.of != tc.of || sig.source != "libc-prototype" || len(sig.params) == 0 {
			t.Errorf("%s: of %q, source %q, %d parameters", tc.name, sig.of, sig.source, len(sig.params))
		}
		if got := fmt.Sprint(sig.strings()); got != tc.entry {
			t.Errorf("%s: text read at the entry %s, want %s", tc.name, got, tc.entry)
		}
	}
	for _, name := range []string{"__memcpy_chk_erms", "__strcasecmp_l_avx", "__memchr_ifunc", "__strtol_internal", "strcmp_avx2", "__avx2"} {
		if sig := prototypeSig(name, ports.ConventionSysV); sig != nil {
			t.Errorf("%s: got %+v, want no prototype", name, sig)
		}
	}
	if sig := prototypeSig("strcmp", ports.ConventionSysV); sig == nil || sig.of != "" {
		t.Errorf("strcmp itself: %+v", sig)
	}
}

// Temporary names are normalized as mkstemp's template, in temporary
// directories only; a short name there and a name elsewhere are kept.
func TestTempNames(t *testing.T) {
	is := is.New(t)
	for in, want := range map[string]string{
		"cc1 a.c -o <temporary-root>/ccAb12Cd.s":        "cc1 a.c -o <temporary-root>/ccXXXXXX.s",
		"collect2 /tmp/cc9zZ0aa.o /var/tmp/ccQ1w2E3.ld": "collect2 /tmp/ccXXXXXX.o /var/tmp/ccXXXXXX.ld",
		"prog /tmp/a.txt <temporary-root>/work/x":       "prog /tmp/a.txt <temporary-root>/work/x",
		"prog /home/u/tmp/ccAb12Cd.s ./tmp/ccAb12Cd.s":  "prog /home/u/tmp/ccAb12Cd.s ./tmp/ccAb12Cd.s",
		"as -o a.o '/tmp/ccAb12Cd.s'":                   "as -o a.o '/tmp/ccXXXXXX.s'",
		"/tmp/":                                         "/tmp/",
		"gcc -o /tmp/ccabcdef.s /tmp/tmpqwerty":         "gcc -o /tmp/ccXXXXXX.s /tmp/tmpXXXXXX",
		"sort -o /tmp/output.txt /tmp/result.txt":       "sort -o /tmp/output.txt /tmp/result.txt",
		"cp x /dev/shm/data_2Qa9zB":                     "cp x /dev/shm/data_XXXXXX",
		// Go's os.CreateTemp and os.MkdirTemp: a decimal number of any
		// length; every trailing digit is drawn.
		"link -o /tmp/go-build3917265310/b001/exe/a.out":  "link -o /tmp/go-buildXXXXXX/b001/exe/a.out",
		"app /tmp/app-48213307.json /tmp/app-901234.json": "app /tmp/app-XXXXXX.json /tmp/app-XXXXXX.json",
		"prog /tmp/v2x123456789":                          "prog /tmp/v2xXXXXXX",
	} {
		is.Equal(tempNames(in), want)
	}
}
