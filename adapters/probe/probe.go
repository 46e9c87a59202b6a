// Package probe finds the external engines rea can drive (Chromium, Node,
// gdbserver, QEMU's user-mode emulator, Ghidra, Hopper) on the host without starting any of them: it
// reads settings, PATH and installation files, and runs an executable only
// with --version under a deadline, in a process group of its own that is
// killed when the deadline passes. It backs rea doctor and rea providers.
package probe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"rea/ports"
)

// Env is what a probe may read; nil fields use the process's own.
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
	Home     string
	GOOS     string
	// Version runs path with args and returns its output; nil runs it with
	// RunVersion.
	Version func(ctx context.Context, path string, args ...string) (string, error)
}

func (e *Env) fill() Env {
	var o Env
	if e != nil {
		o = *e
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Version == nil {
		o.Version = RunVersion
	}
	return o
}

// All looks for every engine rea knows, in a fixed order.
func All(ctx context.Context, env *Env) []ports.Installation {
	e := env.fill()
	return []ports.Installation{chromium(ctx, e), node(ctx, e), gdbserver(ctx, e), qemuUser(ctx, e), ghidra(e), hopper(e)}
}

// versionTimeout bounds one --version run.
const versionTimeout = 5 * time.Second

// RunVersion runs path with args (such as --version) with a deadline and
// returns the first line of its output. The process gets a process group
// of its own; when the deadline passes the group is killed, and the pipes
// are abandoned shortly after.
func RunVersion(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	setGroup(cmd)
	cmd.WaitDelay = time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", err
	}
	text := out.String()
	if strings.TrimSpace(text) == "" {
		text = errOut.String() // some tools print their version on stderr
	}
	return versionLine(text), nil
}

// versionPattern is compiled on first use (a package-level regexp is init
// code every rea process runs).
var versionOnce struct {
	sync.Once
	re *regexp.Regexp
}

func versionPattern() *regexp.Regexp {
	versionOnce.Do(func() { versionOnce.re = regexp.MustCompile(`[0-9]+\.[0-9]+`) })
	return versionOnce.re
}

// versionLine is the first line that holds a version number, else the
// first line (launcher scripts may print warnings first).
func versionLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for _, l := range lines {
		if versionPattern().MatchString(l) {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(lines[0])
}

func found(id, name, role, path, version string) ports.Installation {
	d := "found at " + path
	if version != "" {
		d = version + " at " + path
	}
	return ports.Installation{Engine: id, Name: name, Role: role, Available: true, Path: path, Version: version, Detail: d}
}

func absent(id, name, role, detail, remediation string) ports.Installation {
	return ports.Installation{Engine: id, Name: name, Role: role, Detail: detail,
		Classification: "missing_analysis_engine", Remediation: remediation}
}

// onPath finds the first of names on PATH and asks it its version.
func onPath(ctx context.Context, e Env, id, name, role, remediation string, names ...string) ports.Installation {
	for _, n := range names {
		p, err := e.LookPath(n)
		if err != nil {
			continue
		}
		v, err := e.Version(ctx, p, "--version")
		if err != nil {
			inst := found(id, name, role, p, "")
			inst.Available = false
			inst.Classification = "missing_dependency"
			inst.Detail = p + " --version failed: " + err.Error()
			inst.Remediation = remediation
			return inst
		}
		return found(id, name, role, p, v)
	}
	return absent(id, name, role, "not found on PATH (looked for "+strings.Join(names, ", ")+")", remediation)
}

func chromium(ctx context.Context, e Env) ports.Installation {
	return onPath(ctx, e, "chromium", "Chromium", "browser tools (Chrome DevTools Protocol)",
		"install Chromium (Debian/Ubuntu: apt-get install chromium) or Google Chrome",
		"chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
}

func node(ctx context.Context, e Env) ports.Installation {
	return onPath(ctx, e, "node", "Node.js", "JavaScript runtime", "install Node.js 22 or later", "node")
}

func gdbserver(ctx context.Context, e Env) ports.Installation {
	return onPath(ctx, e, "gdbserver", "gdbserver", "process tracing", "install gdbserver (Debian/Ubuntu: apt-get install gdbserver)", "gdbserver")
}

// qemuUser finds QEMU's user-mode emulator for the other architecture the
// tracer reads (AArch64 programs on an x86-64 host, x86-64 ones on an
// AArch64 host), which trace_native_calls runs such a program under.
func qemuUser(ctx context.Context, e Env) ports.Installation {
	name := "qemu-aarch64"
	if runtime.GOARCH == "arm64" {
		name = "qemu-x86_64"
	}
	return onPath(ctx, e, "qemu-user", "QEMU user-mode emulator", "tracing programs built for another CPU",
		"install qemu-user (Debian/Ubuntu: apt-get install qemu-user)", name)
}

// ghidra reads GHIDRA_INSTALL_DIR: the headless launcher and the
// application.properties that records the version. Ghidra is not started.
func ghidra(e Env) ports.Installation {
	const id, name, role = "ghidra", "Ghidra", "decompiling analysis provider (headless)"
	dir := e.Getenv("GHIDRA_INSTALL_DIR")
	if dir == "" {
		return absent(id, name, role, "GHIDRA_INSTALL_DIR is not set", "install Ghidra and set GHIDRA_INSTALL_DIR to its directory")
	}
	inst := ports.Installation{Engine: id, Name: name, Role: role, Configured: true, Path: dir, Classification: "config_drift"}
	headless := filepath.Join(dir, "support", "analyzeHeadless")
	if e.GOOS == "windows" {
		headless += ".bat"
	}
	st, err := os.Stat(headless)
	if err != nil || st.IsDir() || e.GOOS != "windows" && st.Mode()&0o111 == 0 {
		inst.Detail = "GHIDRA_INSTALL_DIR=" + dir + " has no executable " + headless
		inst.Remediation = "point GHIDRA_INSTALL_DIR at a Ghidra installation (the directory holding support/analyzeHeadless)"
		return inst
	}
	v := propertiesValue(filepath.Join(dir, "Ghidra", "application.properties"), "application.version")
	inst.Available, inst.Classification, inst.Version = true, "", v
	inst.Detail = "installation at " + dir
	if v != "" {
		inst.Detail = "Ghidra " + v + " at " + dir
	}
	return inst
}

func propertiesValue(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// hopper looks at HOPPER_LAUNCHER_PATH, then the usual installation places.
func hopper(e Env) ports.Installation {
	const id, name, role = "hopper", "Hopper", "disassembler and decompiler provider"
	if p := e.Getenv("HOPPER_LAUNCHER_PATH"); p != "" {
		inst := ports.Installation{Engine: id, Name: name, Role: role, Configured: true, Path: p}
		if err := executable(p); err != nil {
			inst.Classification = "config_drift"
			inst.Detail = "HOPPER_LAUNCHER_PATH=" + p + ": " + err.Error()
			inst.Remediation = "point HOPPER_LAUNCHER_PATH at Hopper's launcher"
			return inst
		}
		inst.Available, inst.Detail = true, "found at "+p
		return inst
	}
	var candidates []string
	switch e.GOOS {
	case "darwin":
		for _, root := range []string{"/Applications", filepath.Join(e.Home, "Applications")} {
			apps, _ := filepath.Glob(filepath.Join(root, "Hopper*.app", "Contents", "MacOS", "hopper"))
			candidates = append(candidates, apps...)
		}
	case "linux":
		candidates = []string{"/opt/hopper/bin/Hopper", filepath.Join(e.Home, ".local", "share", "rea", "hopper", "bin", "Hopper")}
	}
	for _, p := range candidates {
		if executable(p) == nil {
			return found(id, name, role, p, "")
		}
	}
	return absent(id, name, role, "no Hopper installation found", "install Hopper, or set HOPPER_LAUNCHER_PATH")
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}
