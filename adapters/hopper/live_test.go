package hopper_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rea/adapters/hopper"
	"rea/ports"
	"rea/ports/portstest"
	"rea/ports/portstest/replay"
)

// TestLive runs the conformance suite against a real Hopper on the C
// fixture (PROVIDERS.md §3.2's shape) built here. It skips, naming what is
// missing, unless the launcher (HOPPER_LAUNCHER_PATH, else the platform's
// usual place) exists and a C compiler does. With -record (or REA_RECORD=1)
// it also writes what the real Hopper answered to
// testdata/live-<launcher sha256[:12]>.jsonl, through the same connection
// hook TestRecordedTranscriptReplays exercises against the fake.
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
	target := ports.Target{Path: out, SHA256: hex.EncodeToString(sum[:]), Format: "elf", Kind: "executable",
		Architecture: "x86_64", Size: int64(len(data))}
	if replay.Recording() {
		a, err := p.Open(t.Context(), target) // lazy: starts nothing
		if err != nil {
			t.Fatal(err)
		}
		version := a.Version() // launcher-sha256:<hex>
		a.Close(t.Context())
		name := strings.TrimPrefix(version, "launcher-sha256:")
		recordTranscript(t, filepath.Join("testdata", "live-"+name[:min(12, len(name))]+".jsonl"), version)
	}
	portstest.Run(t, p, target)
}

var tokenField = regexp.MustCompile(`"token":"[0-9a-f]{64}"`)

// recordTranscript records every bridge connection of the rest of the test
// (one Recorder each, so a request is followed by its own events and reply)
// and, when the test passes, writes them to path with the token redacted.
// The fake launcher answers from such a file (FAKE_HOPPER_TRANSCRIPT).
func recordTranscript(t *testing.T, path, version string) {
	var mu sync.Mutex
	var recs []*replay.Recorder
	restore := hopper.SetConnHook(func(c net.Conn) net.Conn {
		rec := replay.NewRecorder(replay.Header{Engine: "hopper", EngineVersion: version, Framing: replay.FrameLines})
		mu.Lock()
		recs = append(recs, rec)
		mu.Unlock()
		return rec.Conn(c)
	})
	t.Cleanup(func() {
		restore()
		if t.Failed() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		merged := replay.Merge(replay.Header{Type: "header", Version: replay.FormatVersion, Engine: "hopper",
			EngineVersion: version, RecordedAt: time.Now().UTC(), Framing: replay.FrameLines}, recs,
			func(s string) string { return tokenField.ReplaceAllString(s, `"token":"[REDACTED]"`) })
		var buf bytes.Buffer
		if err := replay.WriteTranscript(&buf, merged); err != nil {
			t.Error(err)
			return
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	})
}

// TestRecordedTranscriptReplays records a session through the live lane's
// code path, here against the fake launcher (no Hopper runs on this
// machine; the header says so), and replays the recording: the answers are
// the same and the token never reaches the file.
func TestRecordedTranscriptReplays(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "recorded.jsonl")
	const from = "fake: recorded against the fake launcher"
	var first []ports.Procedure
	var firstCode ports.Pseudocode
	t.Run("record", func(t *testing.T) {
		recordTranscript(t, path, from)
		a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close(context.Background())
		if first, err = a.(ports.ProcedureLister).Procedures(t.Context()); err != nil {
			t.Fatal(err)
		}
		if firstCode, err = a.(ports.Decompiler).Decompile(t.Context(), 0x401040); err != nil {
			t.Fatal(err)
		}
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`[REDACTED]`)) || regexp.MustCompile(`"token\\":\\"[0-9a-f]{64}`).Match(b) {
		t.Fatalf("the recorded transcript is not redacted:\n%s", b)
	}
	tr, err := replay.ReadTranscript(bytes.NewReader(b))
	if err != nil || tr.Header.EngineVersion != from {
		t.Fatalf("the recording's header does not say it came from the fake: %+v, %v", tr, err)
	}
	t.Setenv("FAKE_HOPPER_TRANSCRIPT", path)
	a, err := e.provider(hopper.Options{}).Open(t.Context(), e.target)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	again, err := a.(ports.ProcedureLister).Procedures(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	code, err := a.(ports.Decompiler).Decompile(t.Context(), 0x401040)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) || code != firstCode {
		t.Fatalf("replayed %+v %+v, recorded %+v %+v", again, code, first, firstCode)
	}
}

// TestConformanceOnARecordedTranscript: the replay lane's transcript comes
// from the live lane's code path. The conformance suite runs with
// recordTranscript's hook, as TestLive runs it with -record, here against
// the fake (no Hopper runs on this machine; the header says so); the
// suite then passes again on a fresh fake that answers only from that
// recording, and nothing is left behind either time.
func TestConformanceOnARecordedTranscript(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "recorded.jsonl")
	t.Run("record", func(t *testing.T) {
		recordTranscript(t, path, "fake: the conformance suite recorded against the fake")
		portstest.Run(t, e.provider(hopper.Options{}), e.target)
	})
	e.assertClean(t)
	if t.Failed() {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := replay.ReadTranscript(bytes.NewReader(b))
	if err != nil || len(tr.Entries) == 0 {
		t.Fatalf("the recording is not a transcript with entries: %v", err)
	}
	t.Setenv("FAKE_HOPPER_TRANSCRIPT", path)
	t.Run("replay", func(t *testing.T) {
		portstest.Run(t, e.provider(hopper.Options{}), e.target)
	})
	e.assertClean(t)
}
