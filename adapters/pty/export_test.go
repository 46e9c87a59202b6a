//go:build linux

package pty

import "time"

// SetLoopStartDelay holds every capture's loop back by d before its first
// select until the returned function restores it.
func SetLoopStartDelay(d time.Duration) (restore func()) {
	old := loopStartDelay
	loopStartDelay = d
	return func() { loopStartDelay = old }
}

// SetArgvRecheckLooks makes a process's argv read stand n looks, not
// argvRecheckLooks, until the returned function restores it.
func SetArgvRecheckLooks(n int) (restore func()) {
	old := argvRecheckLooks
	argvRecheckLooks = n
	return func() { argvRecheckLooks = old }
}
