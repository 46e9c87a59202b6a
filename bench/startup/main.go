//go:build unix

// Command startup measures rea serve's cold start and a first overview, the
// figures issue 2 asks for:
//
//   - time from spawning `rea serve` to the initialize response, and to a
//     complete tools/list response (median of N runs);
//   - resident memory (VmRSS) after start and after an overview;
//   - open_binary + binary_overview latency on /usr/bin/ls and on the largest
//     ELF file found, next to the time binutils (readelf -S, nm -D, strings)
//     take to list the same facts in the same run.
//
// Usage: go run ./bench/startup -rea /path/to/rea [-runs 20]
//
// With -old, it compares two builds instead (compare.go): `rea tools`,
// `rea analyze /usr/bin/ls` with the warm cache off, `rea serve` answering
// initialize and tools/list, and, with -app, `rea
// analyze-javascript-application APP`, each run under both binaries in
// interleaved pairs, printing medians of wall, CPU and peak RSS and the
// new/old ratios:
//
//	go run ./bench/startup -old /tmp/rea-before -rea /tmp/rea-after -pairs 21 -app node_modules/@modelcontextprotocol/sdk
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"rea/bench/internal/benchutil"
	"strings"
	"time"
)

func main() {
	rea := flag.String("rea", "", "path to the rea binary (build with go build -o /tmp/rea ./cmd/rea)")
	runs := flag.Int("runs", 20, "cold starts to measure")
	large := flag.String("large", "", "large ELF to analyze (default: the largest ELF under /usr)")
	old := flag.String("old", "", "compare: the old rea binary, run in pairs with -rea")
	pairs := flag.Int("pairs", 21, "compare: interleaved pairs per command")
	app := flag.String("app", "", "compare: a JavaScript application (directory) for analyze-javascript-application")
	flag.Parse()
	if *rea == "" {
		fmt.Fprintln(os.Stderr, "usage: startup -rea /path/to/rea [-old /path/to/old-rea [-pairs N] [-app DIR]]")
		os.Exit(2)
	}
	if *old != "" {
		if err := runCompare(*old, *rea, *app, *pairs); err != nil {
			fmt.Fprintln(os.Stderr, "startup:", err)
			os.Exit(1)
		}
		return
	}
	var initT, listT []time.Duration
	var rss int
	var listBytes int
	for i := 0; i < *runs; i++ {
		c := start(*rea)
		t0 := time.Now()
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		c.recv()
		initT = append(initT, time.Since(t0))
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		line := c.recv()
		listT = append(listT, time.Since(t0))
		listBytes = len(line)
		rss = c.rss()
		c.close()
	}
	fmt.Printf("cold start to initialize response: median %v (min %v) over %d runs\n", benchutil.Median(initT), minimum(initT), *runs)
	fmt.Printf("cold start to complete tools/list: median %v (min %v); tools/list response %d bytes\n", benchutil.Median(listT), minimum(listT), listBytes)
	fmt.Printf("resident memory after start: %.1f MB\n", float64(rss)/1024)

	target := *large
	if target == "" {
		target = benchutil.LargestELF("/usr")
	}
	for _, path := range []string{"/usr/bin/ls", target} {
		st, _ := os.Stat(path)
		c := start(*rea)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		c.recv()
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		t0 := time.Now()
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open_binary","arguments":{"path":%q}}}`, path))
		open := c.recv()
		t1 := time.Now()
		c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"binary_overview","arguments":{}}}`)
		ov := c.recv()
		t2 := time.Now()
		if strings.Contains(open, `"isError":true`) || strings.Contains(ov, `"isError":true`) {
			fmt.Printf("%s: error: %.300s %.300s\n", path, open, ov)
		}
		var counts struct {
			Result struct {
				StructuredContent struct {
					NormalizedResult struct {
						Procedures int `json:"procedure_count"`
						Strings    int `json:"string_count"`
					} `json:"normalized_result"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(ov), &counts)
		rssAfter := c.rss()
		c.close()
		b0 := time.Now()
		for _, args := range [][]string{{"readelf", "-S", "-W", path}, {"nm", "-D", "-S", path}, {"strings", "-a", path}} {
			exec.Command(args[0], args[1:]...).Run()
		}
		bin := time.Since(b0)
		fmt.Printf("%s (%.1f MB): open_binary %v + binary_overview %v = %v (%d procedures, %d strings); rss after %.1f MB; binutils readelf+nm+strings %v; ratio binutils/rea %.2f\n",
			path, float64(st.Size())/1e6, t1.Sub(t0), t2.Sub(t1), t2.Sub(t0), counts.Result.StructuredContent.NormalizedResult.Procedures,
			counts.Result.StructuredContent.NormalizedResult.Strings, float64(rssAfter)/1024, bin, float64(bin)/float64(t2.Sub(t0)))
	}
}

type conn struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func start(rea string) *conn {
	cmd := exec.Command(rea, "serve")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	return &conn{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (c *conn) send(s string) { io.WriteString(c.in, s+"\n") }

func (c *conn) recv() string {
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			panic(err)
		}
		if strings.Contains(line, `"id"`) { // skip notifications
			return line
		}
	}
}

func (c *conn) rss() int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%d", &kb)
			return kb
		}
	}
	return 0
}

func (c *conn) close() {
	c.in.Close()
	c.cmd.Wait()
}

func minimum(d []time.Duration) time.Duration {
	m := d[0]
	for _, v := range d {
		m = min(m, v)
	}
	return m
}
