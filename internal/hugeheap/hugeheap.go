// Package hugeheap lets an allocation-heavy analysis take the fresh memory
// of its heap in transparent huge pages.
//
// The Go runtime maps its heap with the kernel's default pages, and the
// kernel backs each 4 KiB page at its first touch with a page fault. Where
// transparent huge pages are given only on request ("madvise", Debian's
// default), a JavaScript application of 10 MB took about 15,000 such
// faults and rea analyze on gcc's cc1 about 11,000-12,000, and a fault is
// dear on a virtual machine: with the heap's fresh memory in 2 MiB pages
// they took about 3,000-6,000 and 4,000-4,400, and 12-18% and 22% less
// wall time (2 cores).
//
// Prepare (PrepareFor, sized to the input) allocates a large block once per process, asks the kernel
// (MADV_HUGEPAGE) to back the whole 2 MiB pages inside it with huge pages,
// drops it and collects it. Nothing of it is touched, so it costs no
// memory and no zeroing, and the runtime hands its pages to the later
// allocations, lowest first, where the advice holds: the runtime maps
// fresh heap memory with mmap and gives it back with MADV_DONTNEED,
// neither of which clears the advice of pages it has mapped. core/jsapp
// and adapters/native call PrepareFor, in a process whose host allows them
// to tune the collector (cmd/rea does), before work on an input.
package hugeheap

// Bytes is how much Prepare maps and advises: about the heap a 50 MB
// JavaScript application reaches (npm-50 took 25% less wall time with
// 256 MiB than without, 15% with 64 MiB, in one run of each).
const Bytes = 256 << 20

// MinInput is the least input PrepareFor prepares for: below it the huge
// pages' zeroing and the collection cost more than the faults they save
// (a JavaScript app of one file took 12 ms longer; libc, 2 MB, gained
// nothing).
const MinInput = 4 << 20

// MaxBytes is the largest block PrepareFor maps: a quarter of rea's 4 GiB
// collector limit, which Prepare's own check requires anyway.
const MaxBytes = 1 << 30

// PrepareFor calls Prepare before work on an input of n bytes, when n is
// at least MinInput, with a block of BlockFor(n) bytes.
func PrepareFor(n int64) {
	if n >= MinInput {
		prepareOnce(BlockFor(n))
	}
}

// BlockFor is the block PrepareFor maps for an input of n bytes: three
// times the input, the heap native discovery reaches on a large
// executable (chromium's 297 MB took a 740 MB peak), in whole huge pages,
// at least Bytes and at most MaxBytes.
func BlockFor(n int64) int {
	b := min(max(3*n, Bytes), MaxBytes)
	return int((b + hugePageSize - 1) &^ (hugePageSize - 1))
}

// hugePageSize is the huge page of x86-64 and of AArch64 with 4 KiB pages.
const hugePageSize = 2 << 20
