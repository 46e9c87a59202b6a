package supervisor

import (
	"context"
	"errors"
	"sort"
)

// procInfo is one process as the kernel reports it.
type procInfo struct {
	pid, ppid, pgid, sid int
	start                uint64 // clock ticks after boot: with pid, the process's identity
	state                byte   // R, S, D, Z, X, ...
	comm                 string
	image                uint64 // the program image since the last exec; 0 when unknown (see imageOf)
	exiting              bool   // the kernel has begun its exit (PF_EXITING): its children may be reparented already
}

func (p procInfo) dead() bool { return p.state == 'Z' || p.state == 'X' || p.state == 'x' }

type tokenResult int

// procKey is a process's identity: its pid and start time.
type procKey struct {
	pid   int
	start uint64
}

// seenStat is what a look read of one process's stat, with the inode
// number /proc's listing gave the process's directory then, and which look
// read it. stranger: the
// look proved the process not the run's (born after the launcher, not a
// descendant, its environment read without the run ID) while its parent,
// started at parentStart, lived (see lookTable).
type seenStat struct {
	p           procInfo
	ino         uint64
	stranger    bool
	parentStart uint64
	readAt      int // the look (Run.looks) that read p
}

// tokenSeen is what one read of a process's environment found.
type tokenSeen struct {
	res tokenResult
	err string // why it was unreadable
}

const (
	tokenMismatch   tokenResult = iota // readable, without our run ID
	tokenPresent                       // readable, with our run ID
	tokenUnreadable                    // not readable (another user, a setuid program)
	tokenGone                          // the process vanished
)

// census is one enumeration of what the run owns.
type census struct {
	err          error // the process table could not be read
	launcherLive bool
	launcher     procInfo
	owned        map[int]procInfo // proven ours, launcher included when live
	unverified   map[int]string   // live members of an owned process group not proven ours: pid -> why
	members      map[int][]int    // owned process group -> its live members, owned or not
	byToken      map[int]bool     // owned, proven at this look by the run ID (not by descent)
	strangers    []int            // born no earlier than the launcher, not owned, environment read without the run ID
	// Owned process groups are those led (now or at an earlier look) by a
	// process proven ours; only they are signalled whole or reported.
}

// take enumerates the process table and proves, by the rules in the package
// documentation, which processes are the run's. It never signals.
func (r *Run) take(ctx context.Context) census {
	r.mu.Lock()
	pid, start := r.pid, r.startTick
	r.mu.Unlock()
	if pid == 0 || start == 0 {
		return r.census(nil, nil) // nothing to read the table for
	}
	tab, err := readTable(ctx)
	if err != nil {
		return census{err: err, owned: map[int]procInfo{}, unverified: map[int]string{}, members: map[int][]int{}}
	}
	return r.census(tab, nil)
}

// census proves from tab, one reading of the process table, which processes
// are the run's, and remembers them for the next look.
//
// stale names the processes of tab whose stat an earlier look read (see
// lookTable): such a process is read again before it is proven ours by
// descent, and judged on that reading. (A proof by the run ID rests on the
// pid and start time alone, which never change.)
func (r *Run) census(tab map[int]procInfo, stale map[int]bool) census {
	r.mu.Lock()
	pid, start, id := r.pid, r.startTick, r.id
	known := make(map[int]uint64, len(r.known))
	for k, v := range r.known {
		known[k] = v
	}
	ownedGroups := append([]int(nil), r.groups...)
	session := r.session
	r.mu.Unlock()

	c := census{owned: map[int]procInfo{}, unverified: map[int]string{}, members: map[int][]int{}, byToken: map[int]bool{}}
	if pid == 0 {
		return c
	}
	if start == 0 {
		c.err = errors.New("supervisor: the launcher's start time could not be read at launch")
		return c
	}
	if p, ok := tab[pid]; ok && start != 0 && p.start == start {
		c.launcherLive, c.launcher = true, p
	}
	for k, v := range known {
		if p, ok := tab[k]; ok && p.start == v {
			c.owned[k] = p
		}
	}
	// A child of a proven process, born after it, is ours.
	grow := func() {
		for changed := true; changed; {
			changed = false
			for k, p := range tab {
				if _, ok := c.owned[k]; ok {
					continue
				}
				if parent, ok := c.owned[p.ppid]; ok && p.start >= parent.start {
					changed = true
					if stale[k] {
						delete(stale, k)
						if fresh, err := r.readStatForLook(k); err == nil && !fresh.dead() {
							tab[k] = fresh // judged on it at the next pass
						} else {
							delete(tab, k)
						}
						continue
					}
					c.owned[k] = p
				}
			}
		}
	}
	grow()
	// A process born no earlier than the launcher and carrying the run ID is
	// ours, wherever it was reparented to.
	// Each process's environment is read once: a look reuses what an
	// earlier one read of the same process (pid and start time), so the
	// machine's other processes cost one read each, not one a look (a
	// capture looks every 50 ms). Only an exec changes what the file
	// shows: a process read without our run ID is not read again, so one
	// that gains it by a later exec is not proven ours by it. The run ID
	// is inherited at fork, so a process of ours carries it from its
	// first look unless its environment was replaced. An environment that
	// could not be read is read again at the next look.
	why := map[int]string{}
	r.tokenMu.Lock()
	if r.tokens == nil {
		r.tokens = map[procKey]tokenSeen{}
	}
	for k, p := range tab {
		if _, ok := c.owned[k]; ok || start == 0 || p.start < start {
			continue
		}
		key := procKey{k, p.start}
		seen, ok := r.tokens[key]
		if !ok {
			read := r.tokenOf
			if read == nil {
				read = tokenState
			}
			res, err := read(k, RunIDEnv, id)
			seen = tokenSeen{res: res}
			if err != nil {
				seen.err = err.Error()
			}
			if res == tokenPresent || res == tokenMismatch {
				r.tokens[key] = seen // an unreadable one may be readable at the next look
			}
		}
		switch seen.res {
		case tokenPresent:
			c.owned[k] = p
			c.byToken[k] = true
		case tokenUnreadable:
			why[k] = "environment unreadable"
			if seen.err != "" {
				why[k] += ": " + seen.err
			}
		case tokenMismatch:
			why[k] = "run id missing from its environment"
			c.strangers = append(c.strangers, k)
		}
	}
	for key := range r.tokens {
		if p, ok := tab[key.pid]; !ok || p.start != key.start {
			delete(r.tokens, key) // gone: its pid may be reused
		}
	}
	r.tokenMu.Unlock()
	grow()

	// Owned process groups: the launcher's, and any other led by an owned
	// process. (An owned process may also have joined a group that is not
	// ours, such as rea's own: it is then signalled by itself, and that
	// group's other members are none of our business.) A group that was ours
	// at an earlier look and still has members is still ours, unless a
	// stranger now holds its ID as leader: while a group has members its ID
	// cannot be reused, so a stranger leading it means it emptied and the ID
	// was reused.
	groups := map[int]bool{}
	for _, p := range c.owned {
		if _, led := c.owned[p.pgid]; led || p.pgid == pid {
			groups[p.pgid] = true
		}
	}
	live := map[int]bool{}
	for _, p := range tab {
		live[p.pgid] = true
	}
	for _, g := range ownedGroups {
		if groups[g] || !live[g] {
			continue
		}
		if _, led := tab[g]; led {
			continue
		}
		groups[g] = true
	}
	// The launcher's session: only descendants of the launcher can be in it
	// (a session is inherited, never joined), and its ID cannot be reused
	// while it has a member. So every group with a member in it is ours to
	// report, though its members are signalled only when proven. A stranger
	// leading the ID, or no member left, means the session is over.
	if session != 0 {
		if p, led := tab[session]; led && p.start != start {
			session = 0
		} else {
			seen := false
			for _, p := range tab {
				if p.sid == session {
					groups[p.pgid], seen = true, true
				}
			}
			if !seen {
				session = 0
			}
		}
	}
	for k, p := range tab {
		if !groups[p.pgid] {
			continue
		}
		c.members[p.pgid] = append(c.members[p.pgid], k)
		if _, ok := c.owned[k]; !ok {
			reason := why[k]
			if reason == "" {
				reason = "not proven ours"
				if p.start < start {
					reason = "started before the launcher"
				}
			}
			c.unverified[k] = reason
		}
	}
	for _, m := range c.members {
		sort.Ints(m)
	}

	r.mu.Lock()
	r.session = session
	r.groups = r.groups[:0]
	for g := range groups {
		r.groups = append(r.groups, g)
	}
	for k, p := range c.owned {
		r.known[k] = p.start
	}
	for k, v := range r.known {
		if p, ok := tab[k]; !ok || p.start != v {
			delete(r.known, k) // gone: its PID may be reused by a stranger
		}
	}
	r.mu.Unlock()
	return c
}

// sortedOwned returns the owned processes sorted by pid.
func (c census) sortedOwned() []procInfo {
	out := make([]procInfo, 0, len(c.owned))
	for _, p := range c.owned {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pid < out[j].pid })
	return out
}

// groupClean reports whether every live member of group g is proven ours.
func (c census) groupClean(g int) bool {
	for _, m := range c.members[g] {
		if _, ok := c.unverified[m]; ok {
			return false
		}
	}
	return len(c.members[g]) > 0
}

// readStatForLook reads pid's stat for a look (through statHook in tests).
func (r *Run) readStatForLook(pid int) (procInfo, error) {
	if r.statHook != nil {
		return r.statHook(pid)
	}
	return readStat(pid)
}
