//go:build unix

package main

// The paired comparison (-old): each command runs under the old and the new
// rea in turn, pair after pair (which one goes first alternates), and the
// medians of wall time, CPU time (user+system) and peak RSS of the whole
// process are printed with the new/old ratio of each. Wall time on a loaded
// machine follows the load; CPU time and peak RSS are the figures to trust,
// and the load average is printed before and after.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// sample is one whole-process run.
type sample struct {
	wall, cpu time.Duration
	rssKiB    int64
	// maps is the resident KiB of each kind of mapping, read from
	// /proc/PID/smaps after an MCP session's last response (a session
	// case only): where the resident pages are.
	maps map[string]int64
}

// mapKinds are the kinds of mapping the session cases break RSS into: the
// executable's text (r-x), its read-only data (r--: rodata, the function
// table), its writable data (rw-: data, bss), anonymous memory (heap,
// goroutine stacks) and everything else (the C library, the loader).
var mapKinds = []string{"exe text", "exe rodata", "exe data", "anonymous", "other"}

// residentByKind sums Rss of /proc/pid/smaps by mapping kind.
func residentByKind(pid int, exe string) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	kind := "other"
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			path := ""
			if len(f) >= 6 {
				path = f[5]
			}
			switch {
			case path == exe && strings.HasPrefix(f[1], "r-x"):
				kind = "exe text"
			case path == exe && strings.HasPrefix(f[1], "rw"):
				kind = "exe data"
			case path == exe:
				kind = "exe rodata"
			case path == "" || path == "[heap]" || path == "[stack]":
				kind = "anonymous"
			default:
				kind = "other"
			}
		case len(f) == 3 && f[0] == "Rss:":
			var kib int64
			fmt.Sscan(f[1], &kib)
			out[kind] += kib
		}
	}
	return out, nil
}

// benchCase is one command, run the same way under both binaries.
type benchCase struct {
	name string
	args []string
	env  []string
	// session, when set, is written to stdin line by line, each request
	// waiting for its response (an MCP exchange); stdin is closed after it.
	session []string
}

func compareCases(app string) []benchCase {
	cases := []benchCase{
		{name: "rea tools", args: []string{"tools"}},
		{name: "rea analyze /usr/bin/ls (cache off)", args: []string{"analyze", "/usr/bin/ls"}, env: []string{"REA_NATIVE_CACHE_DIR=off"}},
		{name: "rea serve: initialize + tools/list", args: []string{"serve"}, session: []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		}},
	}
	if app != "" {
		cases = append(cases, benchCase{name: "rea analyze-javascript-application " + app, args: []string{"analyze-javascript-application", app}})
	}
	return cases
}

// runCompare runs every case pairs times under both binaries, interleaved.
func runCompare(oldRea, newRea, app string, pairs int) error {
	fmt.Printf("load average before: %s\n", loadavg())
	fmt.Printf("old: %s\nnew: %s\n%d interleaved pairs per command; medians; ratio = new/old\n\n", oldRea, newRea, pairs)
	fmt.Printf("%-58s %8s %8s %6s   %8s %8s %6s   %8s %8s %6s\n", "command", "old wall", "new wall", "ratio", "old CPU", "new CPU", "ratio", "old RSS", "new RSS", "ratio")
	for _, c := range compareCases(app) {
		var olds, news []sample
		for i := 0; i < pairs; i++ {
			order := []string{oldRea, newRea}
			if i%2 == 1 {
				order = []string{newRea, oldRea}
			}
			for _, bin := range order {
				s, err := runOnce(bin, c)
				if err != nil {
					return fmt.Errorf("%s with %s: %w", c.name, bin, err)
				}
				if bin == oldRea {
					olds = append(olds, s)
				} else {
					news = append(news, s)
				}
			}
		}
		o, n := medians(olds), medians(news)
		defer printMaps(c.name, o, n)
		fmt.Printf("%-58s %8s %8s %6.2f   %8s %8s %6.2f   %7.1fM %7.1fM %6.2f\n", c.name,
			ms(o.wall), ms(n.wall), ratio(float64(n.wall), float64(o.wall)),
			ms(o.cpu), ms(n.cpu), ratio(float64(n.cpu), float64(o.cpu)),
			float64(o.rssKiB)/1024, float64(n.rssKiB)/1024, ratio(float64(n.rssKiB), float64(o.rssKiB)))
	}
	fmt.Printf("\nload average after: %s\n", loadavg())
	return nil
}

// printMaps prints a session case's resident KiB by mapping kind, medians.
func printMaps(name string, o, n sample) {
	if o.maps == nil {
		return
	}
	fmt.Printf("\n%s: resident at the last response by mapping (medians)\n", name)
	for _, k := range mapKinds {
		fmt.Printf("  %-12s %8.1fM %8.1fM %+7.1fM\n", k, float64(o.maps[k])/1024, float64(n.maps[k])/1024, float64(n.maps[k]-o.maps[k])/1024)
	}
}

// runOnce runs one case under bin and measures the whole process.
func runOnce(bin string, c benchCase) (sample, error) {
	cmd := exec.Command(bin, c.args...)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stderr = io.Discard
	var in io.WriteCloser
	var out *bufio.Reader
	if c.session != nil {
		var err error
		if in, err = cmd.StdinPipe(); err != nil {
			return sample{}, err
		}
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			return sample{}, err
		}
		out = bufio.NewReaderSize(pipe, 1<<20)
	} else {
		cmd.Stdout = io.Discard
	}
	var maps map[string]int64
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	if c.session != nil {
		for _, line := range c.session {
			io.WriteString(in, line+"\n")
			if !strings.Contains(line, `"id"`) {
				continue // a notification has no response
			}
			for {
				resp, err := out.ReadString('\n')
				if err != nil {
					in.Close()
					cmd.Wait()
					return sample{}, fmt.Errorf("reading the response to %.40s: %w", line, err)
				}
				if strings.Contains(resp, `"id"`) {
					break
				}
			}
		}
		exe, _ := filepath.Abs(bin)
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			maps, _ = residentByKind(cmd.Process.Pid, exe)
		}
		in.Close()
		io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return sample{}, err
	}
	wall := time.Since(t0)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("no resource usage")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu, rssKiB: int64(ru.Maxrss), maps: maps}, nil
}

func medians(s []sample) sample {
	var w, c []time.Duration
	var r []int64
	kinds := map[string][]int64{}
	for _, x := range s {
		w, c, r = append(w, x.wall), append(c, x.cpu), append(r, x.rssKiB)
		for k, v := range x.maps {
			kinds[k] = append(kinds[k], v)
		}
	}
	slices.Sort(w)
	slices.Sort(c)
	slices.Sort(r)
	m := sample{wall: w[len(w)/2], cpu: c[len(c)/2], rssKiB: r[len(r)/2]}
	if len(kinds) > 0 {
		m.maps = map[string]int64{}
		for k, v := range kinds {
			slices.Sort(v)
			m.maps[k] = v[len(v)/2]
		}
	}
	return m
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }

func ratio(n, o float64) float64 {
	if o == 0 {
		return 0
	}
	return n / o
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
	return strings.Join(f[:3], " ")
}
