package native

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// The whole-file text gives back the pages of code it has read, chunk by
// chunk, as discovery does: on chromium the 218 MB of code otherwise
// became resident again beside discovery's heap (rea disassemble's peak
// was about 0.92 GB). After discovery, WriteDisassembly advises every
// whole page of .text, once its chunk is written.
func TestWriteDisassemblyDropsCode(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("#include <stdio.h>\n")
	for i := range 300 {
		fmt.Fprintf(&src, "__attribute__((noinline)) int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d ^ (s >> 3); return s; }\n", i, i+3)
	}
	src.WriteString("int main(int argc, char **argv) { int s = 0;\n")
	for i := range 300 {
		fmt.Fprintf(&src, "s += f%d(argc);\n", i)
	}
	src.WriteString("printf(\"%d\\n\", s); return 0; }\n")
	c, exe := filepath.Join(dir, "many.c"), filepath.Join(dir, "many")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("gcc", "-O2", "-o", exe, c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	ctx := context.Background()
	a, err := OpenFile(ctx, exe)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	m := a.src.m
	if m == nil || m.advise == nil {
		t.Skip("the file is not mapped, or the system has no madvise")
	}
	if _, err := a.Procedures(ctx); err != nil { // discovery, which drops code of its own
		t.Fatal(err)
	}
	var text *memRegion
	mm := newMemMap(a.img)
	for i := range mm.regions {
		if r := &mm.regions[i]; r.name == ".text" {
			text = r
		}
	}
	if text == nil || text.fileSize < 4*uint64(os.Getpagesize()) {
		t.Fatalf(".text is missing or smaller than 4 pages: %+v", text)
	}
	var mu sync.Mutex
	advised := map[uint64]bool{} // page offsets in the file
	page := uint64(os.Getpagesize())
	m.mu.Lock()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	real := m.advise
	m.advise = func(b []byte) {
		mu.Lock()
		off := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))) - base)
		for o := off; o < off+uint64(len(b)); o += page {
			advised[o] = true
		}
		mu.Unlock()
		real(b)
	}
	m.mu.Unlock()
	defer SetTextChunkBytes(4096)()
	if _, err := a.WriteDisassembly(ctx, io.Discard, ".text"); err != nil {
		t.Fatal(err)
	}
	var kept []uint64
	for o := (text.off + page - 1) &^ (page - 1); o+page <= text.off+text.fileSize; o += page {
		if !advised[o] {
			kept = append(kept, o)
		}
	}
	if len(kept) > 0 {
		t.Errorf("%d of the pages of .text at %#x (%d bytes) not given back: %#x", len(kept), text.off, text.fileSize, kept)
	}
}

// Whole-file discovery of a target with releaseMinCode of code or more
// gives its heap back to the system when it ends, when the process's
// owner asked for it (TuneCollector), and only then, on a goroutine of its
// own, so that the answer does not wait for the collection.
func TestDiscoveryReleasesHeap(t *testing.T) {
	exe, err := os.Executable() // any ELF will do
	if err != nil {
		t.Fatal(err)
	}
	defer func(n uint64, f func(), on bool) { releaseMinCode, freeOSMemory = n, f; TuneCollector(on) }(releaseMinCode, freeOSMemory, tuning.Load())
	releaseMinCode = 1
	var calls, waited atomic.Int32
	release := make(chan struct{})
	freeOSMemory = func() {
		select {
		case <-release: // the answer came first
		case <-time.After(10 * time.Second):
			waited.Add(1) // the answer waited for the collection
		}
		calls.Add(1)
	}
	for _, on := range []bool{false, true} {
		TuneCollector(on)
		calls.Store(0)
		ctx := context.Background()
		a, err := OpenFile(ctx, exe)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Procedures(ctx); err != nil {
			t.Fatal(err)
		}
		a.Close(ctx)
		if on {
			close(release)
			for deadline := time.Now().Add(time.Minute); calls.Load() == 0 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		if want := map[bool]int32{false: 0, true: 1}[on]; calls.Load() != want {
			t.Errorf("tuning %v: %d collections forced, want %d", on, calls.Load(), want)
		}
	}
	if waited.Load() != 0 {
		t.Error("the answer waited for the collection")
	}
}
