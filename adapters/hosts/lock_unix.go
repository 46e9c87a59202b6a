//go:build unix

package hosts

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockTimeout bounds how long a setup waits for another one.
const lockTimeout = 30 * time.Second

// lock takes an exclusive flock on <real>.rea.lock. The holder removes the
// lock file before releasing it; a waiter that wins a lock on a file that
// was removed meanwhile (its inode no longer at the path) tries again, so
// two runs never both believe they hold it.
func lock(real string) (unlock func(), err error) {
	path := real + ".rea.lock"
	deadline := time.Now().Add(lockTimeout)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		for {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		held, herr := f.Stat()
		now, nerr := os.Stat(path)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return func() {
				os.Remove(path)
				f.Close() // releases the flock
			}, nil
		}
		f.Close()
		if time.Now().After(deadline) {
			return nil, errors.New("lock file keeps changing")
		}
	}
}
