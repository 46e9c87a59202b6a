package supervisor

import "context"

// ParseStat parses the text of /proc/PID/stat.
func ParseStat(pid int, b []byte) (ppid, pgid, sid int, start uint64, state byte, comm string, err error) {
	p, err := parseStat(pid, b)
	return p.ppid, p.pgid, p.sid, p.start, p.state, p.comm, err
}

// StrangerRecheckLooks is how many looks a stranger's reading stands.
const StrangerRecheckLooks = strangerRecheckLooks

// SetMaxStrangerFDs bounds the pidfds a run's looks hold to n until the
// returned function restores the bound.
func SetMaxStrangerFDs(n int) (restore func()) {
	old := maxStrangerFDs
	maxStrangerFDs = n
	return func() { maxStrangerFDs = old }
}

// WatchedStrangers is how many pidfds r's looks hold.
func WatchedStrangers(r *Run) int {
	r.lookMu.Lock()
	defer r.lookMu.Unlock()
	return len(r.exitFDs)
}

// LookParents takes a look's reading of the table, as Look does before its
// census, and returns each live process's parent pid in it.
func LookParents(r *Run) (map[int]int, error) {
	r.mu.Lock()
	start := r.startTick
	r.mu.Unlock()
	r.lookMu.Lock()
	defer r.lookMu.Unlock()
	tab, _, err := r.lookTable(context.Background(), start, r.sessions)
	out := make(map[int]int, len(tab))
	for pid, p := range tab {
		out[pid] = p.ppid
	}
	return out, err
}
