//go:build linux

package supervisor

import (
	"runtime"
	"syscall"
	"unsafe"
)

// A look watches a stranger's exit through a pidfd (see lookTable): one
// poll of every watched stranger a look, not a reading of each stranger's
// stat a second. A pidfd is only ever polled here, never signalled
// through: a stranger is not the run's.

// maxStrangerFDs bounds the pidfds a run holds; a stranger past it is
// read again strangerRecheckLooks looks after its last reading, as
// before.
var maxStrangerFDs = 256

// pidfdOpen opens a pidfd for pid (close-on-exec, as pidfd_open makes
// every one). It names whichever process holds pid now: the caller checks
// that it is the one it means.
func pidfdOpen(pid int) (int, error) {
	nr := uintptr(434) // pidfd_open, the same number on every architecture since Linux 5.3
	switch runtime.GOARCH {
	case "mips", "mipsle":
		nr += 4000
	case "mips64", "mips64le":
		nr += 5000
	}
	fd, _, errno := syscall.Syscall(nr, uintptr(pid), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

type pollFD struct {
	fd      int32
	events  int16
	revents int16
}

// pollExited polls fds (pidfds) at once, without waiting, and reports for
// each whether its process exited (the pidfd is readable) or the poll
// could not tell (an error): either way the caller reads it again.
func pollExited(fds []int) []bool {
	out := make([]bool, len(fds))
	if len(fds) == 0 {
		return out
	}
	pfds := make([]pollFD, len(fds))
	for i, fd := range fds {
		pfds[i] = pollFD{fd: int32(fd), events: 0x1} // POLLIN
	}
	var ts syscall.Timespec // zero: do not wait
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfds[0])), uintptr(len(pfds)),
			uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			for i := range out {
				out[i] = true
			}
			return out
		}
		break
	}
	for i, p := range pfds {
		out[i] = p.revents != 0 // POLLIN, or POLLERR, POLLHUP, POLLNVAL
	}
	return out
}

// watchStrangers opens a pidfd for each stranger the last look read (up
// to maxStrangerFDs in all) and closes those of processes no longer
// strangers (gone, reparented, proven the run's). A pidfd is kept only if
// the stat read after opening it shows the stranger's start time: the pid
// named no other process when it was opened. Called with lookMu held.
func (r *Run) watchStrangers() {
	r.mu.Lock()
	cleaned := r.cleaned
	r.mu.Unlock()
	if cleaned {
		r.closeExitFDs()
		return
	}
	for k, fd := range r.exitFDs {
		if s, ok := r.seen[k.pid]; !ok || !s.stranger || s.p.start != k.start {
			syscall.Close(fd)
			delete(r.exitFDs, k)
		}
	}
	for pid, s := range r.seen {
		k := procKey{pid, s.p.start}
		if !s.stranger || len(r.exitFDs) >= maxStrangerFDs {
			continue
		}
		if _, ok := r.exitFDs[k]; ok {
			continue
		}
		fd, err := pidfdOpen(pid)
		if err != nil {
			continue // gone, or no pidfds here: the recheck stands
		}
		p, err := r.readStatForLook(pid)
		if err != nil || p.start != s.p.start || p.dead() {
			syscall.Close(fd)
			continue
		}
		if r.exitFDs == nil {
			r.exitFDs = map[procKey]int{}
		}
		r.exitFDs[k] = fd
	}
}

// liveStrangers returns, of the strangers (whose readings are r.seen's),
// those a pidfd watches that have not exited.
func (r *Run) liveStrangers(strangers []pidEntry) map[int]bool {
	var pids, fds []int
	for _, e := range strangers {
		if fd, ok := r.exitFDs[procKey{e.pid, r.seen[e.pid].p.start}]; ok {
			pids, fds = append(pids, e.pid), append(fds, fd)
		}
	}
	live := make(map[int]bool, len(pids))
	for i, exited := range pollExited(fds) {
		if !exited {
			live[pids[i]] = true
		}
	}
	return live
}

// closeExitFDs closes every pidfd the run holds. Called with lookMu held.
func (r *Run) closeExitFDs() {
	for k, fd := range r.exitFDs {
		syscall.Close(fd)
		delete(r.exitFDs, k)
	}
}
