//go:build !unix

package hosts

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

const lockTimeout = 30 * time.Second

// lock without flock: an exclusively created lock file. A run that dies
// while holding it leaves the file behind; the error names it.
func lock(real string) (unlock func(), err error) {
	path := real + ".rea.lock"
	deadline := time.Now().Add(lockTimeout)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return func() { f.Close(); os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
