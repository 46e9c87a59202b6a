//go:build unix

// Command rss measures the peak resident set of rea against the size of
// real inputs: `rea analyze` on native binaries from about 1 MB to 270 MB
// (system programs and libraries, the Go toolchain's go and compile, gcc's
// cc1, LLVM, node, Debian's chromium) and `rea
// analyze-javascript-application` on applications of 10 to 300 MB made of
// npm packages. Each run is a child process watched through
// /proc/PID/status (rea/bench/hostile's Measure); the persistent analysis
// cache is off (REA_NATIVE_CACHE_DIR=off) so every run does the work.
//
// It prints one row per input (size, wall, CPU, peak RSS, RSS per input
// MB) and, per kind, the least-squares line peak RSS = intercept + slope x
// size. MB is 10^6 bytes; for an application, its size is every regular
// file under it. Missing binaries are skipped.
//
//	go run ./bench/rss [-rea PATH] [-binaries a,b,...] [-npm DIR] [-sizes 10,30,100,300]
//
// -npm is a node_modules directory to take packages from, for example one
// made with
//
//	npm install --prefix /tmp/rss-npm typescript webpack @babel/core \
//	    @babel/preset-env aws-sdk@2 lodash rxjs terser monaco-editor three pdfjs-dist
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"rea/bench/hostile"

	"rea/bench/internal/benchutil"
)

// defaultBinaries span 1 to 272 MB on a Debian machine with gcc, LLVM,
// node and chromium installed; the Go toolchain's are added from go env.
var defaultBinaries = []string{
	"/usr/bin/gpg", "/usr/bin/git", "/usr/bin/python3.11", "/usr/bin/gdb",
	"/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/usr/lib/llvm-14/lib/libclang-cpp.so.14",
	"/usr/bin/node", "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1", "/usr/lib/chromium/chromium",
}

func main() {
	rea := flag.String("rea", "", "rea binary (default: built from ./cmd/rea)")
	bins := flag.String("binaries", "", "comma-separated native binaries (default: a set from 1 to 272 MB, those present; none for no binaries)")
	npm := flag.String("npm", "/tmp/rss-npm/node_modules", "node_modules to build the applications from (empty: no JavaScript runs)")
	sizes := flag.String("sizes", "10,30,100,300", "application sizes in MB")
	timeout := flag.Duration("timeout", 15*time.Minute, "per run")
	keep := flag.String("dir", "", "build the applications here and keep them (default: a temporary directory, removed)")
	flag.Parse()
	if err := run(*rea, *bins, *npm, *sizes, *keep, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
}

type row struct {
	kind, name string
	size       int64
	r          hostile.Run
	outcome    string
}

func run(rea, bins, npm, sizes, keep string, timeout time.Duration) error {
	work := keep
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "rss-bench"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if rea == "" {
		rea = filepath.Join(work, "rea")
		if out, err := exec.Command("go", "build", "-o", rea, "./cmd/rea").CombinedOutput(); err != nil {
			return fmt.Errorf("build rea: %v\n%s", err, out)
		}
	}
	paths := defaultBinaries
	switch bins {
	case "none":
		paths = nil
	case "":
		if out, err := exec.Command("go", "env", "GOROOT", "GOTOOLDIR").Output(); err == nil {
			f := strings.Fields(string(out))
			if len(f) == 2 {
				paths = append(paths, filepath.Join(f[0], "bin", "go"), filepath.Join(f[1], "compile"))
			}
		}
	default:
		paths = strings.Split(bins, ",")
	}
	type input struct {
		kind, name, path string
		size             int64
		args             []string
	}
	var inputs []input
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			fmt.Printf("# skipped %s: not present\n", p)
			continue
		}
		inputs = append(inputs, input{"binary", p, p, st.Size(), []string{"analyze", p, "--format", "json"}})
	}
	slices.SortFunc(inputs, func(a, b input) int { return cmp.Compare(a.size, b.size) })
	if npm != "" {
		pkgs, err := packages(npm)
		if err != nil {
			return err
		}
		for _, s := range strings.Split(sizes, ",") {
			mb, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || mb <= 0 {
				return fmt.Errorf("bad size %q", s)
			}
			dir := filepath.Join(work, fmt.Sprintf("app-%d", mb))
			size, err := build(dir, pkgs, int64(mb)*1e6)
			if err != nil {
				return err
			}
			inputs = append(inputs, input{"javascript", fmt.Sprintf("npm app %d MB", mb), dir, size,
				[]string{"analyze-javascript-application", dir, "--format", "json"}})
		}
	}

	fmt.Printf("# %d CPUs, %s, REA_NATIVE_CACHE_DIR=off; load average before: %s\n", runtime.NumCPU(), runtime.Version(), loadavg())
	var rows []row
	for _, in := range inputs {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		cmd := exec.Command(rea, in.args...)
		cmd.Env = append(os.Environ(), "REA_NATIVE_CACHE_DIR=off")
		r, err := hostile.Measure(ctx, cmd, 0)
		cancel()
		if err != nil {
			return err
		}
		rows = append(rows, row{in.kind, in.name, in.size, r, hostile.Outcome(r)})
		fmt.Fprintf(os.Stderr, "%s: %.1f MB, %.1f s, %.0f MB\n", in.name, mb(in.size), r.Wall.Seconds(), mb(r.PeakRSS))
	}
	fmt.Printf("# load average after: %s\n", loadavg())
	fmt.Printf("| kind | input | size MB | wall s | CPU s | peak RSS MB | RSS/size | outcome |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %.1f | %.1f | %.1f | %.0f | %.2f | %s |\n", r.kind, r.name, mb(r.size), r.r.Wall.Seconds(),
			r.r.CPU.Seconds(), mb(r.r.PeakRSS), float64(r.r.PeakRSS)/float64(max(r.size, 1)), r.outcome)
	}
	for _, kind := range []string{"binary", "javascript"} {
		var xs, ys []float64
		for _, r := range rows {
			if r.kind == kind && strings.HasPrefix(r.outcome, "ok") {
				xs, ys = append(xs, mb(r.size)), append(ys, mb(r.r.PeakRSS))
			}
		}
		if len(xs) < 2 {
			continue
		}
		slope, icept := fit(xs, ys)
		fmt.Printf("# %s: peak RSS MB = %.1f + %.2f x size MB (least squares over the %d inputs that succeeded)\n", kind, icept, slope, len(xs))
	}
	return nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// fit is the least-squares line y = icept + slope x.
func fit(xs, ys []float64) (slope, icept float64) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return slope, (sy - slope*sx) / n
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

type pkg struct {
	dir, name string
	bytes     int64
}

// packages lists the packages of a node_modules (scoped ones as
// @scope/name) in name order with the bytes of their regular files.
func packages(nm string) ([]pkg, error) {
	names, err := benchutil.NPMPackages(nm)
	if err != nil {
		return nil, err
	}
	var out []pkg
	for _, n := range names {
		p := pkg{dir: filepath.Join(nm, n), name: n}
		p.bytes, _ = treeBytes(p.dir)
		if p.bytes > 0 {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b pkg) int { return strings.Compare(a.name, b.name) })
	if len(out) == 0 {
		return nil, errors.New("no packages under " + nm)
	}
	return out, nil
}

func treeBytes(dir string) (n int64, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

// build lays out an application of about want bytes in dir: a package.json
// and whole packages hard-linked under node_modules, taken in name order
// (one that would overshoot the size by over 5% is skipped), and again
// under node_modules/vendor-N/node_modules when one pass is not enough.
func build(dir string, pkgs []pkg, want int64) (int64, error) {
	// Start empty: writing over an old hard link would truncate the
	// package file it shares its inode with.
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"rss-bench","version":"1.0.0","private":true}`+"\n"), 0o644); err != nil {
		return 0, err
	}
	size := int64(0)
	lo, hi := want*95/100, want*105/100
	for copies := 1; size < lo; copies++ {
		base := filepath.Join(dir, "node_modules")
		if copies > 1 {
			base = filepath.Join(dir, "node_modules", fmt.Sprintf("vendor-%d", copies), "node_modules")
		}
		added := false
		for _, p := range pkgs {
			if size >= lo {
				break
			}
			if size+p.bytes > hi {
				continue
			}
			if err := linkTree(p.dir, filepath.Join(base, p.name)); err != nil {
				return 0, err
			}
			size += p.bytes
			added = true
		}
		if !added {
			break
		}
	}
	return size, nil
}

// linkTree hard-links (or, across file systems, copies) the regular files
// of from under to.
func linkTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		if os.Link(p, dst) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}
