package supervisor

import (
	"sync"
	"syscall"
)

// Hooks for tests that must forge what a Run believes.

// ForgeKnown makes r believe it proved pid, started at start ticks, earlier.
func ForgeKnown(r *Run, pid int, start uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.known[pid] = start
}

// SignalAsIfOwned runs the last step of a stop sequence on a process r
// believes it owns with the given start ticks: revalidate, then signal.
func SignalAsIfOwned(r *Run, pid int, start uint64, sig syscall.Signal) {
	r.signalProcess(procInfo{pid: pid, start: start}, sig)
}

// StartTicks is the start time of pid in clock ticks after boot.
func StartTicks(pid int) (uint64, error) {
	p, err := readStat(pid)
	return p.start, err
}

// CountEnvironReads makes r count the environment reads of its looks and
// returns how many read pid's so far.
func CountEnvironReads(r *Run) func(pid int) int {
	var mu sync.Mutex
	n := map[int]int{}
	r.tokenMu.Lock()
	r.tokenOf = func(pid int, name, value string) (tokenResult, error) {
		mu.Lock()
		n[pid]++
		mu.Unlock()
		return tokenState(pid, name, value)
	}
	r.tokenMu.Unlock()
	return func(pid int) int {
		mu.Lock()
		defer mu.Unlock()
		return n[pid]
	}
}

// Knows reports whether r has proven pid, started at start ticks, its own.
func Knows(r *Run, pid int, start uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.known[pid] == start
}

// CountStatReads makes r's looks count the stat reads of each process and
// returns how many read pid's so far.
func CountStatReads(r *Run) func(pid int) int {
	var mu sync.Mutex
	n := map[int]int{}
	r.lookMu.Lock()
	r.statHook = func(pid int) (procInfo, error) {
		mu.Lock()
		n[pid]++
		mu.Unlock()
		return readStat(pid)
	}
	r.lookMu.Unlock()
	return func(pid int) int {
		mu.Lock()
		defer mu.Unlock()
		return n[pid]
	}
}
