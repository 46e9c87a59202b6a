package replay

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

var recordFlag = flag.Bool("record", false, "re-record replay transcripts against live engines")

// Recording reports whether tests re-record their transcripts against live
// engines: the -record test flag, or REA_RECORD=1 in the environment.
// Otherwise they replay the committed transcripts.
func Recording() bool { return *recordFlag || os.Getenv("REA_RECORD") == "1" }

// Live reaches a real engine for recording: it starts or dials it, reports
// process events to rec, and returns the raw connection (a socket, or the
// process's stdin and stdout joined). Register the engine's clean-up with
// t.Cleanup; Dial saves the transcript after it has run.
type Live func(ctx context.Context, t testing.TB, rec *Recorder) (io.ReadWriteCloser, error)

// Dial returns the connection a test talks to its engine through. By
// default it replays the transcript committed at path (a missing or broken
// transcript fails the test, saying how to record one); when Recording(),
// it reaches the live engine through live, records the conversation, and
// writes it to path when the test passes. A live engine that cannot be
// reached while recording skips the test with the reason.
func Dial(t testing.TB, path string, h Header, live Live, opts *Options) io.ReadWriteCloser {
	t.Helper()
	ctx := context.WithoutCancel(context.Background())
	if !Recording() {
		p := Load(t, path, opts)
		c, err := p.Pipe(ctx)
		if err != nil {
			t.Fatalf("replay %s: %v", path, err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	rec := NewRecorder(h)
	var raw io.Closer
	// Registered first, so it runs after the engine's own clean-up (which
	// may record its exit).
	t.Cleanup(func() {
		if raw != nil {
			raw.Close()
		}
		if t.Failed() {
			t.Logf("replay: the test failed; %s not rewritten", path)
			return
		}
		if err := save(path, rec); err != nil {
			t.Errorf("replay: %v", err)
		}
	})
	c, err := live(ctx, t, rec)
	if err != nil {
		t.Skipf("replay: recording %s needs the live engine %s: %v", path, h.Engine, err)
	}
	raw = c
	return rec.Stream(c)
}

// save writes the transcript beside path and renames it into place.
func save(path string, rec *Recorder) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".replay-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := rec.Save(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
