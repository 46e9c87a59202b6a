package ghidra_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"rea/adapters/ghidra"
	"rea/ports"
	"rea/ports/portstest"
)

// TestLive runs the conformance suite against a real Ghidra on a C fixture
// built here (PROVIDERS.md §3.2's shape). It skips, naming what is missing,
// unless GHIDRA_INSTALL_DIR names a usable installation and cc exists.
func TestLive(t *testing.T) {
	dir := os.Getenv(ghidra.EnvInstallDir)
	if dir == "" {
		t.Skip("live lane skipped: GHIDRA_INSTALL_DIR is not set (Ghidra 12.1.x and a JDK 21 are needed)")
	}
	p := ghidra.New(&ghidra.Options{InstallDir: dir, JavaHome: os.Getenv("JAVA_HOME"), StartupTimeout: 330 * time.Second})
	if av := p.Availability(t.Context()); !av.Available {
		t.Skipf("live lane skipped: Ghidra unavailable (%s): %s", av.Code, av.Reason)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("live lane skipped: no C compiler to build the fixture")
	}
	out := filepath.Join(t.TempDir(), "fixture")
	if b, err := exec.Command(cc, "-O0", "-g", "-fno-inline", "-fno-pie", "-no-pie", "-o", out, "testdata/live/fixture.c").CombinedOutput(); err != nil {
		t.Fatalf("building the fixture: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	target := ports.Target{Path: out, SHA256: hex.EncodeToString(sum[:]), Format: "elf", Kind: "executable", Architecture: "x86_64", Size: int64(len(data))}
	portstest.Run(t, p, target)
}
