package hopper_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/hopper"
	"rea/ports"
)

// The X11 helper of PROVIDERS.md §2.2 (scripts/hopper-demo-x11.py), run for
// real: with Xvfb it starts a private display, and testdata/fakedemo.py plays
// the demo on it. The helper accepts only the demo's digest, so each test runs
// a copy whose DEMO_SHA256 is the fake's.

const helperScript = "../../scripts/hopper-demo-x11.py"

const python3 = "/usr/bin/python3"

var demoDigestLine = regexp.MustCompile(`(?m)^DEMO_SHA256 = "[0-9a-f]{64}"$`)

// helperCopy writes the fake demo and a copy of the helper that accepts it
// (or, with accept false, the helper unchanged) into a short directory.
func helperCopy(t *testing.T, accept bool) (dir, helper, demo string) {
	t.Helper()
	if _, err := os.Stat(python3); err != nil {
		t.Skip("no " + python3 + " to run the X11 helper")
	}
	dir, err := os.MkdirTemp("", "x") // socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	fake, err := os.ReadFile("testdata/fakedemo.py")
	if err != nil {
		t.Fatal(err)
	}
	demo = filepath.Join(dir, "fakedemo")
	if err := os.WriteFile(demo, fake, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(helperScript)
	if err != nil {
		t.Fatal(err)
	}
	if !demoDigestLine.Match(src) {
		t.Fatal("the helper has no DEMO_SHA256 line")
	}
	if accept {
		sum := sha256.Sum256(fake)
		src = demoDigestLine.ReplaceAll(src, []byte(`DEMO_SHA256 = "`+hex.EncodeToString(sum[:])+`"`))
	}
	helper = filepath.Join(dir, "hopper-demo-x11.py")
	if err := os.WriteFile(helper, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, helper, demo
}

func needXvfb(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the demo helper is Linux only")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("Xvfb is not installed (Debian: apt-get install xvfb); the helper's display, dialog click and cleanup are untested")
	}
}

// diagnostics returns the one REA_X11_DIAGNOSTIC_V1 record of stderr,
// failing the test unless there is exactly one.
func diagnostics(t *testing.T, stderr []byte) map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(string(stderr), "\n") {
		if v, ok := strings.CutPrefix(line, "REA_X11_DIAGNOSTIC_V1="); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				t.Fatalf("diagnostic line %q: %v", line, err)
			}
			recs = append(recs, m)
		} else if strings.Contains(line, "REA_X11_DIAGNOSTIC_V1") {
			t.Fatalf("a diagnostic not on a line of its own: %q", line)
		}
	}
	if len(recs) != 1 {
		t.Fatalf("%d diagnostic lines, want 1; stderr:\n%s", len(recs), stderr)
	}
	return recs[0]
}

// runHelper runs the helper to its end and returns its exit code and its
// one diagnostic record.
func runHelper(t *testing.T, env []string, helper string, args ...string) (int, map[string]any) {
	t.Helper()
	return runCommand(t, env, python3, append([]string{helper}, args...)...)
}

// runCommand runs a command that runs the helper, as runHelper.
func runCommand(t *testing.T, env []string, name string, args ...string) (int, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, diagnostics(t, stderr.Bytes())
}

// TestX11HelperRefusesBadCommands: a malformed command is 73, a launcher
// other than the demo 72, and a machine without Xvfb 79, each with exactly
// one diagnostic line naming the failure. No display is needed.
func TestX11HelperRefusesBadCommands(t *testing.T) {
	dir, helper, demo := helperCopy(t, true)
	_, strict, _ := helperCopy(t, false)
	sock := filepath.Join(dir, "s.sock")
	noXvfb := []string{"PATH=" + dir} // python3 is run by its full path
	for _, c := range []struct {
		name   string
		helper string
		env    []string
		args   []string
		code   int
	}{
		{"no strategy", helper, nil, []string{"--probe"}, 73},
		{"unknown strategy", helper, nil, []string{"--probe", "--strategy", "xephyr"}, 73},
		{"namespace without its mount", helper, nil, []string{"--probe", "--strategy", "user-mount-namespace"}, 73},
		{"probe with a command", helper, nil, []string{"--probe", "--strategy", "direct", "--", demo}, 73},
		{"unknown flag", helper, nil, []string{"--strategy", "direct", "--verbose"}, 73},
		{"launch without a command", helper, nil, []string{"--strategy", "direct", "--hopper", demo, "--socket", sock}, 73},
		{"command runs another program", helper, nil, []string{"--strategy", "direct", "--hopper", demo, "--socket", sock, "--", "/bin/true"}, 73},
		{"relative socket", helper, nil, []string{"--strategy", "direct", "--hopper", demo, "--socket", "s.sock", "--", demo}, 73},
		{"not the demo", strict, noXvfb, []string{"--strategy", "direct", "--hopper", demo, "--socket", sock, "--", demo, "direct", sock}, 72},
		{"no Xvfb", helper, noXvfb, []string{"--strategy", "direct", "--hopper", demo, "--socket", sock, "--", demo, "direct", sock}, 79},
		{"probe without Xvfb", helper, noXvfb, []string{"--probe", "--strategy", "direct"}, 79},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			code, d := runHelper(t, c.env, c.helper, c.args...)
			is.Equal(code, c.code)
			is.Equal(d["exit_code"], float64(c.code))
			is.Equal(d["failure_code"], map[int]string{72: "unsupported_hopper_build", 73: "invalid_launch_command", 79: "runtime_dependency_unavailable"}[c.code])
			is.Equal(d["status"], "failed")
			is.True(d["detail"] != "")
		})
	}
	_, err := os.Lstat(sock)
	is.New(t).True(errors.Is(err, os.ErrNotExist)) // nothing ran
}

// TestX11HelperProbe: the probe starts a private 1280x1024x24 display with
// XTEST, checks it with rea's cookie, and stops it.
func TestX11HelperProbe(t *testing.T) {
	needXvfb(t)
	is := is.New(t)
	_, helper, _ := helperCopy(t, true)
	code, d := runHelper(t, os.Environ(), helper, "--probe", "--strategy", "direct")
	is.Equal(code, 0)
	is.Equal(d["status"], "ok")
	is.Equal(d["failure_code"], nil)
	assertDisplayGone(t, d)

	// Inside a user and mount namespace, on a private socket directory.
	if out, err := exec.Command("unshare", "--user", "--map-root-user", "--mount", "/bin/true").CombinedOutput(); err != nil {
		t.Logf("no user namespaces here (%v: %s); the namespace strategy is untested", err, out)
		return
	}
	code, d = runCommand(t, os.Environ(), "unshare", "--user", "--map-root-user", "--mount", python3, helper,
		"--probe", "--strategy", "user-mount-namespace", "--mount-private-x11")
	is.Equal(code, 0)
	is.Equal(d["strategy"], "user-mount-namespace")
	is.Equal(d["status"], "ok")
}

// assertDisplayGone checks that the display a diagnostic names has no lock
// file left.
func assertDisplayGone(t *testing.T, d map[string]any) {
	t.Helper()
	disp, _ := d["display"].(string)
	if !strings.HasPrefix(disp, ":") {
		t.Fatalf("diagnostic names no display: %v", d)
	}
	if _, err := os.Lstat("/tmp/.X" + disp[1:] + "-lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("display %s left its lock file (%v)", disp, err)
	}
}

// TestX11HelperLaunch: the fake demo's dialog is clicked at "Try the Demo"
// (a click elsewhere makes it exit 9, which would be 75) and it then binds
// the socket; a demo that binds at once needs no click; one that exits is
// 75 and one that shows some other window 76. A ready helper stays until
// SIGTERM, then stops the demo and the display.
func TestX11HelperLaunch(t *testing.T) {
	needXvfb(t)
	for _, c := range []struct {
		mode    string
		code    int
		failure string
	}{
		{"dialog", 0, ""},
		{"direct", 0, ""},
		{"exit", 75, "hopper_exited_during_startup"},
		{"odd", 76, "unsupported_demo_dialog"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			dir, helper, demo := helperCopy(t, true)
			sock := filepath.Join(dir, "s.sock")
			if c.code != 0 {
				code, d := runHelper(t, os.Environ(), helper, "--strategy", "direct", "--hopper", demo, "--socket", sock, "--", demo, c.mode, sock)
				is.Equal(code, c.code)
				is.Equal(d["failure_code"], c.failure)
				assertDisplayGone(t, d)
				assertGone(t, d["hopper_pid"])
				return
			}
			stderrPath := filepath.Join(dir, "stderr")
			stderr, err := os.Create(stderrPath)
			is.NoErr(err)
			defer stderr.Close()
			cmd := exec.Command(python3, helper, "--strategy", "direct", "--hopper", demo, "--socket", sock, "--", demo, c.mode, sock)
			cmd.Stderr = stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, with Xvfb and the demo
			is.NoErr(cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			stopped := false
			defer func() {
				if !stopped { // a failed test: stop the group this test started
					syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
					select {
					case <-done:
					case <-time.After(30 * time.Second):
					}
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				}
			}()
			var d map[string]any
			for deadline := time.Now().Add(time.Minute); d == nil; time.Sleep(50 * time.Millisecond) {
				select {
				case err := <-done:
					b, _ := os.ReadFile(stderrPath)
					t.Fatalf("the helper exited before it was ready: %v\n%s", err, b)
				default:
				}
				if b, _ := os.ReadFile(stderrPath); regexp.MustCompile(`(?m)^REA_X11_DIAGNOSTIC_V1=.*\n`).Match(b) {
					d = diagnostics(t, b)
				}
				if time.Now().After(deadline) {
					t.Fatal("no diagnostic within a minute")
				}
			}
			is.Equal(d["status"], "ready")
			is.Equal(d["clicked"] == true, c.mode == "dialog")
			fi, err := os.Lstat(sock)
			is.NoErr(err)
			is.True(fi.Mode()&os.ModeSocket != 0)
			if c.mode == "direct" {
				is.Equal(d["ownership_checked"], true)
			}
			is.NoErr(cmd.Process.Signal(syscall.SIGTERM))
			select {
			case err := <-done:
				stopped = true
				var ee *exec.ExitError
				is.True(errors.As(err, &ee))
				is.Equal(ee.ExitCode(), 128+int(syscall.SIGTERM))
			case <-time.After(time.Minute):
				t.Fatal("the helper did not stop within a minute of SIGTERM")
			}
			b, err := os.ReadFile(stderrPath)
			is.NoErr(err)
			is.Equal(diagnostics(t, b)["status"], "ready") // still exactly one line
			assertDisplayGone(t, d)
			assertGone(t, d["hopper_pid"])
		})
	}
}

// TestX11HelperRefusesASocketHeldOutsideHopper: when the bridge socket
// that appears is held only by a process outside Hopper's tree (here this
// test, binding it once the demo has started), the helper exits 74 with
// process_ownership_mismatch, and stops the demo and its display.
func TestX11HelperRefusesASocketHeldOutsideHopper(t *testing.T) {
	needXvfb(t)
	is := is.New(t)
	dir, helper, demo := helperCopy(t, true)
	sock := filepath.Join(dir, "s.sock")
	bound := make(chan *net.UnixListener, 1)
	go func() {
		defer close(bound)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(sock + ".started"); err == nil {
				l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
				if err == nil {
					bound <- l
				}
				return
			}
		}
	}()
	// The helper runs in its own process group (with Xvfb and the demo), so
	// that a helper that does not refuse, and so waits on the demo for
	// ever, is stopped with its children rather than left running.
	stderrPath := filepath.Join(dir, "stderr")
	stderr, err := os.Create(stderrPath)
	is.NoErr(err)
	defer stderr.Close()
	cmd := exec.Command(python3, helper, "--strategy", "direct", "--hopper", demo, "--socket", sock, "--", demo, "wait", sock)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	is.NoErr(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-time.After(2 * time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // the group this test started
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		t.Fatal("the helper accepted a socket held outside Hopper's tree and kept running")
	}
	l, ok := <-bound
	is.True(ok) // this test bound the socket while the demo ran
	l.Close()
	var ee *exec.ExitError
	is.True(errors.As(waitErr, &ee))
	code := ee.ExitCode()
	b, err := os.ReadFile(stderrPath)
	is.NoErr(err)
	d := diagnostics(t, b)
	is.Equal(code, 74)
	is.Equal(d["failure_code"], "process_ownership_mismatch")
	is.True(strings.Contains(d["detail"].(string), strconv.Itoa(os.Getpid()))) // names the holder
	is.Equal(d["ownership_checked"], true)
	assertDisplayGone(t, d)
	assertGone(t, d["hopper_pid"])
}

// assertGone checks that the demo the helper started has exited (the
// helper reaped it, so its pid names no process, barring reuse).
func assertGone(t *testing.T, pid any) {
	t.Helper()
	p, ok := pid.(float64)
	if !ok {
		t.Fatalf("no hopper_pid in the diagnostic: %v", pid)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", int(p))); err == nil && strings.Contains(string(b), "fakedemo") {
		t.Fatalf("the fake demo %d still runs", int(p))
	}
}

// TestLinuxDemoUnderTheRealHelper: the adapter runs the fake launcher as the
// demo through the real helper (probe, launch, bridge through the socket),
// and Close leaves nothing behind.
func TestLinuxDemoUnderTheRealHelper(t *testing.T) {
	needXvfb(t)
	is := is.New(t)
	if _, err := os.Stat(python3); err != nil {
		t.Skip("no " + python3 + " to run the X11 helper")
	}
	e := newEnv(t)
	b, err := os.ReadFile(e.launcher)
	is.NoErr(err)
	sum := sha256.Sum256(b)
	src, err := os.ReadFile(helperScript)
	is.NoErr(err)
	helper := filepath.Join(t.TempDir(), "hopper-demo-x11.py")
	is.NoErr(os.WriteFile(helper, demoDigestLine.ReplaceAll(src, []byte(`DEMO_SHA256 = "`+hex.EncodeToString(sum[:])+`"`)), 0o755))
	t.Cleanup(hopper.SetDemo(hex.EncodeToString(sum[:]), "unshare"))
	a, err := e.provider(hopper.Options{DemoHelper: helper, Python: python3}).Open(t.Context(), e.target)
	is.NoErr(err)
	docs, err := a.(ports.DocumentLister).Documents(t.Context())
	is.NoErr(err)
	is.Equal(docs[0].Name, "target.elf")
	is.NoErr(a.Close(t.Context()))
	e.assertClean(t)
}
