// Command tracebench measures native call tracing throughput: breakpoint hits
// per second for rea's gdbremote tracer (gdbserver over the GDB remote
// protocol) against gdb -batch with the same breakpoint and commands that
// count and continue, natively and over gdbserver, in the same run. It prints
// the load average before and after, since the machine may be shared.
//
//	go run ./bench/trace [-calls 5000] [-runs 3]
//
// Each tool traces a C program calling target() -calls times, and the same
// program calling it zero times; "per hit" subtracts that start-up time. The
// tracer also records each call's return (a second breakpoint per call), gdb
// only counts entries: the tracer does about twice the stops.
package main

import (
	"context"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"rea/adapters/gdbremote"
	"rea/bench/internal/benchutil"
	"rea/ports"
)

const program = `
#include <stdlib.h>
__attribute__((noinline)) long target(long a, long b) {
	__asm__ volatile("" ::: "memory");
	return a + b;
}
int main(int argc, char **argv) {
	long n = atol(argv[1]), s = 0;
	for (long i = 0; i < n; i++)
		s += target(i, 1);
	return s == -1;
}
`

func main() {
	calls := flag.Int("calls", 5000, "calls of the traced function")
	runs := flag.Int("runs", 3, "runs per measurement (median)")
	flag.Parse()
	if err := run(*calls, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "tracebench:", err)
		os.Exit(1)
	}
}

func run(calls, runs int) error {
	for _, tool := range []string{"gcc", "gdbserver", "gdb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not installed", tool)
		}
	}
	dir, err := os.MkdirTemp("", "tracebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "calls.c")
	bin := filepath.Join(dir, "calls")
	os.WriteFile(src, []byte(program), 0o644)
	if out, err := exec.Command("gcc", "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		return fmt.Errorf("gcc: %v\n%s", err, out)
	}
	addr, err := symbol(bin, "target")
	if err != nil {
		return err
	}
	script := filepath.Join(dir, "count.gdb")
	os.WriteFile(script, []byte("set $n = 0\nbreak target\ncommands\nsilent\nset $n = $n + 1\ncontinue\nend\n"), 0o644)

	fmt.Printf("load average before: %s", loadavg())
	fmt.Printf("%d CPUs, %d calls, median of %d runs\n\n", numCPU(), calls, runs)

	tools := []struct {
		name    string
		measure func(n int) (int, error)
	}{
		{"rea gdbremote (gdbserver)", func(n int) (int, error) { return traceRea(bin, addr, n) }},
		{"gdb -batch (native)", func(n int) (int, error) { return traceGDB(script, bin, n, false) }},
		{"gdb -batch (gdbserver)", func(n int) (int, error) { return traceGDB(script, bin, n, true) }},
	}
	fmt.Printf("%-28s %10s %10s %10s %12s %14s\n", "tool", "hits", "total s", "start s", "hits/s", "hits/s net")
	for _, tool := range tools {
		var full, empty []time.Duration
		hits := 0
		for range runs {
			d0, _, err := timed(func() (int, error) { return tool.measure(0) })
			if err != nil {
				return fmt.Errorf("%s: %w", tool.name, err)
			}
			d, h, err := timed(func() (int, error) { return tool.measure(calls) })
			if err != nil {
				return fmt.Errorf("%s: %w", tool.name, err)
			}
			if h != calls {
				return fmt.Errorf("%s counted %d hits, want %d", tool.name, h, calls)
			}
			empty, full, hits = append(empty, d0), append(full, d), h
		}
		t, t0 := benchutil.Median(full), benchutil.Median(empty)
		net := t - t0
		fmt.Printf("%-28s %10d %10.3f %10.3f %12.0f %14.0f\n", tool.name, hits, t.Seconds(), t0.Seconds(),
			float64(hits)/t.Seconds(), float64(hits)/net.Seconds())
	}
	fmt.Printf("\nload average after: %s", loadavg())
	return nil
}

func timed(f func() (int, error)) (time.Duration, int, error) {
	start := time.Now()
	n, err := f()
	return time.Since(start), n, err
}

func traceRea(bin string, addr uint64, calls int) (int, error) {
	res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin, Args: []string{strconv.Itoa(calls)}},
		Breakpoints: []ports.TraceBreakpoint{{Address: addr, Name: "target"}},
		MaxHits:     calls + 1,
		MaxDuration: 10 * time.Minute,
	})
	if err != nil {
		return 0, err
	}
	for _, h := range res.Hits {
		if !h.Returned {
			return 0, fmt.Errorf("hit %d: return not observed", h.Sequence)
		}
	}
	return len(res.Hits), nil
}

var countLine = regexp.MustCompile(`(?m)^\$1 = (\d+)$`)

func traceGDB(script, bin string, calls int, remote bool) (int, error) {
	args := []string{"-batch", "-nx", "-q"}
	if remote {
		args = append(args, "-ex", "target remote | exec gdbserver --once - "+bin+" "+strconv.Itoa(calls))
	}
	args = append(args, "-x", script)
	if remote {
		args = append(args, "-ex", "continue")
	} else {
		args = append(args, "-ex", "run")
	}
	args = append(args, "-ex", "print $n", "--args", bin, strconv.Itoa(calls))
	out, err := exec.Command("gdb", args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("gdb: %v\n%s", err, tail(out))
	}
	m := countLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("gdb printed no count:\n%s", tail(out))
	}
	return strconv.Atoi(string(m[1]))
}

func tail(b []byte) string {
	s := string(b)
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

func symbol(bin, name string) (uint64, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return 0, err
	}
	for _, s := range syms {
		if s.Name == name {
			return s.Value, nil
		}
	}
	return 0, fmt.Errorf("%s: no symbol %s", bin, name)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unavailable\n"
	}
	return string(b)
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return max(1, strings.Count(string(b), "processor\t:"))
}
