//go:build unix

// Command capturecpu measures the CPU rea's own process spends capturing a
// process tree (getrusage of the process around CaptureProcess: the
// sampler, the supervisor's looks, the terminal, not the captured
// programs), which the wall-time ratio of bench/capture does not show. To
// compare two versions on a shared machine, build this command from each
// and run the two alternately, a run of each at a time, reading the load
// average it prints.
//
// Usage: go run ./bench/capturecpu [-work fanout|sleepfan|make|listenlate|netns] [-n 1] [-cpuprofile FILE] [-list]
//
//	fanout    sh runs /bin/true 200 times, one at a time
//	sleepfan  sh starts 200 sleep 2 at once and waits for them
//	make      make -j2 of nine small C files (gcc), in a temporary directory
//	listenlate  sh starts 50 sleep 2 at once, then python3 listens on a
//	          loopback port half a second after its start, for a second
//	netns     listenlate in a network namespace of its own (unshare -rn),
//	          python3 holding a Unix socket pair from its start
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"rea/adapters/pty"
	"rea/ports"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	work := flag.String("work", "fanout", "fanout, sleepfan, make, listenlate or netns")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the captures to this file")
	n := flag.Int("n", 1, "captures")
	list := flag.Bool("list", false, "also print each captured process: pid, parent, first and last look, command")
	flag.Parse()
	sc := ports.NewCaptureScenario("/bin/sh")
	switch *work {
	case "fanout":
		sc.Arguments = []string{"-c", "for i in $(seq 200); do /bin/true; done"}
	case "sleepfan":
		sc.Arguments = []string{"-c", "for i in $(seq 200); do sleep 2 & done; wait"}
	case "listenlate":
		sc.Arguments = []string{"-c", "for i in $(seq 50); do sleep 2 & done; python3 -c 'import socket, time\ntime.sleep(0.5)\ns = socket.socket()\ns.bind((\"127.0.0.1\", 0))\ns.listen()\ntime.sleep(1)'; wait"}
	case "netns":
		sc = ports.NewCaptureScenario("/usr/bin/unshare")
		sc.Arguments = []string{"-rn", "/bin/sh", "-c", "ip link set lo up; for i in $(seq 50); do sleep 2 & done; python3 -c 'import socket, time\np = socket.socketpair()\ntime.sleep(0.5)\ns = socket.socket()\ns.bind((\"127.0.0.1\", 0))\ns.listen()\ntime.sleep(1)'; wait"}
	case "make":
		dir, err := project()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		sc.Arguments = []string{"-c", "make -s clean >/dev/null; make -s -j2"}
		sc.WorkingDirectory = dir
	default:
		fmt.Fprintln(os.Stderr, "unknown -work", *work)
		os.Exit(2)
	}
	sc.SettleMS = 0
	e := pty.New(nil)
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for range *n {
		c0, t0 := cpu(), time.Now()
		c, err := e.CaptureProcess(context.Background(), ports.CaptureRequest{Scenario: sc})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		load, _ := os.ReadFile("/proc/loadavg")
		fmt.Printf("%s cpu_ms=%d wall_ms=%d processes=%d listening=%d exit=%s load=%s\n", *work, (cpu() - c0).Milliseconds(),
			time.Since(t0).Milliseconds(), len(c.Processes), len(c.ListeningSockets), c.Exit.Reason, strings.Fields(string(load))[0])
		if *list {
			for _, p := range c.Processes {
				fmt.Printf("  pid=%d ppid=%d seen=%d..%d %q\n", p.PID, p.ParentPID, p.FirstSeenMS, p.LastSeenMS, strings.Join(p.Argv, " "))
			}
		}
	}
}

// project writes nine small C files and a Makefile to a new directory.
func project() (string, error) {
	dir, err := os.MkdirTemp("", "rea-capturecpu-")
	if err != nil {
		return "", err
	}
	for i := 1; i <= 9; i++ {
		src := fmt.Sprintf("int f%d(int x) { return x * %d + 1; }\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.c", i)), []byte(src), 0o644); err != nil {
			return "", err
		}
	}
	mk := "OBJS=$(patsubst %.c,%.o,$(wildcard *.c))\nlib.a: $(OBJS)\n\tar rcs $@ $^\n%.o: %.c\n\tgcc -O1 -c -o $@ $<\nclean:\n\trm -f *.o lib.a\n"
	return dir, os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644)
}
