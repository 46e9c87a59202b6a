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
