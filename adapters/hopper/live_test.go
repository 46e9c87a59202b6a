package hopper_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"rea/adapters/hopper"
	"rea/ports"
	"rea/ports/portstest"
)

// TestLive runs the conformance suite against a real Hopper on the C
// fixture (PROVIDERS.md §3.2's shape) built here. It skips, naming what is
// missing, unless the launcher (HOPPER_LAUNCHER_PATH, else the platform's
// usual place) exists and a C compiler does.
func TestLive(t *testing.T) {
	launcher := os.Getenv(hopper.EnvLauncher)
	p := hopper.New(&hopper.Options{Launcher: launcher, StartupTimeout: 120 * time.Second})
	if av := p.Availability(t.Context()); !av.Available {
		t.Skipf("live lane skipped: Hopper is not installed here (%s: %s); set %s to its launcher", av.Code, av.Reason, hopper.EnvLauncher)
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
	portstest.Run(t, p, ports.Target{Path: out, SHA256: hex.EncodeToString(sum[:]), Format: "elf", Kind: "executable",
		Architecture: "x86_64", Size: int64(len(data))})
}
