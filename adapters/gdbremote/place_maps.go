package gdbremote

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// The memory map. A word argument in no library and not in the program's
// image is placed by the mapping of /proc/PID/maps that holds it: a
// thread's stack (the mapping holding that thread's stack pointer), the
// heap ([heap], or one of glibc's thread arenas: arenaHeap), a file's
// mapping (the file and the offset in it) or anonymous memory. The map is
// read again only when the program ran since and a value lies in no
// mapping of the last read (a mapping made since, or a heap grown) or
// would be given as a file's or anonymous mapping by it (one replaced at
// the same addresses since), at most maxMapsReads times per trace, so a
// trace reads it at most once per stop and a number that is no address
// costs one read per stop at most.
//
// Under QEMU's user-mode emulator the map is the emulator process's own
// (rea started it): the guest's mappings are the emulator's at guestBase
// past the guest's addresses (0 for an AArch64 guest on this x86-64 host;
// 0x1000 for an i386 one under QEMU 7.2, whose guest space is one 4 GiB
// reservation), found from where the program's file is mapped. The
// emulator's own mappings (its code, heap and libraries) share the map
// with the guest's when the guest is 64-bit, so a value is placed there
// only when the stub reads its page, which QEMU refuses for memory the
// guest has not mapped (guestPage).

// mapping is one line of /proc/PID/maps.
type mapping struct {
	start, end, offset, inode uint64
	perms                     string // "rw-p"
	// path is the file's path (with " (deleted)" when the kernel says
	// so), the kernel's name for its own ([heap], [stack], [vdso]), or ""
	// for anonymous memory.
	path string
}

// readable reports whether the mapping may be read: a guard page or a
// reservation (---p) holds no value a program passes.
func (m *mapping) readable() bool { return len(m.perms) > 0 && m.perms[0] == 'r' }

// anonymous reports whether the mapping has no file: anonymous memory,
// named with prctl ([anon:name]) or not, or a stack the kernel names.
func (m *mapping) anonymous() bool {
	return m.path == "" || m.path == "[stack]" || strings.HasPrefix(m.path, "[anon:") || strings.HasPrefix(m.path, "[stack:")
}

// parseMaps reads /proc/PID/maps text, skipping lines it cannot read and
// mappings that overlap an earlier one, sorted by start.
func parseMaps(b []byte) []mapping {
	var out []mapping
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if m, ok := parseMapsLine(line); ok {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b mapping) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	kept := out[:0]
	for _, m := range out {
		if len(kept) == 0 || m.start >= kept[len(kept)-1].end {
			kept = append(kept, m)
		}
	}
	return kept
}

// parseMapsLine reads "start-end perms offset dev inode   path".
func parseMapsLine(line []byte) (mapping, bool) {
	var f [5][]byte
	rest := line
	for i := range f {
		rest = bytes.TrimLeft(rest, " \t")
		j := bytes.IndexAny(rest, " \t")
		if j < 0 {
			j = len(rest)
		}
		f[i], rest = rest[:j], rest[j:]
	}
	lo, hi, ok := bytes.Cut(f[0], []byte("-"))
	start, err1 := strconv.ParseUint(string(lo), 16, 64)
	end, err2 := strconv.ParseUint(string(hi), 16, 64)
	off, err3 := strconv.ParseUint(string(f[2]), 16, 64)
	inode, err4 := strconv.ParseUint(string(f[4]), 10, 64)
	if !ok || err1 != nil || err2 != nil || err3 != nil || err4 != nil || end <= start || len(f[1]) != 4 {
		return mapping{}, false
	}
	return mapping{start: start, end: end, offset: off, inode: inode, perms: string(f[1]),
		path: string(bytes.TrimRight(bytes.TrimLeft(rest, " \t"), "\r"))}, true
}

// mappingAt is the index of the mapping of list that holds addr, or -1.
func mappingAt(list []mapping, addr uint64) int {
	i, _ := slices.BinarySearchFunc(list, addr, func(m mapping, a uint64) int {
		switch {
		case m.end <= a:
			return -1
		case m.start > a:
			return 1
		}
		return 0
	})
	if i < len(list) && list[i].start <= addr && addr < list[i].end {
		return i
	}
	return -1
}

// arenaSize is the size and alignment of one heap of glibc's thread
// arenas (HEAP_MAX_SIZE: twice DEFAULT_MMAP_THRESHOLD_MAX, 64 MiB for a
// 64-bit program and 1 MiB for a 32-bit one).
func arenaSize(word uint64) uint64 {
	if word == 4 {
		return 1 << 20
	}
	return 64 << 20
}

// isArena reports whether the mapping at list[i] has the shape of a heap
// of one of glibc's thread arenas: malloc reserves each as an
// arenaSize-aligned arenaSize of PROT_NONE memory and makes its first part
// readable and writable as the heap grows, so the heap is an anonymous
// read-write mapping that starts at a multiple of arenaSize, followed (up
// to the reservation's end) by a PROT_NONE one, unless it fills the whole
// reservation. A thread's stack has its guard page below it and a mapping
// from mmap no such alignment and tail. A program that reserves memory
// that way itself has the shape too: arenaHeap also reads the heap's
// header (heapInfoShaped).
func isArena(list []mapping, i int, word uint64) bool {
	m, size := &list[i], arenaSize(word)
	if m.path != "" || m.perms != "rw-p" || m.start%size != 0 || m.end-m.start > size {
		return false
	}
	if m.end-m.start == size {
		return true
	}
	if i+1 >= len(list) {
		return false
	}
	n := &list[i+1]
	return n.start == m.end && n.path == "" && n.perms == "---p" && n.end >= m.start+size
}

// heapInfoShaped reports whether h, the first four words of mapping m,
// are glibc's heap_info for it (malloc/arena.c: ar_ptr, prev, size,
// mprotect_size, the same from glibc 2.26 to 2.36 at least): the part
// made readable and writable (mprotect_size) is the mapping, holding the
// heap's size; and either the arena's first heap, with no previous one
// and the arena's malloc_state right after the header (ar_ptr within its
// first page), or a later heap, whose previous heap starts at a multiple
// of the arena size and whose arena lies outside it.
func heapInfoShaped(h [4]uint64, m *mapping, word uint64) bool {
	arPtr, prev, size, mprotect := h[0], h[1], h[2], h[3]
	if mprotect != m.end-m.start || size == 0 || size > mprotect {
		return false
	}
	if prev == 0 {
		return arPtr > m.start && arPtr < m.start+pageSize
	}
	return prev%arenaSize(word) == 0 && prev != m.start && (arPtr < m.start || arPtr >= m.end)
}

// stackShaped reports whether the mapping at list[i] may be a thread's
// stack (which one holds that thread's stack pointer): the kernel's
// [stack], or anonymous read-write memory with a guard page (PROT_NONE,
// anonymous) right below it, as glibc makes a thread's stack and QEMU the
// guest's main one. A stack a program placed in the heap or a mapping of
// its own, or a goroutine's in the Go heap (whose mappings hold heap
// objects too), is not one. glibc keeps a thread's TLS at the top of its
// stack's mapping: a pointer there is placed in the stack too.
func stackShaped(list []mapping, i int) bool {
	m := &list[i]
	if m.path == "[stack]" || strings.HasPrefix(m.path, "[stack:") {
		return true
	}
	if !m.anonymous() || !strings.HasPrefix(m.perms, "rw") || i == 0 {
		return false
	}
	g := &list[i-1]
	return g.end == m.start && g.path == "" && g.perms == "---p"
}
