//go:build unix

// Command native compares rea's native analysis with objdump -d on the same
// files, through the entry points a user runs, in one interleaved run:
//
//   - "rea analyze FILE" (the built binary: open and overview, which on a
//     target with more than 4 MiB of code answers from the symbol and
//     unwind tables without waiting for whole-file discovery) and "rea call
//     list_procedures --target FILE" (open and the complete procedure list:
//     whole-file function discovery), both without the warm cache, against
//     "objdump -d FILE";
//
//   - "rea disassemble FILE" (the built binary, without the warm cache):
//     whole-file discovery, then every instruction of every executable
//     section formatted and written as text, as objdump -d formats and
//     writes every instruction.
//
//   - with -tools ...,inproc: what rea analyze asks of rea-native, computed
//     in a child process of this program, to count its allocation.
//
// Every output goes to /dev/null. For each file and tool it prints the
// median over -runs of wall time (s), CPU time (user+system, s), peak RSS
// (MB, from the wait4 rusage of the process), wall and CPU milliseconds per
// MB of file; for the in-process child also the bytes allocated per byte
// of file. The load average is printed before and after each run: on a
// shared machine wall time follows the load, CPU time much less.
//
// -profile FILE (with -cpuprofile, -memprofile, -profile-disasm) profiles
// the same work in this process instead; with -profile-cli, only what rea
// disassemble computes (discovery and the text), under rea's collector
// target, to find what its peak memory holds.
//
// Files: /usr/bin/ls, libc, the Go toolchain's go, gcc's cc1, node and
// Debian's chromium (skipped with -skip-chromium, or when it is not
// installed: apt-get install -y chromium), or the files given.
//
// Usage: go run ./bench/native [-runs 3] [-rea /path/to/rea] [-skip-chromium] [files...]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"rea/adapters/native"
)

const chromium = "/usr/lib/chromium/chromium"

func main() {
	runs := flag.Int("runs", 3, "runs of each measurement (medians are reported)")
	rea := flag.String("rea", "", "rea binary (default: built from ./cmd/rea into a temporary directory)")
	skipChromium := flag.Bool("skip-chromium", false, "leave chromium out of the default files")
	tools := flag.String("tools", "analyze,procedures,objdump,disasm", "what to run, comma-separated: analyze (rea analyze: the overview, which on a target with much code does not wait for whole-file discovery), procedures (rea call list_procedures --target: the complete procedure list, whole-file discovery included), objdump (objdump -d), disasm (rea disassemble: whole-file disassembly with text), inproc (what rea analyze computes, in-process, to count its allocation)")
	profile := flag.String("profile", "", "profile what rea analyze computes on this file in-process (open, segments, procedures, strings, names), or with -profile-disasm the whole-file disassembly, and exit")
	profileDisasm := flag.Bool("profile-disasm", false, "with -profile: also disassemble every instruction with text")
	profileCLI := flag.Bool("profile-cli", false, "with -profile: only what rea disassemble computes (open, whole-file discovery, the text disassembly), under rea's collector target (GOGC 70 unless GOGC is set)")
	cpuProfile := flag.String("cpuprofile", "", "with -profile: write a CPU profile here")
	memProfile := flag.String("memprofile", "", "with -profile: write an allocation profile here (heap at exit, allocations since start)")
	flag.Parse()
	if *profile != "" {
		if err := profileRun(*profile, *profileDisasm, *profileCLI, *cpuProfile, *memProfile); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *runs, *rea, *skipChromium, strings.Split(*tools, ","), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "native:", err)
		os.Exit(1)
	}
}

// sample is one measured process.
type sample struct {
	wall, cpu time.Duration
	rssKB     int64
	alloc     uint64 // bytes allocated (the in-process child only)
}

func run(ctx context.Context, runs int, rea string, skipChromium bool, tools, files []string) error {
	if len(files) == 0 {
		files = defaultFiles(skipChromium)
	}
	if rea == "" && (slices.Contains(tools, "analyze") || slices.Contains(tools, "procedures") || slices.Contains(tools, "disasm")) {
		dir, err := os.MkdirTemp("", "rea-bench-native-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		rea = filepath.Join(dir, "rea")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", rea, "./cmd/rea").CombinedOutput(); err != nil {
			return fmt.Errorf("build rea (run from the module root): %v\n%s", err, out)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	commands := map[string]func(file string) *exec.Cmd{
		"analyze": func(f string) *exec.Cmd { return cold(exec.CommandContext(ctx, rea, "analyze", f)) },
		"procedures": func(f string) *exec.Cmd {
			return cold(exec.CommandContext(ctx, rea, "call", "list_procedures", `{"limit":1}`, "--target", f))
		},
		"objdump": func(f string) *exec.Cmd { return exec.CommandContext(ctx, "objdump", "-d", f) },
		"disasm":  func(f string) *exec.Cmd { return cold(exec.CommandContext(ctx, rea, "disassemble", f)) },
		"inproc":  func(f string) *exec.Cmd { return exec.CommandContext(ctx, self, "-profile", f) },
	}
	for _, t := range tools {
		if commands[t] == nil {
			return fmt.Errorf("unknown tool %q (analyze, procedures, objdump, disasm, inproc)", t)
		}
	}
	fmt.Printf("GOMAXPROCS=%d NumCPU=%d, %d runs interleaved, medians; load average before: %s\n",
		runtime.GOMAXPROCS(0), runtime.NumCPU(), runs, loadavg())
	results := map[string]map[string][]sample{}
	for r := range runs {
		for _, f := range files {
			if results[f] == nil {
				results[f] = map[string][]sample{}
			}
			for _, t := range tools {
				s, err := measure(commands[t](f), devnull, t == "inproc")
				if err != nil {
					return fmt.Errorf("%s %s: %w", t, f, err)
				}
				results[f][t] = append(results[f][t], s)
				fmt.Fprintf(os.Stderr, "run %d %s %s: wall %.2f s, CPU %.2f s, peak RSS %d MB, load %s\n",
					r+1, t, f, s.wall.Seconds(), s.cpu.Seconds(), s.rssKB/1024, loadavg())
			}
		}
	}
	fmt.Printf("load average after: %s\n\n", loadavg())
	fmt.Printf("%-44s %8s  %-10s %9s %9s %10s %9s %9s %11s\n", "file", "size MB", "tool", "wall s", "CPU s", "peak RSS MB", "ms/MB", "CPU ms/MB", "alloc B/B")
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return err
		}
		mb := float64(st.Size()) / 1e6
		for _, t := range tools {
			ss := results[f][t]
			wall := median(ss, func(s sample) float64 { return s.wall.Seconds() })
			cpu := median(ss, func(s sample) float64 { return s.cpu.Seconds() })
			rss := median(ss, func(s sample) float64 { return float64(s.rssKB) / 1024 })
			alloc := "-"
			if t == "inproc" {
				alloc = fmt.Sprintf("%.1f", median(ss, func(s sample) float64 { return float64(s.alloc) })/float64(st.Size()))
			}
			fmt.Printf("%-44s %8.1f  %-10s %9.2f %9.2f %10.0f %9.1f %9.1f %11s\n", shorten(f, 44), mb, t, wall, cpu, rss, wall*1000/mb, cpu*1000/mb, alloc)
		}
	}
	return nil
}

// cold runs cmd without the warm cache, so that every run discovers.
func cold(cmd *exec.Cmd) *exec.Cmd {
	cmd.Env = append(os.Environ(), "REA_NATIVE_CACHE_DIR=off")
	return cmd
}

func defaultFiles(skipChromium bool) []string {
	files := []string{"/usr/bin/ls", "/lib/x86_64-linux-gnu/libc.so.6"}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		files = append(files, filepath.Join(strings.TrimSpace(string(out)), "bin", "go"))
	}
	if out, err := exec.Command("gcc", "-print-prog-name=cc1").Output(); err == nil {
		files = append(files, strings.TrimSpace(string(out)))
	}
	if p, err := exec.LookPath("node"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			files = append(files, r)
		}
	}
	if !skipChromium {
		if _, err := os.Stat(chromium); err == nil {
			files = append(files, chromium)
		} else {
			fmt.Fprintf(os.Stderr, "%s is not installed (apt-get install -y chromium); skipped\n", chromium)
		}
	}
	var out []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// measure runs cmd with its output discarded (or, for the in-process
// child, its statistics read) and reads its rusage.
func measure(cmd *exec.Cmd, devnull *os.File, stats bool) (sample, error) {
	var out strings.Builder
	cmd.Stdout = devnull
	if stats {
		cmd.Stdout = &out
	}
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start)}
	if err != nil {
		return s, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return s, errors.New("no rusage")
	}
	s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	s.rssKB = int64(ru.Maxrss) // kilobytes on Linux
	if stats {
		var st childStats
		if err := json.Unmarshal([]byte(out.String()), &st); err != nil {
			return s, fmt.Errorf("child statistics: %w", err)
		}
		s.alloc = st.TotalAlloc
		if st.CodeBytes > 0 {
			fmt.Fprintf(os.Stderr, "discovery swept %d bytes for %d bytes of code (%.2f)\n", st.DecodedBytes, st.CodeBytes, float64(st.DecodedBytes)/float64(st.CodeBytes))
		}
	}
	return s, nil
}

// childStats is what the in-process child prints.
type childStats struct {
	TotalAlloc   uint64 `json:"total_alloc"`
	CodeBytes    int64  `json:"code_bytes"`    // executable file bytes
	DecodedBytes int64  `json:"decoded_bytes"` // bytes discovery swept
}

// disassembleTo writes the text disassembly of every executable section
// of a (WriteDisassembly: one line per instruction, as objdump -d prints
// them) into the file at path and counts the instructions in
// counts["instructions"].
func disassembleTo(ctx context.Context, a *native.Analysis, path string, counts map[string]int) error {
	out, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer out.Close()
	st, err := a.WriteDisassembly(ctx, out, "")
	counts["instructions"] = st.Instructions
	return err
}

func median(ss []sample, f func(sample) float64) float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ") + " (1, 5, 15 min)"
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n+3:]
}
