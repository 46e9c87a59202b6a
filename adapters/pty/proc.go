//go:build linux

package pty

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"

	"rea/ports"
	"rea/supervisor"
)

// The capture observes its processes from /proc. Observation never signals:
// stopping and cleaning up are the supervisor's, which proves ownership again
// before every signal.

const procRoot = "/proc"

type procKey struct {
	pid   int
	start uint64
}

type procStat struct {
	pid, ppid, pgid, sid int
	start                uint64
	state                byte
	comm                 string
}

func (p procStat) dead() bool { return p.state == 'Z' || p.state == 'X' || p.state == 'x' }

func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return b[:limit], errTooLarge
	}
	return b, nil
}

var errTooLarge = errors.New("larger than the read bound")

func readProcStat(pid int) (procStat, error) {
	b, err := readBounded(procRoot+"/"+strconv.Itoa(pid)+"/stat", 4096)
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(pid, b)
}

// parseProcStat reads /proc/PID/stat: the command sits in parentheses and
// may contain anything, so the fields start after the last ')'.
func parseProcStat(pid int, b []byte) (procStat, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	p := procStat{pid: pid, state: f[0][0], comm: string(b[open+1 : end])}
	var err error
	if p.ppid, err = strconv.Atoi(f[1]); err == nil {
		if p.pgid, err = strconv.Atoi(f[2]); err == nil {
			if p.sid, err = strconv.Atoi(f[3]); err == nil {
				p.start, err = strconv.ParseUint(f[19], 10, 64)
			}
		}
	}
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return p, nil
}

func readProcTable() (map[int]procStat, error) {
	d, err := os.Open(procRoot)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	tab := make(map[int]procStat, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid <= 0 {
			continue
		}
		p, err := readProcStat(pid)
		if err != nil || p.dead() {
			continue
		}
		tab[pid] = p
	}
	return tab, nil
}

// hasRunID reports whether pid's initial environment sets name=value (the
// first entry for name counts). ok is false when it could not be read.
func hasRunID(pid int, value string) (has, ok bool) {
	b, err := readBounded(procRoot+"/"+strconv.Itoa(pid)+"/environ", 4<<20)
	if err != nil {
		return false, false
	}
	prefix := []byte(supervisor.RunIDEnv + "=")
	for len(b) > 0 {
		entry := b
		if i := bytes.IndexByte(b, 0); i >= 0 {
			entry, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if bytes.HasPrefix(entry, prefix) {
			return string(entry[len(prefix):]) == value, true
		}
	}
	return false, true
}

func readArgv(pid int) ([]string, bool) {
	b, err := readBounded(procRoot+"/"+strconv.Itoa(pid)+"/cmdline", 64<<10)
	if err != nil || len(b) == 0 {
		return nil, false // unreadable, or a kernel thread / zombie
	}
	b = bytes.TrimRight(b, "\x00")
	parts := strings.Split(string(b), "\x00")
	for i := range parts {
		parts[i] = toValidUTF8(parts[i])
	}
	return parts, true
}

type procRecord struct {
	ports.CapturedProcess
	key     procKey
	lastSig string
}

// sampler keeps the process tree as it grew. A process is the capture's when
// it is the launcher, a child (born no earlier) of a process already proven
// the capture's, or carries the run ID in its initial environment and was
// born no earlier than the launcher (a daemon that called setsid).
type sampler struct {
	launcher    int
	launchStart uint64
	runID       string
	limit       int64

	procs      map[procKey]*procRecord
	order      []procKey
	tokenSeen  map[procKey]bool // true: carries the run ID; false: checked, does not
	samples    []ports.ProcessSample
	partial    bool
	limitHit   bool
	failures   int
	firstFail  string
	sockets    map[string]*ports.ListeningSocket
	sockOrder  []string
	unreadable map[int]string
}

func newSampler(launcher int, start uint64, runID string, limit int64) *sampler {
	return &sampler{
		launcher: launcher, launchStart: start, runID: runID, limit: limit,
		procs: map[procKey]*procRecord{}, tokenSeen: map[procKey]bool{},
		sockets: map[string]*ports.ListeningSocket{}, unreadable: map[int]string{},
	}
}

func (s *sampler) fail(err error) {
	s.failures++
	s.partial = true
	if s.firstFail == "" {
		s.firstFail = err.Error()
	}
}

// sample takes one look and returns the capture's live processes.
func (s *sampler) sample(atMS int64) []procStat {
	tab, err := readProcTable()
	if err != nil {
		s.fail(err)
		return nil
	}
	owned := map[int]procStat{}
	if p, ok := tab[s.launcher]; ok && p.start == s.launchStart {
		owned[p.pid] = p
	}
	for k := range s.procs {
		if p, ok := tab[k.pid]; ok && p.start == k.start {
			owned[p.pid] = p
		}
	}
	grow := func() {
		for changed := true; changed; {
			changed = false
			for pid, p := range tab {
				if _, ok := owned[pid]; ok {
					continue
				}
				if parent, ok := owned[p.ppid]; ok && p.start >= parent.start {
					owned[pid] = p
					changed = true
				}
			}
		}
	}
	grow()
	byToken := map[int]bool{}
	for pid, p := range tab {
		if _, ok := owned[pid]; ok || p.start < s.launchStart || pid == os.Getpid() {
			continue
		}
		k := procKey{pid, p.start}
		has, seen := s.tokenSeen[k]
		if !seen {
			var ok bool
			has, ok = hasRunID(pid, s.runID)
			if !ok {
				// Another user's process, or one that is gone: not ours to
				// claim, and not worth a failure unless it is in our group.
				continue
			}
			s.tokenSeen[k] = has
		}
		if has {
			owned[pid] = p
			byToken[pid] = true
		}
	}
	grow()

	live := make([]procStat, 0, len(owned))
	for _, p := range owned {
		live = append(live, p)
	}
	sort.Slice(live, func(i, j int) bool { return live[i].pid < live[j].pid })
	for _, p := range live {
		k := procKey{p.pid, p.start}
		rec, ok := s.procs[k]
		if !ok {
			argv, readable := readArgv(p.pid)
			rec = &procRecord{key: k, CapturedProcess: ports.CapturedProcess{
				PID: p.pid, Comm: p.comm, Argv: argv, ArgvReadable: readable,
				FirstSeenMS: atMS, ByRunID: byToken[p.pid],
			}}
			s.procs[k] = rec
			s.order = append(s.order, k)
		}
		rec.ParentPID, rec.ProcessGroupID, rec.SessionID = p.ppid, p.pgid, p.sid
		rec.LastSeenMS = atMS
		if p.comm != rec.Comm || !rec.ArgvReadable {
			// An exec (the kernel's command name changed) or a first read
			// that failed: the argv is read again.
			rec.Comm = p.comm
			rec.Argv, rec.ArgvReadable = readArgv(p.pid)
		}
		cmd := p.comm
		if rec.ArgvReadable {
			cmd = strings.Join(rec.Argv, " ")
		}
		sig := fmt.Sprintf("%d\x00%s\x00%d\x00%d", p.ppid, cmd, p.pgid, p.sid)
		if sig != rec.lastSig {
			rec.lastSig = sig
			if int64(len(s.samples)) >= s.limit {
				s.limitHit, s.partial = true, true
			} else {
				s.samples = append(s.samples, ports.ProcessSample{
					AtMS: atMS, PID: p.pid, ParentPID: p.ppid, Command: cmd,
					ProcessGroupID: p.pgid, SessionID: p.sid,
				})
			}
		}
	}
	s.sampleSockets(live, atMS)
	return live
}

// sampleSockets records the listening TCP sockets the live processes hold.
func (s *sampler) sampleSockets(live []procStat, atMS int64) {
	inodes := map[string]int{}
	for _, p := range live {
		dir := procRoot + "/" + strconv.Itoa(p.pid) + "/fd"
		d, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(4096)
		d.Close()
		for _, n := range names {
			link, err := os.Readlink(dir + "/" + n)
			if err != nil {
				continue
			}
			if in, ok := strings.CutPrefix(link, "socket:["); ok {
				inodes[strings.TrimSuffix(in, "]")] = p.pid
			}
		}
	}
	if len(inodes) == 0 {
		return
	}
	for _, proto := range []string{"tcp", "tcp6"} {
		b, err := readBounded(procRoot+"/net/"+proto, 16<<20)
		if err != nil && !errors.Is(err, errTooLarge) {
			continue
		}
		for _, l := range parseListeners(proto, b) {
			pid, ok := inodes[l.inode]
			if !ok {
				continue
			}
			key := proto + " " + l.inode
			if _, seen := s.sockets[key]; seen {
				continue
			}
			s.sockets[key] = &ports.ListeningSocket{
				Protocol: proto, Address: l.addr.String(), Port: l.port,
				Loopback: l.addr.IsLoopback(), PID: pid, FirstSeenMS: atMS,
			}
			s.sockOrder = append(s.sockOrder, key)
		}
	}
}

type listener struct {
	addr  net.IP
	port  int
	inode string
}

// parseListeners reads /proc/net/tcp{,6} and returns the sockets in LISTEN
// state (0A). Addresses are hex in host byte order per 32-bit word.
func parseListeners(proto string, b []byte) []listener {
	var out []listener
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		host, port, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		raw, err := hex.DecodeString(host)
		if err != nil || (proto == "tcp" && len(raw) != 4) || (proto == "tcp6" && len(raw) != 16) {
			continue
		}
		ip := make(net.IP, len(raw))
		for w := 0; w+4 <= len(raw); w += 4 {
			ip[w], ip[w+1], ip[w+2], ip[w+3] = raw[w+3], raw[w+2], raw[w+1], raw[w]
		}
		pn, err := strconv.ParseUint(port, 16, 16)
		if err != nil {
			continue
		}
		out = append(out, listener{addr: ip, port: int(pn), inode: f[9]})
	}
	return out
}

// processes returns the records in first-seen order.
func (s *sampler) processes() []ports.CapturedProcess {
	out := make([]ports.CapturedProcess, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, s.procs[k].CapturedProcess)
	}
	return out
}

func (s *sampler) listening() []ports.ListeningSocket {
	out := make([]ports.ListeningSocket, 0, len(s.sockOrder))
	for _, k := range s.sockOrder {
		out = append(out, *s.sockets[k])
	}
	return out
}

// pids returns every pid seen, for normalization.
func (s *sampler) pids() []int {
	seen := map[int]bool{s.launcher: true}
	out := []int{s.launcher}
	add := func(p int) {
		if p > 1 && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, k := range s.order {
		r := s.procs[k]
		add(r.PID)
		add(r.ProcessGroupID)
		add(r.SessionID)
	}
	return out
}
