//go:build unix

package supervisor

import (
	"errors"
	"syscall"
)

func sysProcAttr(spec Spec) (*syscall.SysProcAttr, error) {
	if spec.ControllingTerminal {
		return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}, nil
	}
	if spec.Session {
		return &syscall.SysProcAttr{Setsid: true}, nil
	}
	return &syscall.SysProcAttr{Setpgid: true}, nil
}

// killGroup signals every member of process group pgid.
func killGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return errors.New("supervisor: refusing to signal process group <= 1")
	}
	return syscall.Kill(-pgid, sig)
}

// groupGone reports whether process group pgid has no member left. Signal 0
// delivers nothing; it only checks existence.
func groupGone(pgid int) bool {
	return pgid > 1 && errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
