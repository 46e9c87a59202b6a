//go:build unix

// Command rss writes the hostile inputs of rea/bench/hostile into a
// temporary directory and runs rea on each as a child process, printing the
// peak resident set against the input's apparent and on-disk size, the wall
// time and how the call ended. A watchdog kills a child whose resident set
// passes -bound, so an unfixed case cannot exhaust the machine; such a row
// says "killed" and its peak is a lower bound.
//
// Usage: go run ./bench/hostile/rss [-rea /path/to/rea] [-bound 4096] [-cases elf,macho,...]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"rea/bench/hostile"
)

func main() {
	rea := flag.String("rea", "", "rea binary (default: built from ./cmd/rea into the temporary directory)")
	bound := flag.Int64("bound", 4096, "MiB of resident set at which a child is killed")
	only := flag.String("cases", "", "comma-separated name prefixes of the cases to run (default: all)")
	keep := flag.String("dir", "", "write the cases here and keep them (default: a temporary directory, removed)")
	flag.Parse()
	if err := run(*rea, *bound<<20, *only, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func run(rea string, bound int64, only, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "hostile-rss")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if rea == "" {
		rea = filepath.Join(dir, "rea")
		if out, err := exec.Command("go", "build", "-o", rea, "./cmd/rea").CombinedOutput(); err != nil {
			return fmt.Errorf("build rea: %v\n%s", err, out)
		}
	}
	cases, err := hostile.Write(dir, hostile.Full)
	if err != nil {
		return err
	}
	fmt.Printf("load average before: %s\n", loadavg())
	fmt.Printf("%-24s %10s %10s %10s %8s  %s\n", "case", "size MiB", "disk KiB", "peak MiB", "wall s", "outcome")
	for _, c := range cases {
		if !selected(c.Name, only) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		r, err := hostile.Measure(ctx, exec.Command(rea, hostile.Args(c)...), bound)
		cancel()
		if err != nil {
			return err
		}
		fmt.Printf("%-24s %10.1f %10d %10.1f %8.2f  %s\n", c.Name, float64(c.Size)/(1<<20), c.Disk>>10,
			float64(r.PeakRSS)/(1<<20), r.Wall.Seconds(), hostile.Outcome(r))
	}
	fmt.Printf("load average after: %s\n", loadavg())
	return nil
}

func selected(name, only string) bool {
	if only == "" {
		return true
	}
	for _, p := range strings.Split(only, ",") {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
