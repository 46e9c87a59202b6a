//go:build linux

package hugeheap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// thpOnRequest skips a test unless the kernel gives transparent huge
// pages on request.
func thpOnRequest(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !bytes.Contains(b, []byte("[madvise]")) {
		t.Skipf("transparent huge pages are not given on request here (%q)", strings.TrimSpace(string(b)))
	}
}

// eligible reports whether the kernel would back the page at addr with a
// huge page (smaps' THPeligible of the mapping holding it).
func eligible(t *testing.T, addr uintptr) bool {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(line, " ") && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "THPeligible:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "THPeligible:")) == "1"
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return false
}

// TestPrepareAdvisesTheBlock: the huge pages inside the block are
// eligible for huge pages once it is advised; the heap's other fresh
// memory is not.
func TestPrepareAdvisesTheBlock(t *testing.T) {
	thpOnRequest(t)
	other := make([]byte, 16<<20)
	q := uintptr(unsafe.Pointer(unsafe.SliceData(other)))
	if eligible(t, (q+8<<20)&^(hugePageSize-1)) {
		t.Skip("the heap here is eligible for huge pages without advice")
	}
	lo, hi, ok := advise(16 << 20)
	if !ok || hi-lo < hugePageSize {
		t.Fatalf("advise: %#x-%#x, %v", lo, hi, ok)
	}
	for a := lo; a < hi; a += hugePageSize {
		if !eligible(t, a) {
			t.Fatalf("%#x (of %#x-%#x) is not eligible for huge pages", a, lo, hi)
		}
	}
}

// TestPrepareOncePerProcess: the second call does nothing.
func TestPrepareOncePerProcess(t *testing.T) {
	start := time.Now()
	Prepare()
	t.Logf("first Prepare: %v", time.Since(start))
	if Prepare() {
		t.Fatal("a second Prepare advised again")
	}
}

// TestBlockIsNotZeroed: the block lands in fresh memory, which the runtime
// does not zero, even when the heap's top holds freed pages (the runtime
// zeroes a large object whole when any of its pages was used: 64 MiB in
// small pages is 16,384 page faults).
func TestBlockIsNotZeroed(t *testing.T) {
	thpOnRequest(t)
	junk := make([][]byte, 64)
	for i := range junk {
		junk[i] = make([]byte, 64<<10)
		junk[i][0] = 1
	}
	junk = nil
	runtime.GC() // the junk's pages are free, at the heap's top
	objects, heap := heapBytes()
	if heap > smallHeap {
		t.Skip("the test binary's heap is too large for advise to act")
	}
	// The spacer may be zeroed (it takes the freed pages): its faults are
	// allowed, the block's 16,384 are not.
	allowed := int64((heap-objects+1<<20)/4096) + 2048
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := advise(64 << 20); !ok {
		t.Fatal("advise did nothing")
	}
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
		t.Fatal(err)
	}
	if faults := int64(after.Minflt - before.Minflt); faults > allowed {
		t.Fatalf("%d page faults while the block was made (%d allowed): it was zeroed", faults, allowed)
	}
}

// TestBlockForScalesWithInput: an input's block is three times its size
// in whole huge pages, within Bytes and MaxBytes. Chromium (297 MB) took
// 127,000 page faults with the 256 MiB block and 26,000 with its own.
func TestBlockForScalesWithInput(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want int
	}{
		{MinInput, Bytes},
		{85 << 20, Bytes},
		{86 << 20, 258 << 20},
		{296_828_872, 850 << 20}, // 890,486,616 bytes, rounded up to 2 MiB
		{400 << 20, MaxBytes},
	} {
		if got := BlockFor(c.n); got != c.want {
			t.Errorf("BlockFor(%d) = %d MiB, want %d MiB", c.n, got>>20, c.want>>20)
		}
	}
}

// TestBlockFitsTheMachine: the block is at most a quarter of the machine's
// memory, and none on a machine too small for 16 MiB of it.
func TestBlockFitsTheMachine(t *testing.T) {
	for _, c := range []struct {
		n     int
		total uint64
		want  int
	}{
		{850 << 20, 24 << 30, 850 << 20},
		{850 << 20, 2 << 30, 512 << 20},
		{Bytes, 1000 << 20, 250 << 20},
		{Bytes, 3<<30 + 5<<20, Bytes},
		{Bytes, 48 << 20, 0},
	} {
		if got := fitMemory(c.n, c.total); got != c.want {
			t.Errorf("fitMemory(%d MiB, %d MiB) = %d MiB, want %d MiB", c.n>>20, c.total>>20, got>>20, c.want>>20)
		}
	}
}
