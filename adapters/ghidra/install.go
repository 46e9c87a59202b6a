package ghidra

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// Installation is what discovery found under GHIDRA_INSTALL_DIR. Discovery
// reads files and looks executables up; it never runs Ghidra.
type Installation struct {
	Dir             string
	Version         string // application.version, "" when unreadable
	AnalyzeHeadless string
	Java            string // the java executable, "" when none was found
	JavaHome        string
	Checks          []Check
}

// Check is one discovery step, in the order they run.
type Check struct {
	Name   string
	OK     bool
	Code   string // the Availability code when it failed
	Detail string
}

// versionPattern is the accepted 12.1.x shape (PROVIDERS.md §1.2).
// It is compiled on first use (a package-level sync.OnceValue is init code
// every rea process runs).
var versionOnce struct {
	sync.Once
	re *regexp.Regexp
}

func versionPattern() *regexp.Regexp {
	versionOnce.Do(func() { versionOnce.re = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?([-+].*)?$`) })
	return versionOnce.re
}

// VerifiedVersion is the Ghidra build the bridge is verified against; other
// 12.1.x builds are accepted with a limitation.
const VerifiedVersion = "12.1.4"

// Discover inspects dir (GHIDRA_INSTALL_DIR) and javaHome (JAVA_HOME, may be
// ""). It stops at the first failed check.
func Discover(dir, javaHome string) Installation {
	in := Installation{Dir: dir, JavaHome: javaHome}
	fail := func(name, code, detail string) Installation {
		in.Checks = append(in.Checks, Check{Name: name, Code: code, Detail: detail})
		return in
	}
	pass := func(name, detail string) { in.Checks = append(in.Checks, Check{Name: name, OK: true, Detail: detail}) }

	if dir == "" {
		return fail("configuration", "not_configured", EnvInstallDir+" is not set")
	}
	if !filepath.IsAbs(dir) {
		return fail("configuration", "not_configured", EnvInstallDir+" must be an absolute path")
	}
	pass("configuration", dir)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return fail("platform", "unsupported_host", "the Ghidra provider runs on linux and darwin")
	}
	pass("platform", runtime.GOOS)
	props := filepath.Join(dir, "Ghidra", "application.properties")
	v, err := readVersion(props)
	if err != nil {
		return fail("installation", "executable_missing", err.Error())
	}
	in.Version = v
	pass("installation", props)
	m := versionPattern().FindStringSubmatch(v)
	switch {
	case v == "":
		return fail("version", "unsupported_version", "application.version is empty in "+props)
	case m == nil || m[1] != "12" || m[2] != "1":
		return fail("version", "unsupported_version", fmt.Sprintf("Ghidra %s is not a 12.1.x build", v))
	}
	pass("version", v)
	in.AnalyzeHeadless = filepath.Join(dir, "support", "analyzeHeadless")
	if st, err := os.Stat(in.AnalyzeHeadless); err != nil || st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return fail("headless", "executable_missing", in.AnalyzeHeadless+" is missing or not executable")
	}
	pass("headless", in.AnalyzeHeadless)
	if javaHome != "" {
		if !filepath.IsAbs(javaHome) {
			return fail("java", "runtime_missing", "JAVA_HOME must be an absolute path")
		}
		in.Java = filepath.Join(javaHome, "bin", "java")
		if _, err := os.Stat(in.Java); err != nil {
			return fail("java", "runtime_missing", in.Java+" is missing")
		}
	} else if p, err := exec.LookPath("java"); err == nil {
		in.Java = p
	} else {
		return fail("java", "runtime_missing", "no java on PATH and JAVA_HOME is not set")
	}
	// Ghidra compiles the bridge itself, so it needs a JDK, not a JRE.
	javac := filepath.Join(filepath.Dir(in.Java), "javac")
	if _, err := os.Stat(javac); err != nil {
		return fail("java", "runtime_missing", "no javac beside "+in.Java+": Ghidra needs a JDK to compile the bridge")
	}
	pass("java", in.Java)
	return in
}

// Failed returns the failed check, if any.
func (in Installation) Failed() (Check, bool) {
	for _, c := range in.Checks {
		if !c.OK {
			return c, true
		}
	}
	return Check{}, false
}

// readVersion reads application.version= (split at the first '=',
// trimmed) from a properties file of at most 1 MiB.
func readVersion(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %v", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "application.version" {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("cannot read %s: %v", path, err)
	}
	return "", nil
}
