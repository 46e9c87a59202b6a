package ghidra_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/ghidra"
	"rea/ports"
	"rea/ports/portstest"
	"rea/ports/portstest/replay"
)

var fakeBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeghidra-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBinary = filepath.Join(dir, "analyzeHeadless")
	out, err := exec.Command("go", "build", "-o", fakeBinary, "./testdata/fakeghidra").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the fake engine: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's fake installation, target and bookkeeping.
type env struct {
	install, javaHome, tempParent, starts string
	target                                ports.Target
}

func newEnv(t *testing.T, version string) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{install: filepath.Join(dir, "ghidra"), javaHome: filepath.Join(dir, "jdk"),
		starts: filepath.Join(dir, "starts")}
	// Socket paths are short (108 bytes), test directories long: the roots
	// go into a short directory of their own.
	short, err := os.MkdirTemp("", "g")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	e.tempParent = short
	for _, d := range []string{filepath.Join(e.install, "Ghidra"), filepath.Join(e.install, "support"), filepath.Join(e.javaHome, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(e.install, "Ghidra", "application.properties"), "application.name=Ghidra\napplication.version="+version+"\n", 0o644)
	if err := os.Symlink(fakeBinary, filepath.Join(e.install, "support", "analyzeHeadless")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(e.javaHome, "bin", "java"), "#!/bin/sh\nexit 0\n", 0o755)
	write(filepath.Join(e.javaHome, "bin", "javac"), "#!/bin/sh\nexit 0\n", 0o755)
	data := make([]byte, 8192)
	for i := range data {
		data[i] = byte(i * 7)
	}
	// The code and strings the transcript describes, at the file offsets
	// of its .text (0x401000 at 0x1000) and .rodata (0x402000 at 0x1100).
	put := func(addr uint64, hexBytes string) {
		b, err := hex.DecodeString(hexBytes)
		if err != nil {
			t.Fatal(err)
		}
		off := 0x1000 + addr - 0x401000
		if addr >= 0x402000 {
			off = 0x1100 + addr - 0x402000
		}
		copy(data[off:], b)
	}
	for off := 0x1000; off < 0x1100; off++ {
		data[off] = 0xcc // int3 between the functions
	}
	put(0x401000, "554889e5e83700000031c05dc3")
	put(0x401040, "488d3db90f0000e834000000c3")
	put(0x401080, "ff257a2f0000")
	put(0x402000, hex.EncodeToString([]byte("hello, ghidra\x00")))
	put(0x402010, "77006900640065000000") // "wide" in UTF-16LE, terminated
	path := filepath.Join(dir, "target.elf")
	write(path, string(data), 0o644)
	sum := sha256.Sum256(data)
	e.target = ports.Target{Path: path, SHA256: hex.EncodeToString(sum[:]), Format: "elf", Kind: "executable", Architecture: "x86_64", Size: int64(len(data))}
	// The fake answers from testdata/fixture.jsonl, a transcript written
	// for the fake (its header says so): no real Ghidra produced it.
	transcript, err := filepath.Abs("testdata/fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_GHIDRA_TRANSCRIPT", transcript)
	t.Setenv("FAKE_GHIDRA_STARTS", e.starts)
	t.Setenv("FAKE_GHIDRA_MODE", "")
	t.Setenv("FAKE_GHIDRA_DELAY_MS", "")
	return e
}

func (e *env) provider(opts ghidra.Options) *ghidra.Provider {
	opts.InstallDir, opts.JavaHome, opts.TempParent = e.install, e.javaHome, e.tempParent
	return ghidra.New(&opts)
}

// pids lists the processes the fake engine reported: launchers, and forked
// children (prefixed "child ").
func (e *env) pids(t *testing.T) (launchers, children []int) {
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
// reported is still alive (zombies are not alive: a reaped child is gone).
func (e *env) assertClean(t *testing.T) {
	t.Helper()
	left, _ := os.ReadDir(e.tempParent)
	for _, d := range left {
		t.Errorf("session root left behind: %s", d.Name())
	}
	l, c := e.pids(t)
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

// TestCommittedTranscriptIsTheFakes: the transcript the fake replays says
// in its header that no Ghidra produced it; a transcript recorded from a
// real Ghidra (TestLive -record) carries Ghidra's version and its own name.
func TestCommittedTranscriptIsTheFakes(t *testing.T) {
	f, err := os.Open("testdata/fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := replay.ReadTranscript(f)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Engine != "ghidra" || !strings.HasPrefix(tr.Header.EngineVersion, "fake: ") {
		t.Fatalf("header %+v does not say the transcript was written for the fake", tr.Header)
	}
}

func TestConformance(t *testing.T) {
	e := newEnv(t, "12.1.4")
	p := e.provider(ghidra.Options{})
	portstest.Run(t, p, e.target)
	e.assertClean(t)
}

func TestDeclaredCapabilities(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	p := e.provider(ghidra.Options{})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	portstest.CheckCapabilities(t, p, a)
	l, _ := e.pids(t)
	is.Equal(len(l), 0) // declaring and opening start nothing
}

type notices struct {
	mu   sync.Mutex
	msgs []string
	at   []time.Time
}

func (n *notices) Observe(phase, msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.msgs = append(n.msgs, phase+": "+msg)
	n.at = append(n.at, time.Now())
}

func TestWaitingNotices(t *testing.T) {
	is := is.New(t)
	defer ghidra.SetWaitInterval(200 * time.Millisecond)()
	e := newEnv(t, "12.1.4")
	t.Setenv("FAKE_GHIDRA_DELAY_MS", "1100")
	p := e.provider(ghidra.Options{})

	var n notices
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	withProgress, err := a.(ports.SegmentLister).Segments(ports.WithProgress(t.Context(), &n))
	is.NoErr(err)
	is.NoErr(a.Close(t.Context()))
	n.mu.Lock()
	is.True(len(n.msgs) >= 2) // at least two waiting notices during a slow start
	for i, m := range n.msgs {
		is.True(strings.HasPrefix(m, "ghidra_startup: waiting for import, analysis and bridge readiness ("))
		is.True(strings.HasSuffix(m, " s elapsed)"))
		if i > 0 && n.at[i].Sub(n.at[i-1]) < 100*time.Millisecond {
			t.Errorf("notices %d and %d only %v apart", i-1, i, n.at[i].Sub(n.at[i-1]))
		}
	}
	count := len(n.msgs)
	n.mu.Unlock()
	time.Sleep(300 * time.Millisecond)
	n.mu.Lock()
	is.Equal(len(n.msgs), count) // notices stop once startup settled
	n.mu.Unlock()

	b, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	without, err := b.(ports.SegmentLister).Segments(t.Context())
	is.NoErr(err)
	is.NoErr(b.Close(t.Context()))
	is.Equal(withProgress, without) // the same result without progress
	e.assertClean(t)
}

func TestCancelDuringStartupThenReopen(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	t.Setenv("FAKE_GHIDRA_MODE", "hang")
	p := e.provider(ghidra.Options{})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(400*time.Millisecond, cancel)
	_, err = a.(ports.DocumentLister).Documents(ctx)
	is.True(errors.Is(err, context.Canceled))  // cancelled, not timed out
	is.True(!errors.Is(err, ports.ErrTimeout)) // cancellation is distinct from timeout
	e.assertClean(t)                           // no process, socket or root after the cancel

	t.Setenv("FAKE_GHIDRA_MODE", "")
	docs, err := a.(ports.DocumentLister).Documents(t.Context()) // the same analysis starts afresh
	is.NoErr(err)
	is.Equal(len(docs), 1)
	is.NoErr(a.Close(t.Context()))
	b, err := p.Open(t.Context(), e.target) // close, then reopen
	is.NoErr(err)
	_, err = b.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(err)
	is.NoErr(b.Close(t.Context()))
	e.assertClean(t)
}

func TestStartupTimeout(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	t.Setenv("FAKE_GHIDRA_MODE", "hang")
	p := e.provider(ghidra.Options{StartupTimeout: 600 * time.Millisecond})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.True(errors.Is(err, ports.ErrTimeout)) // a startup timeout
	var se *ghidra.StartupError
	is.True(errors.As(err, &se))
	is.Equal(se.Deadline, 600*time.Millisecond)
	is.True(strings.Contains(err.Error(), "600 ms")) // the message names the configured deadline
	is.True(!errors.Is(err, context.Canceled))
	e.assertClean(t)
}

func TestCrashBeforeReady(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	t.Setenv("FAKE_GHIDRA_MODE", "crash")
	p := e.provider(ghidra.Options{})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	var se *ghidra.StartupError
	is.True(errors.As(err, &se))
	is.Equal(se.Kind, "process") // execution_failure, not a timeout or cancel
	is.True(!errors.Is(err, ports.ErrTimeout) && !errors.Is(err, context.Canceled))
	is.True(strings.Contains(err.Error(), "exited before bridge startup"))
	is.True(strings.Contains(err.Error(), "import failed")) // the engine's stderr in the report
	e.assertClean(t)
}

func TestAnalysisTimeout(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	t.Setenv("FAKE_GHIDRA_MODE", "analysis-timeout")
	p := e.provider(ghidra.Options{})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	var se *ghidra.StartupError
	is.True(errors.As(err, &se))
	is.Equal(se.Kind, "analysis_timeout")
	is.True(errors.Is(err, ports.ErrTimeout)) // provider_timeout
	e.assertClean(t)
}

func TestCrashAfterReadyIsNotReplaced(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	t.Setenv("FAKE_GHIDRA_MODE", "crash-after-ready")
	p := e.provider(ghidra.Options{})
	a, err := p.Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.True(err != nil) // the engine died under the request
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err = a.(ports.DocumentLister).Documents(t.Context())
		if errors.Is(err, ghidra.ErrCrashed) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	is.True(errors.Is(err, ghidra.ErrCrashed)) // later queries report the crash
	l, _ := e.pids(t)
	is.Equal(len(l), 1) // never silently replaced by a fresh engine
	is.NoErr(a.Close(t.Context()))
	e.assertClean(t)
}

func TestStubbornAndForkingEnginesAreCleanedUp(t *testing.T) {
	for _, mode := range []string{"ignore-term", "fork"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, "12.1.4")
			t.Setenv("FAKE_GHIDRA_MODE", mode)
			p := e.provider(ghidra.Options{})
			a, err := p.Open(t.Context(), e.target)
			is.NoErr(err)
			_, err = a.(ports.DocumentLister).Documents(t.Context())
			is.NoErr(err)
			lin := a.(ports.LineageReporter).ProcessLineage(t.Context())
			is.Equal(lin.Status, ports.LineageVerified) // lineage observed after the handshake
			if mode == "fork" {
				is.True(len(lin.Descendants) >= 1) // the forked child is in the lineage
			}
			is.NoErr(a.Close(t.Context()))
			e.assertClean(t)
		})
	}
}

func TestRemoteErrorCodes(t *testing.T) {
	for _, c := range []struct {
		code string
		want error
	}{
		{"not_found", ports.ErrNotFound},
		{"ambiguous", ports.ErrNotFound},
		{"method_unavailable", ports.ErrUnsupported},
		{"decompile_timeout", ports.ErrTimeout},
		{"analysis_incomplete", ports.ErrTimeout},
		{"decompile_cancelled", context.Canceled},
		{"limit_exceeded", nil},
		{"decompile_failed", nil},
		{"bridge_exception", nil},
		{"output_limit", nil},
		{"invalid_request", nil},
	} {
		t.Run(c.code, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, "12.1.4")
			t.Setenv("FAKE_GHIDRA_MODE", "error:"+c.code)
			p := e.provider(ghidra.Options{})
			a, err := p.Open(t.Context(), e.target)
			is.NoErr(err)
			_, err = a.(ports.DocumentLister).Documents(t.Context())
			var re *ghidra.RemoteError
			is.True(errors.As(err, &re))
			is.Equal(re.Code, c.code)
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
	for _, mode := range []string{"oversized", "malformed"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, "12.1.4")
			t.Setenv("FAKE_GHIDRA_MODE", mode)
			p := e.provider(ghidra.Options{})
			a, err := p.Open(t.Context(), e.target)
			is.NoErr(err)
			_, err = a.(ports.DocumentLister).Documents(t.Context())
			is.True(err != nil) // a reply over 1 MiB or not JSON fails the request
			a.Close(t.Context())
			e.assertClean(t)
		})
	}
}

func TestSnapshot(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	root := t.TempDir()
	p := e.provider(ghidra.Options{SnapshotRoot: root})
	overview := func(target ports.Target, progress ports.Progress) ([]ports.Document, []ports.Segment, *ghidra.Analysis) {
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
		is.NoErr(a.Close(t.Context()))
		return docs, segs, a.(*ghidra.Analysis)
	}
	d1, s1, a1 := overview(e.target, nil)
	is.Equal(len(a1.SnapshotHits()), 0)
	var n notices
	d2, s2, a2 := overview(e.target, &n)
	l, _ := e.pids(t)
	is.Equal(len(l), 1) // the second session answered without starting the engine
	is.Equal(d1, d2)
	is.Equal(s1, s2)
	is.Equal(a2.SnapshotHits(), []string{"list_documents", "list_segments"})
	is.True(len(n.msgs) > 0 && strings.Contains(n.msgs[0], "analysis snapshot")) // the observation says so

	changed := e.target
	changed.Architecture = "x86" // another analysis profile
	_, _, a3 := overview(changed, nil)
	l, _ = e.pids(t)
	is.Equal(len(l), 2) // a changed profile does not use the snapshot
	is.Equal(len(a3.SnapshotHits()), 0)
	e.assertClean(t)
}

func TestAvailability(t *testing.T) {
	e := newEnv(t, "12.1.4")
	for _, c := range []struct {
		name string
		opts ghidra.Options
		prep func()
		code string
	}{
		{"ok", ghidra.Options{InstallDir: e.install, JavaHome: e.javaHome}, nil, ""},
		{"unset", ghidra.Options{}, nil, "not_configured"},
		{"relative", ghidra.Options{InstallDir: "ghidra"}, nil, "not_configured"},
		{"no-properties", ghidra.Options{InstallDir: t.TempDir()}, nil, "executable_missing"},
		{"no-java", ghidra.Options{InstallDir: e.install, JavaHome: t.TempDir()}, nil, "runtime_missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			av := ghidra.New(&c.opts).Availability(t.Context())
			is.Equal(av.Code, c.code)
			is.Equal(av.Available, c.code == "")
		})
	}
	t.Run("version", func(t *testing.T) {
		is := is.New(t)
		e2 := newEnv(t, "11.0.3")
		av := e2.provider(ghidra.Options{}).Availability(t.Context())
		is.Equal(av.Code, "unsupported_version")
		l, _ := e2.pids(t)
		is.Equal(len(l), 0) // discovery never starts the engine
	})
}

func TestParseStartupTimeout(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"1", time.Millisecond},
		{"330000", 330 * time.Second},
		{"2147483647", 2147483647 * time.Millisecond},
		{"", 0}, {"0", 0}, {"01", 0}, {"1e3", 0}, {"abc", 0}, {"2147483648", 0},
		{"-1", 0}, {"+5", 0}, {" 5", 0}, {"99999999999", 0},
	} {
		t.Run(c.in, func(t *testing.T) {
			is := is.New(t)
			got, err := ghidra.ParseStartupTimeout(c.in)
			if c.want == 0 {
				is.True(err != nil)
				is.True(strings.Contains(err.Error(), ghidra.EnvStartupTimeout)) // the message names the variable
				is.True(strings.Contains(err.Error(), "1 to 2147483647"))        // and the accepted range
				return
			}
			is.NoErr(err)
			is.Equal(got, c.want)
		})
	}
}

// TestLaunchArgv: the engine is analyzeHeadless on a copy of the target
// inside the session's private root, imported read-only into a project
// deleted afterwards, with the committed bridge as the post-script and the
// session descriptor as its only argument; the token travels only in the
// descriptor (never in argv or the environment), and the descriptor is
// gone once read.
func TestLaunchArgv(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	record := filepath.Join(t.TempDir(), "launch.json")
	t.Setenv("FAKE_GHIDRA_LAUNCH", record)
	a, err := e.provider(ghidra.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.SegmentLister).Segments(t.Context())
	is.NoErr(err)
	b, err := os.ReadFile(record)
	is.NoErr(err)
	var l struct {
		Argv    []string `json:"argv"`
		Env     []string `json:"env"`
		Token   string   `json:"token"`
		Scripts []string `json:"scripts"`
	}
	is.NoErr(json.Unmarshal(b, &l))
	arg := func(flag string) string {
		i := slices.Index(l.Argv, flag)
		if i < 0 || i+1 >= len(l.Argv) {
			t.Fatalf("no %s in %q", flag, l.Argv)
		}
		return l.Argv[i+1]
	}
	root := filepath.Dir(l.Argv[0])            // <root>/project
	is.Equal(filepath.Dir(root), e.tempParent) // a private root of the session's own
	is.Equal(l.Argv[1], "rea-project")
	imported := arg("-import")
	is.True(imported != e.target.Path)                 // a copy, not the target
	is.Equal(filepath.Dir(imported), root)             // inside the root
	is.True(slices.Contains(l.Argv, "-readOnly"))      // the import is read-only
	is.True(slices.Contains(l.Argv, "-deleteProject")) // the project goes at exit
	is.Equal(arg("-postScript"), "ReaGhidraBridge.java")
	is.Equal(arg("-scriptPath"), filepath.Join(root, "bridge"))
	is.True(slices.Contains(l.Scripts, "ReaGhidraBridge.java") && slices.Contains(l.Scripts, "ReaBridgeProtocol.java")) // the committed bridge
	desc := l.Argv[len(l.Argv)-1]
	is.Equal(filepath.Dir(desc), root)
	_, err = os.Stat(desc)
	is.True(errors.Is(err, os.ErrNotExist)) // the descriptor is deleted once read
	is.True(len(l.Token) >= 32)
	for _, s := range append(append([]string{}, l.Argv...), l.Env...) {
		if strings.Contains(s, l.Token) {
			t.Fatalf("the token reached argv or the environment: %q", s)
		}
	}
	a.Close(context.Background())
	e.assertClean(t)
}

// TestBridgeProtocolJava compiles the bridge's protocol layer and its tests
// with a plain JDK and runs them.
func TestBridgeProtocolJava(t *testing.T) {
	jdk := bridgeJDK(t)
	java := filepath.Join(filepath.Dir(jdk.javac), "java")
	if _, err := os.Stat(java); err != nil {
		t.Skipf("no java beside %s", jdk.javac)
	}
	out := t.TempDir()
	args := append(jdk.release(), "-d", out, "bridge/ReaBridgeProtocol.java", "bridge/test/ReaBridgeProtocolTest.java")
	if b, err := exec.CommandContext(t.Context(), jdk.javac, args...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	if b, err := exec.CommandContext(t.Context(), java, "-cp", out, "ReaBridgeProtocolTest").CombinedOutput(); err != nil {
		t.Fatalf("bridge protocol tests: %v\n%s", err, b)
	}
}

// TestBridgeCompilesAgainstGhidraAPI type-checks the whole bridge (the
// Ghidra-facing layer included) with javac against compile-only
// declarations of the Ghidra 12.1 API it uses
// (testdata/ghidra-api-stubs; see its README), so a wrong class, method,
// type or unhandled checked exception in the bridge fails here rather than
// only in a live lane.
func TestBridgeCompilesAgainstGhidraAPI(t *testing.T) {
	jdk := bridgeJDK(t)
	var stubs []string
	err := filepath.WalkDir(filepath.Join("testdata", "ghidra-api-stubs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".java") {
			stubs = append(stubs, path)
		}
		return err
	})
	if err != nil || len(stubs) == 0 {
		t.Fatalf("no Ghidra API declarations under testdata/ghidra-api-stubs: %v", err)
	}
	args := append(append(jdk.release(), "-d", t.TempDir(), "-proc:none", "-implicit:class", "-Xmaxerrs", "200",
		"bridge/ReaGhidraBridge.java", "bridge/ReaBridgeProtocol.java"), stubs...)
	if b, err := exec.CommandContext(t.Context(), jdk.javac, args...).CombinedOutput(); err != nil {
		t.Fatalf("the bridge does not compile against the Ghidra API declarations: %v\n%s", err, b)
	}
}

// compileJDK is the javac the bridge tests compile with, and the Java
// release they compile for.
type compileJDK struct {
	javac   string
	version int // javac's major version
	target  int // the --release: 21, else 17
}

func (j compileJDK) release() []string { return []string{"--release", strconv.Itoa(j.target)} }

// bridgeJDK picks the javac for the bridge tests. Ghidra 12.1 runs the
// bridge on JDK 21 or later, so the bridge is compiled with --release 21
// (its API, nothing newer) by a JDK that supports it: the newest javac
// under /usr/lib/jvm or on PATH. Without one it falls back to --release 17
// with the javac on PATH (stricter: the Java 17 API). It logs which ran,
// and skips, naming the JDK needed, when there is no javac at all.
func bridgeJDK(t *testing.T) compileJDK {
	t.Helper()
	cands, _ := filepath.Glob("/usr/lib/jvm/*/bin/javac")
	path, _ := exec.LookPath("javac") // "" when none
	if path != "" {
		cands = append([]string{path}, cands...)
	}
	var best, onPath compileJDK
	for _, c := range cands {
		out, err := exec.CommandContext(t.Context(), c, "-version").CombinedOutput()
		if err != nil {
			continue
		}
		f := strings.Fields(string(out)) // "javac 25.0.1"
		if len(f) < 2 || f[0] != "javac" {
			continue
		}
		major, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[1], "1."), ".", 2)[0])
		if err != nil {
			continue
		}
		j := compileJDK{javac: c, version: major}
		if c == path {
			onPath = j
		}
		if major > best.version {
			best = j
		}
	}
	switch {
	case best.version >= 21:
		best.target = 21
	case onPath.version >= 17:
		best, best.target = onPath, 17
	default:
		t.Skip("no javac 17 or later (on PATH or under /usr/lib/jvm): the bridge tests need a JDK, 21 or later to compile for Ghidra 12.1's Java")
	}
	t.Logf("compiling with %s (javac %d) --release %d", best.javac, best.version, best.target)
	return best
}

// TestUnrelatedProcessWithTheEnginesNameSurvives runs a process named
// analyzeHeadless that rea did not start, then a whole session with a
// stubborn engine: the stranger is never signalled.
func TestUnrelatedProcessWithTheEnginesNameSurvives(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	stranger := exec.Command(filepath.Join(e.install, "support", "analyzeHeadless"))
	stranger.Env = append(os.Environ(), "FAKE_GHIDRA_CHILD=1")
	is.NoErr(stranger.Start())
	defer func() { stranger.Process.Kill(); stranger.Wait() }()

	t.Setenv("FAKE_GHIDRA_MODE", "ignore-term")
	a, err := e.provider(ghidra.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	_, err = a.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(err)
	is.NoErr(a.Close(t.Context()))
	e.assertClean(t)
	is.True(alive(stranger.Process.Pid)) // the unrelated process is untouched
}

func TestQueriesMapTheBridgesAnswers(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, "12.1.4")
	a, err := e.provider(ghidra.Options{}).Open(t.Context(), e.target)
	is.NoErr(err)
	defer a.Close(context.Background())
	ctx := t.Context()

	sig, err := a.(ports.SignatureReader).Signature(ctx, 0x401040)
	is.NoErr(err)
	is.Equal(sig.ReturnType, "void")
	is.Equal(sig.Parameters, []ports.Parameter{{Name: "s", Type: "char *", Location: "rdi"}})
	is.Equal(sig.CallingConvention, "__stdcall")
	is.Equal(sig.Source, ghidra.ProvenanceHighFunction) // the decompiler's prototype
	// Where the decompiler fails on a procedure, the function database's
	// prototype answers instead.
	sig, err = a.(ports.SignatureReader).Signature(ctx, 0x401080)
	is.NoErr(err)
	is.Equal(sig.Source, "ghidra-function-database")
	is.Equal(sig.Parameters, []ports.Parameter{{Name: "__s", Type: "char *", Location: "rdi"}})
	_, err = a.(ports.SignatureReader).Signature(ctx, 0x401001)
	is.True(errors.Is(err, ports.ErrNotFound)) // no procedure starts there

	api, err := a.(*ghidra.Analysis).NativeAPI(ctx, 0x401000)
	is.NoErr(err)
	is.True(api.Available)
	is.Equal(api.Provenance, ghidra.ProvenanceHighFunction)
	is.Equal(api.ReturnType, "int")
	is.Equal(api.Parameters, []ports.Parameter{})
	is.Equal(api.JumpTables, []ghidra.JumpTable{})
	is.Equal(api.PseudocodeClassification, "decompiler-generated-non-source")
	is.True(len(api.Limitations) == 2)
	_, err = a.(*ghidra.Analysis).NativeAPI(ctx, 0x401080)
	var re *ghidra.RemoteError
	is.True(errors.As(err, &re) && re.Code == "decompile_failed") // reported, not hidden

	pc, err := a.(ports.Decompiler).Decompile(ctx, 0x401000)
	is.NoErr(err)
	is.True(strings.Contains(pc.Text, "int main(void)"))
	_, err = a.(ports.Decompiler).Decompile(ctx, 0x401080)
	is.True(errors.Is(err, ports.ErrUnsupported)) // a thunk has no pseudo-code
	_, err = a.(ports.Decompiler).Decompile(ctx, 0x401001)
	is.True(errors.Is(err, ports.ErrNotFound)) // inside a procedure, not a start

	dis, err := a.(ports.Disassembler).Disassemble(ctx, ports.DisassembleRequest{Address: 0x401040, MaxInstructions: 16})
	is.NoErr(err)
	is.Equal(len(dis.Instructions), 16)
	is.True(dis.Truncated)
	is.Equal(dis.Instructions[0].Text, "lea RDI, [0x00402000]")
	is.Equal(dis.Instructions[3].Mnemonic, "int3")
	_, err = a.(ports.Disassembler).Disassemble(ctx, ports.DisassembleRequest{Address: 0x402000})
	is.True(errors.Is(err, ports.ErrNotFound)) // .rodata is not code

	fa := a.(ports.FunctionAnalyzer)
	ranges, err := fa.FunctionRanges(ctx)
	is.NoErr(err)
	is.Equal(ranges[0], ports.FunctionRange{Start: 0x401000, End: 0x40100d, EndSource: "ghidra-function-body"})
	fn, err := fa.Function(ctx, ports.FunctionRequest{Address: 0x401000, MaxInstructions: 3})
	is.NoErr(err)
	is.Equal(len(fn.Instructions), 3) // bounded by the request
	is.Equal(fn.InstructionCount, 6)  // the count covers the body
	is.Equal(fn.Instructions[2].Flow, ports.FlowCall)
	is.Equal(fn.Instructions[2].Target, uint64(0x401040))
	is.Equal(fn.Instructions[2].Bytes, []byte{0xe8, 0x37, 0, 0, 0})
	thunk, err := fa.Function(ctx, ports.FunctionRequest{Address: 0x401080})
	is.NoErr(err)
	is.Equal(thunk.Blocks[0].Successors, []ports.Edge{{Kind: ports.EdgeUnresolved}}) // an indirect jump
	_, err = fa.Function(ctx, ports.FunctionRequest{Address: 0x401004})
	is.True(errors.Is(err, ports.ErrNotFound))

	procs, err := a.(ports.ProcedureLister).Procedures(ctx)
	is.NoErr(err)
	is.Equal(len(procs), 3) // the EXTERNAL-space function has no uint64 address
	is.Equal(procs[2], ports.Procedure{Address: 0x401080, Name: "puts", Size: 6, Source: "symbol", Thunk: true, ThunkTarget: "<EXTERNAL>::puts"})

	strs, err := a.(ports.StringLister).Strings(ctx)
	is.NoErr(err)
	is.Equal(len(strs), 2) // the EBCDIC string is not one rea models
	is.Equal(strs[1], ports.String{Address: 0x402010, Value: "wide", Charset: "utf-16le", ByteLength: 8})

	segs, err := a.(ports.SegmentLister).Segments(ctx)
	is.NoErr(err)
	is.Equal(len(segs), 3)
	is.Equal(segs[2].FileSize, uint64(0)) // .bss has no file bytes
	b, err := a.(ports.ByteReader).ReadBytes(ctx, 0x401000, 4)
	is.NoErr(err)
	data, _ := os.ReadFile(e.target.Path)
	is.Equal(b, data[4096:4100]) // the copy's bytes at the block's file offset

	from, err := a.(ports.CrossReferencer).ReferencesFrom(ctx, 0x401080, 0x401081)
	is.NoErr(err)
	is.Equal(from, []ports.Reference{
		{From: 0x401080, Kind: ports.RefJump, Unresolved: true, Operand: "qword ptr [0x00404000]", Slot: 0x404000},
		{From: 0x401080, To: 0x404000, Kind: ports.RefRead},
	}) // the EXTERNAL-space target is left out; the unresolved jump is kept
	to, err := a.(ports.CrossReferencer).ReferencesTo(ctx, 0x401040, 0x401041)
	is.NoErr(err)
	is.Equal(to, []ports.Reference{{From: 0x401004, To: 0x401040, Kind: ports.RefCall}})

	is.NoErr(a.Close(ctx))
	_, err = a.(ports.FunctionAnalyzer).FunctionRanges(ctx)
	is.True(err != nil) // cached answers end with the analysis
	_, err = a.(ports.CrossReferencer).ReferencesTo(ctx, 0, 1<<40)
	is.True(err != nil)
}
