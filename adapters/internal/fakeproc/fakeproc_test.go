package fakeproc_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rea/adapters/internal/fakeproc"
)

// TestMain turns the test binary into a fake engine when FAKEPROC_FAKE=1:
// it runs Child and Begin under the prefix FAKE_T, prints the mode and, in
// ignore-term mode, waits for a SIGTERM that should not come.
func TestMain(m *testing.M) {
	if os.Getenv("FAKEPROC_FAKE") == "1" {
		fakeproc.Child("FAKE_T")
		mode, err := fakeproc.Begin("FAKE_T")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("mode", mode)
		if mode == "ignore-term" {
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			time.Sleep(50 * time.Millisecond)
			fmt.Println("survived")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func run(t *testing.T, mode, starts string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FAKEPROC_FAKE=1", "FAKE_T_MODE="+mode, "FAKE_T_STARTS="+starts)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fake (%s): %v", mode, err)
	}
	return string(out)
}

func TestModes(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	if got := run(t, "", starts); got != "mode \n" {
		t.Fatalf("plain start printed %q", got)
	}
	if got := run(t, "ignore-term", starts); !strings.Contains(got, "survived") {
		t.Fatalf("ignore-term did not ignore SIGTERM: %q", got)
	}
	run(t, "fork", starts)
	b, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "child ") {
		t.Fatalf("starts file:\n%s", b)
	}
	// The child this test's fake forked: proven ours by its environment,
	// then stopped.
	pid, err := strconv.Atoi(strings.TrimPrefix(lines[3], "child "))
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatalf("the forked child is not running: %v", err)
	}
	if !strings.Contains(string(env), "FAKE_T_CHILD=1") || !strings.Contains(string(env), "FAKE_T_STARTS="+starts) {
		t.Fatal("the recorded child is not the fake's")
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// TestStranger: stranger mode leaves a process that is not the fake's child
// and carries no run ID, recorded as "stranger <pid>"; the test ends it
// after proving it the fake's.
func TestStranger(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	t.Setenv("REA_PROCESS_RUN_ID", "run-1")
	run(t, "stranger", starts)
	b, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "stranger ") {
		t.Fatalf("starts file:\n%s", b)
	}
	launcher, _ := strconv.Atoi(lines[0])
	pid, err := strconv.Atoi(strings.TrimPrefix(lines[1], "stranger "))
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatalf("the stranger is not running: %v", err)
	}
	if !strings.Contains(string(env), "FAKE_T_STRANGER=1") || !strings.Contains(string(env), "FAKE_T_STARTS="+starts) {
		t.Fatal("the recorded stranger is not the fake's")
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if strings.Contains(string(env), "REA_PROCESS_RUN_ID=") {
		t.Error("the stranger carries a run ID")
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if ppid, _ := strconv.Atoi(f[1]); ppid == launcher || ppid == os.Getpid() {
		t.Errorf("the stranger's parent is %d, one of ours", ppid)
	}
}
