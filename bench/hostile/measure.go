//go:build unix

package hostile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Run is what Measure observed of one child.
type Run struct {
	PeakRSS  int64 // bytes: the child's VmHWM as the watchdog last saw it
	Killed   bool  // the watchdog killed the child for passing the bound
	ExitCode int   // -1 when killed by a signal
	Stdout   []byte
	Stderr   []byte
	Wall     time.Duration
	CPU      time.Duration // user and system time of the child
}

// Measure runs cmd (which must not have been started, and whose Stdout and
// Stderr must be unset) and watches its resident set through
// /proc/PID/status every 20 ms; when VmRSS passes bound (0: no bound) it
// kills the child's process group. Only the child it started is signalled.
func Measure(ctx context.Context, cmd *exec.Cmd, bound int64) (Run, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Run{}, err
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	watch := make(chan Run, 1)
	go func() {
		var r Run
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		ctxDone := ctx.Done()
		for {
			rss, hwm := procRSS(pid)
			r.PeakRSS = max(r.PeakRSS, hwm, rss)
			if bound > 0 && rss > bound && !r.Killed {
				r.Killed = true
				syscall.Kill(-pid, syscall.SIGKILL)
			}
			select {
			case <-done:
				watch <- r
				return
			case <-ctxDone:
				ctxDone = nil
				if !r.Killed {
					r.Killed = true
					syscall.Kill(-pid, syscall.SIGKILL)
				}
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	r := <-watch
	r.Wall = time.Since(start)
	r.Stdout, r.Stderr = out.Bytes(), errb.Bytes()
	// wait4's maxrss also counts the forking parent's resident set (the
	// child starts as its copy), so it is only a fallback for a child too
	// short-lived for the watchdog to sample.
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && r.PeakRSS == 0 {
		r.PeakRSS = int64(ru.Maxrss) * 1024
	}
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.ExitCode = cmd.ProcessState.ExitCode()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		return r, err
	}
	return r, nil
}

// Watcher samples the resident set of a process the caller started.
type Watcher struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Int64
	kill atomic.Bool
}

// Watch samples pid's VmRSS and VmHWM every 20 ms until Stop; when VmRSS
// passes bound (0: no bound) it kills pid's process group, so pid must lead
// its own group (SysProcAttr.Setpgid) and be a process the caller started.
func Watch(pid int, bound int64) *Watcher {
	w := &Watcher{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			rss, hwm := procRSS(pid)
			w.peak.Store(max(w.peak.Load(), hwm, rss))
			if bound > 0 && rss > bound && !w.kill.Load() {
				w.kill.Store(true)
				syscall.Kill(-pid, syscall.SIGKILL)
			}
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// Peak reports the highest resident set seen so far and whether the
// watcher killed the process.
func (w *Watcher) Peak() (peak int64, killed bool) { return w.peak.Load(), w.kill.Load() }

// Stop ends the sampling (once) and reports Peak.
func (w *Watcher) Stop() (peak int64, killed bool) {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	return w.Peak()
}

// procRSS reads VmRSS and VmHWM (bytes) of pid; zeros when it is gone.
func procRSS(pid int) (rss, hwm int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if k == "VmRSS" {
			rss = kb * 1024
		} else {
			hwm = kb * 1024
		}
	}
	return rss, hwm
}

// Args are rea's arguments for the case: the CLI command that reads it,
// with JSON output.
func Args(c Case) []string {
	switch c.Kind {
	case "archive":
		return []string{"inventory", c.Path, "--format", "json"}
	case "javascript":
		return []string{"analyze-javascript-application", c.Path, "--format", "json"}
	}
	return []string{"analyze", c.Path, "--format", "json"}
}

var (
	codeRE    = regexp.MustCompile(`"code"\s*:\s*"([a-z_]+)"`)
	limitedRE = regexp.MustCompile(`"limitations"\s*:\s*\[\s*"`)
)

// Outcome summarizes how a run ended: "ok", "ok, with limitations", the error
// code rea printed, "killed" or "exit N".
func Outcome(r Run) string {
	switch {
	case r.Killed:
		return "killed at the bound"
	case r.ExitCode == 0:
		if limitedRE.Match(r.Stdout) {
			return "ok, with limitations"
		}
		return "ok"
	}
	for _, b := range [][]byte{r.Stdout, r.Stderr} {
		if m := codeRE.FindSubmatch(b); m != nil {
			return fmt.Sprintf("exit %d, %s", r.ExitCode, m[1])
		}
	}
	return fmt.Sprintf("exit %d", r.ExitCode)
}
