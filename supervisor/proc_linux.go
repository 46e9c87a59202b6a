//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The process table comes from /proc. Every reading is bounded and every
// parse failure is an error, never a panic: /proc is the kernel's, but a
// process can vanish between two reads.

const procRoot = "/proc"

// readTable returns every live process (zombies and dead tasks excluded).
func readTable(ctx context.Context) (map[int]procInfo, error) {
	d, err := os.Open(procRoot)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	tab := make(map[int]procInfo, len(names))
	for i, name := range names {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pid, err := strconv.Atoi(name)
		if err != nil || pid <= 0 {
			continue
		}
		p, err := readStat(pid)
		if err != nil || p.dead() {
			continue // gone since the directory was read, or unparsable
		}
		tab[pid] = p
	}
	return tab, nil
}

// readStat parses /proc/PID/stat. The command name sits in parentheses and
// may itself contain spaces and parentheses, so the fields start after the
// last ')'.
func readStat(pid int) (procInfo, error) {
	b, err := readBounded(procRoot+"/"+strconv.Itoa(pid)+"/stat", 4096)
	if err != nil {
		return procInfo{}, err
	}
	return parseStat(pid, b)
}

func parseStat(pid int, b []byte) (procInfo, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procInfo{}, fmt.Errorf("supervisor: /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, fmt.Errorf("supervisor: /proc/%d/stat: %d fields", pid, len(f)+2)
	}
	var err error
	num := func(s string) (int, error) { return strconv.Atoi(s) }
	p := procInfo{pid: pid, state: f[0][0], comm: string(b[open+1 : end])}
	if p.ppid, err = num(f[1]); err == nil {
		if p.pgid, err = num(f[2]); err == nil {
			if p.sid, err = num(f[3]); err == nil {
				p.start, err = strconv.ParseUint(f[19], 10, 64)
			}
		}
	}
	if err != nil {
		return procInfo{}, fmt.Errorf("supervisor: /proc/%d/stat: %w", pid, err)
	}
	if head, err := strconv.Atoi(strings.TrimSpace(string(b[:open]))); err != nil || head != pid {
		return procInfo{}, fmt.Errorf("supervisor: /proc/%d/stat: pid field %q", pid, b[:open])
	}
	p.image = imageOf(f)
	// Field 9, the kernel's flags: PF_EXITING (0x4) is set as the process
	// begins its exit, before its children are reparented.
	if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil {
		p.exiting = flags&0x4 != 0
	}
	return p, nil
}

// imageOf identifies the program image from fields 26 to 28 of a stat line
// (startcode, endcode, startstack: where the kernel mapped the program and
// its stack at the last exec, which address-space randomisation changes at
// every exec). A forked child shows its parent's until it execs. It is 0
// when the kernel hides them (another user's process, shown as 1, 1, 0) or
// has none (a zombie, a kernel thread): unknown.
func imageOf(f []string) uint64 {
	if len(f) < 26 {
		return 0
	}
	var v [3]uint64
	for i := range v {
		n, err := strconv.ParseUint(f[23+i], 10, 64)
		if err != nil {
			return 0
		}
		v[i] = n
	}
	if v[2] == 0 {
		return 0
	}
	// FNV-1a over the three words: a collision between two images of one
	// process would only keep an argv read before an exec.
	h := uint64(14695981039346656037)
	for _, n := range v {
		for range 8 {
			h ^= n & 0xff
			h *= 1099511628211
			n >>= 8
		}
	}
	return max(h, 1)
}

// pidEntry is one process directory of /proc: its pid and the inode number
// the directory listing gives it.
type pidEntry struct {
	pid int
	ino uint64
}

// readPIDs lists /proc's process directories with their inode numbers, in
// one pass of getdents64, without reading any of them.
func readPIDs(ctx context.Context) ([]pidEntry, error) {
	var out []pidEntry
	err := readDirents(procRoot, 0, func(name []byte, ino uint64) {
		pid, err := strconv.Atoi(string(name))
		if err == nil && pid > 0 && name[0] != '+' && name[0] != '-' {
			out = append(out, pidEntry{pid, ino})
		}
	})
	if err != nil {
		return nil, err
	}
	return out, ctx.Err()
}

// direntBufs holds getdents64 buffers: a capture lists the open files of
// every process of the run at each look.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 8<<10); return &b }}

// readDirents calls each with the name and inode number of every entry of
// directory path ("." and ".." excepted), at most limit of them (0: no
// limit). Like readBounded it uses plain system calls, not an *os.File.
func readDirents(path string, limit int, each func(name []byte, ino uint64)) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	count := 0
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "getdents", Path: path, Err: err}
		}
		if n <= 0 {
			return nil
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8,
		// then the name, NUL-terminated and padded to reclen.
		for b := buf[:n]; len(b) > 0; {
			if len(b) < 19 {
				return fmt.Errorf("supervisor: %s: short directory entry", path)
			}
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return fmt.Errorf("supervisor: %s: directory entry of %d bytes", path, reclen)
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			ino := binary.NativeEndian.Uint64(b[0:8])
			b = b[reclen:]
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			if limit > 0 && count >= limit {
				return nil
			}
			count++
			each(name, ino)
		}
	}
}

// lookTable is readTable for a run's looks, which come every 50 ms while a
// capture runs: it reads the stat of only the processes a look needs, and
// takes the others from what an earlier look read. stale names the
// processes it took so whose stat census must read again before it proves
// one ours (see below).
//
// A look needs the stat of every process that could be the run's or a
// member of a group of the run's: each process born no earlier than the
// launcher (since, in ticks) and each one in a session a process proven
// the run's was in (sessions). A process born before the launcher can be
// neither proven the run's (a child is born after its parent, and a
// process carrying the run ID must be born no earlier than the launcher)
// nor a member of a group of the run's outside those sessions (a process
// can join only a group of its own session, and can change its session
// only to a new one it leads), so its stat as an earlier look read it is
// as good as a new reading. Its pid and the inode number of its /proc
// directory say it is the same process: the kernel gives a process's
// directory a new inode when the pid names a new process (and sometimes
// when it dropped the directory from its cache: a reading then, nothing
// more). A process whose inode the listing does not give, or that no
// earlier look read, is read.
//
// A process born after the launcher that an earlier look proved not the
// run's (a stranger: no descendant of a process of the run, its
// environment read without the run ID, which is read once a process) is
// not read again either, while its parent lives: its parent is read
// instead, one reading for all its children (the machine's other work,
// often many processes under one shell or make). A stranger can become
// the run's only by descent, and its parent changes only when its parent
// exits (it is then reparented, perhaps to a subreaper of the run); so
// while the parent read at this look is the same process (its start
// time), neither dead nor exiting (the kernel marks a process exiting
// before it reparents its children), the stranger's parent is still the
// one the earlier look read, and it is still no child of the run's. Its
// group and session, which it can change, decide nothing a look proves:
// it can join no group of a session of the run's (it is in none, or it
// would be read), and census reads it again before it proves it the run's
// on any account.
//
// Nor does a stranger's parent tell when the stranger dies: it stays in
// /proc, a zombie, until its parent reaps it, and a parent may never. So a
// stranger's exit is watched through a pidfd (watchStrangers, up to
// maxStrangerFDs of them; one poll of them all a look, liveStrangers): one
// that exited is read again at the next look, and seen dead. A stranger
// no pidfd watches (past the bound, or without pidfds) is read again
// strangerRecheckLooks looks after its last reading, whatever its parent:
// one that died is then seen dead, at most that many looks (a second of a
// capture's) late, not live until reaped.
//
// The stop and Lineage read the whole table (readTable), as before.
func (r *Run) lookTable(ctx context.Context, since uint64, sessions map[int]bool) (tab map[int]procInfo, stale map[int]bool, err error) {
	ents, err := readPIDs(ctx)
	if err != nil {
		return nil, nil, err
	}
	r.looks++
	next := make(map[int]seenStat, len(ents))
	tab = make(map[int]procInfo, len(ents))
	// A stranger's parent is read at this look; the stranger itself only
	// once its parent's reading is known.
	parents := map[int]bool{}
	var strangers []pidEntry
	for _, e := range ents {
		if s, ok := r.seen[e.pid]; ok && s.stranger && e.ino != 0 && s.ino == e.ino && !sessions[s.p.sid] && s.p.ppid > 0 {
			parents[s.p.ppid] = true
			strangers = append(strangers, e)
		}
	}
	fresh := make(map[int]bool, len(parents))
	keep := func(e pidEntry, s seenStat) {
		next[e.pid] = s
		if !s.p.dead() {
			tab[e.pid] = s.p
		}
	}
	for i, e := range ents {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		s, ok := r.seen[e.pid]
		if ok && s.stranger && e.ino != 0 && s.ino == e.ino && !sessions[s.p.sid] && s.p.ppid > 0 && !parents[e.pid] {
			continue // below
		}
		if !ok || e.ino == 0 || s.ino != e.ino || s.p.start >= since || sessions[s.p.sid] || parents[e.pid] {
			p, err := r.readStatForLook(e.pid)
			if err != nil {
				continue // gone since the directory was read, or unparsable
			}
			s = seenStat{p: p, ino: e.ino, readAt: r.looks}
			fresh[e.pid] = true
		}
		keep(e, s)
	}
	stale = map[int]bool{}
	watched := r.liveStrangers(strangers)
	for _, e := range strangers {
		if _, done := next[e.pid]; done || fresh[e.pid] {
			continue // read above, as a stranger's parent
		}
		s := r.seen[e.pid]
		parent, ok := next[s.p.ppid]
		if ok && fresh[s.p.ppid] && parent.p.start == s.parentStart && !parent.p.dead() && !parent.p.exiting &&
			(watched[e.pid] || r.looks-s.readAt < strangerRecheckLooks) {
			keep(e, s)
			if !s.p.dead() {
				stale[e.pid] = true
			}
			continue
		}
		p, err := r.readStatForLook(e.pid)
		if err != nil {
			continue
		}
		keep(e, seenStat{p: p, ino: e.ino, readAt: r.looks})
	}
	r.seen = next
	return tab, stale, nil
}

// strangerRecheckLooks is how many looks a stranger's reading stands
// while its parent lives (see lookTable).
const strangerRecheckLooks = 20

// environLimit bounds how much of an environment is read; the kernel caps a
// process's environment far below it in practice.
const environLimit = 4 << 20

// tokenState reports whether pid's initial environment carries name=value as
// its first entry for name.
func tokenState(pid int, name, value string) (tokenResult, error) {
	b, err := readBounded(procRoot+"/"+strconv.Itoa(pid)+"/environ", environLimit)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return tokenGone, nil
		}
		return tokenUnreadable, err
	}
	prefix := name + "="
	for len(b) > 0 {
		entry := b
		if i := bytes.IndexByte(b, 0); i >= 0 {
			entry, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if bytes.HasPrefix(entry, []byte(prefix)) {
			if string(entry[len(prefix):]) == value {
				return tokenPresent, nil
			}
			return tokenMismatch, nil
		}
	}
	return tokenMismatch, nil
}

// readBounded reads at most limit bytes of path (a /proc file): past them it
// returns the first limit bytes and ErrTooLarge.
//
// It reads with plain system calls, not an *os.File: os.Open makes every
// file it opens non-blocking and tries to register it with the poller (two
// fcntl calls and an epoll_ctl per file), which a /proc file never needs,
// and a capture's sampler reads the stat of every process of the run at
// each 50 ms look.
func readBounded(path string, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	b := make([]byte, 0, min(limit+1, 1024))
	for int64(len(b)) <= limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):min(int64(cap(b)), limit+1)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			break
		}
		b = b[:len(b)+n]
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("supervisor: %s: %w (%d bytes)", path, ErrTooLarge, limit)
	}
	return b, nil
}

// /proc/PID/stat counts start times in USER_HZ ticks after boot; USER_HZ is
// 100 on every Linux ABI.
const userHZ = 100

// bootTime is read once, on first use: a package-level sync.OnceValue
// would be built by init code every rea process runs at start-up.
var bootTimeOnce struct {
	sync.Once
	t time.Time
}

func bootTime() time.Time {
	bootTimeOnce.Do(func() { bootTimeOnce.t = readBootTime() })
	return bootTimeOnce.t
}

func readBootTime() time.Time {
	b, err := readBounded(procRoot+"/stat", 1<<20)
	if err != nil {
		return time.Time{}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			if sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(sec, 0).UTC()
			}
		}
	}
	return time.Time{}
}

// startTime converts ticks after boot to a time, or the zero time when the
// boot time is unknown.
func startTime(ticks uint64) time.Time {
	bt := bootTime()
	if bt.IsZero() {
		return time.Time{}
	}
	return bt.Add(time.Duration(ticks/userHZ)*time.Second + time.Duration(ticks%userHZ)*(time.Second/userHZ))
}
