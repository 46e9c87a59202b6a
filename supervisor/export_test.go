package supervisor

import "syscall"

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
