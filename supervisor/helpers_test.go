//go:build linux

package supervisor_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rea/supervisor"
)

// The test binary doubles as every child process: with helperEnv set it runs
// the helper named there instead of the tests.
const (
	helperEnv     = "SUPERVISOR_TEST_HELPER"
	ignoreTermEnv = "SUPERVISOR_TEST_IGNORE_TERM"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// helper modes. Each prints one line "pids P1 P2 ..." on stdout once its
// descendants are running (P = every descendant's pid), then does what its
// mode says.
//
//	tree DEPTH WIDTH  start WIDTH children running "tree DEPTH-1 WIDTH"; sleep
//	exit CODE         print nothing and exit with CODE
//	orphan            start one sleeping child, print, exit 0
//	daemon STAY       start a sleeping child in a new session (setsid); print;
//	                  exit if STAY is "exit", else sleep
//	join PGID         start a sleeping child in process group PGID; print; sleep
//	hide WHERE        start a sleeping child without the run ID in its
//	                  environment, in the launcher's group (WHERE "group") or
//	                  in a group of its own (WHERE "session"); print; exit 0
//	termfile PATH     start a child that writes PATH when it gets SIGTERM;
//	                  print; sleep
//	env               print the run ID the process received, then sleep
//	stdin             print, then exit 0 when stdin reaches EOF
//	leave             start two sleeping children without the run ID in
//	                  their environment; print; exit 0 when stdin reaches EOF
//	tty               print "tty SID PID TTY_NR" read from /proc/self/stat, then sleep
func helper(mode string, args []string) int {
	if os.Getenv(ignoreTermEnv) == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	arg := func(i int) int {
		if i >= len(args) {
			return 0
		}
		n, _ := strconv.Atoi(args[i])
		return n
	}
	switch mode {
	case "tree":
		depth, width := arg(0), arg(1)
		var pids []int
		if depth > 0 {
			for range width {
				c, out := spawn("tree", nil, strconv.Itoa(depth-1), strconv.Itoa(width))
				pids = append(pids, c.Process.Pid)
				pids = append(pids, readPids(out)...)
			}
		}
		fmt.Println(pidLine(pids))
		sleepForever()
	case "exit":
		return arg(0)
	case "orphan":
		c, out := spawn("tree", nil, "0", "0")
		readPids(out)
		fmt.Println(pidLine([]int{c.Process.Pid}))
		return 0
	case "daemon":
		c, out := spawn("tree", &syscall.SysProcAttr{Setsid: true}, "0", "0")
		readPids(out)
		fmt.Println(pidLine([]int{c.Process.Pid}))
		if len(args) > 0 && args[0] == "exit" {
			return 0
		}
		sleepForever()
	case "join":
		c, out := spawn("tree", &syscall.SysProcAttr{Setpgid: true, Pgid: arg(0)}, "0", "0")
		readPids(out)
		fmt.Println(pidLine([]int{c.Process.Pid}))
		sleepForever()
	case "hide":
		var attr *syscall.SysProcAttr
		if len(args) > 0 && args[0] == "session" {
			attr = &syscall.SysProcAttr{Setpgid: true}
		}
		c, out := spawnWithout(supervisor.RunIDEnv, "tree", attr, "0", "0")
		readPids(out)
		fmt.Println(pidLine([]int{c.Process.Pid}))
		return 0
	case "termfile":
		c, out := spawn("termhandler", nil, args...)
		readPids(out)
		fmt.Println(pidLine([]int{c.Process.Pid}))
		sleepForever()
	case "termhandler":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		fmt.Println(pidLine(nil))
		<-ch
		os.WriteFile(args[0], []byte("got SIGTERM\n"), 0o600)
		return 0
	case "env":
		fmt.Println("env " + os.Getenv(supervisor.RunIDEnv))
		sleepForever()
	case "stdin":
		fmt.Println(pidLine(nil))
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "leave":
		var pids []int
		for range 2 {
			c, out := spawnWithout(supervisor.RunIDEnv, "tree", nil, "0", "0")
			readPids(out)
			pids = append(pids, c.Process.Pid)
		}
		fmt.Println(pidLine(pids))
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "tty":
		b, _ := os.ReadFile("/proc/self/stat")
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		fmt.Printf("tty %s %d %s\r\n", f[3], os.Getpid(), f[4])
		sleepForever()
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 2
}

func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// spawn starts a helper child that inherits this process's environment (and
// so the run ID) and returns it with a reader on its stdout.
func spawn(mode string, attr *syscall.SysProcAttr, args ...string) (*exec.Cmd, *bufio.Reader) {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), helperEnv+"="+mode)
	c.SysProcAttr = attr
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		panic(err)
	}
	if err := c.Start(); err != nil {
		panic(err)
	}
	return c, bufio.NewReader(out)
}

// spawnWithout is spawn with the variable name removed from the child's
// environment, so nothing there says the child is the run's.
func spawnWithout(name, mode string, attr *syscall.SysProcAttr, args ...string) (*exec.Cmd, *bufio.Reader) {
	c := exec.Command(os.Args[0], args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, name+"=") {
			c.Env = append(c.Env, e)
		}
	}
	c.Env = append(c.Env, helperEnv+"="+mode)
	c.SysProcAttr = attr
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		panic(err)
	}
	if err := c.Start(); err != nil {
		panic(err)
	}
	return c, bufio.NewReader(out)
}

func pidLine(pids []int) string {
	var b strings.Builder
	b.WriteString("pids")
	for _, p := range pids {
		b.WriteString(" " + strconv.Itoa(p))
	}
	return b.String()
}

func readPids(r *bufio.Reader) []int {
	line, err := r.ReadString('\n')
	if err != nil {
		panic(fmt.Sprintf("reading a child's pids: %v (got %q)", err, line))
	}
	return parsePids(line)
}

func parsePids(line string) []int {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "pids" {
		panic(fmt.Sprintf("not a pid line: %q", line))
	}
	var pids []int
	for _, s := range f[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			panic(err)
		}
		pids = append(pids, n)
	}
	return pids
}

// --- the test side ---

// helperSpec is a Spec that runs the test binary as the given helper.
func helperSpec(mode string, env []string, args ...string) supervisor.Spec {
	return supervisor.Spec{
		Path: os.Args[0],
		Args: args,
		Env:  append(append(os.Environ(), helperEnv+"="+mode), env...),
	}
}

// readLine reads one line from f, failing the test after a generous deadline
// (a helper that never answers is a failure, not a hang).
func readLine(t *testing.T, f *os.File) string {
	t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := bufio.NewReader(f).ReadString('\n')
		ch <- res{line, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("reading the helper's line: %v (got %q)", r.err, r.line)
		}
		return strings.TrimRight(r.line, "\r\n")
	case <-time.After(2 * time.Minute):
		t.Fatal("the helper did not answer")
	}
	return ""
}

// stat is the test's own reading of /proc/PID/stat, independent of the
// package's parser.
type stat struct {
	pid, ppid, pgid, sid int
	state                string
	start                uint64
}

func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	s := stat{pid: pid, state: f[0]}
	s.ppid, _ = strconv.Atoi(f[1])
	s.pgid, _ = strconv.Atoi(f[2])
	s.sid, _ = strconv.Atoi(f[3])
	s.start, _ = strconv.ParseUint(f[19], 10, 64)
	return s, true
}

// identity is a process as the test first saw it.
type identity struct {
	pid   int
	start uint64
}

func identify(t *testing.T, pids ...int) []identity {
	t.Helper()
	var ids []identity
	for _, p := range pids {
		s, ok := readStat(p)
		if !ok {
			t.Fatalf("process %d is not running", p)
		}
		ids = append(ids, identity{p, s.start})
	}
	return ids
}

// alive reports whether the process is still the one identified and not a
// zombie.
func alive(id identity) bool {
	s, ok := readStat(id.pid)
	return ok && s.start == id.start && s.state != "Z" && s.state != "X"
}

// leftovers lists, from /proc, the live processes that carry runID or are
// among ids.
func leftovers(runID string, ids ...identity) []int {
	var left []int
	seen := map[int]bool{}
	for _, id := range ids {
		if alive(id) {
			left = append(left, id.pid)
			seen[id.pid] = true
		}
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || seen[pid] {
			continue
		}
		s, ok := readStat(pid)
		if !ok || s.state == "Z" || s.state == "X" {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == supervisor.RunIDEnv+"="+runID {
				left = append(left, pid)
				break
			}
		}
	}
	return left
}

// eventually polls cond with a generous deadline; it is not a timing
// assertion, only a bound on a hang.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
