package hopper_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/hopper"
	"rea/ports"
	"rea/ports/portstest"
	"rea/ports/portstest/replay"
)

var fakeBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakehopper-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBinary = filepath.Join(dir, "Hopper")
	if out, err := exec.Command("go", "build", "-o", fakeBinary, "./testdata/fakehopper").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the fake launcher: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's fake launcher, target and bookkeeping.
type env struct {
	launcher, tempParent, starts string
	target                       ports.Target
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{launcher: filepath.Join(dir, "bin", "Hopper"), starts: filepath.Join(dir, "starts")}
	short, err := os.MkdirTemp("", "h") // socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	e.tempParent = short
	if err := os.MkdirAll(filepath.Dir(e.launcher), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fakeBinary, e.launcher); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 8192)
	for i := range data {
		data[i] = byte(i * 7)
	}
	put := func(off int, hexBytes string) {
		b, err := hex.DecodeString(hexBytes)
		if err != nil {
			t.Fatal(err)
		}
		copy(data[off:], b)
	}
	for off := 0x1000; off < 0x1100; off++ {
		data[off] = 0xcc
	}
	put(0x1000, "554889e5e83700000031c05dc3")
	put(0x1040, "488d3db90f0000e834000000c3")
	put(0x1080, "ff257a2f0000")
	put(0x1100, hex.EncodeToString([]byte("hello, hopper\x00")))
	path := filepath.Join(dir, "target.elf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	e.target = ports.Target{Path: path, SHA256: hex.EncodeToString(sum[:]), Format: "elf", Kind: "executable", Architecture: "x86_64", Size: int64(len(data))}
	// The fake answers from testdata/fixture.jsonl, which make_fixture.py
	// writes from the bridge's protocol layer over a stub document (its
	// header says so): no real Hopper produced it.
	transcript, err := filepath.Abs("testdata/fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_HOPPER_TRANSCRIPT", transcript)
	t.Setenv("FAKE_HOPPER_STARTS", e.starts)
	t.Setenv("FAKE_HOPPER_MODE", "")
	t.Setenv("FAKE_HOPPER_DELAY_MS", "")
	return e
}

func (e *env) provider(opts hopper.Options) *hopper.Provider {
	opts.Launcher, opts.TempParent = e.launcher, e.tempParent
	return hopper.New(&opts)
}

func (e *env) pids() (launchers, children []int) {
	b, _ := os.ReadFile(e.starts)
	for _, l := range strings.Fields(strings.ReplaceAll(string(b), "child ", "c")) {
		if strings.HasPrefix(l, "c") {
			n, _ := strconv.Atoi(l[1:])
			children = append(children, n)
		} else {
			n, _ := strconv.Atoi(l)
			launchers = append(launchers, n)
		}
	}
	return launchers, children
}

// assertClean fails when a session root remains or a process the fake
// reported is still alive.
func (e *env) assertClean(t *testing.T) {
	t.Helper()
	left, _ := os.ReadDir(e.tempParent)
	for _, d := range left {
		t.Errorf("session root left behind: %s", d.Name())
	}
	l, c := e.pids()
	for _, pid := range append(l, c...) {
		if alive(pid) {
			t.Errorf("process %d left running", pid)
		}
	}
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestConformance(t *testing.T) {
	e := newEnv(t)
	portstest.Run(t, e.provider(hopper.Options{}), e.target)
	e.assertClean(t)
}

func TestDeclaredCapabilitiesStartNothing(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	p := e.provider(hopper.Options{})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	portstest.CheckCapabilities(t, p, a)
	l, _ := e.pids()
	is.Equal(len(l), 0) // availability, support, declaring and opening start nothing
}

func TestQueriesMapTheBridgesAnswers(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	ctx := t.Context()
	docs, err := a.(ports.DocumentLister).Documents(ctx)
	is.NoErr(err)
	is.Equal(docs, []ports.Document{{Name: "target.elf", Format: "elf", Architecture: "x86_64"}})
	segs, err := a.(ports.SegmentLister).Segments(ctx)
	is.NoErr(err)
	is.Equal(segs, []ports.Segment{
		{Name: ".text", Kind: "segment", Start: 0x401000, Size: 0x100, FileOffset: 0x1000, FileSize: 0x100},
		{Name: ".rodata", Kind: "segment", Start: 0x402000, Size: 0x40, FileOffset: 0x1100, FileSize: 0x40},
		{Name: ".bss", Kind: "segment", Start: 0x403000, Size: 0x20},
	})
	procs, err := a.(ports.ProcedureLister).Procedures(ctx)
	is.NoErr(err)
	is.Equal(procs, []ports.Procedure{{Address: 0x401000, Name: "main", Size: 13, Source: "symbol"},
		{Address: 0x401040, Name: "helper", Size: 13, Source: "symbol"}, {Address: 0x401080, Name: "j_puts", Size: 6, Source: "symbol"}})
	fa := a.(ports.FunctionAnalyzer)
	ranges, err := fa.FunctionRanges(ctx)
	is.NoErr(err)
	is.Equal(ranges[0], ports.FunctionRange{Start: 0x401000, End: 0x40100d, EndSource: "hopper-basic-blocks"})
	fn, err := fa.Function(ctx, ports.FunctionRequest{Address: 0x401000, MaxInstructions: 3})
	is.NoErr(err)
	is.Equal(len(fn.Instructions), 3) // bounded by the request
	is.Equal(fn.InstructionCount, 6)  // the count covers the body
	is.Equal(fn.Instructions[2], ports.Instruction{Address: 0x401004, Bytes: []byte{0xe8, 0x37, 0, 0, 0}, Mnemonic: "call",
		Operands: "0x401040", Text: "call 0x401040", Flow: ports.FlowCall, Target: 0x401040, HasTarget: true})
	is.Equal(fn.Blocks, []ports.BasicBlock{{Start: 0x401000, End: 0x40100d, Instructions: 6}}) // calls do not end blocks
	thunk, err := fa.Function(ctx, ports.FunctionRequest{Address: 0x401080})
	is.NoErr(err)
	is.Equal(thunk.Blocks[0].Successors, []ports.Edge{{Kind: ports.EdgeUnresolved}}) // an indirect jump
	_, err = fa.Function(ctx, ports.FunctionRequest{Address: 0x401004})
	is.True(errors.Is(err, ports.ErrNotFound))
	names, err := a.(ports.NameLister).Names(ctx)
	is.NoErr(err)
	is.Equal(len(names), 5)
	strs, err := a.(ports.StringLister).Strings(ctx)
	is.NoErr(err)
	is.Equal(strs, []ports.String{{Address: 0x402000, FileOffset: 0x1100, Value: "hello, hopper", Charset: "ascii", ByteLength: 13, Section: ".rodata"}})
	b, err := a.(ports.ByteReader).ReadBytes(ctx, 0x401040, 5000)
	is.NoErr(err)
	is.Equal(len(b), 0xc0) // bounded by the segment's file bytes
	is.Equal(hex.EncodeToString(b[:7]), "488d3db90f0000")
	_, err = a.(ports.ByteReader).ReadBytes(ctx, 0x403000, 4)
	is.True(errors.Is(err, ports.ErrNotFound)) // .bss has no file bytes
	pc, err := a.(ports.Decompiler).Decompile(ctx, 0x401040)
	is.NoErr(err)
	is.True(strings.Contains(pc.Text, `j_puts("hello, hopper")`))
	_, err = a.(ports.Decompiler).Decompile(ctx, 0x401041)
	is.True(errors.Is(err, ports.ErrNotFound)) // not a procedure start
	lin := a.(ports.LineageReporter).ProcessLineage(ctx)
	is.Equal(lin.Status, ports.LineageVerified)
	is.NoErr(a.Close(ctx))
	_, err = a.(ports.DocumentLister).Documents(ctx)
	is.True(errors.Is(err, ports.ErrUnavailable)) // closed
	e.assertClean(t)
}

func TestLaunchArgvAndBootstrap(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	// A launcher that records its argv and the bootstrap, then fails.
	rec := filepath.Join(filepath.Dir(e.starts), "argv")
	script := filepath.Join(filepath.Dir(e.starts), "record.sh")
	is.NoErr(os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+rec+"\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --python ]; then cp \"$2\" "+rec+".boot; fi; shift; done\nexit 3\n"), 0o755))
	p := hopper.New(&hopper.Options{Launcher: script, TempParent: e.tempParent})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	var se *hopper.StartupError
	is.True(errors.As(err, &se))
	is.Equal(se.Kind, "process")
	is.NoErr(a.Close(t.Context()))
	argv, err := os.ReadFile(rec)
	is.NoErr(err)
	lines := strings.Split(strings.TrimSpace(string(argv)), "\n")
	is.Equal(lines[:4], []string{"-l", "ELF", "--intel-64", "--analysis"})
	is.Equal(lines[4], "--python")
	is.True(strings.HasSuffix(lines[5], "/bootstrap.py"))
	is.Equal(lines[6:], []string{"--executable", e.target.Path})
	boot, err := os.ReadFile(rec + ".boot")
	is.NoErr(err)
	is.True(strings.Contains(string(boot), `os.environ["REA_TOKEN"] = "`))
	is.True(strings.Contains(string(boot), `_rea_ns["main"](Document)`))
	for _, a := range lines {
		is.True(!strings.Contains(string(boot), a) || !strings.Contains(a, "REA_TOKEN")) // the token is never in argv
	}
	left, _ := os.ReadDir(e.tempParent)
	is.Equal(len(left), 0)

	// A configured override replaces the derived loader arguments.
	p = hopper.New(&hopper.Options{Launcher: script, TempParent: e.tempParent, LoaderArgs: []string{"-l", "FAT", "--intel-64", "-l", "ELF"}})
	a, err = p.Open(t.Context(), e.target)
	is.NoErr(err)
	is.Equal(a.Profile().Parameters["loader"].(map[string]any)["source"], "configured_override")
	_, _ = a.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(a.Close(t.Context()))
	argv, _ = os.ReadFile(rec)
	is.True(strings.HasPrefix(string(argv), "-l\nFAT\n--intel-64\n-l\nELF\n--analysis\n"))
}

type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) Observe(phase, msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.msgs = append(n.msgs, phase+": "+msg)
}

func (n *notices) waiting() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, m := range n.msgs {
		if strings.HasPrefix(m, "hopper_startup: ") {
			out = append(out, m)
		}
	}
	return out
}

func TestWaitingNotices(t *testing.T) {
	is := is.New(t)
	defer hopper.SetWaitInterval(200 * time.Millisecond)()
	e := newEnv(t)
	t.Setenv("FAKE_HOPPER_DELAY_MS", "1100")
	p := e.provider(hopper.Options{})
	var n notices
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	with, err := a.(ports.SegmentLister).Segments(ports.WithProgress(t.Context(), &n))
	is.NoErr(err)
	is.NoErr(a.Close(t.Context()))
	w := n.waiting()
	is.True(len(w) >= 2) // at least two waiting notices during a slow start
	for _, m := range w {
		is.True(strings.HasPrefix(m, "hopper_startup: waiting for Hopper's analysis and bridge readiness ("))
	}
	is.True(strings.Contains(strings.Join(n.msgs, "\n"), "hopper_request: list_segments started on Hopper's serial bridge"))

	b, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	without, err := b.(ports.SegmentLister).Segments(t.Context())
	is.NoErr(err)
	is.NoErr(b.Close(t.Context()))
	is.Equal(with, without)
	e.assertClean(t)
}

func TestCancelDuringStartupThenReopen(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	t.Setenv("FAKE_HOPPER_MODE", "hang")
	p := e.provider(hopper.Options{})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(400*time.Millisecond, cancel)
	_, err = a.(ports.DocumentLister).Documents(ctx)
	is.True(errors.Is(err, context.Canceled))
	is.True(!errors.Is(err, ports.ErrTimeout)) // cancellation is distinct from timeout
	e.assertClean(t)

	t.Setenv("FAKE_HOPPER_MODE", "")
	docs, err := a.(ports.DocumentLister).Documents(t.Context()) // the same analysis starts afresh
	is.NoErr(err)
	is.Equal(len(docs), 1)
	is.NoErr(a.Close(t.Context()))
	b, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = b.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(err)
	is.NoErr(b.Close(t.Context()))
	l, _ := e.pids()
	is.Equal(len(l), 3)
	e.assertClean(t)
}

func TestStartupTimeout(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	t.Setenv("FAKE_HOPPER_MODE", "hang")
	a, err := e.provider(hopper.Options{StartupTimeout: 600 * time.Millisecond}).Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.True(errors.Is(err, ports.ErrTimeout))
	is.True(strings.Contains(err.Error(), "600 ms")) // the configured deadline
	is.True(strings.Contains(err.Error(), hopper.EnvStartupTimeout))
	is.True(!errors.Is(err, context.Canceled))
	e.assertClean(t)
}

func TestCrashBeforeReady(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	t.Setenv("FAKE_HOPPER_MODE", "crash")
	a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	var se *hopper.StartupError
	is.True(errors.As(err, &se))
	is.Equal(se.Kind, "process")
	is.True(strings.Contains(err.Error(), "loading failed")) // the engine's stderr in the report
	is.True(!errors.Is(err, ports.ErrTimeout) && !errors.Is(err, context.Canceled))
	e.assertClean(t)
}

func TestBadHandshake(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	t.Setenv("FAKE_HOPPER_MODE", "bad-health")
	a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "handshake")) // err
	e.assertClean(t)
}

func TestCrashAfterReadyIsNotReplaced(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	t.Setenv("FAKE_HOPPER_MODE", "crash-after-ready")
	a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.True(err != nil)
	deadline := time.Now().Add(10 * time.Second)
	for !errors.Is(err, hopper.ErrCrashed) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		_, err = a.(ports.DocumentLister).Documents(t.Context())
	}
	is.True(errors.Is(err, hopper.ErrCrashed)) // later queries report the crash
	l, _ := e.pids()
	is.Equal(len(l), 1) // never silently replaced
	is.NoErr(a.Close(t.Context()))
	e.assertClean(t)
}

func TestStubbornAndForkingEnginesAreCleanedUp(t *testing.T) {
	for _, mode := range []string{"ignore-term", "fork"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t)
			t.Setenv("FAKE_HOPPER_MODE", mode)
			a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
			is.NoErr(err)
			_, err = a.(ports.DocumentLister).Documents(t.Context())
			is.NoErr(err)
			lin := a.(ports.LineageReporter).ProcessLineage(t.Context())
			is.Equal(lin.Status, ports.LineageVerified)
			if mode == "fork" {
				is.True(len(lin.Descendants) >= 1)
			}
			is.NoErr(a.Close(t.Context()))
			e.assertClean(t)
		})
	}
}

func TestUnrelatedProcessWithTheEnginesNameSurvives(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	stranger := exec.Command(e.launcher)
	stranger.Env = append(os.Environ(), "FAKE_HOPPER_CHILD=1")
	is.NoErr(stranger.Start())
	defer func() { stranger.Process.Kill(); stranger.Wait() }()
	t.Setenv("FAKE_HOPPER_MODE", "ignore-term")
	a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(err)
	is.NoErr(a.Close(t.Context()))
	e.assertClean(t)
	is.True(alive(stranger.Process.Pid)) // never signalled
}

func TestRemoteErrorTypes(t *testing.T) {
	for _, c := range []struct {
		typ  string
		want error
	}{
		{"capability_unavailable", ports.ErrUnsupported},
		{"invalid_request", ports.ErrNotFound},
		{"authorization", nil},
		{"bridge_exception", nil},
		{"remote", nil},
	} {
		t.Run(c.typ, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t)
			t.Setenv("FAKE_HOPPER_MODE", "error:"+c.typ)
			a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
			is.NoErr(err)
			_, err = a.(ports.DocumentLister).Documents(t.Context())
			var re *hopper.RemoteError
			is.True(errors.As(err, &re))
			is.Equal(re.Type, c.typ)
			is.Equal(re.Code, -32000)
			if c.want != nil {
				is.True(errors.Is(err, c.want))
			} else {
				for _, s := range []error{ports.ErrNotFound, ports.ErrUnsupported, ports.ErrTimeout, ports.ErrUnavailable, context.Canceled} {
					is.True(!errors.Is(err, s))
				}
			}
			is.NoErr(a.Close(t.Context()))
			e.assertClean(t)
		})
	}
}

func TestBadRepliesEndTheSession(t *testing.T) {
	for _, mode := range []string{"oversized", "malformed", "wrong-id"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t)
			t.Setenv("FAKE_HOPPER_MODE", mode)
			a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
			is.NoErr(err)
			_, err = a.(ports.DocumentLister).Documents(t.Context())
			is.True(err != nil) // a line over 10 MiB, not JSON, or for another id fails the request
			a.Close(t.Context())
			e.assertClean(t)
		})
	}
}

func TestAvailability(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	notExec := filepath.Join(dir, "Hopper")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, launcher, code string
	}{
		{"present", e.launcher, ""},
		{"missing", filepath.Join(dir, "absent"), "executable_missing"},
		{"not executable", notExec, "executable_missing"},
		{"relative", "bin/Hopper", "not_configured"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			av := hopper.New(&hopper.Options{Launcher: c.launcher}).Availability(t.Context())
			is.Equal(av.Code, c.code)
			is.Equal(av.Available, c.code == "")
		})
	}
	l, _ := e.pids()
	if len(l) != 0 {
		t.Errorf("availability ran the launcher")
	}
}

func TestSupport(t *testing.T) {
	p := hopper.New(nil)
	for _, c := range []struct {
		t    ports.Target
		code string
	}{
		{ports.Target{Format: "elf", Kind: "executable", Architecture: "arm64"}, ""},
		{ports.Target{Format: "pe", Kind: "shared-library", Architecture: "x86"}, ""},
		{ports.Target{Format: "zip", Kind: "archive"}, "target_format_unsupported"},
		{ports.Target{Format: "elf", Kind: "core", Architecture: "x86_64"}, "target_kind_unsupported"},
		{ports.Target{Format: "elf", Kind: "executable", Architecture: "riscv64"}, "architecture_unsupported"},
		{ports.Target{Path: "/x/saved.HOP", Format: "unknown", Kind: "unknown"}, ""}, // a Hopper database
	} {
		if s := p.Support(t.Context(), c.t); s.Code != c.code || s.Supported != (c.code == "") {
			t.Errorf("%+v: got %+v, want code %q", c.t, s, c.code)
		}
	}
}

func TestParseStartupTimeout(t *testing.T) {
	is := is.New(t)
	for _, bad := range []string{"", "0", "01", "1e3", "abc", "2147483648", "-1", " 5", "99999999999"} {
		_, err := hopper.ParseStartupTimeout(bad)
		is.True(err != nil) // bad
		if err != nil {
			is.True(strings.Contains(err.Error(), hopper.EnvStartupTimeout))
		}
	}
	d, err := hopper.ParseStartupTimeout("2147483647")
	is.NoErr(err)
	is.Equal(d, 2147483647*time.Millisecond)
	d, err = hopper.ParseStartupTimeout("1")
	is.NoErr(err)
	is.Equal(d, time.Millisecond)
}

func TestParseLoaderArgs(t *testing.T) {
	is := is.New(t)
	args, err := hopper.ParseLoaderArgs(`["-l","Mach-O","--aarch64"]`)
	is.NoErr(err)
	is.Equal(args, []string{"-l", "Mach-O", "--aarch64"})
	for _, bad := range []string{``, `null`, `"x"`, `[1]`, `[""]`, `["a\u0000b"]`} {
		_, err := hopper.ParseLoaderArgs(bad)
		is.True(err != nil) // bad
	}
}

func TestParseDemoHelper(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "hopper-demo-x11.py")
	is.NoErr(os.WriteFile(good, []byte("#!/usr/bin/python3\n"), 0o644))
	got, err := hopper.ParseDemoHelper(good)
	is.NoErr(err)
	is.Equal(got, good)
	for _, bad := range []string{"", "hopper-demo-x11.py", "./x.py", dir + "/../" + filepath.Base(dir) + "/hopper-demo-x11.py",
		filepath.Join(dir, "missing.py"), dir, "/a\x00b", "/" + strings.Repeat("a", 4096)} {
		_, err := hopper.ParseDemoHelper(bad)
		is.True(err != nil) // bad
		if err != nil {
			is.True(strings.Contains(err.Error(), hopper.EnvDemoHelper)) // the message names the variable
		}
	}
	if os.Geteuid() != 0 { // root reads any file
		unreadable := filepath.Join(dir, "unreadable.py")
		is.NoErr(os.WriteFile(unreadable, nil, 0o200))
		_, err := hopper.ParseDemoHelper(unreadable)
		is.True(err != nil)
	}
}

// TestBridgeProtocolPython runs the bridge's protocol tests with a stub
// document (no Hopper) when python3 is installed.
func TestBridgeProtocolPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the bridge's protocol tests need Python 3")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a hung bridge test fails instead of stalling the package
	defer cancel()
	if b, err := exec.CommandContext(ctx, py, "bridge/test/test_protocol.py", "bridge/hopper_bridge.py").CombinedOutput(); err != nil {
		t.Fatalf("bridge protocol tests: %v\n%s", err, b)
	}
}

// TestFixtureIsAReplayTranscript: the committed transcript is in the
// record/replay format and is what make_fixture.py writes from the bridge's
// own protocol layer today.
func TestFixtureIsAReplayTranscript(t *testing.T) {
	is := is.New(t)
	f, err := os.Open("testdata/fixture.jsonl")
	is.NoErr(err)
	defer f.Close()
	tr, err := replay.ReadTranscript(f)
	is.NoErr(err)
	is.Equal(tr.Header.Engine, "hopper")
	is.True(strings.HasPrefix(tr.Header.EngineVersion, "fake: ")) // no Hopper produced it, and the header says so
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: cannot regenerate the transcript to compare")
	}
	fresh, err := exec.CommandContext(t.Context(), py, "testdata/make_fixture.py", "bridge/hopper_bridge.py").Output()
	is.NoErr(err)
	committed, err := os.ReadFile("testdata/fixture.jsonl")
	is.NoErr(err)
	is.Equal(string(fresh), string(committed)) // run make_fixture.py after changing the bridge
}

// TestAnnotator runs the Annotator contract against the fake launcher, which
// keeps names and comments as the bridge keeps them in Hopper's document
// (the bridge's own annotation methods are tested in test_protocol.py).
func TestAnnotator(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	ann, ok := a.(ports.Annotator)
	is.True(ok)
	// 0x401010 is inside .text with no name; 0x500000 is in no segment.
	portstest.RunAnnotator(t, ann, 0x401010, 0x500000)

	// Names list Hopper's names, a rename among them; comments list what
	// this session set; bookmarks are not offered.
	ctx := t.Context()
	is.NoErr(ann.SetAnnotation(ctx, ports.Annotation{Kind: ports.AnnotationName, Address: 0x401040, Text: "renamed_helper"}))
	is.NoErr(ann.SetAnnotation(ctx, ports.Annotation{Kind: ports.AnnotationComment, Address: 0x401004, Text: "calls helper"}))
	names, err := ann.Annotations(ctx, ports.AnnotationName)
	is.NoErr(err)
	var got []string
	for _, n := range names {
		got = append(got, fmt.Sprintf("%#x=%s", n.Address, n.Text))
	}
	is.Equal(strings.Join(got, " "), "0x401000=main 0x401040=renamed_helper 0x401080=j_puts 0x402000=aHelloHopper 0x403000=counter")
	var notes ports.CallNotes
	comments, err := ann.Annotations(ports.WithCallNotes(ctx, &notes), ports.AnnotationComment)
	is.NoErr(err)
	is.Equal(notes.List(), []string{hopper.AnnotationLimitation}) // the result says what is not listed
	is.Equal(comments, []ports.Annotation{{Kind: ports.AnnotationComment, Address: 0x401004, Text: "calls helper"}})
	_, err = ann.Annotations(ctx, ports.AnnotationBookmark)
	is.True(errors.Is(err, ports.ErrUnsupported))

	is.NoErr(a.Close(context.Background()))
	_, err = ann.Annotations(ctx, ports.AnnotationComment)
	is.True(errors.Is(err, ports.ErrUnavailable)) // nothing is answered after Close
	e.assertClean(t)
}

// TestDatabaseIsOpenedFromACopy: a .hop database is opened with --database
// and no loader arguments, from a verified copy in the session root, so the
// analysis it holds is reused and the analyst's file is never written.
func TestDatabaseIsOpenedFromACopy(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	dir := filepath.Dir(e.starts)
	rec := filepath.Join(dir, "argv")
	script := filepath.Join(dir, "record.sh")
	// Records its argv and the database it was given, writes into that
	// database as Hopper may when it saves, then fails.
	is.NoErr(os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+rec+
		"\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --database ]; then cp \"$2\" "+rec+".db; echo saved >> \"$2\"; fi; shift; done\nexit 3\n"), 0o755))
	db := filepath.Join(dir, "saved.hop")
	data := []byte("a Hopper database the analyst saved")
	is.NoErr(os.WriteFile(db, data, 0o644))
	sum := sha256.Sum256(data)
	target := ports.Target{Path: db, SHA256: hex.EncodeToString(sum[:]), Format: "unknown", Kind: "unknown", Size: int64(len(data))}

	p := hopper.New(&hopper.Options{Launcher: script, TempParent: e.tempParent})
	a, err := p.Open(t.Context(), target)
	is.NoErr(err)
	is.Equal(a.Profile().Parameters["target_format"], "hopper-database")
	is.Equal(a.Profile().Parameters["loader"].(map[string]any)["argument_count"], 0)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.True(err != nil) // the recording launcher exits
	is.NoErr(a.Close(t.Context()))

	argv, err := os.ReadFile(rec)
	is.NoErr(err)
	lines := strings.Split(strings.TrimSpace(string(argv)), "\n")
	is.Equal(lines[0], "--analysis") // no loader arguments
	is.Equal(lines[1], "--python")
	is.Equal(lines[3], "--database")
	is.Equal(filepath.Base(lines[4]), "target-"+target.SHA256[:12]+".hop")
	is.True(filepath.Dir(lines[4]) != dir) // a copy in the session root
	copied, err := os.ReadFile(rec + ".db")
	is.NoErr(err)
	is.Equal(copied, data)
	after, err := os.ReadFile(db)
	is.NoErr(err)
	is.Equal(after, data) // the analyst's database is untouched
	left, _ := os.ReadDir(e.tempParent)
	is.Equal(len(left), 0) // the root with the copy is gone
}

// demoEnv makes the fake launcher the Linux demo and writes a fake X11
// helper (run by /bin/sh in place of python3) and a fake unshare: both log
// their arguments, the helper copies the bootstrap it launches with, and
// then each runs what follows its own flags. FAKE_PROBE_DIRECT_EXIT,
// FAKE_PROBE_EXIT and FAKE_HELPER_EXIT make a probe or the launch fail.
func demoEnv(t *testing.T, e *env) (opts hopper.Options, log string) {
	t.Helper()
	dir := filepath.Dir(e.starts)
	log = filepath.Join(dir, "helper.log")
	helper := filepath.Join(dir, "x11-helper")
	unshare := filepath.Join(dir, "unshare")
	script := `#!/bin/sh
echo "helper $*" >> ` + log + `
if [ "$1" = --probe ]; then
  if [ "$3" = direct ] && [ -n "$FAKE_PROBE_DIRECT_EXIT" ]; then exit "$FAKE_PROBE_DIRECT_EXIT"; fi
  exit "${FAKE_PROBE_EXIT:-0}"
fi
prev=
for a in "$@"; do
  if [ "$prev" = --python ]; then cp "$a" ` + log + `.boot; fi
  prev=$a
done
if [ -n "$FAKE_HELPER_EXIT" ]; then
  echo 'REA_X11_DIAGNOSTIC_V1={"display":":123","failure_code":"hopper_exited_during_startup"}' >&2
  exit "$FAKE_HELPER_EXIT"
fi
while [ "$1" != -- ]; do shift; done
shift
exec "$@"
`
	if err := os.WriteFile(helper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unshare, []byte("#!/bin/sh\necho \"unshare $*\" >> "+log+"\nshift 3\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(e.launcher)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	t.Cleanup(hopper.SetDemo(hex.EncodeToString(sum[:]), unshare))
	for _, k := range []string{"FAKE_PROBE_DIRECT_EXIT", "FAKE_PROBE_EXIT", "FAKE_HELPER_EXIT"} {
		t.Setenv(k, "")
	}
	return hopper.Options{DemoHelper: helper, Python: "/bin/sh"}, log
}

func logLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestLinuxDemoRunsUnderTheX11Helper: the demo is probed with the direct
// strategy, then launched under the helper (the owned launcher) with the
// argv of PROVIDERS.md §2.2, and the bridge is told it owns the process's
// lifetime; the session works and nothing remains after Close.
func TestLinuxDemoRunsUnderTheX11Helper(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the demo helper is Linux only")
	}
	is := is.New(t)
	e := newEnv(t)
	opts, log := demoEnv(t, e)
	a, err := e.provider(opts).Open(t.Context(), e.target)
	is.NoErr(err)
	docs, err := a.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(err)
	is.Equal(docs[0].Name, "target.elf")
	is.NoErr(a.Close(t.Context()))
	lines := logLines(t, log)
	is.Equal(lines[0], "helper --probe --strategy direct")
	launch := strings.Fields(lines[1])
	is.Equal(launch[:6], []string{"helper", "--strategy", "direct", "--hopper", e.launcher, "--socket"})
	is.True(strings.HasSuffix(launch[6], "/bridge.sock"))
	is.Equal(launch[7:13], []string{"--", e.launcher, "-l", "ELF", "--intel-64", "--analysis"})
	boot, err := os.ReadFile(log + ".boot")
	is.NoErr(err)
	is.True(strings.Contains(string(boot), `os.environ["REA_OWNS_PROCESS_LIFETIME"] = "true"`))
	e.assertClean(t)
}

// TestLinuxDemoFallsBackToANamespace: only when the direct probe reports
// x11_socket_directory_unusable (80) is the namespace strategy probed, and
// the launch then runs under unshare too.
func TestLinuxDemoFallsBackToANamespace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the demo helper is Linux only")
	}
	is := is.New(t)
	e := newEnv(t)
	opts, log := demoEnv(t, e)
	t.Setenv("FAKE_PROBE_DIRECT_EXIT", "80")
	a, err := e.provider(opts).Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(err)
	is.NoErr(a.Close(t.Context()))
	lines := logLines(t, log)
	is.Equal(lines[0], "helper --probe --strategy direct")
	is.Equal(lines[1], "unshare --user --map-root-user --mount /bin/sh "+opts.DemoHelper+" --probe --strategy user-mount-namespace --mount-private-x11")
	is.Equal(lines[2], "helper --probe --strategy user-mount-namespace --mount-private-x11")
	is.True(strings.HasPrefix(lines[3], "unshare --user --map-root-user --mount /bin/sh "+opts.DemoHelper+" --strategy user-mount-namespace --mount-private-x11 --hopper "))
	e.assertClean(t)
}

// TestLinuxDemoHelperFailures: a probe or launch failure is a process
// failure carrying the helper's failure_code and diagnostics; another probe
// failure is not retried; the demo without a helper starts nothing.
func TestLinuxDemoHelperFailures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the demo helper is Linux only")
	}
	e := newEnv(t)
	opts, log := demoEnv(t, e)
	for _, c := range []struct {
		env, value, code string
		exit             int
		diagnostics      bool
	}{
		{"FAKE_PROBE_EXIT", "72", "unsupported_hopper_build", 72, false},
		{"FAKE_HELPER_EXIT", "75", "hopper_exited_during_startup", 75, true},
		{"FAKE_HELPER_EXIT", "99", "", 99, true},
	} {
		t.Run(c.code, func(t *testing.T) {
			is := is.New(t)
			os.Remove(log)
			t.Setenv(c.env, c.value)
			a, err := e.provider(opts).Open(t.Context(), e.target)
			is.NoErr(err)
			_, err = a.(ports.DocumentLister).Documents(t.Context())
			var se *hopper.StartupError
			is.True(errors.As(err, &se))
			is.Equal(se.Kind, "process")
			var he *hopper.HelperError
			is.True(errors.As(err, &he))
			is.Equal(he.FailureCode, c.code)
			is.Equal(he.ExitCode, c.exit)
			is.Equal(he.Diagnostics != nil, c.diagnostics)
			if c.diagnostics {
				is.Equal(he.Diagnostics["display"], ":123")
			}
			is.NoErr(a.Close(t.Context()))
			if c.env == "FAKE_PROBE_EXIT" {
				is.Equal(len(logLines(t, log)), 1) // probed once, not retried, never launched
			}
			e.assertClean(t)
		})
	}

	is := is.New(t)
	os.Remove(log)
	opts.DemoHelper = ""
	a, err := e.provider(opts).Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	var se *hopper.StartupError
	is.True(errors.As(err, &se))
	is.Equal(se.Kind, "start")
	is.True(strings.Contains(err.Error(), "X11 helper"))
	is.NoErr(a.Close(t.Context()))
	_, statErr := os.Stat(log)
	is.True(os.IsNotExist(statErr)) // nothing was probed or launched
	l, _ := e.pids()
	is.Equal(len(l), 0)
}

// TestSnapshot: the second session on the same bytes, launcher and profile
// answers its overview from the analysis snapshot without starting Hopper,
// and says so; a changed profile starts Hopper; a session that annotates
// neither answers from the snapshot nor writes its changed answers to it.
func TestSnapshot(t *testing.T) {
	is := is.New(t)
	e := newEnv(t)
	root := t.TempDir()
	p := e.provider(hopper.Options{SnapshotRoot: root})
	overview := func(target ports.Target, progress ports.Progress) ([]ports.Document, []ports.Segment, []ports.Name, *hopper.Analysis) {
		a, err := p.Open(t.Context(), target)
		is.NoErr(err)
		ctx := t.Context()
		if progress != nil {
			ctx = ports.WithProgress(ctx, progress)
		}
		docs, err := a.(ports.DocumentLister).Documents(ctx)
		is.NoErr(err)
		segs, err := a.(ports.SegmentLister).Segments(ctx)
		is.NoErr(err)
		names, err := a.(ports.NameLister).Names(ctx)
		is.NoErr(err)
		is.NoErr(a.Close(t.Context()))
		return docs, segs, names, a.(*hopper.Analysis)
	}
	d1, s1, n1, a1 := overview(e.target, nil)
	is.Equal(len(a1.SnapshotHits()), 0)
	var n notices
	d2, s2, n2, a2 := overview(e.target, &n)
	l, _ := e.pids()
	is.Equal(len(l), 1) // the second session answered without starting Hopper
	is.Equal(d1, d2)
	is.Equal(s1, s2)
	is.Equal(n1, n2)
	is.Equal(a2.SnapshotHits(), []string{"list_documents", "list_segments", "list_names"})
	is.True(len(n.msgs) > 0 && strings.Contains(n.msgs[0], "analysis snapshot")) // the observation says so
	var notes ports.CallNotes
	_, err := func() ([]ports.Document, error) {
		a, err := p.Open(t.Context(), e.target)
		is.NoErr(err)
		defer a.Close(t.Context())
		return a.(ports.DocumentLister).Documents(ports.WithCallNotes(t.Context(), &notes))
	}()
	is.NoErr(err)
	is.Equal(notes.List(), []string{ports.SnapshotLimitation}) // the result's Evidence says so

	changed := e.target
	changed.Architecture = "x86" // another loader, so another analysis profile
	_, _, _, a3 := overview(changed, nil)
	l, _ = e.pids()
	is.Equal(len(l), 2) // a changed profile does not use the snapshot
	is.Equal(len(a3.SnapshotHits()), 0)

	// An annotating session asks Hopper, and keeps nothing it answered after.
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	ann := a.(ports.Annotator)
	is.NoErr(ann.SetAnnotation(t.Context(), ports.Annotation{Kind: ports.AnnotationName, Address: 0x401040, Text: "renamed_helper"}))
	renamed, err := a.(ports.NameLister).Names(t.Context())
	is.NoErr(err)
	is.True(!slices.Equal(renamed, n1))
	is.Equal(len(a.(*hopper.Analysis).SnapshotHits()), 0)
	is.NoErr(a.Close(t.Context()))
	_, _, n4, a4 := overview(e.target, nil)
	is.Equal(n4, n1) // the rename did not reach the snapshot
	is.Equal(a4.SnapshotHits(), []string{"list_documents", "list_segments", "list_names"})
	e.assertClean(t)
}
