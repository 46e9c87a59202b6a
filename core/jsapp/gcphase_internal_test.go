package jsapp

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The parse phase raises the target while the live heap is small, sets it
// again after each collection from what that collection found live (back
// to the target found once the heap is large), and puts it back when the
// last phase ends; a target the user set with GOGC is left alone.
func TestParsePhaseGCTarget(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: the parse phase leaves the target alone (checked at the end of this test)")
	}
	old := debug.SetGCPercent(70)
	defer debug.SetGCPercent(old)
	runtime.GC()
	if g := relaxGC(); g != nil || gcPercent() != 70 {
		t.Fatal("the target changed while the host had not turned the tuning on")
	}
	TuneCollector(true)
	defer TuneCollector(false)

	a := relaxGC()
	if p := gcPercent(); p != 70*parseGCMaxFactor {
		t.Fatalf("with a small live heap the target is %d, want %d", p, 70*parseGCMaxFactor)
	}
	b := relaxGC() // a second call in its parse phase
	big := make([]*[1 << 20]byte, 0, 128)
	for range cap(big) { // 128 MB live: the room is there already
		big = append(big, new([1 << 20]byte))
	}
	runtime.GC()
	deadline := time.Now().Add(time.Minute) // the cleanup runs on its own goroutine: a loaded machine is slow to schedule it
	for gcPercent() != 70 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if p := gcPercent(); p != 70 {
		t.Errorf("with %d MB live the target is %d, want the one found, 70", len(big), p)
	}
	runtime.KeepAlive(big)
	big = nil
	runtime.GC()
	deadline = time.Now().Add(time.Minute)
	for gcPercent() == 70 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if p := gcPercent(); p <= 70 {
		t.Errorf("once the heap is small again the target is %d, want it raised", p)
	}
	a.end()
	a.end() // ends once
	if p := gcPercent(); p == 70 {
		t.Error("the target was put back while another call was still parsing")
	}
	b.end()
	if p := gcPercent(); p != 70 {
		t.Errorf("after the last phase the target is %d, want 70", p)
	}
	runtime.GC() // the hook of the ended run changes nothing
	time.Sleep(10 * time.Millisecond)
	if p := gcPercent(); p != 70 {
		t.Errorf("after a collection with no phase the target is %d, want 70", p)
	}

	t.Setenv("GOGC", "70")
	if g := relaxGC(); g != nil || gcPercent() != 70 {
		t.Error("a target set with GOGC was changed")
	}
	debug.SetGCPercent(-1)
	if g := relaxGC(); g != nil || gcPercent() != -1 {
		t.Error("a collector turned off was turned on")
	}
	debug.SetGCPercent(70)
	var nothing *gcRelax
	nothing.end() // a phase that changes nothing ends without effect
}

// Past its parse, a call holds the heap the parse left: with a small live
// heap the target stays raised up to that heap (it went back to the
// process's target at once before), while another call still parses the
// parse's room applies, and the last phase's end puts the target back.
func TestHoldKeepsTheParsedHeap(t *testing.T) {
	tunedAt70(t)
	runtime.GC()
	waitFor := func(want func(int) bool) int {
		deadline := time.Now().Add(time.Minute) // the cleanup runs on its own goroutine
		for !want(gcPercent()) && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		return gcPercent()
	}

	a := relaxGC()
	big := make([]*[1 << 20]byte, 0, 64)
	for range cap(big) { // the parse's heap: 64 MB
		big = append(big, new([1 << 20]byte))
	}
	b := relaxGC() // another call, still parsing
	a.hold()
	runtime.KeepAlive(big)
	big = nil
	runtime.GC() // a few MB live: the parse's room over it
	if p := waitFor(func(p int) bool { return p == 70*parseGCMaxFactor }); p != 70*parseGCMaxFactor {
		t.Errorf("while another call parses the target is %d, want %d", p, 70*parseGCMaxFactor)
	}
	b.end()
	if held := gcPhase.held; held < 64<<20 {
		t.Fatalf("the heap held is %d bytes, want at least the 64 MB the parse left", held)
	}
	// 64 MB held over a few MB live: the most the target may be raised.
	if p := gcPercent(); p != 70*parseGCMaxFactor {
		t.Errorf("holding 64 MB over a small live heap the target is %d, want %d", p, 70*parseGCMaxFactor)
	}
	a.end()
	if p := gcPercent(); p != 70 {
		t.Errorf("after the last phase the target is %d, want 70", p)
	}

	// A parse that left no more than is live holds no room.
	c := relaxGC()
	runtime.GC()
	c.hold()
	runtime.GC()
	if p := waitFor(func(p int) bool { return p == 70 }); p != 70 {
		t.Errorf("holding the live heap the target is %d, want 70", p)
	}
	c.end()
	var nothing *gcRelax
	nothing.hold() // a phase that changes nothing holds nothing
}

// While a call parses, the collector's room over a small live heap is
// parseGCRoom (40 MB): the build and the seal collect in the heap the parse
// made resident, so the parse's room sets the analysis's peak. Over a
// larger live heap the room is what is live, up to parseGCMaxRoom (a
// collection costs about what is live).
func TestParsePhaseRoomIsBounded(t *testing.T) {
	tunedAt70(t)
	big := make([]*[1 << 20]byte, 0, parseGCRoom>>20+8)
	for range 16 { // 16 MB live: under the room, so the room sets the target
		big = append(big, new([1 << 20]byte))
	}
	runtime.GC()
	a := relaxGC()
	defer a.end()
	live := readUint64("/gc/heap/live:bytes")
	room := live * uint64(gcPercent()) / 100
	runtime.KeepAlive(big)
	if room > parseGCRoom+live/50 {
		t.Errorf("over %d MB live the parse's room is %d MB, want at most %d", live>>20, room>>20, parseGCRoom>>20)
	}
	if room < parseGCRoom-2<<20 {
		t.Errorf("over %d MB live the parse's room is %d MB, want about %d", live>>20, room>>20, parseGCRoom>>20)
	}
	for len(big) < cap(big) { // parseGCRoom + 8 MB live
		big = append(big, new([1 << 20]byte))
	}
	runtime.GC()
	deadline := time.Now().Add(time.Minute) // the cleanup runs on its own goroutine
	for gcPercent() > 110 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	live = readUint64("/gc/heap/live:bytes")
	room = live * uint64(gcPercent()) / 100
	runtime.KeepAlive(big)
	if room < live-live/50 || room > live+live/50 {
		t.Errorf("over %d MB live the parse's room is %d MB, want what is live", live>>20, room>>20)
	}
}

// tunedAt70 sets the process's target to 70% with the tuning on, both put
// back when t ends; it skips t when GOGC is set.
func tunedAt70(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: the parse phase leaves the target alone")
	}
	old := debug.SetGCPercent(70)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	TuneCollector(true)
	t.Cleanup(func() { TuneCollector(false) })
}
