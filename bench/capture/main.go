// Command capture measures the overhead of process capture (adapters/pty):
// the wall time of capturing a program in a PTY, with sampling, rendering,
// filesystem checkpoints, settlement and cleanup, against running the same
// program directly with its output discarded, as a ratio of medians. It
// prints the load average first, since the machine may be shared.
//
// Usage: go run ./bench/capture [-runs 7]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"rea/adapters/pty"
	"rea/bench/internal/benchutil"
	"rea/ports"
)

type workload struct {
	name   string
	path   string
	args   []string
	settle int64
}

func main() {
	runs := flag.Int("runs", 7, "runs per workload and mode")
	flag.Parse()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("load average: %s\n", strings.TrimSpace(string(load)))

	work := []workload{
		{"exit at once (true), settle_ms=100", "/bin/true", nil, 100},
		{"exit at once (true), settle_ms=0", "/bin/true", nil, 0},
		{"20k lines (seq), settle_ms=0", "/usr/bin/seq", []string{"1", "20000"}, 0},
		{"sh pipeline, settle_ms=0", "/bin/sh", []string{"-c", "for i in 1 2 3 4 5 6 7 8; do ls /usr/bin >/dev/null; done"}, 0},
	}
	e := pty.New(nil)
	fmt.Printf("%-40s %12s %12s %8s %10s\n", "workload", "direct", "captured", "ratio", "frames")
	for _, w := range work {
		var direct, captured []time.Duration
		frames := 0
		for i := 0; i < *runs; i++ {
			t0 := time.Now()
			cmd := exec.Command(w.path, w.args...)
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, w.name, err)
				os.Exit(1)
			}
			direct = append(direct, time.Since(t0))

			sc := ports.NewCaptureScenario(w.path)
			sc.Arguments = w.args
			sc.SettleMS = w.settle
			sc.Limits.OutputBytes = 1 << 30
			t0 = time.Now()
			c, err := e.CaptureProcess(context.Background(), ports.CaptureRequest{Scenario: sc})
			if err != nil {
				fmt.Fprintln(os.Stderr, w.name, err)
				os.Exit(1)
			}
			captured = append(captured, time.Since(t0))
			frames = len(c.Frames)
		}
		d, c := benchutil.Median(direct), benchutil.Median(captured)
		fmt.Printf("%-40s %12v %12v %8.1f %10d\n", w.name, d.Round(10*time.Microsecond), c.Round(10*time.Microsecond),
			float64(c)/float64(d), frames)
	}
}
