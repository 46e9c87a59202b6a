//go:build linux

package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"unsafe"
)

const (
	madvHugepage = 14 // MADV_HUGEPAGE, the same on every Linux architecture
	// smallHeap is the most a process may hold in its heap (objects and
	// free memory not given back) for Prepare to act: its block then
	// comes from fresh memory, which needs no zeroing.
	smallHeap = 64 << 20
)

var once sync.Once

// Prepare maps and advises Bytes of fresh heap, once per process, when it
// helps and costs nothing: on Linux, with transparent huge pages given on
// request ("[madvise]"; with "always" the heap has them already, with
// "never" not at all), when the kernel does not refuse to overcommit
// (vm.overcommit_memory 2 would count the untouched block), when the
// collector's memory limit is at least four times the block (it counts the
// block until the next collection; rea sets it to its 4 GiB process budget
// unless GOMEMLIMIT is set) and while the heap is small. On a machine
// with less than four times the block of memory the block is a quarter of
// the memory (fitMemory). It reports whether
// it advised the block.
func Prepare() (advised bool) { return prepareOnce(Bytes) }

// prepareOnce is Prepare with a block of n bytes; the first call in the
// process decides.
func prepareOnce(n int) (advised bool) {
	once.Do(func() { advised = prepare(n) })
	return advised
}

func prepare(n int) bool {
	_, _, ok := advise(n)
	return ok
}

// advise is prepare, with the range it advised.
func advise(n int) (lo, hi uintptr, ok bool) {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0, 0, false
	}
	if n = fitMemory(n, uint64(si.Totalram)*uint64(si.Unit)); n == 0 {
		return 0, 0, false
	}
	objects, heap := heapBytes()
	if debug.SetMemoryLimit(-1) < 4*int64(n) || heap > smallHeap {
		return 0, 0, false
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || !bytes.Contains(b, []byte("[madvise]")) {
		return 0, 0, false
	}
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err != nil || bytes.HasPrefix(b, []byte("2")) {
		return 0, 0, false
	}
	// The runtime zeroes a new large object whole when any of its pages
	// was used before, and the heap's free pages at its top border the
	// fresh memory the block would take: zeroed with the kernel's small
	// pages, the block cost 65,000 page faults and 0.7 s in one run of
	// thirty. A spacer larger than every free run takes the used pages
	// first (they are the only run it fits), so the block lies wholly in
	// fresh memory.
	spacer := make([]byte, heap-objects+1<<20)
	block := make([]byte, n)
	runtime.KeepAlive(spacer)
	spacer = nil
	p := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	lo, hi = (p+hugePageSize-1)&^(hugePageSize-1), (p+uintptr(n))&^(hugePageSize-1)
	if lo < hi {
		_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage)
		ok = errno == 0
	}
	runtime.KeepAlive(block)
	block = nil
	// Collected now: a block allocated while a collection is running
	// survives it, and the collector's next goal would be set over it
	// (an analysis then grew its heap to 470 MB where it needs 80).
	runtime.GC()
	return lo, hi, ok
}

// heapBytes is the heap's objects, and those with the free and unused
// memory it has not given back to the kernel.
func heapBytes() (objects, heap uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	metrics.Read(s)
	for i, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			continue
		}
		if i == 0 {
			objects = x.Value.Uint64()
		}
		heap += x.Value.Uint64()
	}
	return objects, heap
}

// fitMemory is the block to map on a machine of total bytes of memory: n,
// or a quarter of the memory when n is more, in whole huge pages; 0 when
// that is under 16 MiB. The kernel refuses a mapping larger than the
// memory and swap it could ever give (vm.overcommit_memory 0), and the
// runtime cannot survive a refused heap mapping.
func fitMemory(n int, total uint64) int {
	if q := total / 4; uint64(n) > q {
		n = int(q) &^ (hugePageSize - 1)
	}
	if n < 16<<20 {
		return 0
	}
	return n
}
