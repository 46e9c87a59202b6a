package hopper

import (
	"net"
	"time"
)

// SetWaitInterval shortens the waiting-notice interval for a test and
// returns the function that restores it.
func SetWaitInterval(d time.Duration) (restore func()) {
	old := waitInterval
	waitInterval = d
	return func() { waitInterval = old }
}

// ErrCrashed is errCrashed for the tests.
var ErrCrashed = errCrashed

// SetConnHook wraps every bridge connection with h until restore is called.
func SetConnHook(h func(net.Conn) net.Conn) (restore func()) {
	connHook = h
	return func() { connHook = nil }
}

// Bootstrap is bootstrap for the tests.
var Bootstrap = bootstrap

// SetDemo makes launchers with digest sha the Linux demo and runs unshare
// as path, until restore is called.
func SetDemo(sha, path string) (restore func()) {
	oldSHA, oldPath := demoSHA256, unsharePath
	demoSHA256, unsharePath = sha, path
	return func() { demoSHA256, unsharePath = oldSHA, oldPath }
}
