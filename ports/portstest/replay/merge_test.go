package replay_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"rea/ports/portstest/replay"
)

// TestMergeShiftsEachConnectionsClock: two recorders each start their clock
// at 0; the merged transcript keeps every entry in order, never goes back in
// time (so it reads back), and carries the redacted text.
func TestMergeShiftsEachConnectionsClock(t *testing.T) {
	h := replay.Header{Type: "header", Version: replay.FormatVersion, Engine: "fake", Framing: replay.FrameLines}
	var recs []*replay.Recorder
	for _, text := range []string{"first secret\n", "second secret\n"} {
		r := replay.NewRecorder(h)
		time.Sleep(3 * time.Millisecond)
		if _, err := r.Stream(&bytes.Buffer{}).Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	merged := replay.Merge(h, recs, func(s string) string { return strings.ReplaceAll(s, "secret", "[REDACTED]") })
	if len(merged.Entries) != 2 || merged.Entries[1].At != recs[0].Transcript().Entries[0].At+recs[1].Transcript().Entries[0].At {
		t.Fatalf("entries %+v", merged.Entries)
	}
	var buf bytes.Buffer
	if err := replay.WriteTranscript(&buf, merged); err != nil {
		t.Fatal(err)
	}
	back, err := replay.ReadTranscript(&buf)
	if err != nil {
		t.Fatalf("the merged transcript does not read back: %v", err)
	}
	for i, want := range []string{"first [REDACTED]\n", "second [REDACTED]\n"} {
		if e := back.Entries[i]; e.Text == nil || *e.Text != want {
			t.Fatalf("entry %d: %+v, want text %q", i, e, want)
		}
	}
}
